// Clock synchronisation of a replay's ranks against rank 0: the ping-pong rounds the capture
// interposer makes at MPI_Init and MPI_Finalize (mpi/interpose/rastro_pmpi.c, Cristian's
// algorithm), here over the replay's transport, so `rastro merge` puts the replayed traces on
// one clock exactly as it does the captured ones.
#pragma once

#include <vector>

#include "mpi/mpi_log.h"
#include "mpi/replay/token_transport.h"

namespace rastro::mpi {

// Collective: every rank calls it. Rank 0 answers `rounds` rounds of each other rank, in rank
// order, and returns nothing; the others return their rounds (t1, rank 0's clock, t2).
std::vector<SyncRound> sync_with_rank0(TokenTransport& transport, int rounds);

}  // namespace rastro::mpi

// The per-rank log the MPI interposition library (mpi/interpose/rastro_pmpi.c) writes, and its
// reader. Text, one record a line, so a rank killed mid-way leaves every complete line readable:
//
//   rastro-mpi 1
//   rank 1 4 node7 10567                       world rank, world size, host, pid
//   job node0-10566-403552343665               the same id in every rank's log (rank 0's, broadcast)
//   S init 1403952117138 403952145300 1403952158880    a sync round: t1, rank 0's clock, t2
//   E MPI_Send 10566 4040481015 4040481069 0 1 7 4 0 0  name tid begin end comm peer tag bytes extra rc
//   end 0                                      written by MPI_Finalize: records the library dropped
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::mpi {

// One ping-pong round against rank 0 (Cristian): rank 0 read its clock (`reference`) at some
// instant between `sent` and `received` on this rank's clock.
struct SyncRound {
  int64_t sent = 0;
  int64_t reference = 0;
  int64_t received = 0;
};

struct MpiRecord {
  std::string name;     // MPI_Send, MPI_Irecv, MPI_Barrier, ... (mpi/mpi_ops.h)
  int32_t tid = 0;
  int64_t begin = 0;    // CLOCK_MONOTONIC of the rank
  int64_t end = 0;
  int64_t comm = 0;     // communicator key: 0 = MPI_COMM_WORLD, -1 = none/unknown
  int32_t peer = -1;    // world rank of the peer or root; -1 none; MPI_ANY_SOURCE etc. as given
  int32_t tag = -1;
  int64_t bytes = 0;
  int64_t extra = 0;    // collectives: sequence number on the communicator; waits: requests
  int32_t rc = 0;       // the MPI return code
  int line = 0;         // where it was read (for messages)
};

struct RankLog {
  int rank = -1;
  int size = 0;
  std::string host;
  int32_t pid = 0;
  std::string job;
  std::vector<SyncRound> init_sync;
  std::vector<SyncRound> finalize_sync;
  std::vector<MpiRecord> records;
  bool finalized = false;        // the `end` line is there (MPI_Finalize ran)
  uint64_t dropped_by_library = 0;
};

// Reads a log. Throws rastro::Error naming the file and line of the first malformed record; a
// log cut short after a complete line is not an error (finalized stays false).
RankLog read_rank_log(const std::string& path);
RankLog parse_rank_log(const std::string& text, const std::string& name_for_errors);

// Sync rounds as a trace header keeps them (header.extra.mpi.sync): [[sent, reference, received], ...].
nlohmann::json sync_rounds_json(const std::vector<SyncRound>& rounds);

}  // namespace rastro::mpi

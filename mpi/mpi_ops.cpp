#include "mpi/mpi_ops.h"

#include <array>

namespace rastro::mpi {

namespace {

constexpr std::array kOps = {
    MpiOpInfo{"MPI_Init", MpiOpKind::kLifecycle},        MpiOpInfo{"MPI_Finalize", MpiOpKind::kLifecycle},
    MpiOpInfo{"MPI_Send", MpiOpKind::kSend},             MpiOpInfo{"MPI_Ssend", MpiOpKind::kSend},
    MpiOpInfo{"MPI_Bsend", MpiOpKind::kSend},            MpiOpInfo{"MPI_Rsend", MpiOpKind::kSend},
    MpiOpInfo{"MPI_Isend", MpiOpKind::kSend},            MpiOpInfo{"MPI_Sendrecv.send", MpiOpKind::kSend},
    MpiOpInfo{"MPI_Recv", MpiOpKind::kRecv},             MpiOpInfo{"MPI_Irecv", MpiOpKind::kRecv},
    MpiOpInfo{"MPI_Sendrecv.recv", MpiOpKind::kRecv},    MpiOpInfo{"MPI_Wait", MpiOpKind::kCompletion},
    MpiOpInfo{"MPI_Waitall", MpiOpKind::kCompletion},    MpiOpInfo{"MPI_Waitany", MpiOpKind::kCompletion},
    MpiOpInfo{"MPI_Waitsome", MpiOpKind::kCompletion},   MpiOpInfo{"MPI_Barrier", MpiOpKind::kCollective},
    MpiOpInfo{"MPI_Bcast", MpiOpKind::kCollective},      MpiOpInfo{"MPI_Reduce", MpiOpKind::kCollective},
    MpiOpInfo{"MPI_Allreduce", MpiOpKind::kCollective},  MpiOpInfo{"MPI_Gather", MpiOpKind::kCollective},
    MpiOpInfo{"MPI_Scatter", MpiOpKind::kCollective},    MpiOpInfo{"MPI_Allgather", MpiOpKind::kCollective},
    MpiOpInfo{"MPI_Alltoall", MpiOpKind::kCollective},
};

}  // namespace

std::span<const MpiOpInfo> all_mpi_ops() { return kOps; }

const MpiOpInfo* mpi_op_by_name(std::string_view name) {
  for (const auto& op : kOps)
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace rastro::mpi

// The MPI replay shim (mpi/shim/rastro_mpireplay.h) of the rank's MPI, dlopened: rastro links no
// MPI library, the launcher's environment says which MPI the rank belongs to (launch_env.h), and
// the shim built for that ABI is loaded. MPI_Init runs in the constructor, MPI_Finalize in
// finish() only (a rank that fails exits without it: see the destructor). Every MPI failure is a rastro::Error naming the call.
#pragma once

#include <string>

#include "mpi/launch_env.h"
#include "mpi/replay/token_transport.h"

namespace rastro::mpi {

class ShimLink final : public TokenTransport {
 public:
  explicit ShimLink(const std::string& library);
  ~ShimLink() override;
  ShimLink(const ShimLink&) = delete;
  ShimLink& operator=(const ShimLink&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int dest, int tag, int64_t value) override;
  bool poll(int tag, int* source, int64_t* value) override;
  int64_t recv(int source, int tag) override;
  void barrier() override;
  void finish();  // completes pending sends, MPI_Finalize

 private:
  void check(int rc, const char* call) const;
  void* handle_ = nullptr;
  std::string library_;
  int rank_ = -1, size_ = 0;
  int (*init_)(int*, int*) = nullptr;
  int (*send_)(int, int, int64_t) = nullptr;
  int (*poll_)(int, int*, int64_t*) = nullptr;
  int (*recv_)(int, int, int64_t*) = nullptr;
  int (*barrier_)() = nullptr;
  int (*finalize_)() = nullptr;
};

}  // namespace rastro::mpi

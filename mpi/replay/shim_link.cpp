#include "mpi/replay/shim_link.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::mpi {

namespace {

template <typename F>
void bind_symbol(void* handle, const std::string& library, const char* name, F*& out) {
  out = reinterpret_cast<F*>(dlsym(handle, name));
  if (!out) throw Error(fmt::format("replay --mpi: {} has no {} (a rastro MPI replay shim?)", library, name));
}

}  // namespace

ShimLink::ShimLink(const std::string& library) : library_(library) {
  // RTLD_GLOBAL: the MPI library's own plugins (Open MPI's MCA components) resolve its symbols.
  handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle_)
    throw Error(fmt::format("replay --mpi: cannot load the MPI replay shim {}: {} (build rastro with that MPI's "
                            "development package, or set RASTRO_MPIREPLAY_LIB)", library, dlerror()), 69);
  bind_symbol(handle_, library_, "rastro_mpireplay_init", init_);
  bind_symbol(handle_, library_, "rastro_mpireplay_send", send_);
  bind_symbol(handle_, library_, "rastro_mpireplay_poll", poll_);
  bind_symbol(handle_, library_, "rastro_mpireplay_recv", recv_);
  bind_symbol(handle_, library_, "rastro_mpireplay_barrier", barrier_);
  bind_symbol(handle_, library_, "rastro_mpireplay_finalize", finalize_);
  check(init_(&rank_, &size_), "MPI_Init_thread");
}

ShimLink::~ShimLink() = default;
// Neither MPI_Finalize nor dlclose here: after an error the other ranks may be blocked in a
// collective that a finalize would wait on; the rank exits with an error instead and the launcher
// ends the job. The library stays loaded (MPI may run exit handlers from it).

void ShimLink::check(int rc, const char* call) const {
  if (rc != 0) throw Error(fmt::format("replay --mpi: rank {}: {} failed (MPI error {})", rank_, call, rc));
}

void ShimLink::send(int dest, int tag, int64_t value) { check(send_(dest, tag, value), "MPI_Isend"); }

bool ShimLink::poll(int tag, int* source, int64_t* value) {
  const int r = poll_(tag, source, value);
  if (r < 0) check(-r, "MPI_Iprobe/MPI_Recv");
  return r == 1;
}

int64_t ShimLink::recv(int source, int tag) {
  int64_t v = 0;
  check(recv_(source, tag, &v), "MPI_Recv");
  return v;
}

void ShimLink::barrier() { check(barrier_(), "MPI_Barrier"); }

void ShimLink::finish() {
  check(finalize_(), "MPI_Finalize");
}

}  // namespace rastro::mpi

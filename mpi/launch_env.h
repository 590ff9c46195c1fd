// What an MPI launcher tells a rank through its environment, and which interposition library
// fits the rank's MPI. `rastro capture --mpi` runs as the rank (mpirun/mpiexec/srun start rastro,
// rastro starts the application), so it reads these before the application starts.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rastro::mpi {

enum class MpiFlavor { kOpenMpi, kMpich };

struct LaunchEnv {
  int rank = -1;
  int size = 0;
  MpiFlavor flavor = MpiFlavor::kOpenMpi;
  std::string launcher;  // "Open MPI", "MPICH (Hydra)", "Slurm", "PMIx"
};

// From OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/SIZE (MPICH Hydra), PMIX_RANK, SLURM_PROCID/NTASKS.
// `getenv` is a parameter so tests can give an environment. nullopt when no launcher is visible.
std::optional<LaunchEnv> detect_launch_env(const char* (*getenv_fn)(const char*));

// The interposition library for a flavor: $RASTRO_PMPI_LIB when set, else the one built beside the
// rastro executable (lib/librastro_pmpi_openmpi.so or lib/librastro_pmpi_mpich.so).
std::string interposer_path(MpiFlavor flavor);
// The replay shim for a flavor (`rastro replay --mpi`, mpi/shim/): $RASTRO_MPIREPLAY_LIB when set,
// else lib/librastro_mpireplay_<flavor>.so beside the rastro executable.
std::string replay_shim_path(MpiFlavor flavor);

// The launcher of a flavor as Debian installs it (mpirun.openmpi, mpirun.mpich: both can be
// installed side by side, while `mpirun` is whichever the alternatives point to).
std::string launcher_program(MpiFlavor flavor);
// The argv that starts `ranks` processes of the program that follows on this machine: more ranks
// than cores (--oversubscribe), as root (--allow-run-as-root, which Open MPI demands), ranks
// talking through shared memory (Open MPI's self,vader transports: no network needed).
std::vector<std::string> local_launch_command(MpiFlavor flavor, int ranks, bool as_root);
// The MPI workload rastro builds per flavor beside its executable (mpi/workload/mpi_io_ranks.c:
// per-rank files, a token ring, a shared file): lib/rastro_mpi_io_ranks_<flavor>, or
// $RASTRO_MPI_WORKLOAD when set. `rastro validate mpi` runs it.
std::string workload_path(MpiFlavor flavor);
// "openmpi" / "mpich" -> the flavor; nullopt for any other name.
std::optional<MpiFlavor> flavor_from_name(const std::string& name);

// The monotonic offset of this process's time namespace (/proc/self/timens_offsets), ns; 0 when none.
int64_t time_namespace_monotonic_offset();

const char* flavor_name(MpiFlavor f);

}  // namespace rastro::mpi

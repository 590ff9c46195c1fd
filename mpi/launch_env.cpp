#include "mpi/launch_env.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rastro::mpi {

namespace {

std::optional<int> int_env(const char* (*getenv_fn)(const char*), const char* name) {
  const char* v = getenv_fn(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > (1 << 30)) return std::nullopt;
  return static_cast<int>(x);
}

}  // namespace

std::optional<LaunchEnv> detect_launch_env(const char* (*getenv_fn)(const char*)) {
  struct Source {
    const char* rank;
    const char* size;
    MpiFlavor flavor;
    const char* launcher;
  };
  // Most specific first: Open MPI also sets PMIX_RANK; Slurm's srun may start either MPI.
  const Source sources[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", MpiFlavor::kOpenMpi, "Open MPI"},
      {"PMI_RANK", "PMI_SIZE", MpiFlavor::kMpich, "MPICH (Hydra)"},
      {"PMIX_RANK", "OMPI_UNIVERSE_SIZE", MpiFlavor::kOpenMpi, "PMIx"},
      {"SLURM_PROCID", "SLURM_NTASKS", MpiFlavor::kOpenMpi, "Slurm"},
  };
  for (const auto& s : sources) {
    auto rank = int_env(getenv_fn, s.rank);
    if (!rank) continue;
    LaunchEnv env;
    env.rank = *rank;
    env.size = int_env(getenv_fn, s.size).value_or(0);
    env.flavor = s.flavor;
    env.launcher = s.launcher;
    return env;
  }
  return std::nullopt;
}

const char* flavor_name(MpiFlavor f) { return f == MpiFlavor::kOpenMpi ? "openmpi" : "mpich"; }

std::optional<MpiFlavor> flavor_from_name(const std::string& name) {
  if (name == "openmpi") return MpiFlavor::kOpenMpi;
  if (name == "mpich") return MpiFlavor::kMpich;
  return std::nullopt;
}

std::string launcher_program(MpiFlavor flavor) { return std::string("mpirun.") + flavor_name(flavor); }

std::vector<std::string> local_launch_command(MpiFlavor flavor, int ranks, bool as_root) {
  std::vector<std::string> argv = {launcher_program(flavor)};
  if (flavor == MpiFlavor::kOpenMpi) {
    argv.insert(argv.end(), {"--oversubscribe", "--mca", "btl", "self,vader"});
    if (as_root) argv.push_back("--allow-run-as-root");
  }
  // Hydra (MPICH) oversubscribes a single host without being asked and runs as root as is.
  argv.insert(argv.end(), {"-n", std::to_string(ranks)});
  return argv;
}

namespace {

// A per-flavor library (or program) rastro builds into lib/ beside its executable, unless `env` names another.
std::string flavor_library(const char* env, const std::string& stem, MpiFlavor flavor, const char* suffix = ".so") {
  if (const char* p = std::getenv(env); p && *p) return p;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string file = stem + flavor_name(flavor) + suffix;
  return ec ? file : (exe.parent_path() / "lib" / file).string();
}

}  // namespace

std::string interposer_path(MpiFlavor flavor) { return flavor_library("RASTRO_PMPI_LIB", "librastro_pmpi_", flavor); }

std::string workload_path(MpiFlavor flavor) {
  return flavor_library("RASTRO_MPI_WORKLOAD", "rastro_mpi_io_ranks_", flavor, "");
}

std::string replay_shim_path(MpiFlavor flavor) {
  return flavor_library("RASTRO_MPIREPLAY_LIB", "librastro_mpireplay_", flavor);
}

int64_t time_namespace_monotonic_offset() {
  std::ifstream in("/proc/self/timens_offsets");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string clock;
    int64_t sec = 0, nsec = 0;
    if (f >> clock >> sec >> nsec && clock == "monotonic") return sec * 1000000000 + nsec;
  }
  return 0;
}

}  // namespace rastro::mpi

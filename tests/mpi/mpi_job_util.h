// What the real-MPI tests share (mpi_capture_test.cpp, mpi_replay_test.cpp): the MPIs built here
// with their launch commands, the job's shape, scratch directories.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace rastro::mpi::testing {

using cli_test::sh;

constexpr int kRanks = 4;
constexpr int kRounds = 3;
constexpr int64_t kStepSeconds = 1000;

struct Flavor {
  std::string name;
  std::string app;
  std::string launch;  // mpirun/mpiexec with the flags this test needs, up to the program
};

inline std::vector<Flavor> flavors() {
  std::vector<Flavor> f;
#ifdef MPI_APP_OPENMPI
  f.push_back({"openmpi", MPI_APP_OPENMPI,
               "mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader -x RASTRO_TEST_CLOCK_STEP_S"});
#endif
#ifdef MPI_APP_MPICH
  f.push_back({"mpich", MPI_APP_MPICH, "mpirun.mpich -genvlist RASTRO_TEST_CLOCK_STEP_S"});
#endif
  return f;
}

inline std::string scratch(const std::string& what) {
  auto d = std::filesystem::temp_directory_path() / ("rastro-mpi-" + what + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d / "data");
  return d.string();
}

inline bool can_unshare_time() { return sh("unshare --time --monotonic 5 true").status == 0; }

}  // namespace rastro::mpi::testing

// What the real-MPI tests share (mpi_capture_test.cpp, mpi_replay_test.cpp): the MPIs built here
// with their launch commands, the job's shape, scratch directories.
#pragma once

#include <unistd.h>

#include <cstdlib>
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

// Open MPI makes its session directory /tmp/ompi.HOST.UID at each mpirun; two jobs started at once
// (ctest -j runs two MPI tests side by side) race to create it, and the loser's mpirun fails
// ("A call to mkdir was unable to create the desired directory ... File exists", orte_init
// failed). Every job of this test process, its own or the ones rastro launches, gets a base of its
// own instead, removed when the process ends.
inline const bool kOwnOpenMpiSessionBase = [] {
  static const std::string base =
      (std::filesystem::temp_directory_path() / ("rastro-ompi-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(base);
  ::setenv("OMPI_MCA_orte_tmpdir_base", base.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(base, ec);
  });
  return true;
}();

inline std::string scratch(const std::string& what) {
  auto d = std::filesystem::temp_directory_path() / ("rastro-mpi-" + what + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d / "data");
  return d.string();
}

inline bool can_unshare_time() { return sh("unshare --time --monotonic 5 true").status == 0; }

}  // namespace rastro::mpi::testing

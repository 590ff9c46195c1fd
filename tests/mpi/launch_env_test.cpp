#include "mpi/launch_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace rastro::mpi {
namespace {

std::map<std::string, std::string> g_env;
const char* fake_getenv(const char* n) {
  auto it = g_env.find(n);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

TEST(LaunchEnv, ReadsEachLaunchersVariables) {
  g_env = {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"PMIX_RANK", "3"}};
  auto e = detect_launch_env(fake_getenv);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 3);
  EXPECT_EQ(e->size, 8);
  EXPECT_EQ(e->flavor, MpiFlavor::kOpenMpi);
  g_env = {{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}};
  e = detect_launch_env(fake_getenv);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->flavor, MpiFlavor::kMpich);
  EXPECT_EQ(e->launcher, "MPICH (Hydra)");
  g_env = {{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}};
  e = detect_launch_env(fake_getenv);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 5);
}

TEST(LaunchEnv, NoLauncherOrGarbageIsNoRank) {
  g_env = {};
  EXPECT_FALSE(detect_launch_env(fake_getenv));
  g_env = {{"PMI_RANK", "one"}};
  EXPECT_FALSE(detect_launch_env(fake_getenv));
  g_env = {{"PMI_RANK", "-1"}};
  EXPECT_FALSE(detect_launch_env(fake_getenv));
}

TEST(LaunchEnv, LocalLaunchCommandsOfEachMpi) {
  using V = std::vector<std::string>;
  EXPECT_EQ(local_launch_command(MpiFlavor::kOpenMpi, 2, false),
            (V{"mpirun.openmpi", "--oversubscribe", "--mca", "btl", "self,vader", "-n", "2"}));
  EXPECT_EQ(local_launch_command(MpiFlavor::kOpenMpi, 4, true),
            (V{"mpirun.openmpi", "--oversubscribe", "--mca", "btl", "self,vader", "--allow-run-as-root", "-n", "4"}));
  EXPECT_EQ(local_launch_command(MpiFlavor::kMpich, 3, true), (V{"mpirun.mpich", "-n", "3"}));
  EXPECT_EQ(flavor_from_name("mpich"), MpiFlavor::kMpich);
  EXPECT_EQ(flavor_from_name("openmpi"), MpiFlavor::kOpenMpi);
  EXPECT_FALSE(flavor_from_name("OpenMPI"));
}

TEST(LaunchEnv, TheWorkloadIsBuiltBesideRastroUnlessTheEnvironmentNamesOne) {
  unsetenv("RASTRO_MPI_WORKLOAD");
  // Beside this test executable's directory, as it is beside rastro's.
  EXPECT_TRUE(workload_path(MpiFlavor::kMpich).ends_with("/lib/rastro_mpi_io_ranks_mpich")) << workload_path(MpiFlavor::kMpich);
  setenv("RASTRO_MPI_WORKLOAD", "/opt/app", 1);
  EXPECT_EQ(workload_path(MpiFlavor::kOpenMpi), "/opt/app");
  unsetenv("RASTRO_MPI_WORKLOAD");
}

}  // namespace
}  // namespace rastro::mpi

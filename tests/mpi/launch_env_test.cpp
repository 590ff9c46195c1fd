#include "mpi/launch_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

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

}  // namespace
}  // namespace rastro::mpi

// CPU pinning of measured processes: the kernel reports the pinned set for this thread and for a
// child forked while pinned, and the previous set once the pinning ends.
#include "campaign/cpu_pinning.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "campaign/subprocess.h"
#include "common/error.h"

namespace rastro::campaign {
namespace {

TEST(CpuPinning, PinsThisThreadAndItsChildrenThenRestores) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 2) GTEST_SKIP() << "pinning is only observable with two or more online CPUs (" << online << " here)";
  const std::string before = cpus_allowed_list();
  ASSERT_FALSE(before.empty());
  const int last = static_cast<int>(online - 1);
  {
    ScopedCpuPinning pin({last});
    EXPECT_EQ(cpus_allowed_list(), std::to_string(last));
    ProcessResult child = run_process({"grep", "Cpus_allowed_list", "/proc/self/status"}, 30);
    ASSERT_EQ(child.status, 0) << child.output;
    EXPECT_NE(child.output.find("\t" + std::to_string(last) + "\n"), std::string::npos) << child.output;
  }
  EXPECT_EQ(cpus_allowed_list(), before);
}

TEST(CpuPinning, NoCpusPinsNothingAndAMissingCpuIsAnError) {
  const std::string before = cpus_allowed_list();
  { ScopedCpuPinning none({}); EXPECT_EQ(cpus_allowed_list(), before); }
  try {
    ScopedCpuPinning bad({1000});
    FAIL() << "pinned to CPU 1000";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cpus_allowed_list(), before);
}

}  // namespace
}  // namespace rastro::campaign

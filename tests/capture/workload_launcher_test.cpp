#include "capture/common/workload_launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace rastro::capture {
namespace {

int run(const std::vector<std::string>& argv, std::function<int()> hook = nullptr, std::string* failure = nullptr) {
  WorkloadLauncher w;
  pid_t pid = w.spawn({argv, std::move(hook)});
  w.release();
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  if (failure) *failure = w.launch_failure();
  return shell_status(status);
}

TEST(WorkloadLauncher, ExitStatusIsShellStyle) {
  EXPECT_EQ(run({"sh", "-c", "exit 3"}), 3);
  EXPECT_EQ(run({"sh", "-c", "kill -TERM $$"}), 128 + SIGTERM);
  std::string failure;
  EXPECT_EQ(run({"true"}, nullptr, &failure), 0);
  EXPECT_EQ(failure, "");
}

TEST(WorkloadLauncher, ChildWaitsForRelease) {
  auto marker = std::filesystem::temp_directory_path() / ("rastro-launch-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  WorkloadLauncher w;
  pid_t pid = w.spawn({{"touch", marker.string()}, nullptr});
  ::usleep(200000);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the child ran before release()";
  w.release();
  int status;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(std::filesystem::exists(marker));
  std::filesystem::remove(marker);
}

TEST(WorkloadLauncher, UnknownCommandIs127) {
  WorkloadLauncher w;
  try {
    w.spawn({{"rastro-no-such-command-xyz"}, nullptr});
    FAIL() << "spawn accepted an unknown command";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 127);
    EXPECT_NE(std::string(e.what()).find("command not found"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(resolve_command("/").ok());
  EXPECT_TRUE(resolve_command("sh").ok());
}

TEST(WorkloadLauncher, ExecFailureIsReportedThroughThePipe) {
  // An executable file the kernel cannot run (no #! line, not ELF) passes resolve_command.
  auto bad = std::filesystem::temp_directory_path() / ("rastro-badexe-" + std::to_string(::getpid()));
  {
    FILE* f = std::fopen(bad.c_str(), "w");
    std::fputs("\x7f" "garbage", f);
    std::fclose(f);
  }
  std::filesystem::permissions(bad, std::filesystem::perms::owner_all);
  std::string failure;
  EXPECT_EQ(run({bad.string()}, nullptr, &failure), 127);
  EXPECT_NE(failure.find("cannot execute"), std::string::npos) << failure;
  std::filesystem::remove(bad);
}

TEST(WorkloadLauncher, PreExecHookRunsInTheChildAndItsFailureIs127) {
  std::string failure;
  EXPECT_EQ(run({"true"}, [] { return EPERM; }, &failure), 127);
  EXPECT_NE(failure.find("before exec"), std::string::npos) << failure;
  // The hook's effect is visible to the command: here a changed directory.
  EXPECT_EQ(run({"sh", "-c", "test \"$(pwd)\" = /"}, [] { return ::chdir("/") == 0 ? 0 : errno; }), 0);
}

TEST(WorkloadLauncher, SubreaperWaitsForOrphans) {
  auto marker = std::filesystem::temp_directory_path() / ("rastro-orphan-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  become_subreaper();
  WorkloadLauncher w;
  // The shell exits at once; its background child is re-parented to us and must still be waited.
  pid_t pid = w.spawn({{"sh", "-c", "(sleep 0.3; touch " + marker.string() + ") & exit 5"}, nullptr});
  w.release();
  EXPECT_EQ(wait_all_children(pid), 5);
  EXPECT_TRUE(std::filesystem::exists(marker));
  std::filesystem::remove(marker);
}

}  // namespace
}  // namespace rastro::capture

// FsLoader::add_task on tasks that are gone: a thread listed in /proc/PID/task may exit before it
// is registered (a replay timed with eBPF lists its own threads while earlier ones are ending);
// that is "not traced", never an error that stops the capture or the replay.
#include "capture/ebpf/fs_loader.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <linux/types.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "capture/ebpf/fs_events.h"
#include "tests/capture/root/ebpf_root_util.h"

namespace rastro::capture::ebpf {
namespace {

Result<std::unique_ptr<FsLoader>> open_loader() {
  FsLoaderConfig config;
  config.roles.fill(FS_ROLE_WANTED);
  config.ring_bytes = 1u << 20;
  return FsLoader::open(config);
}

TEST(FsLoaderAddTask, AThreadThatAlreadyExitedIsNotTracedAndNotAnError) {
  if (std::string why = testing::ebpf_missing(); !why.empty()) GTEST_SKIP() << "eBPF unavailable: " << why;
  auto loader = open_loader();
  ASSERT_TRUE(loader.ok()) << loader.error();
  std::atomic<pid_t> tid{0};
  std::thread([&] { tid = static_cast<pid_t>(::syscall(SYS_gettid)); }).join();  // joined: reaped
  ASSERT_GT(tid.load(), 0);
  auto added = (*loader)->add_task(tid.load(), /*active=*/true);
  ASSERT_TRUE(added.ok()) << added.error();
  EXPECT_FALSE(added.value());
}

TEST(FsLoaderAddTask, ARunningThreadIsRegistered) {
  if (std::string why = testing::ebpf_missing(); !why.empty()) GTEST_SKIP() << "eBPF unavailable: " << why;
  auto loader = open_loader();
  ASSERT_TRUE(loader.ok()) << loader.error();
  auto added = (*loader)->add_task(static_cast<pid_t>(::syscall(SYS_gettid)), /*active=*/true);
  ASSERT_TRUE(added.ok()) << added.error();
  EXPECT_TRUE(added.value());
}

// A thread that is not its process's leader (the kernel's pidfd_open needs PIDFD_THREAD for it,
// and without it says EINVAL on older kernels, ENOENT on newer ones): registered like the leader.
TEST(FsLoaderAddTask, ARunningThreadThatIsNotTheLeaderIsRegistered) {
  if (std::string why = testing::ebpf_missing(); !why.empty()) GTEST_SKIP() << "eBPF unavailable: " << why;
  auto loader = open_loader();
  ASSERT_TRUE(loader.ok()) << loader.error();
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread worker([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!done.load()) std::this_thread::yield();
  });
  while (tid.load() == 0) std::this_thread::yield();
  auto added = (*loader)->add_task(tid.load(), /*active=*/true);
  done = true;
  worker.join();
  ASSERT_TRUE(added.ok()) << added.error();
  EXPECT_TRUE(added.value());
}

}  // namespace
}  // namespace rastro::capture::ebpf

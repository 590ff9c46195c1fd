#include "common/background_load.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace rastro {
namespace {

uint64_t voluntary_now() {
  std::ifstream in("/proc/self/task/" + std::to_string(::syscall(SYS_gettid)) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stoull(line.substr(24));
  return 0;
}

TEST(BackgroundLoad, RecordsSystemDeltasAndTaskSwitches) {
  BackgroundLoadRecorder r;
  r.start();
  for (int i = 0; i < 20; ++i) ::usleep(1000);  // each sleep is a voluntary switch
  uint64_t before = voluntary_now();
  nlohmann::json j = r.stop({static_cast<int>(::getpid())});
  EXPECT_GT(j["duration_ns"].get<int64_t>(), 20'000'000);
  EXPECT_GT(j["context_switches"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["loadavg_start"].size(), 3u);
  EXPECT_GE(j["cpu_jiffies"]["busy_fraction"].get<double>(), 0.0);
  EXPECT_LE(j["cpu_jiffies"]["busy_fraction"].get<double>(), 1.0);
  // Our own thread is among the tasks, with the kernel's count (read just before stop()).
  bool found = false;
  for (const auto& t : j["tasks"])
    if (t["tid"].get<long>() == ::syscall(SYS_gettid)) {
      found = true;
      EXPECT_GE(t["voluntary_ctxt_switches"].get<uint64_t>(), before);
      EXPECT_GE(t["voluntary_ctxt_switches"].get<uint64_t>(), 20u);
    }
  EXPECT_TRUE(found);
}

TEST(BackgroundLoad, NotedTasksSurviveTheirExit) {
  BackgroundLoadRecorder r;
  r.start();
  long tid = 0;
  std::thread t([&] {
    tid = ::syscall(SYS_gettid);
    ::usleep(1000);
    r.note_task(::getpid(), static_cast<pid_t>(tid));
  });
  t.join();
  nlohmann::json j = r.stop({});
  bool found = false;
  for (const auto& task : j["tasks"]) found |= task["tid"].get<long>() == tid;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace rastro

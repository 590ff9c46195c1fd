#include "workloads/load/load_generator.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/workloads/test_dir.h"

namespace rastro::workloads {
namespace {

// utime + stime of a process in clock ticks, from the kernel's own accounting.
long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(in)), {});
  const auto close = s.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

// Bytes the process asked to write (wchar in /proc/PID/io).
long long written_chars(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/io");
  std::string key;
  long long v = 0;
  while (in >> key >> v) {
    if (key == "wchar:") return v;
  }
  return -1;
}

TEST(LoadGenerator, CpuHogsBurnCpuAndStopOnTheirOwn) {
  LoadOptions o;
  o.kind = LoadKind::kCpu;
  o.level = 2;
  o.duration_ns = 600'000'000;
  auto h = start_load(o);
  ASSERT_EQ(h->pids().size(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (pid_t p : h->pids()) EXPECT_GT(cpu_ticks(p), 0) << "hog " << p << " used no CPU";
  EXPECT_TRUE(h->running());
  h->wait();  // returns because the hogs end by themselves after the duration
  EXPECT_FALSE(h->running());
  for (pid_t p : h->pids()) EXPECT_NE(kill(p, 0), 0);  // reaped
  EXPECT_EQ(h->describe()["level"], 2);
}

TEST(LoadGenerator, StopEndsUnlimitedHogs) {
  LoadOptions o;
  o.level = 1;
  auto h = start_load(o);
  EXPECT_TRUE(h->running());
  h->stop();
  EXPECT_FALSE(h->running());
  EXPECT_NE(kill(h->pids()[0], 0), 0);
}

TEST(LoadGenerator, IoHogsStreamWritesAndLeaveNoFiles) {
  testing::ScopedDir dir("load");
  LoadOptions o;
  o.kind = LoadKind::kIo;
  o.level = 1;
  o.dir = dir.path;
  o.io_file_size = 8u << 20;
  o.duration_ns = 3'000'000'000;
  auto h = start_load(o);
  long long w = 0;
  for (int i = 0; i < 50 && w <= (1 << 20); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    w = written_chars(h->pids()[0]);
  }
  EXPECT_GT(w, 1 << 20);
  h->stop();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path));  // the hog's file was anonymous
}

TEST(LoadGenerator, LevelZeroStartsNothingAndBadInputIsRefused) {
  LoadOptions o;
  o.level = 0;
  EXPECT_TRUE(start_load(o)->pids().empty());
  o.level = -1;
  EXPECT_THROW(start_load(o), Error);
  o.level = 1;
  o.duration_ns = -5;
  EXPECT_THROW(start_load(o), Error);
  o.duration_ns = 0;
  o.kind = LoadKind::kIo;
  o.dir = "/proc/rastro-cannot-be-here";
  EXPECT_THROW(start_load(o), Error);
}

}  // namespace
}  // namespace rastro::workloads

#include "workloads/macro/fileserver_bench.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/workloads/test_dir.h"
#include "trace/syscalls/syscall_table.h"
#include "workloads/macro/fileset_plan.h"
#include "workloads/macro/fileset_state.h"

namespace rastro::workloads {
namespace {

using testing::ScopedDir;

// Kolmogorov-Smirnov statistic D = sup |F_n(x) - F(x)| of a sample against a CDF.
template <typename Cdf>
double ks_statistic(std::vector<double> xs, Cdf cdf) {
  std::sort(xs.begin(), xs.end());
  const double n = static_cast<double>(xs.size());
  double d = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double f = cdf(xs[i]);
    d = std::max({d, (static_cast<double>(i) + 1) / n - f, f - static_cast<double>(i) / n});
  }
  return d;
}

// Critical value of D at alpha = 0.001 (asymptotic: 1.949 / sqrt(n)).
double ks_critical_001(size_t n) { return 1.949 / std::sqrt(static_cast<double>(n)); }

bool fits_gamma(const std::vector<double>& xs, double mean, double shape, double* d_out = nullptr) {
  boost::math::gamma_distribution<double> g(shape, mean / shape);
  const double d = ks_statistic(xs, [&](double x) { return boost::math::cdf(g, std::max(x, 0.0)); });
  if (d_out) *d_out = d;
  return d < ks_critical_001(xs.size());
}

TEST(FilesetPlan, SizesFollowTheRequestedGamma) {
  FileserverOptions o;
  o.files = 5000;
  o.seed = 3;
  const FilesetPlan p = plan_fileset(o, "/x");
  std::vector<double> sizes;
  for (const auto& f : p.files) sizes.push_back(static_cast<double>(f.size));
  double mean = 0;
  for (double s : sizes) mean += s;
  mean /= static_cast<double>(sizes.size());
  // Standard error of the mean: sqrt(shape)*scale/sqrt(n) = 107 KB/71 ~ 1.5 KB; allow 4 SE.
  EXPECT_NEAR(mean, 131072, 4 * std::sqrt(1.5) * (131072 / 1.5) / std::sqrt(5000.0));
  double d = 0;
  EXPECT_TRUE(fits_gamma(sizes, 131072, 1.5, &d)) << "KS D=" << d;
  // The test has power: the same sample is rejected as gamma with another shape, and as an
  // exponential with the same mean.
  EXPECT_FALSE(fits_gamma(sizes, 131072, 1.0));
  EXPECT_FALSE(fits_gamma(sizes, 131072, 3.0));
  // Structure: dirwidth files per directory, ~80% preallocated, deterministic.
  EXPECT_EQ(p.dirs.size(), 250u);
  const auto pre = std::count_if(p.files.begin(), p.files.end(), [](const FileEntry& f) { return f.prealloc; });
  EXPECT_NEAR(static_cast<double>(pre) / 5000.0, 0.8, 0.03);
  const FilesetPlan q = plan_fileset(o, "/x");
  EXPECT_EQ(q.files[123].size, p.files[123].size);
  EXPECT_EQ(q.files[123].path, "/x/rastro-fileserver/d00006/f0000123");
}

TEST(FilesetState, PicksAreExclusiveAndTrackExistence) {
  FileserverOptions o;
  o.files = 4;
  o.dirwidth = 2;
  o.prealloc_percent = 0;
  const FilesetPlan p = plan_fileset(o, "/x");
  FilesetState s(p);
  std::mt19937_64 rng(1);
  EXPECT_FALSE(s.pick_existing(rng).has_value());
  auto a = s.pick_absent(rng);
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->make_dir);
  // The other file of that directory is not handed out while its directory is being made.
  auto b = s.pick_absent(rng);
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(p.files[b->file].dir, p.files[a->file].dir);
  EXPECT_TRUE(b->make_dir);
  EXPECT_FALSE(s.pick_absent(rng).has_value());  // both remaining files wait for a mkdir
  s.release(b->file, false, 0, false);            // its mkdir failed: the directory is absent again
  auto c = s.pick_absent(rng);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->make_dir);
  s.release(c->file, false, 0, true);
  s.release(a->file, true, 77);
  auto e = s.pick_existing(rng);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->file, a->file);
  EXPECT_EQ(e->size, 77u);
  EXPECT_FALSE(s.pick_existing(rng).has_value());  // busy
}

FileserverOptions quick(const std::string& dir) {
  FileserverOptions o;
  o.threads = 4;
  o.files = 200;
  o.mean_size = 16384;  // small files keep the test fast; the distribution is the same family
  o.append_mean = 2048;
  o.duration_ns = 400'000'000;
  o.dir = dir;
  o.seed = 11;
  return o;
}

TEST(FileserverBench, TraceHasEveryOperationKindAndGammaSizes) {
  ScopedDir dir("fileserver");
  const FileserverOptions o = quick(dir.path);
  StopSignal stop{0};
  trace::MemorySink sink;
  const LatencySummary summary = fileserver_to_sink(o, {"rastro", "bench", "macro"}, stop, sink);
  const trace::Trace& t = sink.trace();
  EXPECT_TRUE(t.header.complete);
  EXPECT_EQ(t.header.backend, "reference-fileserver");
  ASSERT_GT(t.events.size(), 100u);
  std::map<std::string, int> kinds;
  std::set<int32_t> tids;
  for (const auto& e : t.events) {
    const std::string fn(trace::function_name(e, t.strings));
    ++kinds[fn];
    tids.insert(e.tid);
    const auto* info = trace::syscall_by_nr(e.nr);
    ASSERT_NE(info, nullptr);
    ASSERT_EQ(e.nargs, info->nargs) << fn;
    for (int i = 0; i < e.nargs; ++i) {
      EXPECT_EQ(e.arg(i).type, info->args[static_cast<size_t>(i)]) << fn;
      if (e.arg(i).type == trace::ArgType::kPath || e.arg(i).type == trace::ArgType::kFd) {
        EXPECT_EQ(t.str(e.arg(i).str).rfind(dir.path, 0), 0u) << fn << " " << t.str(e.arg(i).str);
      }
    }
    EXPECT_GE(e.rvalue, 0) << fn << " failed: " << e.rvalue << " on " << t.str(e.arg(1).str);
  }
  EXPECT_EQ(tids.size(), 4u);
  for (const char* k : {"openat", "write", "close", "read", "unlinkat", "newfstatat"}) {
    EXPECT_GT(kinds[k], 0) << k;
  }
  // Flow structure: every open is closed; per iteration one create, two opens, one delete, one stat.
  EXPECT_EQ(kinds["openat"], kinds["close"]);

  // Sizes of the files created in the run (bytes written between openat(O_CREAT) and close on
  // that fd) follow gamma(mean, shape). A file re-created later gets its planned size again, so
  // each distinct file counts once (the sample must be independent draws).
  std::map<int32_t, std::pair<bool, int64_t>> open_fd;  // tid -> (creating, bytes)
  std::map<std::string, int64_t> created_size;
  for (const auto& e : t.events) {
    const std::string_view fn = trace::function_name(e, t.strings);
    if (fn == "openat") open_fd[e.tid] = {(e.arg(2).value & O_CREAT) != 0, 0};
    if (fn == "write") open_fd[e.tid].second += e.rvalue;
    if (fn == "close" && open_fd[e.tid].first) {
      const std::string path(t.str(e.arg(0).str));
      auto [it, fresh] = created_size.emplace(path, open_fd[e.tid].second);
      EXPECT_EQ(it->second, open_fd[e.tid].second) << path << " re-created with another size";
    }
  }
  std::vector<double> created;
  for (const auto& [path, size] : created_size) created.push_back(static_cast<double>(size));
  ASSERT_GT(created.size(), 30u);
  double d = 0;
  EXPECT_TRUE(fits_gamma(created, o.mean_size, o.gamma, &d)) << "KS D=" << d << " n=" << created.size();
  // Preallocated files are in the settings, with sizes, for a replayer's --init.
  ASSERT_TRUE(t.header.settings.contains("initial_files"));
  EXPECT_GT(t.header.settings["initial_files"].size(), 100u);
  EXPECT_TRUE(t.header.settings.contains("dirs"));
  EXPECT_EQ(t.header.settings["seed"].get<uint64_t>(), 11u);
  EXPECT_GT(summary.calls, 100u);
  // The duration was honoured (a lower bound only: never assert an upper wall-clock limit).
  EXPECT_GE(t.events.back().begin_ns - t.events.front().begin_ns, 0);
}

TEST(FileserverBench, LazyDirectoriesAreMadeWithMkdir) {
  ScopedDir dir("fileserver");
  FileserverOptions o = quick(dir.path);
  o.prealloc_percent = 0;  // nothing exists: the first creates must mkdir their directories
  o.threads = 2;
  o.duration_ns = 200'000'000;
  StopSignal stop{0};
  trace::MemorySink sink;
  fileserver_to_sink(o, {}, stop, sink);
  const trace::Trace& t = sink.trace();
  int mkdirs = 0;
  std::set<std::string> made;
  for (const auto& e : t.events) {
    if (trace::function_name(e, t.strings) == "mkdir") {
      ++mkdirs;
      EXPECT_EQ(e.rvalue, 0);
      EXPECT_TRUE(made.insert(std::string(t.str(e.arg(0).str))).second) << "directory made twice";
    }
    EXPECT_GE(e.rvalue, 0) << trace::function_name(e, t.strings);
  }
  EXPECT_GT(mkdirs, 0);
  EXPECT_EQ(t.header.settings["initial_files"].size(), 0u);
}

TEST(FileserverBench, StopFlagsThePartialTrace) {
  ScopedDir dir("fileserver");
  FileserverOptions o = quick(dir.path);
  o.duration_ns = 60'000'000'000;  // would run a minute
  StopSignal stop{0};
  bool stopped = false;
  const FilesetPlan plan = prepare_fileserver(o, stop, &stopped);
  ASSERT_FALSE(stopped);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.store(15);
  });
  const WorkloadRun run = run_fileserver(o, plan, stop);
  stopper.join();
  EXPECT_EQ(run.stopped_by, 15);
  EXPECT_EQ(run.stop_reason, "interrupted by SIGTERM");
}

TEST(FileserverBench, EventCapStopsTheRunAndSaysSo) {
  ScopedDir dir("fileserver");
  FileserverOptions o = quick(dir.path);
  o.max_events = 400;
  StopSignal stop{0};
  bool stopped = false;
  const FilesetPlan plan = prepare_fileserver(o, stop, &stopped);
  const WorkloadRun run = run_fileserver(o, plan, stop);
  EXPECT_NE(run.stopped_by, 0);
  EXPECT_NE(run.stop_reason.find("--max-events"), std::string::npos);
  size_t n = 0;
  for (const auto& th : run.threads) n += th.log.size();
  EXPECT_LE(n, 400u + 4u * 64u);  // each thread finishes the flowop it was in
}

TEST(FileserverBench, BadInputIsRefused) {
  ScopedDir dir("fileserver");
  StopSignal stop{0};
  bool stopped = false;
  FileserverOptions o = quick(dir.path);
  o.threads = 0;
  EXPECT_THROW(prepare_fileserver(o, stop, &stopped), Error);
  o = quick(dir.path);
  o.gamma = -1;
  EXPECT_THROW(prepare_fileserver(o, stop, &stopped), Error);
  o = quick(dir.path);
  o.mean_size = 1e15;  // a petabyte file set does not fit
  try {
    prepare_fileserver(o, stop, &stopped);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not enough free space"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/rastro-fileserver"));
}

}  // namespace
}  // namespace rastro::workloads

#include "trace/analysis/condenser.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "tests/trace/sample_trace.h"
#include "trace/analysis/quantile_sketch.h"

namespace rastro::trace {
namespace {

const LatencyRow* find_row(const std::vector<LatencyRow>& rows, std::string_view key) {
  for (const auto& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

TEST(Condenser, HandComputedSampleTrace) {
  Condensed c = condense(testing::sample_trace());
  EXPECT_EQ(c.total.count, 6u);
  EXPECT_EQ(c.total.unfinished, 1u);
  EXPECT_EQ(c.total.errors, 1u);
  EXPECT_EQ(c.total.bytes, 4106u);
  EXPECT_EQ(c.total.max_ns, 1000);
  // finished durations: 100 300 50 1000 10 -> mean 292, sorted 10 50 100 300 1000
  EXPECT_DOUBLE_EQ(c.total.mean_ns, 292.0);
  EXPECT_DOUBLE_EQ(c.total.p50_ns, 100.0);
  EXPECT_DOUBLE_EQ(c.total.p99_ns, 300.0 + 0.96 * 700.0);  // h = 4 * 0.99 = 3.96

  ASSERT_EQ(c.by_function.size(), 4u);
  EXPECT_EQ(c.by_function[0].key, "read");  // most frequent first
  const LatencyRow& read = c.by_function[0];
  EXPECT_EQ(read.count, 3u);
  EXPECT_EQ(read.unfinished, 1u);
  EXPECT_EQ(read.errors, 1u);
  EXPECT_EQ(read.bytes, 4096u);
  EXPECT_DOUBLE_EQ(read.mean_ns, 175.0);
  EXPECT_DOUBLE_EQ(read.p50_ns, 175.0);
  EXPECT_DOUBLE_EQ(read.p99_ns, 50.0 + 0.99 * 250.0);
  EXPECT_EQ(read.max_ns, 300);
  const LatencyRow* write = find_row(c.by_function, "write");
  ASSERT_NE(write, nullptr);
  EXPECT_EQ(write->bytes, 10u);
  EXPECT_DOUBLE_EQ(write->mean_ns, 1000.0);
  ASSERT_NE(find_row(c.by_function, "openat"), nullptr);
  EXPECT_EQ(find_row(c.by_function, "openat")->bytes, 0u);  // returns an fd, not a count

  ASSERT_EQ(c.by_thread.size(), 2u);
  EXPECT_EQ(c.by_thread[0].key, "1/10");
  EXPECT_EQ(c.by_thread[0].count, 3u);
  EXPECT_EQ(c.by_thread[0].bytes, 4096u);
  EXPECT_DOUBLE_EQ(c.by_thread[0].mean_ns, (100.0 + 300.0 + 10.0) / 3);
  EXPECT_EQ(c.by_thread[1].key, "1/11");
  EXPECT_EQ(c.by_thread[1].tid, 11);
  EXPECT_EQ(c.by_thread[1].errors, 1u);

  ASSERT_EQ(c.by_file.size(), 2u);
  EXPECT_EQ(c.by_file[0].key, "/a");
  EXPECT_EQ(c.by_file[0].count, 4u);
  EXPECT_EQ(c.by_file[0].errors, 1u);
  EXPECT_EQ(c.by_file[0].bytes, 4096u);
  EXPECT_EQ(c.by_file[1].key, "/b");
  EXPECT_EQ(c.by_file[1].count, 2u);
  EXPECT_EQ(c.by_file[1].unfinished, 1u);
}

TEST(Condenser, EmptyTrace) {
  Condensed c = condense(Trace{});
  EXPECT_EQ(c.total.count, 0u);
  EXPECT_TRUE(c.by_function.empty());
  EXPECT_DOUBLE_EQ(c.total.p99_ns, 0.0);
}

// The streaming condenser fed block by block: every column exact except p50/p99, which are exact
// for small rows and within QuantileSketch's relative error for large ones.
TEST(Condenser, StreamingBlocksMatchWholeTrace) {
  std::mt19937_64 rng(9);
  std::lognormal_distribution<double> d(8.0, 2.0);
  Trace t = testing::sample_trace();
  StrId big = t.strings.intern("/big");
  for (int i = 0; i < 20000; ++i) {
    Event e;
    e.pid = 2;
    e.tid = 2 + i % 3;
    e.nr = 0;  // read
    e.nargs = 1;
    e.args[0] = Arg{ArgType::kFd, 5, big};
    e.begin_ns = i * 1000;
    e.end_ns = e.begin_ns + 1 + static_cast<int64_t>(d(rng));
    e.rvalue = i % 7 == 0 ? -5 : 100;
    if (i % 5 == 0) {  // measured scheduling: in the call and before it
      e.flags = kEventOffCpu;
      e.offcpu_ns = i % 11;
      e.vol_switches = 1;
      e.gap_offcpu_ns = 1000 + i % 13;
    }
    t.events.push_back(e);
  }
  t.header.extra = {{"process_groups", {{"rank", {{"1", "rank 0"}, {"2", "rank 1"}}}}}};
  Condensed whole = condense(t);
  Condenser c;
  std::span<const Event> all(t.events);
  for (size_t i = 0; i < all.size(); i += 999) c.add(all.subspan(i, std::min<size_t>(999, all.size() - i)));
  Condensed s = c.finish(t.header, t.strings);
  auto same = [](const LatencyRow& a, const LatencyRow& b) {
    EXPECT_EQ(a.key, b.key);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.errors, b.errors);
    EXPECT_EQ(a.unfinished, b.unfinished);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.max_ns, b.max_ns);
    EXPECT_NEAR(a.mean_ns, b.mean_ns, 1e-9 * std::abs(b.mean_ns));
    EXPECT_EQ(a.sched_measured, b.sched_measured);
    EXPECT_EQ(a.offcpu_ns, b.offcpu_ns);
    EXPECT_EQ(a.gap_offcpu_ns, b.gap_offcpu_ns);
    EXPECT_NEAR(a.p50_ns, b.p50_ns, QuantileSketch::kRelativeError * b.p50_ns) << a.key;
    EXPECT_NEAR(a.p99_ns, b.p99_ns, QuantileSketch::kRelativeError * b.p99_ns) << a.key;
  };
  same(s.total, whole.total);
  int64_t gaps = 0;
  for (const Event& e : t.events) gaps += e.gap_offcpu_ns;
  EXPECT_EQ(whole.total.gap_offcpu_ns, gaps);
  EXPECT_GT(gaps, 4000 * 1000);
  ASSERT_EQ(s.by_function.size(), whole.by_function.size());
  for (size_t i = 0; i < s.by_function.size(); ++i) same(s.by_function[i], whole.by_function[i]);
  ASSERT_EQ(s.by_thread.size(), whole.by_thread.size());
  for (size_t i = 0; i < s.by_thread.size(); ++i) same(s.by_thread[i], whole.by_thread[i]);
  ASSERT_EQ(s.by_file.size(), whole.by_file.size());
  for (size_t i = 0; i < s.by_file.size(); ++i) same(s.by_file[i], whole.by_file[i]);
  ASSERT_EQ(s.by_group.size(), 1u);
  ASSERT_EQ(s.by_group[0].rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i) same(s.by_group[0].rows[i], whole.by_group[0].rows[i]);
  // Rows small enough stay exact: the sample trace's.
  const LatencyRow* a = find_row(s.by_file, "/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->p50_ns, find_row(whole.by_file, "/a")->p50_ns);
}

TEST(Quantile, Type7Basics) {
  EXPECT_DOUBLE_EQ(quantile_type7({}, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(quantile_type7({7}, 0.99), 7.0);
  EXPECT_DOUBLE_EQ(quantile_type7({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_type7({1, 2, 3, 4}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile_type7({1, 2, 3, 4}, 0.0), 1.0);
}

// Cross-check with R's quantile(), which the thesis used.
TEST(Quantile, AgreesWithR) {
  if (std::system("Rscript --version > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "Rscript is not installed (scripts/setup.sh installs r-base-core)";
  }
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> d(9.0, 1.2);
  std::vector<int64_t> x(1237);
  for (auto& v : x) v = static_cast<int64_t>(d(rng));
  auto dir = std::filesystem::temp_directory_path();
  std::string in = (dir / ("rastro_q_" + std::to_string(::getpid()) + ".txt")).string();
  std::string out = in + ".out";
  {
    std::ofstream f(in);
    for (auto v : x) f << v << "\n";
  }
  std::string cmd = "Rscript -e 'x <- scan(\"" + in +
                    "\", quiet=TRUE); cat(sprintf(\"%.6f\", quantile(x, c(0.5, 0.9, 0.99), "
                    "type=7)), sep=\"\\n\")' > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream r(out);
  std::sort(x.begin(), x.end());
  for (double p : {0.5, 0.9, 0.99}) {
    double want = 0;
    ASSERT_TRUE(r >> want);
    EXPECT_NEAR(quantile_type7(x, p), want, 1e-6) << "p=" << p;
  }
  std::remove(in.c_str());
  std::remove(out.c_str());
}

}  // namespace
}  // namespace rastro::trace

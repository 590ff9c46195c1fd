#include "mpi/job_clocks.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"

namespace rastro::mpi {
namespace {

// A merged job's header as `rastro merge` writes it: rank 1's clock 5 s ahead, known to ± 300 ns
// at init (rank 1's clock 5 s + 1 ms) and ± 900 ns at finalize (5 s + 3 ms), pids 10 and 20/21.
trace::TraceHeader job_header() {
  trace::TraceHeader h;
  h.extra["mpi_job"] = {
      {"job", "j1"},
      {"ranks",
       {{{"rank", 0}, {"host", "a"}, {"pids", {10}}},
        {{"rank", 1},
         {"host", "b"},
         {"pids", {20, 21}},
         {"init", {{"at_ns", 5'001'000'000}, {"offset_ns", 5'000'000'000}, {"half_width_ns", 300}, {"rounds", 16}}},
         {"finalize",
          {{"at_ns", 5'003'000'000}, {"offset_ns", 5'000'000'000}, {"half_width_ns", 900}, {"rounds", 16}}}}}}};
  return h;
}

TEST(JobClocks, NotAMergedJobIsNothing) {
  trace::TraceHeader h;
  EXPECT_FALSE(JobClocks::from_header(h));
}

TEST(JobClocks, RanksOfProcessesAndBoundsOnTheReferenceClock) {
  auto c = JobClocks::from_header(job_header());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->size(), 2);
  EXPECT_EQ(c->job(), "j1");
  EXPECT_EQ(c->host(1), "b");
  EXPECT_EQ(c->rank_of(10), 0);
  EXPECT_EQ(c->rank_of(21), 1);
  EXPECT_EQ(c->rank_of(99), -1);
  EXPECT_EQ(c->half_width_at(0, 2'000'000), 0);
  // Rank 1's init at its 5.001 s = reference 1 ms; finalize at reference 3 ms; halfway: 600 ns
  // (+ 1 ns for the rounding of an interpolated offset and width).
  EXPECT_EQ(c->half_width_at(1, 1'000'000), 300);
  EXPECT_EQ(c->half_width_at(1, 2'000'000), 601);
  EXPECT_EQ(c->half_width_at(1, 3'000'000), 900);
  EXPECT_EQ(c->half_width_at(1, 0), 300);  // before init: the init bound
}

TEST(JobClocks, ACrossRankIntervalGetsBothEndsTypeBUncertainty) {
  auto c = JobClocks::from_header(job_header());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->interval_uncertainty_ns(1, 1'000'000, 1, 3'000'000), 0.0);  // one clock
  // Rank 0 exact, rank 1 ± 300 ns uniform: u = 300/√3.
  EXPECT_NEAR(c->interval_uncertainty_ns(0, 5, 1, 1'000'000), 173.205, 1e-3);
  // Bounds 300 and 900 (both on rank 1 would be 0): sqrt(300² + 900²)/√3 with a hand-made second rank.
  auto h = job_header();
  auto r2 = h.extra["mpi_job"]["ranks"][1];
  r2["rank"] = 2;
  r2["pids"] = {30};
  r2["init"]["half_width_ns"] = 900;
  h.extra["mpi_job"]["ranks"].push_back(r2);
  auto c3 = JobClocks::from_header(h);
  ASSERT_TRUE(c3);
  EXPECT_NEAR(c3->interval_uncertainty_ns(1, 1'000'000, 2, 1'000'000), std::sqrt(300.0 * 300 + 900.0 * 900) / std::sqrt(3.0),
              1e-6);
}

TEST(JobClocks, TheWidestBoundOfARankHoldsAnywhereInTheRun) {
  auto h = job_header();
  auto r2 = h.extra["mpi_job"]["ranks"][1];
  r2["rank"] = 2;
  r2["pids"] = {30};
  r2.erase("finalize");  // never reached MPI_Finalize: the init bound is all there is
  h.extra["mpi_job"]["ranks"].push_back(r2);
  auto r3 = r2;
  r3["rank"] = 3;
  r3["pids"] = {40};
  r3.erase("init");  // never measured at all
  h.extra["mpi_job"]["ranks"].push_back(r3);
  auto c = JobClocks::from_header(h);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->widest_half_width(0), 0);
  EXPECT_EQ(c->widest_half_width(1), 900);  // init ± 300, finalize ± 900
  EXPECT_EQ(c->widest_half_width(2), 300);
  EXPECT_FALSE(c->widest_half_width(3));
  EXPECT_FALSE(c->widest_half_width(9));
  // Every instant's bound is within it.
  for (int64_t t : {0, 1'000'000, 2'000'000, 3'000'000, 9'000'000}) EXPECT_LE(c->half_width_at(1, t), 900);
}

TEST(JobClocks, AMalformedJobHeaderIsAClearError) {
  auto h = job_header();
  h.extra["mpi_job"]["ranks"][1].erase("pids");
  try {
    JobClocks::from_header(h);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("malformed mpi_job header"), std::string::npos) << e.what();
  }
  h = job_header();
  h.extra["mpi_job"]["ranks"][1]["rank"] = 7;
  EXPECT_THROW(JobClocks::from_header(h), Error);
}

}  // namespace
}  // namespace rastro::mpi

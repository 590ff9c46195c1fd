// The measurands of an MPI campaign run from a hand-made merged job: which calls count, per-rank
// write time and span from rank 0's first call, and the clock component of the cross-rank spans.
#include "campaign/mpi_job_measurement.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::campaign {
namespace {

// Rank 0 = pid 10; rank 1 = pid 20, its offset known to ± 300 ns at init and ± 900 ns at finalize.
trace::Trace job() {
  trace::Trace t;
  t.header.extra["mpi_job"] = {
      {"job", "j"},
      {"ranks",
       {{{"rank", 0}, {"host", "a"}, {"pids", {10}}},
        {{"rank", 1},
         {"host", "b"},
         {"pids", {20}},
         {"init", {{"at_ns", 0}, {"offset_ns", 0}, {"half_width_ns", 300}, {"rounds", 16}}},
         {"finalize", {{"at_ns", 10'000}, {"offset_ns", 0}, {"half_width_ns", 900}, {"rounds", 16}}}}}}};
  return t;
}

void add(trace::Trace& t, int32_t pid, const char* fn, trace::ArgType type, const char* path, int64_t begin, int64_t end,
         uint32_t flags = 0, int64_t rvalue = 0) {
  trace::Event e;
  e.seq = t.events.size();
  e.pid = e.tid = pid;
  e.nr = trace::syscall_by_name(fn)->nr;
  e.begin_ns = begin;
  e.end_ns = end;
  e.nargs = 1;
  e.args[0] = {type, 3, t.strings.intern(path)};
  e.flags = flags;
  e.rvalue = rvalue;
  t.events.push_back(e);
}

TEST(MpiJobMeasurement, PerRankWriteTimeAndSpanFromRankZerosFirstCall) {
  using trace::ArgType;
  trace::Trace t = job();
  add(t, 10, "openat", ArgType::kPath, "/d/rank-0.dat", 100, 200);  // the job's first workload call
  add(t, 10, "write", ArgType::kFd, "/d/rank-0.dat", 300, 400);
  add(t, 10, "write", ArgType::kFd, "/d/rank-0.dat", 500, 800);
  add(t, 10, "write", ArgType::kFd, "/dev/shm/mpi-segment", 50, 9000);  // not a workload file
  add(t, 10, "write", ArgType::kFd, "/d/rank-0.dat", 5000, 6000, trace::kEventSkipped);  // not replayed
  add(t, 10, "write", ArgType::kFd, "/d/rank-0.dat", 7000, 8000, 0, -5);                 // failed (EIO)
  add(t, 20, "write", ArgType::kFd, "/d/rank-1.dat", 150, 250);
  add(t, 20, "pwrite64", ArgType::kFd, "/d/shared.dat", 900, 1500);

  auto m = mpi_job_measurements(t, "openmpi", "job.rastro");
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].type, "openmpi.write.r0");
  EXPECT_DOUBLE_EQ(m[0].measured, 200);  // (100 + 300) / 2
  EXPECT_EQ(m[0].extra["n"], 2);
  EXPECT_EQ(m[0].extra["clock_u_ns"], 0.0);
  EXPECT_EQ(m[1].type, "openmpi.span.r0");
  EXPECT_DOUBLE_EQ(m[1].measured, 800 - 100);
  EXPECT_EQ(m[1].extra["clock_u_ns"], 0.0);  // both ends on rank 0's clock
  EXPECT_EQ(m[2].type, "openmpi.write.r1");
  EXPECT_DOUBLE_EQ(m[2].measured, 350);  // (100 + 600) / 2
  EXPECT_EQ(m[2].extra["clock_u_ns"], 0.0);
  EXPECT_EQ(m[3].type, "openmpi.span.r1");
  EXPECT_DOUBLE_EQ(m[3].measured, 1500 - 100);
  // One end on rank 0 (exact), the other on rank 1: its widest bound, uniform.
  EXPECT_NEAR(m[3].extra["clock_u_ns"].get<double>(), 900 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(m[3].extra["half_width_ns"], 900);
  EXPECT_EQ(m[3].extra["rank"], 1);
}

TEST(MpiJobMeasurement, WhatIsNotAMeasurableJobIsAnErrorNamingIt) {
  auto says = [](const trace::Trace& t, const char* what) {
    try {
      mpi_job_measurements(t, "mpich", "j.rastro");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("j.rastro"), std::string::npos) << e.what();
    }
  };
  trace::Trace single;
  says(single, "not a merged MPI job");
  trace::Trace t = job();
  add(t, 10, "write", trace::ArgType::kFd, "/d/rank-0.dat", 1, 2);
  says(t, "rank 1 wrote none of the workload's files");
  add(t, 30, "write", trace::ArgType::kFd, "/d/rank-2.dat", 1, 2);
  says(t, "pid 30 belongs to no rank");
}

}  // namespace
}  // namespace rastro::campaign

// What a replay process hands the engine's process (replay/engines/thread_outcomes.h): the
// counters, waits, warning, OS thread and record stream of each plan thread it ran come back
// exactly, those of the threads it did not run stay as they were, and a damaged hand-over is an
// error that says so, never a silent loss.
#include "replay/engines/thread_outcomes.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::replay::detail {
namespace {

std::vector<Request> four_threads() {
  std::vector<Request> q;
  for (uint32_t r = 0; r < 40; ++r) q.push_back({r, r % 4, 0});
  return q;
}

RequestRecord record_of(uint32_t r) {
  RequestRecord x;
  x.planned_ns = 1'000'000 + r * 1000;
  x.begin_ns = x.planned_ns + 7;
  x.end_ns = x.begin_ns + 300 + r;
  x.rvalue = r % 3 == 0 ? -2 : static_cast<int64_t>(r) * 10;
  x.flags = r % 5 == 0 ? uint32_t{trace::kEventMismatch} : 0u;
  return x;
}

TEST(ThreadOutcomes, WhatAReplayProcessEncodesIsAdoptedWhole) {
  const auto q = four_threads();
  // The replay process ran plan threads 1 and 3.
  ThreadOutcomes there(4);
  RecordLog there_log(q);
  for (uint32_t r = 0; r < q.size(); ++r)
    if (q[r].thread % 2 == 1) there_log.append(q[r].thread, record_of(r));
  for (size_t t : {1, 3}) {
    ThreadOutcome& o = there[t];
    o.os_tid = 4000 + static_cast<int32_t>(t);
    o.os_pid = 4001;
    o.dependency_waits = 10 + t;
    o.warning = t == 3 ? "SCHED_FIFO not permitted: Operation not permitted" : "";
    o.stats.executed = 100 * t;
    o.stats.emulated = 3;
    o.stats.emulated_files = 2;
    o.stats.mismatched = t;
    o.stats.skipped[static_cast<size_t>(SkipReason::kUnknownMapping)] = 5;
    o.stats.unsupported["io_setup"] = t;
    o.stats.mismatched_by_call["read"] = 2 * t;
  }
  const std::vector<size_t> ran = {1, 3};
  const std::string bytes = there.encode(ran, there_log);

  // The engine's process ran threads 0 and 2 itself (here: by threads of its own).
  ThreadOutcomes here(4);
  RecordLog log(q);
  for (uint32_t r = 0; r < q.size(); ++r)
    if (q[r].thread % 2 == 0) log.append(q[r].thread, record_of(r));
  here[0].stats.executed = 7;
  here[0].os_pid = 99;
  here.exchange(log).adopt(bytes);

  const auto recs = log.decode();
  for (uint32_t r = 0; r < q.size(); ++r) {
    const RequestRecord want = record_of(r);
    EXPECT_EQ(recs[r].begin_ns, want.begin_ns) << r;
    EXPECT_EQ(recs[r].end_ns, want.end_ns) << r;
    EXPECT_EQ(recs[r].rvalue, want.rvalue) << r;
    EXPECT_EQ(recs[r].flags, want.flags) << r;
  }
  Plan plan;
  plan.requests = q;
  plan.threads.resize(4);
  for (uint32_t r = 0; r < q.size(); ++r) plan.threads[q[r].thread].requests.push_back(r);
  EngineResult res;
  here.merge_into(res, plan, true);
  EXPECT_EQ(res.stats.executed, 7u + 100 + 300);
  EXPECT_EQ(res.stats.mismatched, 4u);
  EXPECT_EQ(res.stats.skipped[static_cast<size_t>(SkipReason::kUnknownMapping)], 10u);
  EXPECT_EQ(res.stats.unsupported.at("io_setup"), 4u);
  EXPECT_EQ(res.stats.mismatched_by_call.at("read"), 8u);
  EXPECT_EQ(res.dependency_waits, 11u + 13);
  ASSERT_EQ(res.warnings.size(), 1u);
  EXPECT_EQ(res.warnings[0], "SCHED_FIFO not permitted: Operation not permitted");
  EXPECT_EQ(res.replay_processes, 2u);  // pid 99 (the engine's threads), 4001 (the replay process)
  ASSERT_EQ(res.os_threads.size(), q.size());
  EXPECT_EQ(res.os_threads[1], 4001);
  EXPECT_EQ(res.os_threads[3], 4003);
  EXPECT_EQ(res.os_threads[0], 0);
}

TEST(ThreadOutcomes, ADamagedHandOverIsAnErrorNamingIt) {
  const auto q = four_threads();
  ThreadOutcomes there(4);
  RecordLog there_log(q);
  for (uint32_t r = 1; r < q.size(); r += 4) there_log.append(1, record_of(r));
  const std::vector<size_t> ran = {1};
  const std::string bytes = there.encode(ran, there_log);
  for (size_t cut : {size_t{1}, bytes.size() / 2, bytes.size() - 1}) {
    ThreadOutcomes here(4);
    RecordLog log(q);
    try {
      here.adopt(std::string_view(bytes).substr(0, cut), log);
      ADD_FAILURE() << "a hand-over cut at " << cut << " of " << bytes.size() << " bytes was taken";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("truncated or malformed"), std::string::npos) << e.what();
    }
  }
  ThreadOutcomes few(1);  // a plan of one thread: thread 1 is none of its own
  RecordLog log(q);
  EXPECT_THROW(few.adopt(bytes, log), Error);
  ThreadOutcomes here(4);
  EXPECT_THROW(here.adopt(bytes + "x", log), Error);  // bytes after the last thread
}

}  // namespace
}  // namespace rastro::replay::detail

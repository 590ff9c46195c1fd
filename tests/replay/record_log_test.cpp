// The replay's record log (replay/runtime/record_log.h): every field of every record reads back
// exactly, in request order, whatever the values (mmap addresses, -errno, clocks far apart,
// durations of 0 and of seconds), the skip reasons, the threads' interleaving, the chunking, and
// the io_uring completions supplied after the run.
#include "replay/runtime/record_log.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/runtime/rank_select.h"
#include "trace/model/event.h"

namespace rastro::replay {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<Request> requests_of_threads(const std::vector<uint32_t>& threads) {
  std::vector<Request> q;
  for (size_t r = 0; r < threads.size(); ++r) q.push_back({static_cast<uint32_t>(r), threads[r], 0});
  return q;
}

// `n` requests, each of one of `threads` threads at random.
std::vector<uint32_t> random_threads(std::mt19937_64& rng, int n, uint32_t threads) {
  std::vector<uint32_t> thread_of;
  for (int r = 0; r < n; ++r) thread_of.push_back(static_cast<uint32_t>(rng() % threads));
  return thread_of;
}

void expect_same(const RequestRecord& got, const RequestRecord& want, size_t r) {
  EXPECT_EQ(got.planned_ns, want.planned_ns) << "request " << r;
  EXPECT_EQ(got.begin_ns, want.begin_ns) << "request " << r;
  EXPECT_EQ(got.end_ns, want.end_ns) << "request " << r;
  EXPECT_EQ(got.rvalue, want.rvalue) << "request " << r;
  EXPECT_EQ(got.flags, want.flags) << "request " << r;
  EXPECT_EQ(got.skip, want.skip) << "request " << r;
  EXPECT_EQ(got.emulated, want.emulated) << "request " << r;
}

// Appends each request's record to its thread's stream, as the engines do, and reads them back.
std::vector<RequestRecord> round_trip(const std::vector<Request>& q, const std::vector<RequestRecord>& rec) {
  RecordLog log(q);
  for (size_t r = 0; r < q.size(); ++r) log.append(q[r].thread, rec[r]);
  return log.decode();
}

TEST(RecordLog, ExtremeValuesReadBackExactly) {
  const int64_t t0 = 1'700'000'000'000'000'000;  // a CLOCK_MONOTONIC far from 0
  const std::vector<RequestRecord> rec = {
      {t0, t0 + 120, t0 + 120, 0x7f12'3456'7000, 0, SkipReason::kNone, false},  // mmap address, 0 ns
      {t0 + 200, t0 + 150, t0 + 3'000'000'150, -12, trace::kEventMismatch, SkipReason::kNone, false},  // begun
      // before planned (think timing catching up), 3 s long, -ENOMEM
      {0, 0, 0, 0, 0, SkipReason::kNone, false},  // every field 0: a huge step back
      {kMin, kMax, kMin, kMax, ~0u, SkipReason::kNone, true},  // deltas that wrap, every flag bit
      {kMax, kMin, kMax, kMin, 0, SkipReason::kNone, false},
      {-5, -5, -1, -1, trace::kEventUring, SkipReason::kNone, true},
  };
  const auto q = requests_of_threads({0, 0, 0, 0, 0, 0});
  const auto got = round_trip(q, rec);
  ASSERT_EQ(got.size(), rec.size());
  for (size_t r = 0; r < rec.size(); ++r) expect_same(got[r], rec[r], r);
}

TEST(RecordLog, EverySkipReasonReadsBack) {
  std::vector<RequestRecord> rec;
  for (int k = 0; k < kSkipReasons; ++k) {
    const auto reason = static_cast<SkipReason>(k);
    rec.push_back({1000 * k, 1000 * k + 10, 1000 * k + 20, -9,
                   reason == SkipReason::kNone ? 0u : trace::kEventSkipped, reason, k % 2 == 1});
  }
  const auto q = requests_of_threads(std::vector<uint32_t>(rec.size(), 0));
  const auto got = round_trip(q, rec);
  for (size_t r = 0; r < rec.size(); ++r) expect_same(got[r], rec[r], r);
}

// 20 threads interleaved at random, 200 k records of random fields (so more than one chunk per
// thread, with records at every chunk boundary): read back in request order.
TEST(RecordLog, ManyThreadsInterleavedOverManyChunks) {
  std::mt19937_64 rng(16);
  constexpr uint32_t kThreads = 20;
  const std::vector<uint32_t> thread_of = random_threads(rng, 200'000, kThreads);
  const auto q = requests_of_threads(thread_of);
  std::vector<int64_t> now(kThreads, 1'000'000'000);
  std::vector<RequestRecord> rec;
  for (uint32_t t : thread_of) {
    RequestRecord x;
    const int kind = static_cast<int>(rng() % 8);
    x.planned_ns = now[t] + static_cast<int64_t>(rng() % 1000);
    x.begin_ns = x.planned_ns + static_cast<int64_t>(rng() % 5000);
    x.end_ns = x.begin_ns + (kind == 0 ? 0 : kind == 1 ? static_cast<int64_t>(rng() % 5'000'000'000) : 3000);
    x.rvalue = kind == 2 ? static_cast<int64_t>(rng()) : kind == 3 ? -static_cast<int64_t>(rng() % 140) : 4096;
    if (kind == 4) {
      x.flags = trace::kEventSkipped;
      x.skip = static_cast<SkipReason>(1 + rng() % (kSkipReasons - 1));
    }
    x.emulated = kind == 5;
    now[t] = x.end_ns;
    rec.push_back(x);
  }
  RecordLog log(q);
  for (size_t r = 0; r < q.size(); ++r) log.append(q[r].thread, rec[r]);
  size_t r = 0;
  log.for_each([&](uint32_t i, const RequestRecord& got) {
    ASSERT_EQ(i, r);
    expect_same(got, rec[r], r);
    ++r;
  });
  EXPECT_EQ(r, rec.size());
  // Compact: the typical record here is ~8 bytes, against 40 for a RequestRecord.
  EXPECT_LT(log.bytes(), rec.size() * 16);
  EXPECT_GT(log.bytes(), size_t{kThreads} * (size_t{64} << 10));  // every thread is past its first chunks
}

// A replay process hands its threads' streams to the engine's process (EngineOptions::processes):
// a log made of adopted streams — some threads' taken, the others appended here, some streams
// longer than a chunk — reads back every record, and appending after adopting goes on from it.
TEST(RecordLog, StreamsAdoptedFromAnotherLogReadBackWhole) {
  std::mt19937_64 rng(17);
  constexpr uint32_t kThreads = 6;
  const std::vector<uint32_t> thread_of = random_threads(rng, 30'000, kThreads);
  const auto q = requests_of_threads(thread_of);
  std::vector<RequestRecord> rec;
  std::vector<int64_t> now(kThreads, 5'000'000'000);
  for (uint32_t t : thread_of) {
    RequestRecord x;
    x.planned_ns = now[t] + static_cast<int64_t>(rng() % 1000);
    x.begin_ns = x.planned_ns + static_cast<int64_t>(rng() % 700);
    x.end_ns = x.begin_ns + static_cast<int64_t>(rng() % 90'000);
    x.rvalue = static_cast<int64_t>(rng() % 9000) - 100;
    now[t] = x.end_ns;
    rec.push_back(x);
  }
  RecordLog there(q);  // the replay process's
  for (size_t r = 0; r < q.size(); ++r) there.append(q[r].thread, rec[r]);
  RecordLog here(q);  // the engine's: threads 0-2 adopted, 3-5 its own
  for (size_t r = 0; r < q.size(); ++r)
    if (q[r].thread >= 3) here.append(q[r].thread, rec[r]);
  for (uint32_t t = 0; t < 3; ++t) {
    const std::string bytes = there.stream_bytes(t);
    EXPECT_GT(bytes.size(), size_t{256}) << "more than one chunk";
    here.adopt_stream(t, bytes, there.stream_end(t));
  }
  const auto got = here.decode();
  ASSERT_EQ(got.size(), rec.size());
  for (size_t r = 0; r < rec.size(); ++r) expect_same(got[r], rec[r], r);
  // Appending to an adopted stream continues it: the deltas start from its last end.
  std::vector<uint32_t> more = thread_of;
  more.push_back(0);
  const auto q2 = requests_of_threads(more);
  RecordLog longer(q2);
  for (uint32_t t = 0; t < kThreads; ++t) longer.adopt_stream(t, there.stream_bytes(t), there.stream_end(t));
  RequestRecord last;
  last.planned_ns = now[0] + 10;
  last.begin_ns = now[0] + 20;
  last.end_ns = now[0] + 30;
  last.rvalue = 7;
  longer.append(0, last);
  const auto got2 = longer.decode();
  ASSERT_EQ(got2.size(), q2.size());
  expect_same(got2.back(), last, q2.size() - 1);
  expect_same(got2[100], rec[100], 100);
}

// A ring request is logged with its provisional record and completed after the run; the others
// keep what was logged, and a "completes later" record without a completion keeps its own.
TEST(RecordLog, UringCompletionsSuppliedLaterAreMergedIn) {
  const auto q = requests_of_threads({0, 1, 0, 1, 0});
  RecordLog log(q);
  log.append(0, {100, 110, 120, 4096, trace::kEventUring, SkipReason::kNone, false}, /*completes_later=*/true);
  log.append(1, {100, 105, 130, 7, 0, SkipReason::kNone, false});
  log.append(0, {125, 130, 140, 0, 0, SkipReason::kNone, true});
  log.append(1, {131, 140, 150, 4096, trace::kEventUring, SkipReason::kNone, false}, true);
  log.append(0, {141, 150, 160, 4096, trace::kEventUring, SkipReason::kNone, false}, true);
  log.complete_late(0, {111, 5000, -5, trace::kEventUring | trace::kEventMismatch});
  log.complete_late(4, {151, 4000, 4096, trace::kEventUring});
  const auto got = log.decode();
  ASSERT_EQ(got.size(), 5u);
  expect_same(got[0], {100, 111, 5000, -5, trace::kEventUring | trace::kEventMismatch, SkipReason::kNone, false}, 0);
  expect_same(got[1], {100, 105, 130, 7, 0, SkipReason::kNone, false}, 1);
  // The next record's deltas count from the logged end (120), not the completion's.
  expect_same(got[2], {125, 130, 140, 0, 0, SkipReason::kNone, true}, 2);
  expect_same(got[3], {131, 140, 150, 4096, trace::kEventUring, SkipReason::kNone, false}, 3);
  expect_same(got[4], {141, 151, 4000, 4096, trace::kEventUring, SkipReason::kNone, false}, 4);
}

TEST(RecordLog, EncodeOfRecordsInRequestOrderIsWhatAppendingGives) {
  const auto q = requests_of_threads({2, 0, 2, 1});
  const std::vector<RequestRecord> rec = {{1, 2, 3, 4, 0, SkipReason::kNone, false},
                                          {5, 6, 7, -8, 0, SkipReason::kNone, true},
                                          {9, 10, 11, 12, trace::kEventSkipped, SkipReason::kFdAfterClose, false},
                                          {13, 14, 15, 16, 0, SkipReason::kNone, false}};
  const auto got = RecordLog::encode(q, rec).decode();
  ASSERT_EQ(got.size(), rec.size());
  for (size_t r = 0; r < rec.size(); ++r) expect_same(got[r], rec[r], r);
  EXPECT_TRUE(RecordLog::encode({}, {}).decode().empty());
}

// select_ranks gives what std::nth_element gives, for narrow and full-width spreads.
TEST(RankSelect, SameValuesAsSorting) {
  std::mt19937_64 rng(3);
  for (int shape = 0; shape < 5; ++shape) {
    std::vector<int64_t> v;
    for (int i = 0; i < 10'007; ++i) {
      switch (shape) {
        case 0: v.push_back(static_cast<int64_t>(rng() % 300)); break;                 // 1 reading
        case 1: v.push_back(static_cast<int64_t>(rng() % 5'000'000) - 1000); break;   // 2 readings
        case 2: v.push_back(static_cast<int64_t>(rng())); break;                       // 4, min..max ~2^64
        case 3: v.push_back(i % 3 == 0 ? kMin : i % 3 == 1 ? kMax : 0); break;
        default: v.push_back(42); break;                                               // none
      }
    }
    const int64_t lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    const std::vector<uint64_t> ranks = {0, 1, v.size() / 2, v.size() * 99 / 100, v.size() - 1};
    const auto got = select_ranks([&](auto&& f) { for (int64_t x : v) f(x); }, lo, hi, ranks);
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(got.size(), ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(got[i], sorted[ranks[i]]) << "shape " << shape << " rank " << ranks[i];
  }
}

}  // namespace
}  // namespace rastro::replay

// The plan's packed events (replay/plan/compact_events.h): every event decodes to exactly the
// trace::Event pushed, on real traces (the strace and characterize fixtures) and on the strange
// events no fixture has.
#include "replay/plan/compact_events.h"

#include <sys/syscall.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "trace/importers/strace/strace_import.h"
#include "trace/io/trace_io.h"
#include "trace/io/trace_sink.h"
#include "trace/model/page_fault.h"

namespace rastro::replay {
namespace {

namespace fs = std::filesystem;

std::string fixtures() { return std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/"; }

void expect_round_trip(const std::vector<trace::Event>& events, const std::string& what) {
  CompactEvents c;
  for (const trace::Event& e : events) c.push_back(e);
  ASSERT_EQ(c.size(), events.size()) << what;
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(c[i], events[i]) << what << " event " << i;
    ASSERT_EQ(c.begin_ns(i), events[i].begin_ns) << what << " event " << i;
    // The fixed fields alone, read without the arguments, are the pushed event's.
    const CompactEvents::Fields f = c.fields(i);
    const trace::Event& want = events[i];
    EXPECT_EQ(f.pid, want.pid) << what << " event " << i;
    EXPECT_EQ(f.tid, want.tid) << what << " event " << i;
    EXPECT_EQ(f.nr, want.nr) << what << " event " << i;
    EXPECT_EQ(f.flags, want.flags) << what << " event " << i;
    EXPECT_EQ(f.begin_ns, want.begin_ns) << what << " event " << i;
    EXPECT_EQ(f.end_ns, want.end_ns) << what << " event " << i;
    EXPECT_EQ(f.rvalue, want.rvalue) << what << " event " << i;
    EXPECT_EQ(f.failed(), want.failed()) << what << " event " << i;
  }
  // One reused Event, forwards and backwards (a call with fewer arguments after one with more
  // must not keep the stale ones).
  CompactEvents::Reader read(c);
  for (size_t k = 0; k < events.size(); ++k) ASSERT_EQ(read(k), events[k]) << what << " event " << k << " (reader)";
  for (size_t k = events.size(); k-- > 0;) ASSERT_EQ(read(k), events[k]) << what << " event " << k << " (reader, backwards)";
  size_t i = 0;
  for (const trace::Event& e : c) EXPECT_EQ(e, events[i++]) << what;
  EXPECT_EQ(i, events.size());
}

TEST(CompactEvents, EveryEventOfTheStraceFixturesRoundTrips) {
  int logs = 0;
  for (const std::string dir : {"strace/", "strace/edge/"}) {
    for (const auto& f : fs::directory_iterator(fixtures() + dir)) {
      const std::string name = f.path().filename().string();
      if (name.find(".log") == std::string::npos) continue;
      std::ifstream in(f.path(), std::ios::binary);
      trace::MemorySink sink;
      trace::import_strace(in, name, sink, {});
      sink.finish();
      trace::Trace t = sink.take();
      ASSERT_FALSE(t.events.empty()) << name;
      expect_round_trip(t.events, name);
      ++logs;
    }
  }
  EXPECT_GE(logs, 15);
}

TEST(CompactEvents, EveryEventOfTheCapturedFixturesRoundTrips) {
  for (const std::string name : {"fileserver.rastro", "git_commit.rastro", "tar_doc.rastro"}) {
    trace::Trace t = trace::read_trace(fixtures() + "characterize/" + name);
    ASSERT_FALSE(t.events.empty()) << name;
    expect_round_trip(t.events, name);
  }
}

trace::Event openat(uint64_t seq, int64_t begin) {
  trace::Event e;
  e.seq = seq;
  e.pid = 100;
  e.tid = 101;
  e.begin_ns = begin;
  // (+1500 ns, or begin itself when that would overflow: the extreme case sets its own end)
  e.end_ns = begin <= std::numeric_limits<int64_t>::max() - 1500 ? begin + 1500 : begin;
  e.nr = SYS_openat;
  e.nargs = 4;
  e.args[0] = {trace::ArgType::kDirFd, -100, 0};
  e.args[1] = {trace::ArgType::kPath, 0, 7};
  e.args[2] = {trace::ArgType::kOpenFlags, 0x241, 0};
  e.args[3] = {trace::ArgType::kMode, 0644, 0};
  e.rvalue = 3;
  return e;
}

TEST(CompactEvents, StrangeEventsRoundTrip) {
  std::vector<trace::Event> v;
  v.push_back(openat(0, 1000));
  trace::Event unknown;  // an unknown syscall with its name and odd argument types
  unknown.seq = 1;
  unknown.nr = -1;
  unknown.name = 42;
  unknown.nargs = 3;
  unknown.args[0] = {trace::ArgType::kStr, 0, 9};
  unknown.args[1] = {trace::ArgType::kInt, -5, 0};
  unknown.args[2] = {trace::ArgType::kPtr, std::numeric_limits<int64_t>::min(), 3};
  unknown.begin_ns = 2000;
  unknown.end_ns = 2001;
  v.push_back(unknown);
  trace::Event unfinished = openat(2, 3000);  // never returned: end = begin, rvalue 0
  unfinished.flags = trace::kEventUnfinished;
  unfinished.end_ns = unfinished.begin_ns;
  unfinished.rvalue = 0;
  v.push_back(unfinished);
  trace::Event uring = openat(3, 4000);  // io_uring request with its link to io_uring_enter
  uring.nr = SYS_pread64;
  uring.nargs = 4;
  uring.args[0] = {trace::ArgType::kFd, 5, 7};
  uring.args[1] = {trace::ArgType::kBuf, 0, 0};
  uring.args[2] = {trace::ArgType::kCount, 4096, 0};
  uring.args[3] = {trace::ArgType::kOffset, 1 << 20, 0};
  uring.flags = trace::kEventUring | trace::kEventOffCpu;
  uring.uring_user_data = ~uint64_t{0};
  uring.uring_enter_ns = 3999;
  uring.offcpu_ns = 777;
  uring.vol_switches = 2;
  uring.invol_switches = 1;
  v.push_back(uring);
  trace::Event after_a_gap = openat(4, 4500);  // a call after 3 ms of its thread off-CPU
  after_a_gap.flags = trace::kEventOffCpu;
  after_a_gap.gap_offcpu_ns = 3'000'000;
  v.push_back(after_a_gap);
  trace::Event fault;  // a page fault pseudo-call (named, five arguments)
  fault.seq = 4;
  fault.begin_ns = fault.end_ns = 5000;
  fault.nr = -1;
  fault.name = 11;
  fault.flags = trace::kEventPageFault;
  fault.nargs = trace::kFaultArgs;
  fault.args[trace::kFaultArgFile] = {trace::ArgType::kPath, 0, 7};
  fault.args[trace::kFaultArgOffset] = {trace::ArgType::kOffset, 8192, 0};
  fault.args[trace::kFaultArgLength] = {trace::ArgType::kCount, 4096, 0};
  fault.args[trace::kFaultArgHow] = {trace::ArgType::kInt, trace::kFaultWrite | trace::kFaultShared, 0};
  fault.args[trace::kFaultArgAddress] = {trace::ArgType::kPtr, 0x7f0000001000, 0};
  v.push_back(fault);
  trace::Event replayed = openat(99, 6000);  // a replayed event: seq not its index, replay fields
  replayed.flags = trace::kEventReplayed | trace::kEventMismatch | trace::kEventCalibrated;
  replayed.planned_ns = -12;
  replayed.expected_rvalue = 4;
  replayed.raw_end_ns = 7000;
  v.push_back(replayed);
  trace::Event extra = openat(6, 7000);  // an argument set past nargs, and a wrong type
  extra.args[5] = {trace::ArgType::kInt, 1, 0};
  extra.args[2].type = trace::ArgType::kInt;
  v.push_back(extra);
  trace::Event extreme = openat(7, std::numeric_limits<int64_t>::max());  // times at the limits
  extreme.end_ns = std::numeric_limits<int64_t>::min();
  extreme.pid = -1;
  extreme.tid = std::numeric_limits<int32_t>::max();
  extreme.rvalue = std::numeric_limits<int64_t>::min();
  v.push_back(extreme);
  v.push_back(openat(8, std::numeric_limits<int64_t>::min()));
  v.push_back(trace::Event{});  // all defaults (seq 0 at index 9)
  expect_round_trip(v, "strange");
}

TEST(CompactEvents, ManyEventsSpanChunksAndStaySmall) {
  // 300 k events over 16 threads: several 1 MiB chunks, and the groups' offsets across them.
  std::vector<trace::Event> v;
  for (uint64_t i = 0; i < 300000; ++i) {
    trace::Event e = openat(i, static_cast<int64_t>(1'000'000'000 + i * 10'000));
    e.tid = 101 + static_cast<int32_t>(i % 16);
    e.args[1].str = static_cast<trace::StrId>(i % 5000);
    e.rvalue = static_cast<int64_t>(i % 1000);
    v.push_back(e);
  }
  expect_round_trip(v, "many");
  CompactEvents c;
  for (const trace::Event& e : v) c.push_back(e);
  EXPECT_LE(c.memory_bytes() / v.size(), 24u) << "bytes per event";  // an Event is 216
  const CompactEvents copy = c;  // copies decode the same
  for (size_t i = 0; i < v.size(); i += 997) EXPECT_EQ(copy[i], v[i]);
}

// uring_batches skips its walk when no event has kEventUring: the union must see every event's
// flags, and survive a copy.
TEST(CompactEvents, FlagsUnionIsEveryEventsFlagsOred) {
  CompactEvents v;
  EXPECT_EQ(v.flags_union(), 0u);
  trace::Event e;
  e.nr = SYS_read;
  v.push_back(e);
  EXPECT_EQ(v.flags_union(), 0u);
  e.flags = trace::kEventUnfinished;
  v.push_back(e);
  e.flags = trace::kEventUring;
  v.push_back(e);
  e.flags = 0;
  v.push_back(e);
  EXPECT_EQ(v.flags_union(), trace::kEventUnfinished | trace::kEventUring);
  const CompactEvents copy(v);
  EXPECT_EQ(copy.flags_union(), trace::kEventUnfinished | trace::kEventUring);
}

}  // namespace
}  // namespace rastro::replay

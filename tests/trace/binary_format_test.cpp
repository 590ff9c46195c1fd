// The .rastro binary format: lossless round trips, damaged files (truncated at every byte,
// flipped bytes, garbage) and a writer killed with SIGKILL.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <span>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/random_trace.h"
#include "trace/formats/binary/binary_reader.h"
#include "trace/formats/binary/binary_writer.h"
#include "trace/formats/binary/block_codec.h"
#include "trace/formats/binary/crc32c.h"
#include "trace/formats/binary/event_columns.h"
#include "trace/io/trace_io.h"
#include "trace/formats/binary/varint.h"

namespace rastro::trace::binary {
namespace {

namespace fs = std::filesystem;

class BinaryFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rastro_binary_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void spit(const std::string& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expect_same_strings(const StringTable& a, const StringTable& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a.get(static_cast<StrId>(i)), b.get(static_cast<StrId>(i))) << "string " << i;
}

TEST(Varint, ZigzagAndLimits) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::string s;
    put_svarint(s, v);
    VarintCursor c(reinterpret_cast<const uint8_t*>(s.data()),
                   reinterpret_cast<const uint8_t*>(s.data()) + s.size());
    EXPECT_EQ(c.get_signed(), v);
    EXPECT_TRUE(c.at_end());
    EXPECT_FALSE(c.bad());
  }
  EXPECT_EQ(zigzag(-1), 1u);
  EXPECT_EQ(zigzag(1), 2u);
  // Overlong (11 continuation bytes) and cut-short varints are errors, not reads past the end.
  std::string bad(11, '\x80');
  VarintCursor c(reinterpret_cast<const uint8_t*>(bad.data()),
                 reinterpret_cast<const uint8_t*>(bad.data()) + bad.size());
  c.get();
  EXPECT_TRUE(c.bad());
  VarintCursor d(reinterpret_cast<const uint8_t*>(bad.data()),
                 reinterpret_cast<const uint8_t*>(bad.data()) + 3);
  d.get();
  EXPECT_TRUE(d.bad());
}

// Every length from 1 to 10 bytes, read where the cursor may look 8 bytes ahead (a fast path)
// and where it may not (the last bytes of a buffer), against values and encodings known by hand
// (LEB128: 300 is AC 02).
TEST(Varint, EveryLengthReadsTheSameWithAndWithoutLookAhead) {
  const std::vector<uint8_t> three_hundred = {0xAC, 0x02};
  VarintCursor k(three_hundred.data(), three_hundred.data() + three_hundred.size());
  EXPECT_EQ(k.get(), 300u);
  std::vector<uint64_t> values = {0, 1, 127, 128, 300, 16383, 16384};
  for (int bits = 14; bits <= 64; bits += 7) {
    const uint64_t top = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    values.insert(values.end(), {top, top + 1, top - 1, top / 3});
  }
  for (uint64_t v : values) {
    size_t len = 1;  // the LEB128 length, counted here (7 bits a byte)
    for (uint64_t x = v; x >= 0x80; x >>= 7) ++len;
    std::string s;
    put_varint(s, v);
    ASSERT_EQ(s.size(), len) << v;
    // Followed by a second value, then 16 more bytes in the buffer (the cursor may read ahead)
    // or none.
    for (size_t slack : {size_t{16}, size_t{0}}) {
      std::string buf = s;
      put_varint(buf, 5);
      buf.append(slack, '\xff');
      const auto* p = reinterpret_cast<const uint8_t*>(buf.data());
      VarintCursor c(p, p + buf.size());
      EXPECT_EQ(c.get(), v) << "slack " << slack;
      EXPECT_EQ(c.get(), 5u) << v;
      EXPECT_EQ(c.remaining(), slack);
      EXPECT_FALSE(c.bad());
    }
  }
  // A continuation byte as the 8th: the value goes on into the 9th (not cut at 8 bytes).
  const std::vector<uint8_t> nine = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0, 0, 0, 0, 0, 0, 0};
  VarintCursor n(nine.data(), nine.data() + nine.size());
  EXPECT_EQ(n.get(), uint64_t{1} << 56);
  EXPECT_FALSE(n.bad());
  EXPECT_EQ(n.remaining(), 8u);
}

TEST(Crc32c, KnownVectorAndHardwareAgree) {
  // RFC 3720 B.4 check value.
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);
  EXPECT_EQ(crc32c_portable("123456789", 9), 0xe3069283u);
  std::string s(1000, '\0');
  std::mt19937 rng(7);
  for (auto& ch : s) ch = static_cast<char>(rng());
  for (size_t n : {0, 1, 7, 8, 9, 63, 1000}) EXPECT_EQ(crc32c(s.data(), n), crc32c_portable(s.data(), n));
}

TEST_F(BinaryFormatTest, RandomTracesRoundTripLosslessly) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Trace t = testing::random_trace(5000, seed);
    std::string p = path("rt.rastro");
    write_binary_trace(p, t, BinaryWriterOptions{.events_per_block = 777, .zstd_level = 3});
    ReadReport rep;
    Trace r = read_binary_trace(p, &rep);
    EXPECT_TRUE(rep.intact) << rep.problem;
    EXPECT_TRUE(rep.problem.empty());
    EXPECT_TRUE(r.header.complete);
    EXPECT_EQ(r.header.backend, "random-test");
    EXPECT_EQ(r.header.events_lost, 3u);
    EXPECT_EQ(r.header.settings["seed"], seed);
    expect_same_strings(r.strings, t.strings);
    ASSERT_EQ(r.events.size(), t.events.size());
    for (size_t i = 0; i < t.events.size(); ++i) ASSERT_EQ(r.events[i], t.events[i]) << "event " << i;
    EXPECT_EQ(rep.bytes, fs::file_size(p));
  }
}

// Column count of an events payload: its leading lengths, up to where they add up to the rest.
size_t payload_columns(const std::string& raw) {
  VarintCursor c(reinterpret_cast<const uint8_t*>(raw.data()), reinterpret_cast<const uint8_t*>(raw.data()) + raw.size());
  uint64_t total = 0;
  size_t n = 0;
  while (n < kBaseEventColumns || total != c.remaining()) {
    total += c.get();
    ++n;
    if (c.bad() || n > 64) return 0;
  }
  return n;
}

TEST_F(BinaryFormatTest, OffCpuColumnsAreWrittenOnlyWhenMeasuredAndOldLayoutsStillRead) {
  Event plain;
  plain.nr = 0;
  plain.begin_ns = 1000;
  plain.end_ns = 2000;
  Event measured = plain;
  measured.flags = kEventOffCpu;
  measured.offcpu_ns = 700;
  measured.vol_switches = 3;
  measured.invol_switches = 1;
  EventColumnEncoder enc;
  std::string raw;
  enc.encode(std::vector<Event>{plain, plain}, raw);
  EXPECT_EQ(payload_columns(raw), kBaseEventColumns);  // the layout of traces before these columns
  std::vector<Event> back;
  std::string why;
  ASSERT_TRUE(decode_event_columns(raw, 2, 1, back, &why)) << why;
  EXPECT_EQ(back[1].offcpu_ns, 0);
  enc.encode(std::vector<Event>{plain, measured}, raw);
  EXPECT_EQ(payload_columns(raw), kBaseEventColumns + 2);
  back.clear();
  ASSERT_TRUE(decode_event_columns(raw, 2, 1, back, &why)) << why;
  EXPECT_EQ(back[0], plain);
  EXPECT_EQ(back[1], measured);
  // A trace written before the columns existed (a committed fixture) reads unchanged.
  Trace old = read_trace(std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/characterize/git_commit.rastro");
  ASSERT_FALSE(old.events.empty());
  for (const Event& e : old.events) EXPECT_EQ(e.flags & kEventOffCpu, 0u);
}

// The decoder reuses one Event per block: a request without a link to its io_uring_enter must
// not inherit the previous request's link.
TEST_F(BinaryFormatTest, IoUringLinksDoNotCarryOverBetweenEventsOfABlock) {
  Event linked;
  linked.nr = 17;
  linked.begin_ns = 5000;
  linked.end_ns = 9000;
  linked.flags = kEventUring;
  linked.uring_user_data = 5;
  linked.uring_enter_ns = 4900;
  Event unlinked = linked;
  unlinked.begin_ns = 6000;
  unlinked.uring_user_data = 6;
  unlinked.uring_enter_ns = 0;
  EventColumnEncoder enc;
  std::string raw;
  enc.encode(std::vector<Event>{linked, unlinked}, raw);
  std::vector<Event> back;
  std::string why;
  ASSERT_TRUE(decode_event_columns(raw, 2, 1, back, &why)) << why;
  EXPECT_EQ(back[0], linked);
  EXPECT_EQ(back[1], unlinked);
}

TEST_F(BinaryFormatTest, StreamingReaderYieldsTheSameEvents) {
  Trace t = testing::random_trace(3000, 11);
  std::string p = path("s.rastro");
  write_binary_trace(p, t, BinaryWriterOptions{.events_per_block = 100});
  BinaryReader r(p);
  EXPECT_FALSE(r.header().complete);  // not known before the trailer is reached
  Event e;
  size_t i = 0;
  while (r.next(&e)) {
    ASSERT_LT(i, t.events.size());
    ASSERT_EQ(e, t.events[i]);
    for (int a = 0; a < e.nargs; ++a)  // every id is resolvable as soon as the event is returned
      EXPECT_EQ(r.strings().get(e.arg(a).str), t.strings.get(e.arg(a).str));
    ++i;
  }
  EXPECT_EQ(i, t.events.size());
  EXPECT_TRUE(r.report().intact) << r.report().problem;
  EXPECT_TRUE(r.header().complete);
}

TEST_F(BinaryFormatTest, StreamingViewsYieldTheSameEventsInCacheSizedParts) {
  // Blocks of 5 000 events: each is decoded in parts of kDecodeChunkEvents into one reused buffer.
  Trace t = testing::random_trace(12000, 5);
  std::string p = path("v.rastro");
  write_binary_trace(p, t, BinaryWriterOptions{.events_per_block = 5000});
  BinaryReader r(p);
  std::span<const Event> view;
  size_t i = 0, views = 0;
  while (r.next_events(&view)) {
    EXPECT_LE(view.size(), kDecodeChunkEvents);
    for (const Event& e : view) {
      ASSERT_LT(i, t.events.size());
      ASSERT_EQ(e, t.events[i]) << "event " << i;
      ++i;
    }
    ++views;
    EXPECT_EQ(r.events_read(), i);
  }
  EXPECT_EQ(i, t.events.size());
  EXPECT_EQ(views, 7u);  // 2 048 + 2 048 + 904 for each of the two full blocks, then 2 000
  EXPECT_TRUE(r.report().intact) << r.report().problem;
  EXPECT_TRUE(r.header().complete);
}

// The reused buffer's slots hold the events of the previous part: fields a block does not carry
// (off-CPU and io_uring columns, arguments beyond nargs) must read as zero, not as the old values.
TEST_F(BinaryFormatTest, StreamingViewsDoNotLeakFieldsOfThePreviousBlock) {
  Trace t;
  StrId file = t.strings.intern("/f");
  for (int i = 0; i < 3000; ++i) {
    Event e;
    e.nr = 17;
    e.begin_ns = 1000 + i;
    e.end_ns = 2000 + i;
    if (i < 2048) {  // the first part: everything set
      e.flags = kEventOffCpu | kEventUring;
      e.offcpu_ns = 77;
      e.vol_switches = 2;
      e.invol_switches = 3;
      e.uring_user_data = 9;
      e.uring_enter_ns = 900 + i;
      e.gap_offcpu_ns = 55 + i;
      e.nargs = kMaxArgs;
      for (auto& a : e.args) a = {ArgType::kFd, 5, file};
      e.planned_ns = 1;
      e.raw_end_ns = 2;
      e.expected_rvalue = 3;
    }
    t.events.push_back(e);
    t.events.back().seq = static_cast<uint64_t>(i);
  }
  std::string p = path("leak.rastro");
  write_binary_trace(p, t, BinaryWriterOptions{.events_per_block = 2048});
  BinaryReader r(p);
  std::span<const Event> view;
  size_t i = 0;
  while (r.next_events(&view))
    for (const Event& e : view) {
      ASSERT_EQ(e, t.events[i]) << "event " << i;
      ++i;
    }
  EXPECT_EQ(i, t.events.size());
}

// A block whose checksum is right but whose columns do not decode (a writer bug, a crafted file):
// the view reader ends the trace after the parts it already returned, the block reader drops the
// whole block (docs/format.md, "Streaming reading").
TEST_F(BinaryFormatTest, ABlockThatStopsDecodingPartWayEndsTheTraceThere) {
  std::vector<Event> ev(3000);
  for (size_t i = 0; i < ev.size(); ++i) {
    ev[i].seq = i;
    ev[i].nr = 0;
    ev[i].begin_ns = static_cast<int64_t>(i);
    ev[i].end_ns = static_cast<int64_t>(i) + 1;
  }
  ev[2500].name = 5;  // the table holds only "" (id 0): found in the second part
  EventColumnEncoder enc;
  std::string raw;
  enc.encode(ev, raw);
  std::string file = file_header();
  BlockEncoder blocks;
  blocks.append_block(file, BlockType::kHeader, 0, TraceHeader{}.to_json().dump());
  blocks.append_block(file, BlockType::kEvents, static_cast<uint32_t>(ev.size()), raw);
  const std::string p = path("bad_part.rastro");
  spit(p, file);

  BinaryReader views(p);
  std::span<const Event> view;
  size_t n = 0;
  while (views.next_events(&view)) n += view.size();
  EXPECT_EQ(n, kDecodeChunkEvents);
  EXPECT_FALSE(views.report().intact);
  EXPECT_NE(views.report().problem.find("event 2500: name id 5 is not in the string table"), std::string::npos)
      << views.report().problem;
  EXPECT_NE(views.report().problem.find("kept the 2048 events before it"), std::string::npos)
      << views.report().problem;

  BinaryReader whole(p);
  std::vector<Event> all;
  while (whole.next_block(&all)) {
  }
  EXPECT_TRUE(all.empty());
  EXPECT_FALSE(whole.report().intact);
  EXPECT_NE(whole.report().problem.find("kept the 0 events before it"), std::string::npos) << whole.report().problem;
}

TEST_F(BinaryFormatTest, SinkAssignsSeqAndStringsAddedBetweenBlocks) {
  std::string p = path("sink.rastro");
  TraceHeader h;
  h.backend = "unit";
  {
    BinaryWriter w(p, h, BinaryWriterOptions{.events_per_block = 2});
    for (int i = 0; i < 7; ++i) {
      Event e;
      e.seq = 999;  // ignored: the sink numbers events
      e.nr = 0;
      e.nargs = 1;
      e.args[0] = Arg{ArgType::kFd, 3, w.strings().intern("/f" + std::to_string(i))};
      e.begin_ns = i * 10;
      e.end_ns = i * 10 + 5;
      w.append(e);
    }
    w.header().events_captured = 7;
    w.finish();
  }
  Trace r = read_binary_trace(p);
  ASSERT_EQ(r.events.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(r.events[i].seq, i);
    EXPECT_EQ(r.str(r.events[i].args[0].str), "/f" + std::to_string(i));
  }
  EXPECT_EQ(r.header.events_captured, 7u);
  EXPECT_TRUE(r.header.complete);
}

TEST_F(BinaryFormatTest, EmptyTraceRoundTrips) {
  Trace t;
  t.header.backend = "empty";
  std::string p = path("e.rastro");
  write_binary_trace(p, t);
  ReadReport rep;
  Trace r = read_binary_trace(p, &rep);
  EXPECT_TRUE(rep.intact) << rep.problem;
  EXPECT_TRUE(r.events.empty());
  EXPECT_TRUE(r.header.complete);
  EXPECT_EQ(r.header.backend, "empty");
}

// Cutting the file at every byte offset yields the events of the complete blocks before the
// cut, never a crash; only the full file reads as complete and intact.
TEST_F(BinaryFormatTest, TruncatedAtEveryOffsetKeepsTheIntactPrefix) {
  Trace t = testing::random_trace(40, 5);
  std::string full = path("full.rastro");
  write_binary_trace(full, t, BinaryWriterOptions{.events_per_block = 6});
  std::string bytes = slurp(full);
  std::string cut = path("cut.rastro");
  size_t last_count = 0;
  for (size_t len = 0; len <= bytes.size(); ++len) {
    spit(cut, std::string_view(bytes).substr(0, len));
    if (len < kFileHeaderSize) {
      EXPECT_THROW(read_binary_trace(cut), Error) << len;
      continue;
    }
    ReadReport rep;
    Trace r = read_binary_trace(cut, &rep);
    ASSERT_LE(r.events.size(), t.events.size());
    for (size_t i = 0; i < r.events.size(); ++i) ASSERT_EQ(r.events[i], t.events[i]) << len;
    EXPECT_GE(r.events.size(), last_count) << "prefix shrank at " << len;
    last_count = r.events.size();
    EXPECT_LE(rep.bytes, len);
    if (len == bytes.size()) {
      EXPECT_TRUE(rep.intact) << rep.problem;
      EXPECT_TRUE(r.header.complete);
      EXPECT_EQ(r.events.size(), t.events.size());
    } else {
      EXPECT_FALSE(rep.intact) << len;
      EXPECT_FALSE(r.header.complete) << len;
      EXPECT_NE(rep.problem.find("byte offset"), std::string::npos) << rep.problem;
    }
  }
  EXPECT_EQ(last_count, t.events.size());
}

// Every single flipped byte is caught: by the magic/version check (an Error) or by a block
// checksum (the prefix before the damaged block).
TEST_F(BinaryFormatTest, EveryFlippedByteIsDetected) {
  Trace t = testing::random_trace(30, 9);
  std::string full = path("full.rastro");
  write_binary_trace(full, t, BinaryWriterOptions{.events_per_block = 8});
  std::string bytes = slurp(full);
  std::string bad = path("bad.rastro");
  for (size_t off = 0; off < bytes.size(); ++off) {
    std::string b = bytes;
    b[off] = static_cast<char>(b[off] ^ 0x20);
    spit(bad, b);
    if (off < kFileHeaderSize) {
      EXPECT_THROW(read_binary_trace(bad), Error) << off;
      continue;
    }
    ReadReport rep;
    Trace r = read_binary_trace(bad, &rep);
    EXPECT_FALSE(rep.intact) << "flip at " << off << " went unnoticed";
    EXPECT_LE(rep.bytes, off) << "the damaged block was counted as intact";
    for (size_t i = 0; i < r.events.size(); ++i) ASSERT_EQ(r.events[i], t.events[i]);
  }
}

TEST_F(BinaryFormatTest, GarbageAndForeignFilesAreErrorsNamingTheFile) {
  std::string p = path("garbage.bin");
  std::mt19937 rng(3);
  std::string g(10000, '\0');
  for (auto& c : g) c = static_cast<char>(rng());
  spit(p, g);
  try {
    read_binary_trace(p);
    FAIL() << "garbage accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("magic"), std::string::npos) << e.what();
  }
  // Right magic, future version.
  std::string h = file_header();
  h[8] = 99;
  spit(p, h);
  try {
    read_binary_trace(p);
    FAIL() << "future version accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos) << e.what();
  }
  // Right file header followed by garbage: an empty, non-intact trace.
  spit(p, file_header() + g);
  ReadReport rep;
  Trace r = read_binary_trace(p, &rep);
  EXPECT_TRUE(r.events.empty());
  EXPECT_FALSE(rep.intact);
  EXPECT_NE(rep.problem.find("block 0 at byte offset 16"), std::string::npos) << rep.problem;
  EXPECT_THROW(read_binary_trace(path("missing.rastro")), Error);
}

TEST_F(BinaryFormatTest, DataAfterTheTrailerIsReported) {
  Trace t = testing::random_trace(10, 2);
  std::string p = path("t.rastro");
  write_binary_trace(p, t);
  spit(p, slurp(p) + "junk");
  ReadReport rep;
  Trace r = read_binary_trace(p, &rep);
  EXPECT_EQ(r.events.size(), 10u);
  EXPECT_FALSE(rep.intact);
  EXPECT_NE(rep.problem.find("after the trailer"), std::string::npos) << rep.problem;
}

// A capture killed with SIGKILL leaves every flushed block readable, marked incomplete.
TEST_F(BinaryFormatTest, WriterKilledWithSigkillLeavesAReadablePrefix) {
  std::string p = path("killed.rastro");
  Trace t = testing::random_trace(2500, 21);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    BinaryWriter w(p, t.header, BinaryWriterOptions{.events_per_block = 1000});
    w.strings() = t.strings;
    for (size_t i = 0; i < 2000; ++i) w.append_keep_seq(t.events[i]);  // two full blocks
    for (size_t i = 2000; i < 2300; ++i) w.append_keep_seq(t.events[i]);
    w.flush();  // a partial third block
    for (size_t i = 2300; i < 2500; ++i) w.append_keep_seq(t.events[i]);  // buffered only
    char c = 'x';
    if (::write(ready[1], &c, 1) != 1) ::_exit(3);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ReadReport rep;
  Trace r = read_binary_trace(p, &rep);
  EXPECT_FALSE(r.header.complete);
  EXPECT_FALSE(rep.intact);
  EXPECT_NE(rep.problem.find("trailer"), std::string::npos) << rep.problem;
  ASSERT_EQ(r.events.size(), 2300u);
  for (size_t i = 0; i < r.events.size(); ++i) ASSERT_EQ(r.events[i], t.events[i]);
  EXPECT_EQ(r.header.backend, "random-test");
}

}  // namespace
}  // namespace rastro::trace::binary

// TSV/CSV text traces: lossless round trips (random traces exercising every field), readable
// output, and clear errors naming the line for bad input.
#include "trace/formats/text/text_format.h"

#include <sstream>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/random_trace.h"

namespace rastro::trace {
namespace {

std::string to_text(const Trace& t, char sep) {
  std::ostringstream out;
  write_text_trace(out, t, sep);
  return out.str();
}

Trace from_text(const std::string& s) {
  std::istringstream in(s);
  return read_text_trace(in, "t.tsv");
}

void expect_same(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (size_t i = 0; i < a.strings.size(); ++i)
    EXPECT_EQ(a.strings.get(static_cast<StrId>(i)), b.strings.get(static_cast<StrId>(i))) << "string " << i;
  for (size_t i = 0; i < a.events.size(); ++i) ASSERT_EQ(a.events[i], b.events[i]) << "event " << i;
  EXPECT_EQ(a.header.backend, b.header.backend);
  EXPECT_EQ(a.header.events_lost, b.header.events_lost);
  EXPECT_EQ(a.header.lost_reasons, b.header.lost_reasons);
  EXPECT_EQ(a.header.settings, b.header.settings);
}

Trace small_trace() {
  Trace t;
  t.header.backend = "test";
  Event e;
  e.pid = 812;
  e.tid = 813;
  e.begin_ns = 1000;
  e.end_ns = 1900;
  e.nr = 257;  // openat
  e.nargs = 4;
  e.args[0] = {ArgType::kDirFd, -100, kNoStr};
  e.args[1] = {ArgType::kPath, 0, t.strings.intern("/etc/a,b\tc")};
  e.args[2] = {ArgType::kOpenFlags, 02000000, kNoStr};
  e.args[3] = {ArgType::kMode, 0, kNoStr};
  e.rvalue = -2;
  t.events.push_back(e);
  return t;
}

TEST(TextFormat, ThesisColumnsAndStraceLikeArgs) {
  std::string tsv = to_text(small_trace(), '\t');
  EXPECT_NE(tsv.find("pid\ttid\tbegin\tend\tfunction\targs\trvalue\t"), std::string::npos) << tsv;
  EXPECT_NE(tsv.find("812\t813\t1000\t1900\topenat\tAT_FDCWD, \"/etc/a,b\\tc\", O_RDONLY|O_CLOEXEC, 000\t"
                     "-1 ENOENT (No such file or directory)\t0\t0\t0\t0\t0\n"),
            std::string::npos)
      << tsv;
  std::string csv = to_text(small_trace(), ',');
  EXPECT_NE(csv.find("812,813,1000,1900,openat,\"AT_FDCWD, \"\"/etc/a,b\\tc\"\", O_RDONLY|O_CLOEXEC, 000\","
                     "-1 ENOENT (No such file or directory),0,0,0,0,0\n"),
            std::string::npos)
      << csv;
  EXPECT_TRUE(looks_like_text_trace(tsv));
  EXPECT_TRUE(looks_like_text_trace(csv));
  EXPECT_FALSE(looks_like_text_trace("RSTR\x01garbage"));
  EXPECT_FALSE(looks_like_text_trace("8635  1795317127.835194 execve("));
}

TEST(TextFormat, RandomTracesRoundTripLosslessly) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    Trace t = testing::random_trace(3000, seed);
    for (char sep : {'\t', ','}) {
      std::string text = to_text(t, sep);
      Trace back = from_text(text);
      expect_same(t, back);
      EXPECT_EQ(to_text(back, sep), text) << "text is stable";
    }
  }
}

TEST(TextFormat, StringIdsReproducedEvenWhenTableOrderIsUnusual) {
  Trace t = small_trace();
  t.strings = StringTable();
  t.strings.intern("unused");  // id 1, never referenced
  StrId p = t.strings.intern("/etc/a,b\tc");
  t.events[0].args[1].str = p;
  std::string text = to_text(t, '\t');
  EXPECT_NE(text.find("# strings \"unused\" \"/etc/a,b\\tc\"\n"), std::string::npos) << text;
  expect_same(t, from_text(text));
  // Usual traces (first-use order) need no strings line.
  EXPECT_EQ(to_text(small_trace(), '\t').find("# strings"), std::string::npos);
}

TEST(TextFormat, HandWrittenMinimalTsvReads) {
  Trace t = from_text(
      "pid\ttid\tbegin\tend\tfunction\targs\trvalue\n"
      "1\t1\t10\t20\tread\t3</x>, ..., 4096\t4096\n"
      "1\t2\t30\t40\tmy_call\t7, \"s\", fd:4\t0\n");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].nr, 0);
  EXPECT_EQ(t.strings.get(t.events[0].args[0].str), "/x");
  EXPECT_EQ(t.events[0].seq, 0u);
  EXPECT_EQ(t.events[1].nr, -1);
  EXPECT_EQ(t.strings.get(t.events[1].name), "my_call");
  EXPECT_EQ(t.events[1].args[2].type, ArgType::kFd);
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    from_text(text);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(TextFormat, BadInputNamesFileLineAndProblem) {
  const std::string cols = "pid\ttid\tbegin\tend\tfunction\targs\trvalue\n";
  expect_error(cols + "1\t1\t10\t20\tread\t3, ..., 1\n", "t.tsv:2: 6 fields, expected 7");
  expect_error(cols + "1\t1\tten\t20\tread\t3, ..., 1\t1\n", "t.tsv:2: column 'begin': 'ten' is not an integer");
  expect_error(cols + "1\t1\t10\t20\tread\t3, ..., 1\tlots\n", "t.tsv:2: column 'rvalue'");
  expect_error(cols + "1\t1\t10\t20\tread\tthree, ..., 1\t1\n", "t.tsv:2: column 'args': argument 1");
  expect_error(cols + "1\t1\t10\t20\topenat\tAT_FDCWD, \"/x\\q\", 0, 0\t1\n", "t.tsv:2: column 'args'");
  expect_error("pid\ttid\tbegin\n", "t.tsv:1: missing column 'end'");
  expect_error("pid\ttid\tbegin\tend\tfunction\targs\trvalue\tcolour\n", "unknown column 'colour'");
  expect_error("", "no column line");
  expect_error("# rastro-trace text 1 {not json\n" + cols, "t.tsv:1: header comment is not valid JSON");
  expect_error("# rastro-trace text 1 {\"format_version\": 99}\n" + cols, "t.tsv:1: trace format version 99");
  expect_error(std::string("pid,tid,begin,end,function,args,rvalue\n1,1,1,2,read,\"3, ..., 4\n"), "t.tsv:2: unterminated quoted CSV field");
  expect_error(cols + std::string("\x01\x02\xff\xfe garbage\n"), "t.tsv:2:");
  // A huge line is reported, not echoed in full.
  std::string huge = cols + "1\t1\t10\t20\tread\t" + std::string(10 << 20, 'A') + "\t1\n";
  try {
    from_text(huge);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_LT(std::string(e.what()).size(), 400u);
  }
}

// Fuzzer finding F4 (docs/reliability.md): a header integer too big for its field (nlohmann's
// conversion is undefined behaviour) or a fraction is an error naming the key.
TEST(TextFormat, HeaderIntegersOutOfRangeAreErrorsNamingTheKey) {
  for (const char* value : {"69999999999999999999999999999999999999", "-1", "1.5", "1e300"}) {
    std::istringstream in(std::string("# rastro-trace text 1 {\"format_version\":1,\"events_captured\":") + value +
                          "}\npid\ttid\tbegin\tend\tfunction\targs\trvalue\n");
    try {
      read_text_trace(in, "fuzz.tsv");
      ADD_FAILURE() << "accepted events_captured = " << value;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("events_captured"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rastro::trace

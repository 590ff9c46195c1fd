#include "capture/stap/stap_output_parser.h"

#include <sstream>

#include <gtest/gtest.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::capture {
namespace {

// Recorded-format output of the generated script for a tiny workload (synthetic: SystemTap
// cannot run on the project's kernel, PLATFORM.md).
constexpr const char* kOutput =
    "RASTRO-STAP 1\n"
    "S 100 100 257 1000000000 1000000500 3 -100 140000 66 420 0 0 | \"/tmp/a b\\\"c\\n\"\n"
    "S 100 101 17 1000001000 1000002000 4096 3 140000 4096 0 0 0 | \n"
    "some warning from stap\n"
    "S 100 100 82 1000003000 1000004000 -2 140000 140001 0 0 0 0 | \"/tmp/x\" \"/tmp/\\101y\"\n"
    "S 100 100 57 1000005000 1000006000 200 0 0 0 0 0 0 | \n"
    "S 200 200 0 1000007000 1000008000 5 3 0 5 0 0 0 | \n"
    "S 100 100 3 1000009000 1000009500 0 3 0 0 0 0 0 | \n"
    "S 100 100 0 1000010000 1000010500 -9 3 0 5 0 0 0 | \n"
    "X 100 100 231 1000011000 7\n"
    "S 100 bad 0 1 2 3 4 5 6 7 8 9 | \n"
    "S 100 100 2 1 2 3 4 5 6 7 8 9 | \"unterminated\n";

TEST(StapOutputParser, ConvertsLinesToEvents) {
  std::istringstream in(kOutput);
  trace::MemorySink sink;
  StapParseStats st = parse_stap_output(in, sink, /*realtime_to_monotonic_ns=*/-999000000);
  const auto& ev = sink.trace().events;
  ASSERT_EQ(st.events, 8u);
  EXPECT_EQ(st.malformed, 2u);
  EXPECT_EQ(st.first_malformed.rfind("line 11:", 0), 0u) << st.first_malformed;
  EXPECT_EQ(st.ignored_lines, 2u);  // header + warning
  ASSERT_EQ(ev.size(), 8u);

  // openat(AT_FDCWD, "/tmp/a b\"c\n", O_RDWR|O_CREAT, 0644) = 3
  EXPECT_EQ(ev[0].nr, 257);
  EXPECT_EQ(ev[0].begin_ns, 1000000);
  EXPECT_EQ(ev[0].end_ns, 1000500);
  EXPECT_EQ(ev[0].rvalue, 3);
  EXPECT_EQ(ev[0].nargs, 4);
  EXPECT_EQ(ev[0].args[0].value, -100);
  EXPECT_EQ(ev[0].args[0].str, trace::kNoStr);
  EXPECT_EQ(sink.strings().get(ev[0].args[1].str), "/tmp/a b\"c\n");
  EXPECT_EQ(ev[0].args[2].value, 66);
  EXPECT_EQ(ev[0].args[3].value, 0644);

  // pread64 on fd 3 in another thread of the same process: the fd path comes from the openat.
  EXPECT_EQ(ev[1].tid, 101);
  EXPECT_EQ(ev[1].args[0].value, 3);
  EXPECT_EQ(sink.strings().get(ev[1].args[0].str), "/tmp/a b\"c\n");
  EXPECT_EQ(ev[1].args[1].value, 0);  // buffer address not recorded

  // rename with two strings and an octal escape; failure keeps -errno.
  EXPECT_EQ(sink.strings().get(ev[2].args[0].str), "/tmp/x");
  EXPECT_EQ(sink.strings().get(ev[2].args[1].str), "/tmp/Ay");
  EXPECT_EQ(ev[2].rvalue, -2);

  // fork() = 200: the child inherits fd 3's path.
  EXPECT_EQ(ev[4].pid, 200);
  EXPECT_EQ(sink.strings().get(ev[4].args[0].str), "/tmp/a b\"c\n");

  // close(3) forgets the path: a later read(3) has none.
  EXPECT_EQ(ev[5].nr, 3);
  EXPECT_EQ(sink.strings().get(ev[5].args[0].str), "/tmp/a b\"c\n");
  EXPECT_EQ(ev[6].args[0].str, trace::kNoStr);
  EXPECT_EQ(ev[6].rvalue, -9);

  // exit_group printed at entry.
  EXPECT_EQ(ev[7].nr, 231);
  EXPECT_EQ(ev[7].args[0].value, 7);
  EXPECT_EQ(ev[7].begin_ns, ev[7].end_ns);
}

TEST(StapOutputParser, UnquotesCEscapes) {
  std::string out;
  EXPECT_TRUE(unquote_stap_string("\"a\\tb\\\\c\\\"\\0\"", &out));
  EXPECT_EQ(out, std::string("a\tb\\c\"\0", 7));
  EXPECT_FALSE(unquote_stap_string("noquotes", &out));
  EXPECT_FALSE(unquote_stap_string("\"bad\\q\"", &out));
  EXPECT_FALSE(unquote_stap_string("\"trailing\\\"", &out));
}

}  // namespace
}  // namespace rastro::capture

// The strace-like codec: strace's own spellings parse, and every (type, value, string) prints
// and parses back to the identical Arg.
#include "trace/syscalls/arg_format.h"

#include <random>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

Arg parse_ok(ArgType t, std::string_view text, StringTable& st) {
  auto r = parse_arg(t, text, st);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error());
  return r.ok() ? *r : Arg{};
}

TEST(ArgFormat, FormatsLikeStrace) {
  StringTable st;
  EXPECT_EQ(format_arg({ArgType::kFd, 3, st.intern("/etc/passwd")}, st), "3</etc/passwd>");
  EXPECT_EQ(format_arg({ArgType::kFd, 3, kNoStr}, st), "3");
  EXPECT_EQ(format_arg({ArgType::kDirFd, -100, kNoStr}, st), "AT_FDCWD");
  EXPECT_EQ(format_arg({ArgType::kDirFd, -100, st.intern("/home/u")}, st), "AT_FDCWD</home/u>");
  EXPECT_EQ(format_arg({ArgType::kPath, 0, st.intern("/tmp/a b\n\t\"q\"\\")}, st), R"("/tmp/a b\n\t\"q\"\\")");
  EXPECT_EQ(format_arg({ArgType::kPath, 0, st.intern("caf\xc3\xa9\xff\x01")}, st), "\"caf\xc3\xa9\\xff\\x01\"");
  EXPECT_EQ(format_arg({ArgType::kOpenFlags, 02000000, kNoStr}, st), "O_RDONLY|O_CLOEXEC");
  EXPECT_EQ(format_arg({ArgType::kMode, 0644, kNoStr}, st), "0644");
  EXPECT_EQ(format_arg({ArgType::kWhence, 0, kNoStr}, st), "SEEK_SET");
  EXPECT_EQ(format_arg({ArgType::kPtr, 0, kNoStr}, st), "NULL");
  EXPECT_EQ(format_arg({ArgType::kPtr, 0x7f0000001000, kNoStr}, st), "0x7f0000001000");
  EXPECT_EQ(format_arg({ArgType::kBuf, 0, kNoStr}, st), "...");
  EXPECT_EQ(format_arg({ArgType::kFdPair, 3 | (int64_t{4} << 32), kNoStr}, st), "[3, 4]");
  EXPECT_EQ(format_arg({ArgType::kCount, 4096, kNoStr}, st), "4096");
  // A path with <> inside an fd annotation is escaped so the annotation stays delimited.
  EXPECT_EQ(format_arg({ArgType::kFd, 5, st.intern("/a<b>c")}, st), "5</a\\x3cb\\x3ec>");
}

TEST(ArgFormat, ParsesStraceSpellings) {
  StringTable st;
  Arg a = parse_ok(ArgType::kFd, "3</usr/lib/x86_64-linux-gnu/libc.so.6>", st);
  EXPECT_EQ(a.value, 3);
  EXPECT_EQ(st.get(a.str), "/usr/lib/x86_64-linux-gnu/libc.so.6");
  a = parse_ok(ArgType::kDirFd, "AT_FDCWD</tmp/stx>", st);
  EXPECT_EQ(a.value, -100);
  EXPECT_EQ(st.get(a.str), "/tmp/stx");
  // strace's octal escapes, truncation marker and comments.
  a = parse_ok(ArgType::kStr, R"("\177ELF\2\1\1\0"...)", st);
  EXPECT_EQ(st.get(a.str), std::string("\177ELF\2\1\1\0", 8));
  a = parse_ok(ArgType::kPtr, "0x7ffe47fbc070 /* 41 vars */", st);
  EXPECT_EQ(a.value, 0x7ffe47fbc070);
  a = parse_ok(ArgType::kOffset, "0x2000", st);
  EXPECT_EQ(a.value, 0x2000);
  a = parse_ok(ArgType::kMode, "0644", st);
  EXPECT_EQ(a.value, 0644);
  a = parse_ok(ArgType::kFdPair, "[3<pipe:[14798]>, 4<pipe:[14798]>]", st);
  EXPECT_EQ(a.value, 3 | (int64_t{4} << 32));
  EXPECT_FALSE(parse_arg(ArgType::kFd, "three", st).ok());
  EXPECT_FALSE(parse_arg(ArgType::kPath, "\"unterminated", st).ok());
  EXPECT_FALSE(parse_arg(ArgType::kPath, R"("bad\q")", st).ok());
  EXPECT_FALSE(parse_arg(ArgType::kOpenFlags, "O_NOPE", st).ok());
}

TEST(ArgFormat, EscapingRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  all += "\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80\xc0\xaf";  // euro, emoji, surrogate, overlong
  std::string esc;
  append_c_escaped(esc, all, "<>");
  for (char c : esc) {
    EXPECT_NE(c, '\n');
    EXPECT_NE(c, '\t');
    EXPECT_NE(c, '<');
  }
  EXPECT_NE(esc.find("\xe2\x82\xac"), std::string::npos) << "valid UTF-8 is kept readable";
  EXPECT_NE(esc.find("\\xed\\xa0\\x80"), std::string::npos) << "surrogates are not valid UTF-8";
  auto back = c_unescape(esc);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, all);
  EXPECT_FALSE(c_unescape("abc\\").ok());
  EXPECT_FALSE(c_unescape("\\400").ok());
}

// Every type, with values from each type's domain and outside it, with and without strings.
TEST(ArgFormat, EveryTypeRoundTripsExactly) {
  StringTable st;
  const StrId strs[] = {kNoStr, st.intern("/etc/passwd"), st.intern("a, b>c<d\"e\\f\n\xff"),
                        st.intern("pipe:[123]"), st.intern(std::string("nul\0x", 5))};
  std::vector<int64_t> values = {0, 1, 2, 3, 4, -1, -100, 0644, 0100644, 02000000, 0x7fffffff,
                                 int64_t{1} << 40, INT64_MIN, INT64_MAX, 17, 64, 255, 0x1200011};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) values.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  int checked = 0;
  for (int t = 0; t <= static_cast<int>(ArgType::kLast); ++t) {
    for (int64_t v : values) {
      for (StrId s : strs) {
        Arg a{static_cast<ArgType>(t), v, s};
        std::string text = format_arg(a, st);
        auto back = parse_arg(a.type, text, st);
        ASSERT_TRUE(back.ok()) << arg_type_name(a.type) << " " << text << ": " << back.error();
        EXPECT_EQ(*back, a) << arg_type_name(a.type) << " value " << v << " text " << text;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 5000);
}

TEST(ArgFormat, ArgListsRoundTripWithTagsWhenNeeded) {
  StringTable st;
  Event e;
  e.nr = 0;  // read: matches the table -> no tags
  e.nargs = 3;
  e.args[0] = {ArgType::kFd, 3, st.intern("/x, y")};
  e.args[1] = {ArgType::kBuf, 0, kNoStr};
  e.args[2] = {ArgType::kCount, 4096, kNoStr};
  EXPECT_EQ(format_args(e, st), "3</x, y>, ..., 4096");
  Event unknown;
  unknown.nr = -1;
  unknown.name = st.intern("frobnicate");
  unknown.nargs = 4;
  unknown.args[0] = {ArgType::kInt, 7, kNoStr};
  unknown.args[1] = {ArgType::kStr, 0, st.intern("hi")};
  unknown.args[2] = {ArgType::kOpenFlags, 1, kNoStr};
  unknown.args[3] = {ArgType::kPath, 0, st.intern("/p")};
  EXPECT_EQ(format_args(unknown, st), "7, \"hi\", openflags:O_WRONLY, path:\"/p\"");
  Event odd = e;  // a known syscall whose args are not the table's: every arg tagged
  odd.args[1] = {ArgType::kInt, 5, kNoStr};
  EXPECT_EQ(format_args(odd, st), "fd:3</x, y>, int:5, count:4096");
  for (const Event* ev : {&e, &unknown, &odd}) {
    Event back;
    back.nr = ev->nr;
    back.name = ev->name;
    auto r = parse_args(format_args(*ev, st), back, st);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(back, *ev) << format_args(*ev, st);
  }
}

TEST(ArgFormat, ReturnValues) {
  EXPECT_EQ(format_rvalue(-2, ReturnKind::kFd), "-1 ENOENT (No such file or directory)");
  EXPECT_EQ(format_rvalue(0x7f7f2c558000, ReturnKind::kPtr), "0x7f7f2c558000");
  EXPECT_EQ(format_rvalue(832, ReturnKind::kCount), "832");
  EXPECT_EQ(*parse_rvalue("-1 ENOENT (No such file or directory)"), -2);
  EXPECT_EQ(*parse_rvalue("? ERESTARTSYS (To be restarted if SA_RESTART is set)"), -512);
  EXPECT_EQ(*parse_rvalue("3</etc/ld.so.cache>"), 3);
  EXPECT_EQ(*parse_rvalue("0x1 (flags FD_CLOEXEC)"), 1);
  EXPECT_EQ(*parse_rvalue("1<pipe:[14798]>"), 1);
  EXPECT_EQ(*parse_rvalue("-1 ERRNO_600 (Unknown error 600)"), -600);
  EXPECT_FALSE(parse_rvalue("-1 EBOGUS (nope)").ok());
  EXPECT_FALSE(parse_rvalue("abc").ok());
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{-4095}, int64_t{-4096}, INT64_MIN, INT64_MAX, int64_t{1} << 47}) {
    for (ReturnKind k : {ReturnKind::kInt, ReturnKind::kPtr, ReturnKind::kCount}) {
      auto back = parse_rvalue(format_rvalue(v, k));
      ASSERT_TRUE(back.ok()) << format_rvalue(v, k);
      EXPECT_EQ(*back, v) << format_rvalue(v, k);
    }
  }
}

}  // namespace
}  // namespace rastro::trace

// strace import on logs recorded from real programs (tests/fixtures/strace/*.log, each with the
// .cmd that made it). Expected values are taken independently from the log text with regexes,
// and fd paths without -y are checked against the file system's own canonical paths.
#include "trace/importers/strace/strace_import.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "trace/formats/text/text_format.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/flag_names.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) { return std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/strace/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Imported {
  Trace trace;
  ImportReport report;
};

Imported import_text(const std::string& text, const std::string& name = "test.log", StraceImportOptions opt = {}) {
  std::istringstream in(text);
  MemorySink sink;
  Imported out;
  out.report = import_strace(in, name, sink, opt);
  sink.finish();
  out.trace = sink.take();
  return out;
}

Imported import_file(const std::string& name) { return import_text(slurp(fixture(name)), name); }

// Independent count: lines that start a syscall ("name(" after the optional pid and the time).
std::map<std::string, int> count_calls_in_log(const std::string& text) {
  static const std::regex re(R"(^(?:\[pid +\d+\] +|\d+ +)?\d+\.\d+ ([a-z_0-9]+)\()");
  std::map<std::string, int> out;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) ++out[m[1]];
  return out;
}

std::map<std::string, int> count_events(const Trace& t) {
  std::map<std::string, int> out;
  for (const auto& e : t.events) ++out[std::string(function_name(e, t.strings))];
  return out;
}

int64_t seconds_to_ns(const std::string& s) {
  size_t dot = s.find('.');
  std::string frac = s.substr(dot + 1);
  frac.resize(9, '0');
  return std::stoll(s.substr(0, dot)) * 1000000000LL + std::stoll(frac);
}

const char* kLogs[] = {"tar.log", "cp_r.log", "sqlite3.log", "git_init.log", "mt_writer.log", "ns_times.log", "pid_prefix.log"};

TEST(StraceImport, EventCountsPerSyscallMatchTheLog) {
  for (const char* name : kLogs) {
    SCOPED_TRACE(name);
    std::string text = slurp(fixture(name));
    ASSERT_FALSE(text.empty()) << "missing fixture " << fixture(name);
    Imported im = import_text(text, name);
    EXPECT_FALSE(im.report.has_errors());
    EXPECT_EQ(im.report.problems_total, 0u) << (im.report.problems.empty() ? "" : im.report.problems[0]);
    auto expected = count_calls_in_log(text);
    EXPECT_EQ(count_events(im.trace), expected);
    EXPECT_GT(im.trace.events.size(), 100u);
    EXPECT_EQ(im.report.events, im.trace.events.size());
    EXPECT_EQ(im.trace.header.events_captured, im.trace.events.size());
  }
}

TEST(StraceImport, ErrnoReturnsDecoded) {
  for (const char* name : kLogs) {
    SCOPED_TRACE(name);
    std::string text = slurp(fixture(name));
    static const std::regex re(R"(\) += -1 (E[A-Z0-9]+) \()");
    std::map<std::string, int> expected;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
      ++expected[(*it)[1]];
    Imported im = import_text(text, name);
    std::map<std::string, int> got;
    for (const auto& e : im.trace.events)
      if (e.failed()) ++got[errno_name(e.error_number())];
    EXPECT_EQ(got, expected);
  }
  Imported tar = import_file("tar.log");
  bool seen = false;
  for (const auto& e : tar.trace.events) {
    if (function_name(e, tar.trace.strings) == "access" && tar.trace.str(e.args[0].str) == "/etc/ld.so.preload") {
      EXPECT_EQ(e.rvalue, -2);  // ENOENT
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

// fcntl lock commands: strace's struct flock becomes the 6-argument lock form (fcntl_lock.h), each
// field equal to what a regex reads from the log line; flock's operation is its LOCK_* bits.
// sqlite3.log is sqlite's own locking; locks.log is tests/capture/lock_workload.cpp (two
// processes, every command, contended attempts, F_GETLK's answer with l_pid).
// "PID TIME call(a, b <unfinished ...>" + "PID TIME <... call resumed>c) = R": one line per call.
std::string join_resumed_lines(const std::string& text) {
  std::map<std::string, std::string> open;
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    const std::string pid = line.substr(0, line.find(' '));
    if (size_t u = line.find(" <unfinished ...>"); u != std::string::npos) {
      open[pid] = line.substr(0, u);
    } else if (size_t r = line.find(" resumed>"); r != std::string::npos && open.count(pid)) {
      out += open[pid] + line.substr(r + 9) + "\n";
      open.erase(pid);
    } else {
      out += line + "\n";
    }
  }
  return out;
}

TEST(StraceImport, FcntlLockStructsBecomeTheLockForm) {
  for (const char* name : {"sqlite3.log", "locks.log"}) {
    SCOPED_TRACE(name);
    const std::string text = join_resumed_lines(slurp(fixture(name)));
    static const std::regex lock_re(
        R"(fcntl\(\d+<[^>]*>, (F_[A-Z_]+), \{l_type=(F_[A-Z]+), l_whence=(SEEK_[A-Z]+), l_start=(-?\d+), l_len=(-?\d+)(?:, l_pid=\d+)?\}\) += (-1 E[A-Z]+|\d+))");
    static const std::regex flock_re(R"(flock\(\d+<[^>]*>, ([A-Z_|]+)\) += (-1 E[A-Z]+|\d+))");
    struct Want {
      int64_t cmd, type, whence, start, len, rvalue;
    };
    std::vector<Want> want;
    std::vector<std::pair<int64_t, int64_t>> want_flock;
    auto rv = [](const std::string& r) { return r[0] == '-' ? -static_cast<int64_t>(*errno_number(r.substr(3))) : std::stoll(r); };
    for (auto it = std::sregex_iterator(text.begin(), text.end(), lock_re); it != std::sregex_iterator(); ++it)
      want.push_back({*constant_value((*it)[1].str()), *constant_value((*it)[2].str()), *constant_value((*it)[3].str()),
                      std::stoll((*it)[4]), std::stoll((*it)[5]), rv((*it)[6])});
    for (auto it = std::sregex_iterator(text.begin(), text.end(), flock_re); it != std::sregex_iterator(); ++it)
      want_flock.push_back({*parse_flags(ArgType::kInt, (*it)[1].str()), rv((*it)[2])});
    ASSERT_GT(want.size(), 10u);
    const Imported im = import_file(name);
    EXPECT_EQ(im.report.problems_total, 0u) << (im.report.problems.empty() ? "" : im.report.problems[0]);
    size_t k = 0, kf = 0;
    for (const auto& e : im.trace.events) {
      if (function_name(e, im.trace.strings) == "flock") {
        ASSERT_LT(kf, want_flock.size());
        EXPECT_EQ(e.arg(1).value, want_flock[kf].first);
        EXPECT_EQ(e.rvalue, want_flock[kf++].second);
      }
      if (!is_lock_call(e)) continue;
      ASSERT_LT(k, want.size());
      const Want& w = want[k++];
      ASSERT_TRUE(has_lock_fields(e)) << "event " << e.seq;
      const LockFields f = lock_fields(e);
      EXPECT_EQ(e.arg(1).value, w.cmd);
      EXPECT_EQ(f.type, w.type);
      EXPECT_EQ(f.whence, w.whence);
      EXPECT_EQ(f.start, w.start);
      EXPECT_EQ(f.len, w.len);
      EXPECT_EQ(e.rvalue, w.rvalue);
    }
    EXPECT_EQ(k, want.size());
    EXPECT_EQ(kf, want_flock.size());
  }
  // A struct strace could not read (it prints the address) leaves the 3-argument form.
  const Imported bad = import_text("100 1.000000 fcntl(3</db>, F_SETLK, 0x7ffd0000) = -1 EFAULT (Bad address)\n");
  ASSERT_EQ(bad.trace.events.size(), 1u);
  EXPECT_EQ(bad.trace.events[0].nargs, 3);
  EXPECT_TRUE(is_lock_call(bad.trace.events[0]));
  EXPECT_FALSE(has_lock_fields(bad.trace.events[0]));
}

// Every <unfinished ...>/<... resumed> pair is one event: begin = the unfinished line's time,
// end - begin = the duration printed on the resumed line.
TEST(StraceImport, MergedPairsKeepStracesDurations) {
  for (const char* name : {"mt_writer.log", "ns_times.log", "pid_prefix.log"}) {
    SCOPED_TRACE(name);
    std::string text = slurp(fixture(name));
    static const std::regex unfinished(R"(^(?:\[pid +(\d+)\] +|(\d+) +)?(\d+\.\d+) ([a-z_0-9]+)\(.*<unfinished \.\.\.>$)");
    static const std::regex resumed(R"(^(?:\[pid +(\d+)\] +|(\d+) +)?\d+\.\d+ <\.\.\. ([a-z_0-9]+) resumed>.* <(\d+\.\d+)>$)");
    std::map<std::string, int64_t> open_begin;  // tid/name -> begin
    std::multiset<std::pair<int64_t, int64_t>> expected;  // (begin, duration)
    // Re-join lines that strace's "Process N attached" message split (stderr logs).
    std::istringstream in(std::regex_replace(text, std::regex(R"(strace: Process \d+ attached\n)"), ""));
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, unfinished)) {
        open_begin[m[1].str() + m[2].str() + "/" + m[4].str()] = seconds_to_ns(m[3]);
      } else if (std::regex_search(line, m, resumed)) {
        auto key = m[1].str() + m[2].str() + "/" + m[3].str();
        if (!open_begin.count(key) && !open_begin.count("/" + m[3].str())) {
          // strace drops the "[pid N]" prefix again once only one task is left.
          for (const auto& [k, v] : open_begin)
            if (k.ends_with("/" + m[3].str())) key = k;
        } else if (!open_begin.count(key)) {
          key = "/" + m[3].str();  // begun before the first fork, when lines had no prefix
        }
        ASSERT_TRUE(open_begin.count(key)) << line;
        expected.emplace(open_begin[key], seconds_to_ns(m[4]));
        open_begin.erase(key);
      }
    }
    ASSERT_GT(expected.size(), 3u);
    Imported im = import_text(text, name);
    std::multiset<std::pair<int64_t, int64_t>> got;
    for (const auto& e : im.trace.events) {
      auto it = expected.find({e.begin_ns, e.duration_ns()});
      if (it != expected.end()) got.insert(*it);
    }
    EXPECT_EQ(got, expected);
    EXPECT_GE(im.report.stats[kStat_strace_unfinished_merged], expected.size());
  }
}

TEST(StraceImport, NanosecondTimestampsAndDurations) {
  Imported im = import_file("ns_times.log");
  int sub_us = 0;
  for (const auto& e : im.trace.events)
    if (e.begin_ns % 1000 != 0 || e.duration_ns() % 1000 != 0) ++sub_us;
  EXPECT_GT(sub_us, static_cast<int>(im.trace.events.size()) / 2);
  // First line: execve at 1795317139.196093483 for 0.000229333 s.
  const Event& first = im.trace.events.front();
  EXPECT_EQ(function_name(first, im.trace.strings), "execve");
  EXPECT_EQ(im.trace.str(first.args[0].str), "/usr/bin/sh");
  EXPECT_EQ(first.begin_ns, 1795317139196093483);
  EXPECT_EQ(first.duration_ns(), 229333);
}

TEST(StraceImport, ThreadsShareTheirProcessPid) {
  Imported im = import_file("mt_writer.log");
  std::set<int> tids, pids;
  for (const auto& e : im.trace.events) {
    tids.insert(e.tid);
    pids.insert(e.pid);
  }
  EXPECT_EQ(tids.size(), 4u);  // main + 3 std::threads (clone3 with CLONE_THREAD)
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_EQ(*pids.begin(), *tids.begin());
  // Each thread wrote 4 blocks of 4096 bytes to its own file, found through -y.
  std::map<std::string, int64_t> written;
  for (const auto& e : im.trace.events)
    if (function_name(e, im.trace.strings) == "write" && e.rvalue > 0) written[std::string(im.trace.str(e.args[0].str))] += e.rvalue;
  for (int t = 0; t < 3; ++t) EXPECT_EQ(written["/tmp/stx/w/mt_" + std::to_string(t)], 16384) << t;
  int enoent = 0;
  for (const auto& e : im.trace.events)
    if (e.rvalue == -2 && im.trace.str(e.args[1].str) == "/tmp/stx/w/missing") ++enoent;
  EXPECT_EQ(enoent, 1);
}

TEST(StraceImport, ProcessesAndUnprefixedRootLines) {
  Imported im = import_file("pid_prefix.log");
  std::set<int> pids;
  for (const auto& e : im.trace.events) {
    EXPECT_NE(e.tid, 0);
    EXPECT_EQ(e.pid, e.tid);  // sh, cat, wc, ls: no threads
    pids.insert(e.pid);
  }
  EXPECT_EQ(pids.size(), 4u);
  EXPECT_EQ(im.report.stats[kStat_strace_missing_pid], 0u);
  EXPECT_EQ(im.report.stats[kStat_strace_message_lines], 3u);  // "Process N attached", spliced
}

TEST(StraceImport, PerPidFilesFromFf) {
  auto files = find_strace_ff_files(fixture("ff.log"));
  ASSERT_EQ(files.size(), 3u);
  MemorySink sink;
  ImportReport rep = import_strace_ff(files, sink, {});
  EXPECT_FALSE(rep.has_errors());
  std::map<std::string, int> expected;
  std::set<int> file_pids;
  for (const auto& f : files) {
    for (auto& [k, v] : count_calls_in_log(slurp(f))) expected[k] += v;
    file_pids.insert(std::stoi(f.substr(f.rfind('.') + 1)));
  }
  Trace t = sink.take();
  EXPECT_EQ(count_events(t), expected);
  std::set<int> tids;
  for (size_t i = 0; i < t.events.size(); ++i) {
    tids.insert(t.events[i].tid);
    if (i) {
      EXPECT_LE(t.events[i - 1].end_ns, t.events[i].end_ns) << "merged in completion order";
    }
  }
  EXPECT_EQ(tids, file_pids);
}

// Without -y the fd table supplies paths. Strip the annotations from the -y log and compare:
// every path found must be the annotated one, or resolve to it on this machine (the -y path is
// the kernel's canonical path: /lib/x86_64-linux-gnu/libc.so.6 -> /usr/lib/...).
TEST(StraceImport, FdPathsWithoutYMatchTheKernelsPaths) {
  std::string with_y = slurp(fixture("tar.log"));
  std::string stripped = std::regex_replace(with_y, std::regex(R"((\d|AT_FDCWD)<[^<>]*>)"), "$1");
  ASSERT_EQ(stripped.find("</"), std::string::npos);
  Imported a = import_text(with_y, "tar.log");
  Imported b = import_text(stripped, "tar-stripped.log");
  ASSERT_EQ(a.trace.events.size(), b.trace.events.size());
  int compared = 0, found = 0, equal = 0;
  for (size_t i = 0; i < a.trace.events.size(); ++i) {
    const Event& ea = a.trace.events[i];
    const Event& eb = b.trace.events[i];
    for (int k = 0; k < ea.nargs; ++k) {
      const Arg& x = ea.args[static_cast<size_t>(k)];
      if (x.type != ArgType::kFd || x.value < 3 || x.str == kNoStr) continue;
      ++compared;
      std::string pa(a.trace.str(x.str));
      std::string pb(b.trace.str(eb.args[static_cast<size_t>(k)].str));
      if (pb.empty()) continue;
      ++found;
      std::error_code ec;
      if (pa == pb || fs::weakly_canonical(pb, ec).string() == pa) {
        ++equal;
      } else {
        ADD_FAILURE() << "event " << i << ": fd table says " << pb << ", strace -y says " << pa;
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GE(found * 100, compared * 95) << "fd table coverage";
  EXPECT_EQ(equal, found);
}

TEST(StraceImport, YyDeviceSuffixDropped) {
  Imported im = import_file("sqlite3.log");
  bool dev_null = false;
  for (const auto& e : im.trace.events)
    for (int k = 0; k < e.nargs; ++k) {
      std::string_view p = im.trace.str(e.args[static_cast<size_t>(k)].str);
      EXPECT_EQ(p.find("<char"), std::string_view::npos) << p;
      dev_null |= p == "/dev/null";
    }
  EXPECT_TRUE(dev_null);
}

TEST(StraceImport, RoundTripThroughTsvCsvAndBinaryIsLossless) {
  fs::path dir = fs::temp_directory_path() / ("rastro_strace_rt_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* name : kLogs) {
    SCOPED_TRACE(name);
    Trace t = import_file(name).trace;
    for (const char* ext : {".tsv", ".csv", ".rastro"}) {
      std::string p = (dir / (std::string("t") + ext)).string();
      write_trace(p, t);
      Trace back = read_trace(p);
      ASSERT_EQ(back.events.size(), t.events.size()) << ext;
      for (size_t i = 0; i < t.events.size(); ++i) ASSERT_EQ(back.events[i], t.events[i]) << ext << " event " << i;
      ASSERT_EQ(back.strings.size(), t.strings.size()) << ext;
      for (size_t i = 0; i < t.strings.size(); ++i)
        ASSERT_EQ(back.strings.get(static_cast<StrId>(i)), t.strings.get(static_cast<StrId>(i))) << ext;
      EXPECT_EQ(back.header.to_json(), t.header.to_json()) << ext;
    }
  }
  fs::remove_all(dir);
}

// ---- bad input ---------------------------------------------------------------------------

TEST(StraceImport, TruncatedLastLineIsReportedWithItsNumber) {
  std::string text = slurp(fixture("tar.log"));
  size_t last = text.rfind("\n", text.size() - 2);  // start of the last line (the exit line)
  size_t prev = text.rfind("\n", last - 1);
  std::string cut = text.substr(0, prev + 1) + text.substr(prev + 1, 40);  // cut inside a syscall line
  Imported im = import_text(cut, "cut.log");
  EXPECT_TRUE(im.report.has_errors());
  EXPECT_EQ(im.report.stats[kStat_strace_malformed_lines], 1u);
  int lines = static_cast<int>(std::count(cut.begin(), cut.end(), '\n')) + 1;
  ASSERT_EQ(im.report.problems.size(), 1u);
  EXPECT_NE(im.report.problems[0].find("cut.log:" + std::to_string(lines) + ":"), std::string::npos) << im.report.problems[0];
  EXPECT_EQ(im.trace.events.size(), import_file("tar.log").trace.events.size() - 1);
}

TEST(StraceImport, BinaryGarbageNeverCrashes) {
  std::mt19937 rng(42);
  std::string junk;
  for (int i = 0; i < 200000; ++i) junk += static_cast<char>(rng());
  Imported im = import_text(junk, "junk.log");
  EXPECT_TRUE(im.report.has_errors());
  EXPECT_LE(im.report.problems.size(), 10u);
  EXPECT_GT(im.report.problems_total, 10u);
  // Garbage spliced into a real log: the real lines still import.
  std::string text = slurp(fixture("cp_r.log"));
  std::string mixed = text.substr(0, text.size() / 2) + junk.substr(0, 5000) + "\n" + text.substr(text.size() / 2);
  Imported im2 = import_text(mixed, "mixed.log");
  EXPECT_TRUE(im2.report.has_errors());
  EXPECT_GE(im2.trace.events.size() + 2, import_file("cp_r.log").trace.events.size());
}

TEST(StraceImport, HugeLines) {
  std::string big(10 << 20, 'A');
  std::string text = "1 1.000001 write(1, \"" + big + "\"..., 10485760) = 10485760 <0.001000>\n" +
                     "1 1.100000 " + big + "\n" + "1 1.200000 close(1) = 0 <0.000001>\n";
  Imported im = import_text(text, "huge.log");
  ASSERT_EQ(im.trace.events.size(), 2u);
  EXPECT_EQ(im.trace.events[0].rvalue, 10485760);
  EXPECT_EQ(im.trace.events[0].args[1].value, 0);  // kBuf contents are not stored
  EXPECT_EQ(im.report.stats[kStat_strace_malformed_lines], 1u);
  ASSERT_EQ(im.report.problems.size(), 1u);
  EXPECT_LT(im.report.problems[0].size(), 300u);
  EXPECT_NE(im.report.problems[0].find("huge.log:2:"), std::string::npos);
}

TEST(StraceImport, InvalidUtf8PathsSurviveRoundTrip) {
  Imported im = import_text(
      "7 1.5 openat(AT_FDCWD, \"/tmp/\\377\\376x\\n\", O_RDONLY) = 3</tmp/\\377\\376x\\n> <0.000010>\n"
      "7 1.6 read(3</tmp/\\377\\376x\\n>, \"\", 10) = 0 <0.000001>\n");
  ASSERT_EQ(im.trace.events.size(), 2u);
  EXPECT_EQ(im.trace.str(im.trace.events[0].args[1].str), "/tmp/\xff\xfex\n");
  EXPECT_EQ(im.trace.str(im.trace.events[1].args[0].str), "/tmp/\xff\xfex\n");
  std::ostringstream out;
  write_text_trace(out, im.trace, '\t');
  EXPECT_NE(out.str().find("\"/tmp/\\xff\\xfex\\n\""), std::string::npos) << out.str();
  std::istringstream in(out.str());
  Trace back = read_text_trace(in, "x.tsv");
  EXPECT_EQ(back.events, im.trace.events);
}

TEST(StraceImport, UnknownSyscallsKeptAsGenericEvents) {
  Imported im = import_text(
      "7 1.5 frobnicate(1, \"x\", {a=1, b=[2]}, O_RDONLY|O_CLOEXEC, 0x10) = 5 <0.000010>\n"
      "7 1.6 syscall_0x1f4(0x3, 0x7ffc, 0, 0, 0, 0) = 0 <0.000001>\n");  // 500: strace's name for a number it does not know
  ASSERT_EQ(im.trace.events.size(), 2u);
  const Event& e = im.trace.events[0];
  EXPECT_EQ(e.nr, -1);
  EXPECT_EQ(im.trace.str(e.name), "frobnicate");
  ASSERT_EQ(e.nargs, 5);
  EXPECT_EQ(e.args[0].type, ArgType::kInt);
  EXPECT_EQ(e.args[1].type, ArgType::kStr);
  EXPECT_EQ(im.trace.str(e.args[1].str), "x");
  EXPECT_EQ(e.args[2].type, ArgType::kStr);
  EXPECT_EQ(im.trace.str(e.args[2].str), "{a=1, b=[2]}");
  EXPECT_EQ(e.args[3].value, 02000000);
  EXPECT_EQ(e.args[4].value, 16);
  EXPECT_EQ(e.rvalue, 5);
  EXPECT_FALSE(im.report.has_errors());
  EXPECT_EQ(im.report.stats[kStat_strace_unknown_syscalls], 2u);
}

TEST(StraceImport, UnfinishedAtEndKeptAndFlagged) {
  Imported im = import_text(
      "7 1.000000 read(0,  <unfinished ...>\n"
      "8 1.000100 write(1, \"hi\", 2) = 2 <0.000010>\n"
      "9 1.000200 <... pread64 resumed>\"\", 10, 0) = 0 <0.000010>\n");
  ASSERT_EQ(im.trace.events.size(), 2u);
  const Event& r = im.trace.events[1];
  EXPECT_EQ(function_name(r, im.trace.strings), "read");
  EXPECT_TRUE(r.flags & kEventUnfinished);
  EXPECT_EQ(r.begin_ns, 1000000000);
  EXPECT_EQ(r.end_ns, r.begin_ns);
  EXPECT_EQ(im.report.stats[kStat_strace_unfinished_at_end], 1u);
  EXPECT_EQ(im.report.stats[kStat_strace_resumed_without_unfinished], 1u);
  EXPECT_EQ(im.trace.header.events_lost, 1u);
  EXPECT_FALSE(im.report.has_errors());  // data loss, not an unreadable log
}

TEST(StraceImport, TimeOfDayLogsRefused) {
  Imported im = import_text("7 12:00:01.000000 read(0, \"\", 1) = 0 <0.000010>\n");
  EXPECT_TRUE(im.report.has_errors());
  EXPECT_EQ(im.report.stats[kStat_strace_unsupported_lines], 1u);
  ASSERT_EQ(im.report.problems.size(), 1u);
  EXPECT_NE(im.report.problems[0].find("-ttt"), std::string::npos);
}

TEST(StraceImport, ReportPrintsEveryCounter) {
  Imported im = import_file("tar.log");
  std::ostringstream out;
  im.report.print(out);
  for (int i = 0; i < kNumStats; ++i)
    EXPECT_NE(out.str().find(std::string(stat_info(static_cast<StatId>(i)).name)), std::string::npos);
}

}  // namespace
}  // namespace rastro::trace

namespace rastro::trace {
namespace {

// One tiny hand-written log per edge case (tests/fixtures/strace/edge/X.log) with its expected
// TSV rows (X.expected.tsv, reviewed by hand).
TEST(StraceImportEdgeCases, MatchExpectedTsv) {
  int n = 0;
  for (const auto& ent : fs::directory_iterator(fixture("edge"))) {
    if (ent.path().extension() != ".log") continue;
    SCOPED_TRACE(ent.path().filename().string());
    ++n;
    Imported im = import_text(slurp(ent.path().string()), ent.path().filename().string());
    EXPECT_FALSE(im.report.has_errors());
    std::ostringstream out;
    write_text_trace(out, im.trace, '\t');
    std::string rows;
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);)
      if (!line.starts_with("#")) rows += line + "\n";
    std::string expected_path = ent.path().string();
    expected_path.replace(expected_path.size() - 4, 4, ".expected.tsv");
    EXPECT_EQ(rows, slurp(expected_path));
  }
  EXPECT_GE(n, 7);
}

}  // namespace
}  // namespace rastro::trace

namespace rastro::trace {
namespace {

// "1700000000.000100"-style timestamps, microseconds after 1700000000 s.
std::string at_us(int64_t us) { return fmt::format("1700000000.{:06}", us); }

// The late thread-group case, long: a thread prints far more lines (more than the importer keeps
// in memory, 65 536 events) before its parent's clone returns and says whose thread it is. Those
// events wait on disk and must come out exactly as if held in memory: in log order (the clone
// where it resumed), each with its process's pid.
TEST(StraceImport, ThreadLinesLongBeforeTheirCloneReturnsKeepTheirProcessAndOrder) {
  constexpr int kEarly = 70'000, kLate = 10;
  std::string log = "500   " + at_us(1) +
                    " clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
                    "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f, parent_tid=0x7f, "
                    "exit_signal=0, stack=0x7e, stack_size=0x7fff80, tls=0x7f} <unfinished ...>\n";
  log += "501   " + at_us(2) + " openat(AT_FDCWD, \"/tmp/t1\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 <0.000001>\n";
  int64_t t = 3;
  for (int i = 0; i < kEarly; ++i) log += "501   " + at_us(t++) + " write(3, \"x\", 1) = 1 <0.000000>\n";
  const int64_t resumed = t++;
  log += "500   " + at_us(resumed) + " <... clone3 resumed> => {parent_tid=[501]}, 88) = 501 <0.500000>\n";
  for (int i = 0; i < kLate; ++i) log += "501   " + at_us(t++) + " write(3, \"y\", 1) = 1 <0.000000>\n";
  Imported im = import_text(log);
  EXPECT_FALSE(im.report.has_errors());
  const auto& ev = im.trace.events;
  ASSERT_EQ(ev.size(), static_cast<size_t>(1 + kEarly + 1 + kLate));
  for (size_t i = 0; i < ev.size(); ++i) {
    ASSERT_EQ(ev[i].seq, i);
    ASSERT_EQ(ev[i].pid, 500) << "event " << i << ": the thread's process";
  }
  EXPECT_EQ(function_name(ev[0], im.trace.strings), "openat");
  for (int i = 1; i <= kEarly; ++i) {
    ASSERT_EQ(ev[static_cast<size_t>(i)].tid, 501);
    ASSERT_EQ(ev[static_cast<size_t>(i)].begin_ns, ev[0].begin_ns + int64_t{1000} * i) << "log order, event " << i;
    ASSERT_EQ(im.trace.str(ev[static_cast<size_t>(i)].args[0].str), "/tmp/t1") << "fd path, event " << i;
  }
  const Event& clone = ev[static_cast<size_t>(kEarly + 1)];
  EXPECT_EQ(function_name(clone, im.trace.strings), "clone3");
  EXPECT_EQ(clone.tid, 500);
  EXPECT_EQ(clone.rvalue, 501);
  EXPECT_EQ(clone.begin_ns, int64_t{1700000000} * 1'000'000'000 + 1000);
  EXPECT_EQ(clone.end_ns, clone.begin_ns + 500'000'000);
  for (size_t i = static_cast<size_t>(kEarly + 2); i < ev.size(); ++i) EXPECT_EQ(ev[i].tid, 501);
}

// -ff files are read one after the other and merged in completion order; beyond 65 536 events
// the merge runs over sorted runs parked on disk. Same result as a stable sort by end of the
// files' events taken in file order: ties keep the earlier file (lower pid) first.
TEST(StraceImport, LongFfFilesAreMergedInCompletionOrderWithTiesInFileOrder) {
  const fs::path dir = fs::temp_directory_path() / ("rastro_strace_ff_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr int kPerFile = 50'000;
  struct Line {
    int64_t end_us;
    int tid;
    int index;
  };
  std::vector<Line> expected;
  for (int tid : {700, 701}) {
    std::ofstream out(dir / ("ff.log." + std::to_string(tid)));
    for (int i = 0; i < kPerFile; ++i) {
      // 700 completes at even microseconds, 701 at every microsecond from the middle on: the
      // files interleave and tie.
      const int64_t begin = tid == 700 ? 2 * i : kPerFile / 2 + i;
      out << at_us(begin) << " lseek(3, " << i << ", SEEK_SET) = " << i << " <0.000000>\n";
      expected.push_back({begin, tid, i});
    }
  }
  std::stable_sort(expected.begin(), expected.end(), [](const Line& a, const Line& b) { return a.end_us < b.end_us; });
  MemorySink sink;
  ImportReport rep = import_strace_ff(find_strace_ff_files((dir / "ff.log").string()), sink, {});
  fs::remove_all(dir);
  EXPECT_FALSE(rep.has_errors());
  const Trace t = sink.take();
  ASSERT_EQ(t.events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(t.events[i].tid, expected[i].tid) << "event " << i;
    ASSERT_EQ(t.events[i].rvalue, expected[i].index) << "event " << i;
    ASSERT_EQ(t.events[i].end_ns, int64_t{1700000000} * 1'000'000'000 + expected[i].end_us * 1000) << "event " << i;
    ASSERT_EQ(t.events[i].pid, t.events[i].tid);
  }
}

}  // namespace
}  // namespace rastro::trace

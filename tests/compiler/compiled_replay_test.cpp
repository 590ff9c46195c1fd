// The compiled replayer end to end: generated from real traces, built with the system compiler,
// run, and compared with the event-based `workers` replayer on the same plan.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <climits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compiler/codegen/cpp_literal.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/thread_order.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/syscall_table.h"

namespace fs = std::filesystem;

namespace rastro {
namespace {

std::string tmpdir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("rastro-compiled-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

int sh(const std::string& cmd) {
  int st = std::system((cmd + " > /tmp/rastro-compiled-test.log 2>&1").c_str());
  if (st != 0) {
    std::ifstream in("/tmp/rastro-compiled-test.log");
    std::cerr << cmd << " failed:\n" << in.rdbuf() << "\n";
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

struct CallKey {
  std::string function;
  std::vector<int64_t> values;
  int64_t expected;
  bool operator==(const CallKey&) const = default;
};

std::map<int, std::vector<CallKey>> calls_by_thread(const trace::Trace& t) {
  std::map<int, std::vector<CallKey>> out;
  for (const auto& e : t.events) {
    CallKey k{std::string(trace::function_name(e, t.strings)), {}, e.expected_rvalue};
    for (int i = 0; i < e.nargs; ++i) k.values.push_back(e.arg(i).value);
    out[e.tid].push_back(k);
  }
  return out;
}

// The replay output lists the plan's requests in order: no request that ran began before a
// dependency that ran had ended.
void expect_dependencies_respected(const trace::Trace& source, const trace::Trace& out) {
  replay::Plan plan = replay::infer_plan(source, replay::Ordering::kFs).take();
  ASSERT_EQ(plan.requests.size(), out.events.size());
  auto ran = [&](uint32_t r) {
    return (out.events[r].flags & trace::kEventReplayed) && !(out.events[r].flags & trace::kEventSkipped);
  };
  size_t checked = 0;
  const std::vector<uint32_t> prev = replay::thread_predecessors(plan);  // program order
  for (uint32_t r = 0; r < plan.requests.size(); ++r) {
    if (!ran(r)) continue;
    auto respected = [&](uint32_t dep) {
      if (!ran(dep)) return;
      EXPECT_GE(out.events[r].begin_ns, out.events[dep].end_ns) << r << " began before " << dep;
      ++checked;
    };
    if (prev[r] != replay::kNoRequest) respected(prev[r]);
    for (const replay::Dep& d : replay::deps_of(plan, r)) respected(d.request);
  }
  EXPECT_GT(checked, 0u);
}

class CompiledReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(CompiledReplay, MicroTraceMatchesWorkersAndRespectsDependencies) {
  std::string d = tmpdir("micro-" + GetParam());
  std::string ref = d + "/ref.rastro";
  ASSERT_EQ(sh(fmt::format("{} bench micro --type {} --threads 2 --ops 300 --file-size 2M --dir {} -o {}", RASTRO_EXE,
                           GetParam(), q(d + "/data"), q(ref))), 0);
  ASSERT_EQ(sh(fmt::format("{} compile -O fs -T fullspeed {} -o {} --build", RASTRO_EXE, q(ref), q(d + "/c"))), 0);
  ASSERT_TRUE(fs::exists(d + "/c/replay"));
  ASSERT_EQ(sh(fmt::format("{} --root {} --init -o {} --summary-json {}", q(d + "/c/replay"), q(d + "/cr"),
                           q(d + "/compiled.rastro"), q(d + "/cs.json"))), 0);
  ASSERT_EQ(sh(fmt::format("{} replay -O fs -T fullspeed -e workers --root {} --init {} -o {}", RASTRO_EXE, q(d + "/wr"),
                           q(ref), q(d + "/workers.rastro"))), 0);
  trace::Trace compiled = trace::read_trace(d + "/compiled.rastro");
  trace::Trace workers = trace::read_trace(d + "/workers.rastro");
  trace::Trace source = trace::read_trace(ref);
  ASSERT_EQ(compiled.events.size(), source.events.size());
  EXPECT_EQ(calls_by_thread(compiled), calls_by_thread(workers));
  for (const auto& e : compiled.events) {
    EXPECT_TRUE(e.flags & trace::kEventReplayed);
    EXPECT_FALSE(e.flags & (trace::kEventMismatch | trace::kEventSkipped)) << trace::function_name(e, compiled.strings);
    // Byte counts and offsets must be equal; fd numbers only need to agree on success.
    if (trace::function_name(e, compiled.strings) != "openat") {
      EXPECT_EQ(e.rvalue, e.expected_rvalue);
    }
  }
  auto summary = nlohmann::json::parse(std::ifstream(d + "/cs.json"));
  EXPECT_EQ(summary["mismatched"], 0);
  EXPECT_EQ(summary["skipped"], 0);
  EXPECT_EQ(summary["replayed"], source.events.size());
  expect_dependencies_respected(source, compiled);
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Types, CompiledReplay, ::testing::Values("rr", "sw"));

// Traces of real programs captured here (a parallel make: processes, pipes, fork/exec; tar:
// directory walk, symlinks): the compiled program replays exactly the calls the workers engine
// replays, with the same outcome (mismatches included), and respects every dependency.
class CompiledRealProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(CompiledRealProgram, MatchesWorkersCallForCall) {
  const std::string program = GetParam();
  if (sh("command -v " + program) != 0) GTEST_SKIP() << program << " is not installed (scripts/setup.sh installs it)";
  std::string d = tmpdir("real-" + program);
  std::string cmd;
  if (program == "make") {
    fs::create_directories(d + "/mk");
    std::ofstream(d + "/mk/Makefile") << "all: a.o b.o c.o\n\tcat a.o b.o c.o > all\n%.o: %.c\n\tcp $< $@\n";
    for (const char* x : {"a", "b", "c"}) std::ofstream(d + "/mk/" + x + ".c") << x << "\n";
    cmd = "make -s -j2 -C " + q(d + "/mk");
  } else {
    fs::create_directories(d + "/src/sub");
    for (int i = 1; i <= 8; ++i) std::ofstream(d + "/src/f" + std::to_string(i)) << std::string(i * 900, 'a' + i);
    fs::create_symlink("f1", d + "/src/sub/link");
    cmd = "tar cf " + q(d + "/out.tar") + " -C " + q(d) + " src";
  }
  const std::string ref = d + "/ref.rastro";
  ASSERT_EQ(sh(fmt::format("ASAN_OPTIONS=detect_leaks=0 {} capture -b ptrace -q -o {} -- {}", RASTRO_EXE, q(ref), cmd)), 0);
  ASSERT_EQ(sh(fmt::format("{} compile -O fs -T fullspeed {} -o {} --build", RASTRO_EXE, q(ref), q(d + "/c"))), 0);
  ASSERT_EQ(sh(fmt::format("{} replay -O fs -T fullspeed -e workers --root {} --init {} -o {} --summary-json {}",
                           RASTRO_EXE, q(d + "/wr"), q(ref), q(d + "/workers.rastro"), q(d + "/ws.json"))), 0);
  trace::Trace workers = trace::read_trace(d + "/workers.rastro");
  auto ws = nlohmann::json::parse(std::ifstream(d + "/ws.json"));
  // As threads of one replayer, and with each traced process in a replay process of its own.
  for (const std::string processes : {"", " --processes"}) {
    SCOPED_TRACE("compiled" + processes);
    const std::string root = d + "/cr" + (processes.empty() ? "" : "p");
    ASSERT_EQ(sh(fmt::format("{}{} --root {} --init -o {} --summary-json {}", q(d + "/c/replay"), processes, q(root),
                             q(d + "/compiled.rastro"), q(d + "/cs.json"))), 0);
    trace::Trace compiled = trace::read_trace(d + "/compiled.rastro");
    EXPECT_EQ(calls_by_thread(compiled), calls_by_thread(workers));
    ASSERT_EQ(compiled.events.size(), workers.events.size());
    for (size_t i = 0; i < compiled.events.size(); ++i) {
      const auto& c = compiled.events[i];
      const auto& w = workers.events[i];
      EXPECT_EQ(c.flags & (trace::kEventReplayed | trace::kEventSkipped), w.flags & (trace::kEventReplayed | trace::kEventSkipped))
          << i << " " << trace::function_name(c, compiled.strings);
      // F_GETFL reads the status flags of an open file description that make and its children
      // share (the jobserver pipe); the fs ordering does not order fcntl calls of different
      // processes, so what it returns is a race in either replayer (and was one in the trace).
      if (trace::function_name(c, compiled.strings) == "fcntl" && c.arg(1).value == F_GETFL) continue;
      EXPECT_EQ(c.flags & trace::kEventMismatch, w.flags & trace::kEventMismatch) << i << " " << trace::function_name(c, compiled.strings);
      if (c.failed() || w.failed()) {
        EXPECT_EQ(c.rvalue, w.rvalue) << i << " " << trace::function_name(c, compiled.strings);
      }
    }
    auto cs = nlohmann::json::parse(std::ifstream(d + "/cs.json"));
    for (const char* k : {"replayed", "skipped"}) EXPECT_EQ(cs[k], ws[k]) << k;
    EXPECT_GT(cs["replayed"].get<int>(), 100);
    expect_dependencies_respected(trace::read_trace(ref), compiled);
  }
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Programs, CompiledRealProgram, ::testing::Values("make", "tar"));

trace::Event call(trace::Trace& t, const char* name, std::initializer_list<trace::Arg> args, int64_t rv, int64_t at) {
  trace::Event e;
  e.seq = t.events.size();
  e.pid = e.tid = 4242;
  e.begin_ns = at;
  e.end_ns = at + 1000;
  e.nr = trace::syscall_by_name(name)->nr;
  for (const auto& a : args) e.args[e.nargs++] = a;
  e.rvalue = rv;
  t.events.push_back(e);
  return e;
}

// Paths with every byte that could break generated code or escape the root.
TEST(CompiledReplayHostile, PathsRoundTripExactlyAndNothingOutsideTheRootIsTouched) {
  std::string d = tmpdir("hostile");
  const std::vector<std::string> names = {
      "/h/q\"uote", "/h/back\\slash", "/h/new\nline", "/h/star*/slash", "/h/tri?\?/graph", "/h/\xff\xfe-bytes",
      "/h/\"); system(\"touch /tmp/pwned\"); //", "/../../escape-attempt", "/etc/rastro-canary"};
  trace::Trace t;
  t.header.backend = "test";
  int64_t at = 1'000'000;
  call(t, "mkdir", {{trace::ArgType::kPath, 0, t.strings.intern("/h")}, {trace::ArgType::kMode, 0755, 0}}, 0, at += 10000);
  call(t, "mkdir", {{trace::ArgType::kPath, 0, t.strings.intern("/h/star*")}, {trace::ArgType::kMode, 0755, 0}}, 0, at += 10000);
  call(t, "mkdir", {{trace::ArgType::kPath, 0, t.strings.intern("/h/tri??")}, {trace::ArgType::kMode, 0755, 0}}, 0, at += 10000);
  for (const auto& n : names) {
    trace::StrId p = t.strings.intern(n);
    call(t, "openat", {{trace::ArgType::kDirFd, -100, 0}, {trace::ArgType::kPath, 0, p}, {trace::ArgType::kOpenFlags, O_WRONLY | O_CREAT, 0},
                       {trace::ArgType::kMode, 0644, 0}}, 5, at += 10000);
    call(t, "write", {{trace::ArgType::kFd, 5, p}, {trace::ArgType::kBuf, 0, 0}, {trace::ArgType::kCount, 7, 0}}, 7, at += 10000);
    call(t, "close", {{trace::ArgType::kFd, 5, p}}, 0, at += 10000);
  }
  t.header.complete = true;
  trace::write_trace(d + "/hostile.rastro", t);
  fs::create_directories(d + "/canary");
  { std::ofstream(d + "/canary/keep") << "untouched"; }
  ASSERT_EQ(sh(fmt::format("{} compile -O fs {} -o {} --build", RASTRO_EXE, q(d + "/hostile.rastro"), q(d + "/c"))), 0);
  ASSERT_EQ(sh(fmt::format("{} --root {} --init -o {}", q(d + "/c/replay"), q(d + "/root"), q(d + "/out.rastro"))), 0);
  EXPECT_FALSE(fs::exists("/tmp/pwned"));
  EXPECT_FALSE(fs::exists(d + "/escape-attempt"));
  EXPECT_FALSE(fs::exists(fs::path(d).parent_path() / "escape-attempt"));
  EXPECT_FALSE(fs::exists("/etc/rastro-canary"));
  std::set<std::string> top;
  for (const auto& e : fs::directory_iterator(d)) top.insert(e.path().filename().string());
  EXPECT_EQ(top, (std::set<std::string>{"canary", "hostile.rastro", "c", "root", "out.rastro"}));
  EXPECT_EQ(std::distance(fs::directory_iterator(d + "/canary"), fs::directory_iterator()), 1);
  // The exact bytes reached the file system inside the root, and the output names them exactly.
  for (const auto& n : {names[0], names[1], names[2], names[3], names[4], names[5]}) {
    struct stat st;
    EXPECT_EQ(::stat((d + "/root" + n).c_str(), &st), 0) << "missing in root: " << n;
    EXPECT_EQ(st.st_size, 7) << n;
  }
  trace::Trace out = trace::read_trace(d + "/out.rastro");
  ASSERT_EQ(out.events.size(), t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i)
    for (int a = 0; a < t.events[i].nargs; ++a)
      EXPECT_EQ(out.str(out.events[i].arg(a).str), t.str(t.events[i].arg(a).str)) << "event " << i << " arg " << a;
  fs::remove_all(d);
}

TEST(CppLiteral, EscapesEverythingThatCouldBreakCode) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  std::string lit = compiler::cpp_string_literal(all);
  for (const char* bad : {"??", "*/", "\n", "\\\"\"", "\"\""}) EXPECT_EQ(lit.substr(1, lit.size() - 2).find(bad), std::string::npos) << bad;
  EXPECT_EQ(compiler::cpp_int_literal(INT64_MIN), "(-9223372036854775807LL - 1)");
}

}  // namespace
}  // namespace rastro

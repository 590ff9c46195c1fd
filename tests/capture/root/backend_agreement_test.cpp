// Real captures of tests/capture/deterministic_workload by every backend that can run here
// (backend_names() minus stap, which cannot run on the project's kernel — PLATFORM.md): each
// trace must contain what the program reports it did, in the right pid/tid, with ordered
// timestamps; and all backends must agree on the multiset of (function, args, rvalue) per
// thread role.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "capture/common/backend.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::capture {
namespace {

namespace fs = std::filesystem;

struct Report {
  std::map<std::string, std::pair<int, int>> roles;  // role -> (pid, tid)
  struct Call {
    int tid;
    std::string function;
    int64_t rvalue;
    std::string path;
  };
  std::vector<Call> calls;
};

Report read_report(const std::string& base, int processes) {
  Report r;
  for (int p = 0; p < processes; ++p) {
    std::ifstream in(base + "." + std::to_string(p));
    EXPECT_TRUE(in) << "workload report " << base << "." << p << " missing";
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string kind;
      ls >> kind;
      if (kind == "THREAD") {
        std::string role;
        int pid, tid;
        ls >> role >> pid >> tid;
        r.roles[role] = {pid, tid};
      } else if (kind == "CALL") {
        Report::Call c;
        ls >> c.tid >> c.function >> c.rvalue >> c.path;
        r.calls.push_back(c);
      }
    }
  }
  return r;
}

struct Captured {
  trace::Trace trace;
  int status = -1;
  Report report;
  std::string skip;  // why this backend cannot run here
};

// One per test program, removed when it ends.
struct WorkDir {
  fs::path path = fs::temp_directory_path() / fmt::format("rastro-capture-test-{}", ::getpid());
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& work_dir() {
  static WorkDir d;
  return d.path;
}

Captured capture_with(const std::string& backend_name, bool die) {
  Captured c;
  auto backend = make_backend(backend_name);
  if (!backend) {
    c.skip = "backend not built";
    return c;
  }
  auto missing = backend->missing_requirements();
  if (!missing.empty()) {
    for (const auto& m : missing) c.skip += m + "; ";
    return c;
  }
  // Same paths for every backend, so their traces are comparable word for word.
  fs::path dir = work_dir() / "fs";
  fs::remove_all(work_dir());
  fs::create_directories(dir);
  std::string report = (work_dir() / "report").string();
  CaptureOptions opts;
  opts.command = {WORKLOAD_EXE, dir.string(), report};
  if (die) opts.command.push_back("--die");
  opts.syscalls = trace::parse_syscall_set("fs").take();
  trace::MemorySink sink;
  c.status = backend->run(opts, sink);
  sink.finish();
  c.trace = sink.take();
  c.report = read_report(report, die ? 1 : 2);
  return c;
}

std::string event_key(const trace::Trace& t, const trace::Event& e) {
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  std::string k(trace::function_name(e, t.strings));
  for (int i = 0; i < e.nargs; ++i) {
    const auto& a = e.args[static_cast<size_t>(i)];
    // Addresses differ from run to run (ASLR); everything else is deterministic.
    // So does the length glibc unmaps when it trims a thread stack to an aligned boundary.
    bool varies = a.type == trace::ArgType::kPtr || (e.nr == 11 /* munmap */ && a.type == trace::ArgType::kCount);
    std::string v = varies ? "varies" : std::to_string(a.value);
    k += fmt::format(" {}:{}<{}>", static_cast<int>(a.type), v, t.str(a.str));
  }
  bool varying_ret = info && (info->ret == trace::ReturnKind::kPtr || info->ret == trace::ReturnKind::kPid);
  k += " = " + (varying_ret ? std::string(e.rvalue < 0 ? "err" : "ok") : std::to_string(e.rvalue));
  return k;
}

// Role -> multiset of event keys.
std::map<std::string, std::multiset<std::string>> by_role(const Captured& c) {
  std::map<int, std::string> role_of_tid;
  for (const auto& [role, ids] : c.report.roles) role_of_tid[ids.second] = role;
  std::map<std::string, std::multiset<std::string>> out;
  for (const auto& e : c.trace.events) {
    // glibc trims a new thread's stack with munmap only when ASLR placed the mapping unaligned, so
    // whether that call happens at all differs from run to run: not a backend difference.
    if (e.nr == 11 /* munmap */) continue;
    // Page faults on mapped files: eBPF alone records them (docs/capture.md), not a syscall.
    if (e.flags & trace::kEventPageFault) continue;
    auto it = role_of_tid.find(e.tid);
    if (it != role_of_tid.end()) out[it->second].insert(event_key(c.trace, e));
  }
  return out;
}

void check_against_report(const std::string& name, const Captured& c, int processes) {
  ASSERT_EQ(c.report.roles.size(), static_cast<size_t>(2 * processes)) << name;
  std::set<int> pids, tids;
  for (const auto& e : c.trace.events) {
    pids.insert(e.pid);
    tids.insert(e.tid);
    EXPECT_LE(e.begin_ns, e.end_ns) << name << " seq " << e.seq;
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    bool no_return = info && info->ret == trace::ReturnKind::kNoReturn && e.nr != 59 && e.nr != 322;
    // A page fault's duration is not measured (begin = end, docs/format.md).
    if (!no_return && !(e.flags & (trace::kEventUnfinished | trace::kEventPageFault))) {
      EXPECT_GT(e.duration_ns(), 0) << name << " seq " << e.seq << " " << trace::function_name(e, c.trace.strings);
    }
  }
  for (const auto& [role, ids] : c.report.roles) {
    EXPECT_TRUE(pids.count(ids.first)) << name << ": process of " << role << " (pid " << ids.first << ") missing";
    EXPECT_TRUE(tids.count(ids.second)) << name << ": thread " << role << " (tid " << ids.second << ") missing";
    for (const auto& e : c.trace.events)
      if (e.tid == ids.second) {
        EXPECT_EQ(e.pid, ids.first) << name << ": wrong pid for tid " << e.tid;
      }
  }
  // Every call the program reports is in the trace: same thread, function, rvalue and path
  // (the path argument, or the fd's path).
  std::vector<bool> used(c.trace.events.size(), false);
  for (const auto& call : c.report.calls) {
    bool found = false;
    for (size_t i = 0; i < c.trace.events.size() && !found; ++i) {
      const auto& e = c.trace.events[i];
      if (used[i] || e.tid != call.tid || e.rvalue != call.rvalue) continue;
      if (trace::function_name(e, c.trace.strings) != call.function) continue;
      bool path_ok = false;
      for (int k = 0; k < e.nargs; ++k)
        if (c.trace.str(e.args[static_cast<size_t>(k)].str) == call.path) path_ok = true;
      if (!path_ok) continue;
      used[i] = true;
      found = true;
    }
    EXPECT_TRUE(found) << name << ": reported call not in the trace: tid " << call.tid << " " << call.function << " "
                       << call.path << " = " << call.rvalue;
  }
}

std::vector<std::string> tracing_backends() {
  std::vector<std::string> out;
  for (const auto& n : backend_names())
    if (n != "stap") out.push_back(n);
  return out;
}

TEST(BackendAgreement, EveryBackendCapturesTheWorkloadAndTheyAgree) {
  std::map<std::string, std::map<std::string, std::multiset<std::string>>> per_backend;
  for (const auto& name : tracing_backends()) {
    SCOPED_TRACE(name);
    Captured c = capture_with(name, false);
    if (!c.skip.empty()) {
      std::printf("SKIP backend %s: %s\n", name.c_str(), c.skip.c_str());
      continue;
    }
    EXPECT_EQ(c.status, 0) << name;
    EXPECT_EQ(c.trace.header.events_lost, 0u) << name;
    EXPECT_EQ(c.trace.header.events_captured, c.trace.events.size()) << name;
    check_against_report(name, c, 2);
    per_backend[name] = by_role(c);
  }
  ASSERT_FALSE(per_backend.empty()) << "no backend could run";
  // The system strace is the reference: it is the one instrument we did not write.
  const std::string ref_name = per_backend.count("strace") ? "strace" : per_backend.begin()->first;
  const auto& ref = per_backend[ref_name];
  for (const auto& [name, roles] : per_backend) {
    if (name == ref_name) continue;
    for (const auto& [role, keys] : ref) {
      auto it = roles.find(role);
      ASSERT_NE(it, roles.end()) << name << " has no events for " << role;
      std::vector<std::string> only_ref, only_other;
      std::set_difference(keys.begin(), keys.end(), it->second.begin(), it->second.end(), std::back_inserter(only_ref));
      std::set_difference(it->second.begin(), it->second.end(), keys.begin(), keys.end(), std::back_inserter(only_other));
      std::string diff;
      for (const auto& k : only_ref) diff += "\n  only " + ref_name + ": " + k;
      for (const auto& k : only_other) diff += "\n  only " + name + ": " + k;
      EXPECT_TRUE(diff.empty()) << role << ": " << ref_name << " vs " << name << diff;
    }
  }
}

TEST(BackendAgreement, KilledWorkloadLeavesACompleteTraceAndStatus143) {
  for (const auto& name : tracing_backends()) {
    SCOPED_TRACE(name);
    Captured c = capture_with(name, true);
    if (!c.skip.empty()) {
      std::printf("SKIP backend %s: %s\n", name.c_str(), c.skip.c_str());
      continue;
    }
    EXPECT_EQ(c.status, 128 + SIGTERM) << name;
    check_against_report(name, c, 1);
  }
}

TEST(BackendAgreement, UnknownCommandIs127) {
  for (const auto& name : tracing_backends()) {
    auto backend = make_backend(name);
    if (!backend || !backend->missing_requirements().empty()) continue;
    CaptureOptions opts;
    opts.command = {"rastro-no-such-command-xyz"};
    opts.syscalls = trace::parse_syscall_set("fs").take();
    trace::MemorySink sink;
    try {
      int status = backend->run(opts, sink);
      EXPECT_EQ(status, 127) << name;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 127) << name << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace rastro::capture

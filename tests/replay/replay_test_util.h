// Helpers for the replay runtime/engine tests: temporary directories, a full snapshot of a
// directory tree (to prove nothing outside the root changed), a small trace builder, and
// hand-made plans (program order plus sparse temporal edges) for tests that must not depend on
// inference.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/plan/plan.h"
#include "replay/runtime/record_log.h"
#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/rastro-engine-XXXXXX";
    char* p = mkdtemp(tmpl.data());
    if (!p) std::abort();
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Type, mode, size, mtime, content (or link target) of every entry below `dir`, recursively.
inline std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string p = it->path().string();
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) continue;
    std::ostringstream s;
    s << std::oct << st.st_mode << std::dec << " " << st.st_size << " " << st.st_uid << ":" << st.st_gid << " "
      << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec << " ";
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      ssize_t n = readlink(p.c_str(), buf, sizeof buf);
      s << "-> " << std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
    } else if (S_ISREG(st.st_mode)) {
      std::ifstream f(p, std::ios::binary);
      s << f.rdbuf();
    }
    out[p] = s.str();
  }
  return out;
}

inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  f << content;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Builds events with the syscall table's signatures.
class TraceBuilder {
 public:
  trace::Trace t;
  int64_t clock = 1'000'000;

  // Appends `name` with argument values (strings for kPath/kStr/fd-path via `strs`).
  trace::Event& add(int32_t pid, int32_t tid, std::string_view name, std::vector<int64_t> vals,
                    int64_t rvalue, std::vector<std::string> strs = {}, int64_t begin = -1, int64_t dur = 2000) {
    const trace::SyscallInfo* info = trace::syscall_by_name(name);
    EXPECT_NE(info, nullptr) << name;
    trace::Event e;
    e.seq = t.events.size();
    e.pid = pid;
    e.tid = tid;
    e.nr = info->nr;
    e.nargs = info->nargs;
    size_t si = 0;
    for (int i = 0; i < info->nargs; ++i) {
      trace::Arg& a = e.args[static_cast<size_t>(i)];
      a.type = info->args[static_cast<size_t>(i)];
      if (a.type == trace::ArgType::kPath || a.type == trace::ArgType::kStr) {
        a.str = si < strs.size() ? t.strings.intern(strs[si++]) : trace::kNoStr;
      } else if (a.type != trace::ArgType::kBuf) {
        a.value = static_cast<size_t>(i) < vals.size() ? vals[static_cast<size_t>(i)] : 0;
      }
    }
    e.begin_ns = begin >= 0 ? begin : clock;
    e.end_ns = e.begin_ns + dur;
    clock = std::max(clock, e.end_ns + 1000);
    e.rvalue = rvalue;
    t.events.push_back(e);
    return t.events.back();
  }
  // Sorts events by begin (stable) and renumbers seq: traces are in begin order.
  trace::Trace take() {
    std::stable_sort(t.events.begin(), t.events.end(),
                     [](const trace::Event& a, const trace::Event& b) { return a.begin_ns < b.begin_ns; });
    for (size_t i = 0; i < t.events.size(); ++i) t.events[i].seq = i;
    return std::move(t);
  }
};

// A plan without inference: every event is a request (begin order), program order implicit,
// plus (temporal = true) for each request and each other thread the latest request of that
// thread that completed before it began.
inline Plan hand_plan(trace::Trace tr, bool temporal) {
  Plan p;
  p.ordering = temporal ? Ordering::kTemporal : Ordering::kThread;
  p.trace = std::move(tr);
  const auto& ev = p.trace.events;
  const int64_t t0 = ev.empty() ? 0 : ev[0].begin_ns;
  p.trace_t0_ns = t0;
  std::map<int32_t, uint32_t> thread_of;
  for (uint32_t i = 0; i < ev.size(); ++i) {
    auto [it, inserted] = thread_of.try_emplace(ev[i].tid, static_cast<uint32_t>(p.threads.size()));
    if (inserted) p.threads.push_back({ev[i].pid, ev[i].tid, {}});
    Request r{};
    r.event = i;
    r.thread = it->second;
    const trace::SyscallInfo* info = trace::syscall_by_nr(ev[i].nr);
    r.action = !info ? RequestAction::kSkipUnknown
               : (info->classes & trace::kClassProcess) ? RequestAction::kLifecycle
                                                        : RequestAction::kReplay;
    r.deps_begin = static_cast<uint32_t>(p.deps.size());
    if (temporal) {
      for (auto& th : p.threads) {
        if (th.tid == ev[i].tid) continue;
        int64_t best = -1;
        for (uint32_t j : th.requests) {
          if (ev[j].end_ns <= ev[i].begin_ns) best = j;
        }
        if (best >= 0) p.deps.push_back({static_cast<uint32_t>(best), EdgeKind::kTemporal});
      }
    }
    p.requests.push_back(r);
    p.threads[it->second].requests.push_back(i);
  }
  return p;
}

// Two threads of pid 1 (tids 10 and 11), one after the other, each opening its own file (/a, /b)
// as fd 3 and writing 50 times to it (10 and 20 bytes a write): 104 calls, fd 3 reused.
inline trace::Trace two_threads_reusing_fd3() {
  TraceBuilder b;
  b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/a"}, 1'000'000);
  for (int i = 0; i < 50; ++i) b.add(1, 10, "write", {3, 0, 10}, 10, {}, 1'001'000 + i * 100);
  b.add(1, 10, "close", {3}, 0, {}, 1'010'000);
  b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/b"}, 1'020'000);
  for (int i = 0; i < 50; ++i) b.add(1, 11, "write", {3, 0, 20}, 20, {}, 1'021'000 + i * 100);
  b.add(1, 11, "close", {3}, 0, {}, 1'030'000);
  return b.take();
}

// Hand-made records of one thread's requests whose source events are `events`: the log an
// engine would have filled (record_log.h), with the requests it reads.
struct HandRecords {
  HandRecords(const std::vector<uint32_t>& events, const std::vector<RequestRecord>& records) {
    for (uint32_t e : events) requests.push_back({e, 0, 0});
    log = RecordLog::encode(requests, records);
  }
  HandRecords(const HandRecords&) = delete;
  std::vector<Request> requests;
  RecordLog log;
};

}  // namespace rastro::replay::testing

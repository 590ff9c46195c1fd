#include "workloads/common/trace_emit.h"

#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <tuple>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "trace/syscalls/syscall_table.h"

#if __has_include("common/env_inventory.h")
#include "common/env_inventory.h"
#define RASTRO_HAVE_ENV_INVENTORY 1
#endif

namespace rastro::workloads {

using trace::Arg;
using trace::ArgType;
using trace::Event;

namespace {

// Looked up once: the table is the only source of numbers and signatures.
const std::array<const trace::SyscallInfo*, kCallKinds>& kind_table() {
  static const auto table = [] {
    std::array<const trace::SyscallInfo*, kCallKinds> t{};
    for (size_t i = 0; i < kCallKinds; ++i) {
      t[i] = trace::syscall_by_name(call_syscall_name(static_cast<CallKind>(i)));
      if (t[i] == nullptr) {
        throw Error(fmt::format("internal: syscall '{}' missing from the syscall table",
                                call_syscall_name(static_cast<CallKind>(i))));
      }
    }
    return t;
  }();
  return table;
}

Event to_event(const CallRecord& r, int32_t pid, int32_t tid, trace::StrId path) {
  const trace::SyscallInfo* info = kind_table()[static_cast<size_t>(r.kind)];
  Event e;
  e.pid = pid;
  e.tid = tid;
  e.begin_ns = r.begin_ns;
  e.end_ns = r.end_ns;
  e.nr = info->nr;
  e.nargs = info->nargs;
  e.rvalue = r.rvalue;
  // Values by role; the table fixes which roles appear and in what order.
  for (int i = 0; i < info->nargs; ++i) {
    const ArgType t = info->args[static_cast<size_t>(i)];
    Arg a;
    a.type = t;
    switch (t) {
      case ArgType::kFd: a.value = r.fd; a.str = path; break;
      case ArgType::kDirFd: a.value = AT_FDCWD; break;
      case ArgType::kPath: a.str = path; break;
      case ArgType::kOpenFlags: a.value = r.count; break;
      case ArgType::kMode: a.value = r.kind == CallKind::kOpenat ? r.offset : r.count; break;
      case ArgType::kCount: a.value = r.count; break;
      case ArgType::kOffset: a.value = r.offset; break;
      case ArgType::kAtFlags: a.value = 0; break;
      case ArgType::kBuf: a.value = 0; break;
      default:
        throw Error(fmt::format("internal: {} has an argument role the reference workloads do not fill",
                                info->name));
    }
    e.args[static_cast<size_t>(i)] = a;
  }
  return e;
}

}  // namespace

void emit_run(const WorkloadRun& run, trace::TraceSink& sink) {
  std::vector<trace::StrId> path_ids;
  path_ids.reserve(run.paths.size());
  for (const auto& p : run.paths) path_ids.push_back(sink.strings().intern(p));
  // Merge all threads by begin time (tie: thread, then program order) - a stable global order
  // that keeps each thread's program order.
  struct Ref {
    int64_t begin;
    uint32_t thread;
    uint32_t index;
  };
  std::vector<Ref> order;
  size_t total = 0;
  for (const auto& t : run.threads) total += t.log.size();
  order.reserve(total);
  for (uint32_t ti = 0; ti < run.threads.size(); ++ti) {
    const CallLog& log = run.threads[ti].log;
    for (uint32_t i = 0; i < log.size(); ++i) order.push_back({log.at(i).begin_ns, ti, i});
  }
  std::sort(order.begin(), order.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.begin, a.thread, a.index) < std::tie(b.begin, b.thread, b.index);
  });
  for (const Ref& ref : order) {
    const ThreadCalls& t = run.threads[ref.thread];
    const CallRecord& r = t.log.at(ref.index);
    const trace::StrId path = r.path < path_ids.size() ? path_ids[r.path] : trace::kNoStr;
    sink.append(to_event(r, t.pid, t.tid, path));
  }
}

trace::TraceHeader make_reference_header(const std::string& backend, nlohmann::json settings,
                                         std::vector<std::string> command, const std::string& target_dir) {
  trace::TraceHeader h;
  h.backend = backend;
  h.settings = std::move(settings);
  h.command = std::move(command);
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) h.host = host.data();
  struct utsname u;
  if (uname(&u) == 0) h.kernel = u.release;
  const ClockAnchor anchor = take_clock_anchor();
  h.anchor_monotonic_ns = anchor.monotonic_ns;
  h.anchor_realtime_ns = anchor.realtime_ns;
#ifdef RASTRO_HAVE_ENV_INVENTORY
  h.environment = collect_environment(target_dir);
#else
  (void)target_dir;
  h.environment = nlohmann::json::object();
  h.environment["note"] = "environment inventory unavailable in this build (common/env_inventory.h missing)";
#endif
  h.complete = false;
  return h;
}

void finish_header(const WorkloadRun& run, const nlohmann::json& summary, trace::TraceHeader& header) {
  uint64_t n = 0;
  for (const auto& t : run.threads) n += t.log.size();
  header.events_captured = n;
  header.events_lost = 0;
  header.extra["summary"] = summary;
  if (run.stopped_by != 0) {
    header.complete = false;
    header.extra["partial"] = true;
    header.extra["partial_reason"] = run.stop_reason;
  } else {
    header.complete = true;
    header.extra["partial"] = false;
  }
}

}  // namespace rastro::workloads

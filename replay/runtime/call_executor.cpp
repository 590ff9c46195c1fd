#include "replay/runtime/call_executor.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "replay/runtime/call_ops.h"
#include "replay/runtime/emulated_call.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

const char* skip_reason_name(SkipReason r) {
  switch (r) {
    case SkipReason::kNone: return "none";
    case SkipReason::kUnsupported: return "unsupported";
    case SkipReason::kFdBeforeOpen: return "fd_use_before_open";
    case SkipReason::kFdAfterClose: return "fd_use_after_close";
    case SkipReason::kFdOpenFailed: return "fd_open_failed_in_replay";
    case SkipReason::kFdRefused: return "fd_of_refused_path";
    case SkipReason::kSpecialPath: return "special_path";
    case SkipReason::kBadPath: return "bad_path";
    case SkipReason::kDeviceNode: return "device_node";
    case SkipReason::kUnknownMapping: return "mapping_not_in_trace";
    case SkipReason::kUnknownProcess: return "unknown_process";
    case SkipReason::kUnfinished: return "unfinished";
    case SkipReason::kLockArgsNotRecorded: return "lock_args_not_recorded";
    case SkipReason::kCount: break;
  }
  return "?";
}

uint64_t ExecStats::skipped_total() const {
  uint64_t n = 0;
  for (uint64_t v : skipped) n += v;
  return n;
}

void ExecStats::merge(const ExecStats& o) {
  executed += o.executed;
  emulated += o.emulated;
  emulated_files += o.emulated_files;
  mismatched += o.mismatched;
  for (int i = 0; i < kSkipReasons; ++i) skipped[static_cast<size_t>(i)] += o.skipped[static_cast<size_t>(i)];
  for (auto& [k, v] : o.unsupported) unsupported[k] += v;
  for (auto& [k, v] : o.mismatched_by_call) mismatched_by_call[k] += v;
}

char* ThreadScratch::read_area(size_t n) { return read_buf.area(n); }

const char* ThreadScratch::write_area(size_t n) {
  if (write_buf.size() < n || !write_buf.data()) {
    char* p = write_buf.area(n);  // a new area: the pattern is written again
    for (size_t i = 0; i < write_buf.size(); ++i) p[i] = write_pattern_byte(i);
  }
  return write_buf.data();
}

bool rvalue_mismatch(const trace::Event& traced, int64_t replay_rvalue) {
  if (traced.flags & trace::kEventUnfinished) return false;
  const trace::SyscallInfo* info = trace::syscall_by_nr(traced.nr);
  trace::ReturnKind kind = info ? info->ret : trace::ReturnKind::kInt;
  // fcntl(F_DUPFD*) returns a new fd: its number is the replayer's, like open's.
  const int cmd = info ? info->arg_of(trace::ArgType::kFcntlCmd) : -1;
  if (cmd >= 0 && cmd < traced.nargs && info->returns_new_fd(traced.arg(cmd).value)) kind = trace::ReturnKind::kFd;
  auto is_err = [](int64_t v) { return v < 0 && v >= -4095; };
  switch (kind) {
    case trace::ReturnKind::kFd:
    case trace::ReturnKind::kPtr:
      if (is_err(traced.rvalue) || is_err(replay_rvalue)) return traced.rvalue != replay_rvalue;
      return false;
    case trace::ReturnKind::kPid:
    case trace::ReturnKind::kNoReturn:
      return false;
    default:
      return traced.rvalue != replay_rvalue;
  }
}

int64_t CallExecutor::run(CallCtx& c) const {
  const trace::SyscallInfo* info = trace::syscall_by_nr(c.e.nr);
  CallOps ops(c, sandbox_, procs_, strings_, info ? info->name : trace::function_name(c.e, strings_));
  if (c.e.flags & trace::kEventPageFault) return ops.page_fault();
  if (!info) return ops.unsupported();
  if (int64_t r; emulate_call(c, *info, strings_, &r)) {
    ++c.scratch.stats.emulated_files;
    return r;
  }
  switch (info->family) {
    case trace::Family::kOpenClose: return ops.open_close();
    case trace::Family::kDataIo: return ops.data_io();
    case trace::Family::kStat: return ops.stat();
    case trace::Family::kNamespace: return ops.name_space();
    case trace::Family::kFdOps: return ops.fd_ops();
    case trace::Family::kMemory: return ops.memory();
    case trace::Family::kProcess: return ops.process();
  }
  return ops.unsupported();
}

CallOutcome CallExecutor::skip(const trace::Event& e, SkipReason why, ThreadScratch& scratch) const {
  CallOutcome out;
  out.rvalue = e.rvalue;
  out.skip = why;
  out.flags = trace::kEventSkipped;
  ++scratch.stats.skipped[static_cast<size_t>(why)];
  if (why == SkipReason::kUnsupported) {
    std::string_view name = trace::function_name(e, strings_);
    ++scratch.stats.unsupported[std::string(name.empty() ? "syscall_?" : name)];
  }
  return out;
}

CallOutcome CallExecutor::execute(const trace::Event& e, ProcessState* proc, ThreadScratch& scratch,
                                  const trace::StrId* resolved, const int32_t* fd_keys) const {
  CallOutcome out;
  if (!proc) proc = procs_.find(e.pid);
  if (!proc) {
    out.skip = SkipReason::kUnknownProcess;
  } else {
    CallCtx c{e, *proc, scratch, resolved, fd_keys};
    out.rvalue = run(c);
    out.skip = c.skip;
    if (c.emulated) {
      ++scratch.stats.emulated;
    } else if (c.skip == SkipReason::kNone) {
      ++scratch.stats.executed;
    }
  }
  if (out.skip != SkipReason::kNone) {
    out.rvalue = e.rvalue;
    out.flags |= trace::kEventSkipped;
    ++scratch.stats.skipped[static_cast<size_t>(out.skip)];
    return out;
  }
  if (rvalue_mismatch(e, out.rvalue)) {
    out.flags |= trace::kEventMismatch;
    ++scratch.stats.mismatched;
    ++scratch.stats.mismatched_by_call[std::string(trace::function_name(e, strings_))];
  }
  return out;
}

}  // namespace rastro::replay

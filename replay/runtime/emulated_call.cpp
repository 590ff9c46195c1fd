#include "replay/runtime/emulated_call.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "replay/runtime/special_file.h"

namespace rastro::replay {
namespace {

using trace::ArgType;

// fd-creating calls whose fd carries no file data (emulated_call.h).
bool creates_emulated_fd(std::string_view name) {
  for (std::string_view n : {"socket", "accept", "accept4", "epoll_create", "epoll_create1", "eventfd", "eventfd2",
                             "signalfd", "signalfd4", "timerfd_create", "inotify_init", "inotify_init1",
                             "pidfd_open", "fanotify_init"}) {
    if (name == n) return true;
  }
  return false;
}

// Calls that must act on the stand-in itself so the fd table stays exact (close, dup family,
// fcntl's fd-table commands).
bool acts_on_fd_table(const CallCtx& c, const trace::SyscallInfo& info) {
  switch (info.fd) {
    case trace::FdEffect::kReleases:
    case trace::FdEffect::kDuplicates:
    case trace::FdEffect::kDuplicatesOnto:
      return true;
    case trace::FdEffect::kByCommand: {
      const int cmd = info.arg_of(ArgType::kFcntlCmd);
      if (cmd < 0 || cmd >= c.e.nargs) return true;
      const int64_t v = c.a(cmd);
      return trace::is_dup_fd_command(v) || v == F_GETFD || v == F_SETFD;
    }
    default:
      return false;
  }
}

// The first fd argument (kFd) that maps to a stand-in, or -1.
int emulated_fd_arg(const CallCtx& c, const trace::SyscallInfo& info) {
  const int n = std::min<int>(info.nargs, c.e.nargs);
  for (int i = 0; i < n; ++i) {
    if (info.args[static_cast<size_t>(i)] != ArgType::kFd) continue;
    FdLookup l = c.proc.fds->get(c.key(i));
    if (l.state == FdState::kOpen && l.emulated) return i;
  }
  return -1;
}

// The absolute traced path of the call's first file-naming argument when it is an emulated path
// ("" otherwise): the plan's resolved path, or the argument made absolute against the traced cwd
// or the dirfd's path (as CallOps::path_arg does, which the executor runs for other paths).
std::string emulated_path(const CallCtx& c, const trace::SyscallInfo& info, const trace::StringTable& strings) {
  const int pi = info.path_arg(0);
  if (pi < 0 || pi >= c.e.nargs) return {};
  std::string_view p = strings.get(c.e.arg(pi).str);
  if (p.empty() || p.find('\0') != std::string_view::npos) return {};  // the sandbox refuses it
  if (c.resolved && c.resolved[0] != trace::kNoStr) {
    std::string_view r = strings.get(c.resolved[0]);
    return is_emulated_path(r) ? std::string(r) : std::string();
  }
  if (p.front() == '/') return is_emulated_path(p) ? std::string(p) : std::string();
  const int di = info.dirfd_of(pi);
  std::string base;
  if (di >= 0 && c.a(di) != AT_FDCWD) base = c.proc.fds->path(c.key(di));
  if (base.empty() || base.front() != '/') base = c.proc.cwd();
  std::string abs = SandboxResolver::absolute(base, p);
  return is_emulated_path(abs) ? abs : std::string();
}

// An open of /dev/fd/N (special_file.h) whose fd N the replay holds as a real fd (a pipe, a file in
// the root): the executor reopens that fd rather than serving a stand-in.
bool reopens_own_fd(const CallCtx& c, const trace::SyscallInfo& info, std::string_view abs) {
  const int n = own_fd_named(abs, c.e.pid);
  if (n < 0) return false;
  const int pi = info.path_arg(0);
  const int key = c.keys ? c.keys[pi] : n;
  if (key < 0) return false;
  FdLookup l = c.proc.fds->get(key);
  return l.state == FdState::kOpen && !l.emulated;
}

// Moves the traced byte count through the stand-in of fd argument `i`, so an emulated read or
// write costs about what the traced one did (a read of /dev/zero copies zeros; /dev/null is free).
void move_traced_bytes(CallCtx& c, int i, bool is_read) {
  if (i < 0 || c.e.rvalue <= 0) return;
  FdLookup l = c.proc.fds->get(c.key(i));
  if (l.state != FdState::kOpen || !l.emulated) return;
  const auto n = static_cast<size_t>(std::min<int64_t>(c.e.rvalue, int64_t{1} << 30));
  ssize_t r = is_read ? ::read(l.fd, c.scratch.read_area(n), n) : ::write(l.fd, c.scratch.write_area(n), n);
  (void)r;  // the traced result stands, whatever the stand-in did
}

// Installs a stand-in for the fd a traced call created (when it succeeded); returns its number,
// or the traced value when there is nothing to install.
int64_t install_stand_in(CallCtx& c, const trace::SyscallInfo& info, std::string name) {
  if (!c.traced_ok() || info.ret != trace::ReturnKind::kFd) return c.e.rvalue;
  const int fd = open_emulated_stand_in(name);
  if (fd < 0) {
    c.proc.fds->set_state(c.ret_key(), FdState::kFailed);
    return fd;
  }
  const int flags = info.arg_of(ArgType::kOpenFlags);
  const bool cloexec = flags >= 0 && flags < c.e.nargs && (c.a(flags) & O_CLOEXEC);
  c.proc.fds->set_open(c.ret_key(), fd, cloexec, std::move(name));
  return fd;
}

}  // namespace

bool emulate_call(CallCtx& c, const trace::SyscallInfo& info, const trace::StringTable& strings, int64_t* rvalue) {
  if (info.proc == trace::ProcEffect::kExec || info.creates_process() || info.proc == trace::ProcEffect::kExit) {
    return false;  // structure: the process executor keeps the fd tables
  }
  std::string name;
  if (emulated_fd_arg(c, info) >= 0) {
    if (acts_on_fd_table(c, info)) return false;
    move_traced_bytes(c, info.data_in, true);
    move_traced_bytes(c, info.data_out, false);
    name = emulated_fd_name(info.name);
  } else if (std::string p = emulated_path(c, info, strings); !p.empty()) {
    if (info.path == trace::PathEffect::kOpens && reopens_own_fd(c, info, p)) return false;  // CallOps::open_path
    name = std::move(p);
  } else if (info.fd == trace::FdEffect::kCreates && info.path_arg(0) < 0 && creates_emulated_fd(info.name)) {
    name = emulated_fd_name(info.name);
  } else {
    return false;
  }
  c.emulated = true;
  if (c.traced_ok() && info.proc == trace::ProcEffect::kChdir) c.proc.set_cwd(SandboxResolver::normalise(name));
  *rvalue = install_stand_in(c, info, std::move(name));
  return true;
}

}  // namespace rastro::replay

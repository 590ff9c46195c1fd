#include "replay/runtime/process_state.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

std::string ProcessState::cwd() const {
  std::lock_guard lock(mu_);
  return cwd_;
}

void ProcessState::set_cwd(std::string cwd) {
  std::lock_guard lock(mu_);
  cwd_ = std::move(cwd);
}

// An inherited fd of unknown origin becomes its own open of /dev/null (its own file status
// flags, as separately redirected stdout/stderr have), read-only for stdin, write-only for
// stdout/stderr, read-write otherwise; so F_GETFL/F_SETFL replay as traced.
static int open_inherited_stand_in(int traced_fd) {
  const int mode = traced_fd == 0 ? O_RDONLY : traced_fd <= 2 ? O_WRONLY : O_RDWR;
  return ::open("/dev/null", mode | O_CLOEXEC);
}

ProcessTable::ProcessTable(std::span<const ProcessSeed> seeds, int fd_slots, KernelFdTables kernel) : kernel_(kernel) {
  for (const ProcessSeed& s : seeds) {
    auto p = std::make_unique<ProcessState>();
    p->pid = s.pid;
    p->fds = std::make_shared<FdTable>(fd_slots, kernel);
    p->inherited_fds = s.inherited_fds;
    p->inherited_traced_fds = s.inherited_traced_fds;
    p->set_cwd(s.cwd);
    for (int32_t tid : s.tids) tid_to_pid_[tid] = s.pid;
    procs_[s.pid] = std::move(p);
    if (kernel == KernelFdTables::kShared) open_stand_ins(*procs_[s.pid]);
  }
}

void ProcessTable::open_stand_ins(ProcessState& p) {
  for (size_t i = 0; i < p.inherited_fds.size(); ++i) {
    const int fd = p.inherited_fds[i];
    if (p.fds->get(fd).state != FdState::kNone) continue;  // its fork brought it
    int d = open_inherited_stand_in(i < p.inherited_traced_fds.size() ? p.inherited_traced_fds[i] : fd);
    if (d >= 0) {
      p.fds->set_open(fd, d, false, "/dev/null");
    } else {
      p.fds->set_state(fd, FdState::kFailed);
    }
  }
}

namespace {
#ifndef PIDFD_THREAD
constexpr unsigned kPidfdThread = O_EXCL;  // Linux 6.9's PIDFD_THREAD; Debian 12's headers predate it
#else
constexpr unsigned kPidfdThread = PIDFD_THREAD;
#endif
int thread_pidfd(int32_t tid) { return static_cast<int>(syscall(SYS_pidfd_open, tid, kPidfdThread)); }
}  // namespace

bool thread_fd_import_available() {
  const int pidfd = thread_pidfd(static_cast<int32_t>(gettid()));
  if (pidfd < 0) return false;
  const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, pidfd, 0));
  ::close(pidfd);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

int ProcessTable::own_table(int32_t pid, int32_t parent_tid) {
  ProcessState* p = find(pid);
  if (!p) return 0;
  int err = 0;
  if (parent_tid != 0) {
    const int pidfd = thread_pidfd(parent_tid);
    if (pidfd < 0) err = -errno;
    p->fds->renumber([&](int parent_fd) {
      const int fd = pidfd < 0 ? -1 : static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, parent_fd, 0));
      if (fd < 0 && err == 0) err = -errno;
      return fd;
    });
    if (pidfd >= 0) ::close(pidfd);
  }
  open_stand_ins(*p);
  return err;
}

ProcessState* ProcessTable::find(int32_t pid) const {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : it->second.get();
}

void ProcessTable::spawn(int32_t parent_pid, int32_t child_tid, uint64_t clone_flags, bool flags_known) {
  auto t = tid_to_pid_.find(child_tid);
  int32_t child_pid = t == tid_to_pid_.end() ? child_tid : t->second;
  if (child_pid == parent_pid) return;  // a new thread: shares everything already
  if (flags_known && (clone_flags & CLONE_THREAD)) return;
  ProcessState* parent = find(parent_pid);
  ProcessState* child = find(child_pid);
  if (!parent || !child) return;  // the child did nothing we replay
  if (flags_known && (clone_flags & CLONE_FILES)) {  // (clone_shares_fd_table)
    child->fds = parent->fds;
  } else {
    std::shared_ptr<FdTable> copy = parent->fds->copy();
    // fds the child uses that the parent never had (unknown origin) stay /dev/null duplicates
    // (kPerProcess: open_stand_ins makes them once the child has its table).
    for (int fd : child->inherited_fds) {
      if (kernel_ != KernelFdTables::kShared) break;
      FdLookup mine = child->fds->get(fd);
      if (copy->get(fd).state == FdState::kNone && mine.state == FdState::kOpen) {
        int d = fcntl(mine.fd, F_DUPFD_CLOEXEC, 0);
        if (d >= 0) copy->set_open(fd, d, false, "/dev/null");
      }
    }
    child->fds = std::move(copy);
  }
  child->set_cwd(parent->cwd());
  child->maps.inherit(parent->maps);
}

bool clone_shares_fd_table(const trace::Event& e) {
  return e.nr == SYS_clone && (static_cast<uint64_t>(e.arg(0).value) & CLONE_FILES);
}

std::vector<int64_t> spawn_requests(const Plan& plan) {
  std::unordered_map<int32_t, size_t> thread_of_tid;
  for (size_t t = 0; t < plan.threads.size(); ++t) thread_of_tid[plan.threads[t].tid] = t;
  std::vector<int64_t> out(plan.threads.size(), -1);
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const trace::Event& e = plan.trace.events[plan.requests[r].event];
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (!info || info->ret != trace::ReturnKind::kPid || e.rvalue <= 0) continue;
    auto it = thread_of_tid.find(static_cast<int32_t>(e.rvalue));
    if (it == thread_of_tid.end() || it->second == plan.requests[r].thread) continue;
    if (out[it->second] < 0) out[it->second] = static_cast<int64_t>(r);
  }
  return out;
}

}  // namespace rastro::replay

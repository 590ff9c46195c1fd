#include "capture/ptrace/ptrace_tracer.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "capture/common/raw_arg.h"
#include "capture/common/stop_signal.h"
#include "capture/common/workload_launcher.h"
#include "capture/ptrace/seccomp_filter.h"
#include "common/clock.h"
#include "common/error.h"
#include "trace/syscalls/fcntl_lock.h"

namespace rastro::capture {

namespace {

// Syscalls the tracer must see even when the user did not select them: they can replace an
// open fd number, which the fd->path cache must learn (see fd_path_cache.h).
constexpr int kNrClose = 3, kNrDup2 = 33, kNrDup3 = 292, kNrCloseRange = 436, kNrFcntl = 72;
constexpr int kNrPipe = 22, kNrPipe2 = 293, kNrSocketpair = 53, kNrExit = 60, kNrExitGroup = 231;
constexpr int kNrChdir = 80, kNrFchdir = 81, kNrChroot = 161;
constexpr int kBookkeeping[] = {kNrClose, kNrDup2, kNrDup3, kNrCloseRange, kNrChdir, kNrFchdir, kNrChroot};

constexpr long kSeizeOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                               PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESECCOMP |
                               PTRACE_O_TRACEEXIT;

pid_t read_tgid(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Tgid:", 0) == 0) return static_cast<pid_t>(std::stol(line.substr(5)));
  return tid;
}

bool is_stop_signal(int sig) { return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU; }

}  // namespace

PtraceTracer::PtraceTracer(const CaptureOptions& options, trace::TraceSink& sink, BackgroundLoadRecorder* load)
    : options_(options), sink_(sink), load_(load), fds_(sink.strings()) {}

PtraceTracer::Task& PtraceTracer::new_task(pid_t tid) {
  Task& t = tasks_[tid];
  t = Task{};
  t.tgid = read_tgid(tid);
  // A new process starts with an fd table we have never read (pids are reused).
  if (t.tgid == tid) fds_.forget_process(tid);
  ++counters_.tasks;
  return t;
}

std::string PtraceTracer::read_string(pid_t tid, uint64_t addr) {
  std::string out;
  if (addr == 0) return out;
  constexpr size_t kMax = 4096;  // PATH_MAX
  char buf[kMax];
  while (out.size() < kMax) {
    // Never cross a page boundary in one read: the next page may be unmapped.
    size_t to_page = 4096 - (addr & 4095);
    size_t want = std::min(to_page, kMax - out.size());
    iovec local{buf, want};
    iovec remote{reinterpret_cast<void*>(addr), want};
    ssize_t n = ::process_vm_readv(tid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
      ++counters_.string_faults;
      break;
    }
    size_t len = strnlen(buf, static_cast<size_t>(n));
    out.append(buf, len);
    if (len < static_cast<size_t>(n)) break;
    addr += static_cast<uint64_t>(n);
  }
  return out;
}

void PtraceTracer::read_lock_fields(pid_t tid, uint64_t addr, trace::Event& e) {
  // Read at entry: F_GETLK overwrites the struct with its answer, the request is what replays.
  struct flock fl{};
  iovec local{&fl, sizeof fl};
  iovec remote{reinterpret_cast<void*>(addr), sizeof fl};
  if (::process_vm_readv(tid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof fl)) {
    ++counters_.lock_faults;  // a bad pointer: the call fails with EFAULT; 3 arguments stay
    return;
  }
  trace::set_lock_fields(e, {fl.l_type, fl.l_whence, fl.l_start, fl.l_len});
}

void PtraceTracer::resume(pid_t tid, const Task& t, int sig) {
  long req = (t.in_syscall || !seccomp_mode_) ? PTRACE_SYSCALL : PTRACE_CONT;
  ::ptrace(static_cast<__ptrace_request>(req), tid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
}

void PtraceTracer::emit(Task& t) {
  sink_.append(t.ev);
  ++counters_.events;
  if (flush_.due(t.ev.end_ns)) sink_.flush();
}

void PtraceTracer::on_entry(pid_t tid, Task& t, int nr, const uint64_t* args, int64_t now) {
  t.in_syscall = true;
  t.nr = nr;
  std::memcpy(t.raw, args, sizeof t.raw);
  t.emit = options_.syscalls.contains(nr);
  if (!t.emit) return;
  trace::Event& e = t.ev;
  e = trace::Event{};
  e.pid = t.tgid;
  e.tid = tid;
  e.begin_ns = now;
  const trace::SyscallInfo* info = trace::syscall_by_nr(nr);
  if (info == nullptr) {  // only with -e trace=all: an unknown syscall, raw registers kept
    e.nr = nr;
    e.name = sink_.strings().intern(fmt::format("syscall_{}", nr));
    e.nargs = 6;
    for (int i = 0; i < 6; ++i) e.args[static_cast<size_t>(i)] = {trace::ArgType::kInt, static_cast<int64_t>(args[i]), trace::kNoStr};
  } else {
    e.nr = nr;
    e.nargs = info->nargs;
    for (int i = 0; i < info->nargs; ++i) {
      trace::ArgType type = info->args[static_cast<size_t>(i)];
      trace::Arg& a = e.args[static_cast<size_t>(i)];
      a.type = type;
      const uint64_t reg = args[info->register_of(static_cast<size_t>(i))];
      a.value = arg_value_from_register(type, reg);
      if (type == trace::ArgType::kPath || type == trace::ArgType::kStr) {
        a.str = sink_.strings().intern(read_string(tid, reg));
      } else if (type == trace::ArgType::kDirFd && a.value == -100) {
        a.str = fds_.cwd(t.tgid, tid);  // AT_FDCWD</cwd>, as strace -y prints it
      } else if (type == trace::ArgType::kFd || type == trace::ArgType::kDirFd) {
        a.str = fds_.lookup(t.tgid, tid, static_cast<int>(a.value));
      }
    }
    if (trace::is_lock_call(e)) read_lock_fields(tid, args[2], e);
  }
  if (nr == kNrExit || nr == kNrExitGroup) {
    // No exit stop will come: the event is complete at entry (strace prints "= ?").
    e.end_ns = now;
    e.rvalue = 0;
    emit(t);
    t.emit = false;
    t.in_syscall = false;
  }
}

void PtraceTracer::on_exit(pid_t tid, Task& t, int64_t rval, int64_t now) {
  if (!t.in_syscall) return;  // attached mid-call: no entry seen
  t.in_syscall = false;
  const int nr = t.nr;
  // fd bookkeeping first: it must happen whether or not the call is emitted.
  if (nr == kNrClose) {
    fds_.forget(t.tgid, static_cast<int>(t.raw[0]));
  } else if (nr == kNrCloseRange) {
    fds_.forget_range(t.tgid, static_cast<unsigned>(t.raw[0]), static_cast<unsigned>(t.raw[1]));
  } else if (nr == kNrDup2 || nr == kNrDup3) {
    fds_.forget(t.tgid, static_cast<int>(t.raw[1]));
  } else if (nr == kNrChdir || nr == kNrFchdir || nr == kNrChroot) {
    fds_.forget_cwd(t.tgid);
  }
  const trace::SyscallInfo* info = trace::syscall_by_nr(nr);
  if (rval >= 0 && info && (info->ret == trace::ReturnKind::kFd || nr == kNrFcntl))
    fds_.forget(t.tgid, static_cast<int>(rval));
  int64_t pair = 0;
  if (rval == 0 && (nr == kNrPipe || nr == kNrPipe2 || nr == kNrSocketpair)) {
    int fds[2] = {-1, -1};
    uint64_t addr = t.raw[nr == kNrSocketpair ? 3 : 0];
    iovec local{fds, sizeof fds};
    iovec remote{reinterpret_cast<void*>(addr), sizeof fds};
    if (::process_vm_readv(tid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(sizeof fds)) {
      fds_.forget(t.tgid, fds[0]);
      fds_.forget(t.tgid, fds[1]);
      pair = static_cast<int64_t>(static_cast<uint32_t>(fds[0])) | (static_cast<int64_t>(static_cast<uint32_t>(fds[1])) << 32);
    }
  }
  if (!t.emit) return;
  trace::Event& e = t.ev;
  e.end_ns = now;
  e.rvalue = rval;
  if (info)
    for (int i = 0; i < info->nargs; ++i)
      if (info->args[static_cast<size_t>(i)] == trace::ArgType::kFdPair) e.args[static_cast<size_t>(i)].value = pair;
  // The pid may have changed meanwhile: a non-leader thread's execve makes it the leader.
  e.pid = t.tgid;
  e.tid = tid;
  emit(t);
  t.emit = false;
}

void PtraceTracer::on_task_gone(pid_t tid, int64_t now) {
  auto it = tasks_.find(tid);
  if (it == tasks_.end()) return;
  Task& t = it->second;
  if (t.in_syscall && t.emit) {
    // Killed inside a call: keep what ran, marked unfinished (end/rvalue unknown).
    t.ev.end_ns = now;
    t.ev.rvalue = 0;
    t.ev.flags |= trace::kEventUnfinished;
    emit(t);
    ++counters_.unfinished;
  }
  if (t.tgid == tid) fds_.forget_process(tid);
  tasks_.erase(it);
}

int PtraceTracer::loop(pid_t main_pid) {
  int main_status = -1;
  for (;;) {
    int status;
    pid_t tid = ::waitpid(-1, &status, __WALL);
    int64_t now = monotonic_ns();
    if (tid < 0) {
      if (errno == EINTR) {
        // Command mode: the stop signal was forwarded to the workload; keep tracing until it
        // is gone. Attach mode: stop now (the kernel detaches tracees when we exit).
        if (options_.attach_pid > 0 && stop_requested()) break;
        continue;
      }
      break;  // ECHILD: every task (and adopted orphan) has been reaped
    }
    ++counters_.stops;
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      on_task_gone(tid, now);
      if (tid == main_pid) main_status = shell_status(status);
      continue;
    }
    if (!WIFSTOPPED(status)) continue;
    const int sig = WSTOPSIG(status);
    const int event = status >> 16;
    auto it = tasks_.find(tid);
    if (it == tasks_.end()) {
      // First stop of an auto-attached child (PTRACE_EVENT_STOP); it may precede the parent's
      // fork event, so the task is registered here.
      Task& t = new_task(tid);
      if (event == PTRACE_EVENT_STOP) {
        resume(tid, t, 0);
        continue;
      }
      it = tasks_.find(tid);
    }
    Task& t = it->second;
    if (sig == (SIGTRAP | 0x80) || (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP)) {
      __ptrace_syscall_info info{};
      if (::ptrace(PTRACE_GET_SYSCALL_INFO, tid, reinterpret_cast<void*>(sizeof info), &info) <= 0) {
        resume(tid, t, 0);  // the task vanished (SIGKILL) between the stop and this request
        continue;
      }
      if (info.op == PTRACE_SYSCALL_INFO_SECCOMP) {
        on_entry(tid, t, static_cast<int>(info.seccomp.nr), reinterpret_cast<const uint64_t*>(info.seccomp.args), now);
      } else if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
        on_entry(tid, t, static_cast<int>(info.entry.nr), reinterpret_cast<const uint64_t*>(info.entry.args), now);
      } else if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
        on_exit(tid, t, info.exit.rval, now);
      }
      resume(tid, t, 0);
      continue;
    }
    if (sig == SIGTRAP && event != 0) {
      if (event == PTRACE_EVENT_EXEC) {
        unsigned long former = 0;
        ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &former);
        auto old_tid = static_cast<pid_t>(former);
        if (old_tid != tid) {
          // A non-leader thread exec'd: it takes over the leader's tid (its in-flight execve too).
          auto old = tasks_.find(old_tid);
          if (old != tasks_.end()) {
            Task moved = old->second;
            tasks_.erase(old);
            tasks_[tid] = moved;
          }
        }
        Task& cur = tasks_[tid];
        fds_.forget_process(cur.tgid);  // close-on-exec fds are gone
        resume(tid, cur, 0);
        continue;
      }
      if (event == PTRACE_EVENT_EXIT) {
        if (load_) load_->note_task(t.tgid, tid);  // last chance to read its counters
      }
      // CLONE/FORK/VFORK: the child registers itself at its first stop.
      resume(tid, t, 0);
      continue;
    }
    if (event == PTRACE_EVENT_STOP) {
      if (is_stop_signal(sig)) {
        ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);  // group-stop: stay stopped, keep tracing
      } else {
        resume(tid, t, 0);
      }
      continue;
    }
    // Signal-delivery stop: deliver the signal.
    resume(tid, t, sig);
  }
  for (auto& [tid, t] : tasks_)
    if (t.in_syscall && t.emit) {
      t.ev.end_ns = monotonic_ns();
      t.ev.flags |= trace::kEventUnfinished;
      emit(t);
      ++counters_.unfinished;
    }
  counters_.fd_readlinks = fds_.readlinks();
  return main_status < 0 ? 0 : main_status;
}

int PtraceTracer::run_command() {
  std::vector<int> numbers = options_.syscalls.numbers();
  for (int b : kBookkeeping)
    if (!options_.syscalls.contains(b)) numbers.push_back(b);
  std::vector<sock_filter> filter = build_trace_filter(numbers, options_.syscalls.all);
  seccomp_mode_ = true;
  int cpu = -1;
  if (options_.pin) {
    // Tracer and tracee on one CPU: each stop is a same-CPU wake-up (PLATFORM.md: ~7x cheaper).
    cpu = ::sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0)
      throw Error(fmt::format("--pin: sched_setaffinity(cpu {}): {}", cpu, std::strerror(errno)));
  }
  LaunchSpec spec;
  spec.argv = options_.command;
  spec.pre_exec = [&filter, cpu]() -> int {
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      if (::sched_setaffinity(0, sizeof set, &set) != 0) return errno;
    }
    return install_filter(filter);
  };
  WorkloadLauncher launcher;
  become_subreaper();
  pid_t pid = launcher.spawn(spec);
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(kSeizeOptions | PTRACE_O_EXITKILL)) != 0)
    throw Error(fmt::format("capture -b ptrace: PTRACE_SEIZE of the workload failed: {} (is the "
                            "capture itself being traced, or ptrace forbidden by "
                            "kernel.yama.ptrace_scope?)",
                            std::strerror(errno)));
  Task& t = tasks_[pid];
  t.tgid = pid;
  ++counters_.tasks;
  set_stop_forward_pid(pid);
  launcher.release();
  int status = loop(pid);
  set_stop_forward_pid(0);
  std::string failure = launcher.launch_failure();
  if (!failure.empty()) throw Error(failure, 127);
  return status;
}

int PtraceTracer::run_attached() {
  seccomp_mode_ = false;  // a running process cannot be given a filter: stop at every syscall
  pid_t pid = options_.attach_pid;
  std::string dir = fmt::format("/proc/{}/task", pid);
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw Error(fmt::format("capture -p {}: no such process", pid));
  std::vector<pid_t> tids;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(static_cast<pid_t>(std::stol(e->d_name)));
  ::closedir(d);
  for (pid_t tid : tids) {
    if (::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(kSeizeOptions)) != 0)
      throw Error(fmt::format("capture -p {}: PTRACE_SEIZE of thread {} failed: {}", pid, tid, std::strerror(errno)));
    Task& t = tasks_[tid];
    t.tgid = pid;
    ++counters_.tasks;
    // Seized tasks run on; interrupt them once so the first resume switches to PTRACE_SYSCALL.
    ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
  }
  return loop(-1);
}

}  // namespace rastro::capture

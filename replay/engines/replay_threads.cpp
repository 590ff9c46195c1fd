#include "replay/engines/replay_threads.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>

#include "common/error.h"
#include "replay/runtime/process_state.h"

namespace rastro::replay::detail {

ReplayThreads::ReplayThreads(const Plan& plan, const ImplicitDeps& imp, std::function<void(size_t)> body,
                             OwnTable own_table, bool thread_fd_import)
    : body_(std::move(body)), own_table_(std::move(own_table)) {
  const bool import = kFdTablePerProcess && thread_fd_import && thread_fd_import_available();
  // The plan threads of each traced process, in plan order.
  std::vector<int32_t> pids;
  std::unordered_map<int32_t, std::vector<size_t>> of_pid;
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    auto [it, fresh] = of_pid.try_emplace(plan.threads[t].pid);
    if (fresh) pids.push_back(plan.threads[t].pid);
    it->second.push_back(t);
  }
  for (int32_t pid : pids) {
    const std::vector<size_t>& ts = of_pid[pid];
    // Its first thread: the one another process's clone created (the child's thread waits for
    // that clone, so waiting there cannot deadlock); a root's: its first in plan order.
    Process& proc = processes_.emplace_back();
    proc.first = ts[0];
    proc.traced_pid = pid;
    int64_t made_by = -1;
    for (size_t t : ts) {
      const int64_t s = imp.spawn_of_thread(t);
      if (s >= 0 && plan.threads[plan.requests[static_cast<size_t>(s)].thread].pid != pid) {
        proc.first = t;
        made_by = s;
        break;
      }
    }
    for (size_t t : ts)
      if (t != proc.first) proc.others.push_back(t);
    if (made_by < 0) continue;
    const uint32_t r = static_cast<uint32_t>(made_by);
    proc.forked = true;
    proc.own_table = !clone_shares_fd_table(plan.trace.events[plan.requests[r].event]);
    proc.early = proc.own_table && import;
    children_[r].push_back(&proc);
  }
}

ReplayThreads::~ReplayThreads() {
  join_all();
  if (processes_mode_) {
    for (int32_t pid : local_->children) ::kill(pid, SIGKILL);  // a join() that threw left them
    for (int32_t pid : local_->children) ::waitpid(pid, nullptr, 0);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  if (engine_pidfd_ >= 0) ::close(engine_pidfd_);
}

namespace {

// The replayer's own eBPF maps (--time-with ebpf: its 64 MiB ring, mapped twice over) are drained
// by the engine's process only; a fork would copy their page table entries: git's 13 forks took
// 17.0 ms in all with them, 3.7 ms without (bpftrace, sys_enter/exit of clone). So none is copied.
void keep_bpf_maps_out_of_forks() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("anon_inode:bpf") == std::string::npos) continue;
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) != 2) continue;
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTFORK);
  }
}

// In a replay process: ends it when the engine's process has ended. Killed (or crashed), that
// process no longer watches the replay processes, which would otherwise go on replaying, for as
// long as the trace's gaps last, a replay nobody will read. PR_SET_PDEATHSIG does not do: it fires
// when the *thread* that forked ends, and a replay thread ends while the process it forked goes on.
// A pidfd of a process becomes readable once its last thread has ended; this one was opened by the
// engine's process before any fork and inherited, so it cannot name another process that reused
// the pid. Whichever replay process sees it first removes the outcomes' directory (the others find
// it gone).
//
// The watching thread takes an fd table of its own, holding that pidfd only, before the replay
// begins. Sharing the replay's table, it made every fd call of a single-threaded traced process
// take the kernel's path for a shared table: an atomic reference on the file for each call
// (__fget_light's shortcut needs a table used by one task), and for lseek, read and write of a
// regular file the file's f_pos_lock as well (taken when the file has more than one reference) —
// paths the traced process, alone with its table, never took (+13 % per fcntl, +25 % per lseek
// on a hot loop here; more after think work, with the lines cold).
void end_with_engine(int engine_pidfd, std::string dir) {
  auto apart = std::make_shared<std::promise<void>>();
  std::future<void> apart_done = apart->get_future();
  std::thread([engine_pidfd, dir = std::move(dir), apart] {
    // A copy of the table, then every fd in the copy but the pidfd closed: the replay's files lose
    // the copy's references, and POSIX locks (owned by a table) are not touched. If the kernel
    // refuses, the thread watches from the shared table, as before.
    if (::unshare(CLONE_FILES) == 0) {
      const auto fd = static_cast<unsigned>(engine_pidfd);
      if (fd > 0) ::close_range(0, fd - 1, 0);
      ::close_range(fd + 1, ~0U, 0);
    }
    apart->set_value();
    pollfd p{engine_pidfd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    ::_exit(1);
  }).detach();
  apart_done.wait();
}

}  // namespace

void ReplayThreads::use_processes(ProcessOutcomes outcomes) {
  processes_mode_ = true;
  outcomes_ = std::move(outcomes);
  int slots = 0;
  for (Process& p : processes_) {
    p.early = false;  // a replay process's threads start in it, at its fork
    if (p.own_table) p.slot = slots++;
  }
  slots_ = SharedArray<Slot>(static_cast<size_t>(slots), true);
  engine_pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
  if (engine_pidfd_ < 0)
    throw Error(std::string("replay: cannot open a pidfd of the replayer's own process, for its replay processes to "
                            "watch (pidfd_open, Linux 5.3): ") +
                std::strerror(errno));
  std::string tmpl = (std::filesystem::temp_directory_path() / "rastro-replay-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    throw Error("replay: cannot make a temporary directory for the replay processes' outcomes (" + tmpl +
                "): " + std::strerror(errno));
  dir_ = tmpl;
}

void ReplayThreads::start() {
  if (processes_mode_) {
    keep_bpf_maps_out_of_forks();
    for (Process& p : processes_)
      if (!p.forked) fork_process(p);
    return;
  }
  std::lock_guard lock(local_->mu);
  for (Process& p : processes_)
    if (p.early) local_->threads.emplace_back([this, &p] { run(p); });
}

std::string ReplayThreads::outcome_path(int slot) const { return dir_ + "/" + std::to_string(slot); }

// What replay process `slot` left ("" if nothing): "+" and its encoded threads, or "-" and why it failed.
std::string ReplayThreads::outcome(int slot) const {
  std::ifstream in(outcome_path(slot), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void ReplayThreads::fork_process(Process& p) {
  const pid_t pid = ::fork();
  if (pid == 0) run_process(p);
  Slot& slot = slots_[static_cast<size_t>(p.slot)];
  std::lock_guard lock(local_->mu);
  if (pid < 0) {
    local_->error = "fork of traced process " + std::to_string(p.traced_pid) + "'s replay process: " + std::strerror(errno);
    slot.state.store(kFailed);
    return;
  }
  // Marked running here, before this process goes on (and may end): the engine's process then
  // never sees a process ended while its child is not yet started (watch_processes).
  slot.pid.store(pid);
  uint32_t not_started = kNotStarted;
  slot.state.compare_exchange_strong(not_started, kRunning);
  local_->children.push_back(pid);
}

void ReplayThreads::run_process(Process& p) {
  // The forking process's list names threads that are not in this one (fork copies the calling
  // thread only), and another of them may have held its lock: this process keeps its own.
  local_ = new Local;
  end_with_engine(engine_pidfd_, dir_);
  Slot& slot = slots_[static_cast<size_t>(p.slot)];
  slot.pid.store(static_cast<int32_t>(::getpid()));
  uint32_t not_started = kNotStarted;
  slot.state.compare_exchange_strong(not_started, kRunning);
  std::string error;
  std::string outcome;
  try {
    run(p);
    join_all();
    for (int32_t c : local_->children) ::waitpid(c, nullptr, 0);  // the engine's process judged them
    if (const int e = errno_.load(); e != 0) error = std::string("its fds: ") + std::strerror(e);
    if (!local_->error.empty()) error = local_->error;
    if (error.empty()) outcome = outcomes_.encode(local_->plan_threads);
  } catch (const std::exception& e) {
    error = e.what();
  }
  {  // (outcome())
    std::ofstream out(outcome_path(p.slot), std::ios::binary | std::ios::trunc);
    out << (error.empty() ? '+' : '-') << (error.empty() ? outcome : error);
    out.flush();
    slot.state.store(out && error.empty() ? kFinished : kFailed);
  }
  ::_exit(0);  // no destructor: the parent's objects are copies here, some of them threads
}

void ReplayThreads::start_children(uint32_t r) {
  auto it = children_.find(r);
  if (it == children_.end()) return;
  for (Process* p : it->second) {
    if (p->slot >= 0) {
      fork_process(*p);  // the child has its fds (and memory) from the fork itself
      continue;
    }
    if (p->early) {
      p->parent.store(static_cast<int32_t>(gettid()), std::memory_order_release);
      p->parent.notify_one();
    } else {
      std::lock_guard lock(local_->mu);
      local_->threads.emplace_back([this, p] { run(*p); });  // on this thread's table (pthread: CLONE_FILES)
    }
    p->ready.wait(false, std::memory_order_acquire);
  }
}

void ReplayThreads::run(Process& p) {
  if (p.slot >= 0) {  // a replay process of its own: fork gave it its table and its fork's fds
    if (const int err = own_table_(p.first, 0); err < 0) fail(-err);
  } else if (p.own_table && kFdTablePerProcess) {
    if (::unshare(CLONE_FILES) != 0) fail(errno);
    int32_t parent = 0;
    if (p.early && p.forked) {
      p.parent.wait(0, std::memory_order_acquire);  // until the fork is replayed
      parent = p.parent.load(std::memory_order_acquire);
    }
    if (const int err = own_table_(p.first, parent); err < 0) fail(-err);
  }
  p.ready.store(true, std::memory_order_release);
  p.ready.notify_one();
  {
    std::lock_guard lock(local_->mu);
    local_->plan_threads.push_back(p.first);
    for (size_t t : p.others) {
      local_->plan_threads.push_back(t);
      local_->threads.emplace_back(body_, t);
    }
  }
  body_(p.first);
}

void ReplayThreads::fail(int err) {
  int none = 0;
  errno_.compare_exchange_strong(none, err);
}

// A thread is only started by a running one, so once the last one in the list is joined, none is
// left to start another.
void ReplayThreads::join_all() {
  for (size_t i = 0;; ++i) {
    std::thread th;
    {
      std::lock_guard lock(local_->mu);
      if (i == local_->threads.size()) break;
      th = std::move(local_->threads[i]);
    }
    if (th.joinable()) th.join();
  }
}

// Each replay process is watched through a pidfd (it is no child of this process, but of the one
// that forked it). One that failed, or ended without leaving its outcome, ends the replay: the
// others may be waiting for its requests, so they are killed.
void ReplayThreads::watch_processes() {
  const size_t n = slots_.size();
  std::vector<int> pidfds(n, -1);
  std::vector<bool> ended(n, false);
  size_t left = n;
  std::string failed;  // why the replay ends
  auto traced_pid = [&](size_t i) {
    for (const Process& p : processes_)
      if (p.slot == static_cast<int>(i)) return std::to_string(p.traced_pid);
    return std::string("?");
  };
  auto end_slot = [&](size_t i) {
    ended[i] = true;
    --left;
    if (pidfds[i] >= 0) ::close(pidfds[i]);
    pidfds[i] = -1;
    const uint32_t state = slots_[i].state.load();
    if (state == kFinished || !failed.empty()) return;
    const std::string why = outcome(static_cast<int>(i));
    failed = "the replay process of traced process " + traced_pid(i) +
             (state == kFailed && why.size() > 1 ? " failed: " + why.substr(1)
                                                 : " ended before its last request (killed, or crashed)");
  };
  while (left > 0 && failed.empty()) {
    std::vector<pollfd> fds;
    std::vector<size_t> of;
    bool unstarted = false;
    for (size_t i = 0; i < n && failed.empty(); ++i) {
      if (ended[i]) continue;
      const uint32_t state = slots_[i].state.load();
      if (state == kNotStarted) {
        unstarted = true;
        continue;
      }
      if (state != kRunning) {
        end_slot(i);
        continue;
      }
      if (pidfds[i] < 0) pidfds[i] = static_cast<int>(::syscall(SYS_pidfd_open, slots_[i].pid.load(), 0));
      if (pidfds[i] < 0) {  // gone already (and reaped)
        end_slot(i);
        continue;
      }
      fds.push_back({pidfds[i], POLLIN, 0});
      of.push_back(i);
    }
    if (!failed.empty() || left == 0) break;
    // A slot is marked running by its forker before the forker goes on (fork_process): with no
    // replay process left running, an unstarted one's fork was never replayed.
    if (fds.empty() && unstarted) {
      failed = "a traced process's fork was never replayed (its parent's replay ended first)";
      break;
    }
    ::poll(fds.data(), fds.size(), 20);
    for (size_t k = 0; k < fds.size(); ++k)
      if (fds[k].revents) end_slot(of[k]);
  }
  for (int fd : pidfds)
    if (fd >= 0) ::close(fd);
  if (failed.empty()) return;
  for (size_t i = 0; i < n; ++i)
    if (const int32_t pid = slots_[i].pid.load(); pid > 0 && slots_[i].state.load() == kRunning) ::kill(pid, SIGKILL);
  throw Error("replay: " + failed + "; the other replay processes were stopped");
}

void ReplayThreads::join_processes() {
  watch_processes();
  for (int32_t pid : local_->children) ::waitpid(pid, nullptr, 0);
  local_->children.clear();
  if (!local_->error.empty()) throw Error("replay: " + local_->error);
  for (size_t i = 0; i < slots_.size(); ++i) {
    const std::string bytes = outcome(static_cast<int>(i));
    if (bytes.empty()) throw Error("replay: replay process " + std::to_string(i) + " left no outcome in " + dir_);
    if (bytes[0] != '+') throw Error("replay: a replay process failed: " + bytes.substr(1));
    outcomes_.adopt(std::string_view(bytes).substr(1));
  }
}

void ReplayThreads::join() {
  if (processes_mode_) {
    join_processes();
    return;
  }
  join_all();
  if (int e = errno_.load(); e != 0) {
    throw Error(std::string("replay: a traced process's replay threads did not get an fd table of their own, or ") +
                "their fork's fds (unshare(CLONE_FILES), pidfd_getfd): " + std::strerror(e));
  }
}

}  // namespace rastro::replay::detail

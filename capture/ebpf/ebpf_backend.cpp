#include "capture/ebpf/ebpf_backend.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "capture/common/backend_factories.h"
#include "capture/common/periodic_flush.h"
#include "capture/common/stop_signal.h"
#include "capture/common/workload_launcher.h"
#include "capture/ebpf/fs_event_decoder.h"
#include "capture/ebpf/fs_loader.h"
#include "capture/ebpf/fs_roles.h"
#include "common/clock.h"
#include "trace/stats.h"

namespace rastro::capture::ebpf {

namespace {

constexpr int kPollMs = 100;

// Effective capabilities from /proc/self/status (CapEff, hex).
uint64_t effective_caps() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}

bool has_cap(uint64_t caps, int cap) { return (caps >> cap) & 1u; }

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

std::vector<pid_t> list_tasks(pid_t pid) {
  std::vector<pid_t> tids;
  if (DIR* d = ::opendir(fmt::format("/proc/{}/task", pid).c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') tids.push_back(static_cast<pid_t>(std::stol(e->d_name)));
    ::closedir(d);
  }
  return tids;
}

// Threads of pid and, recursively, of its existing children (Linux's task/TID/children).
void collect_tree(pid_t pid, std::set<pid_t>& out) {
  for (pid_t tid : list_tasks(pid)) {
    if (!out.insert(tid).second) continue;
    std::ifstream in(fmt::format("/proc/{}/task/{}/children", pid, tid));
    pid_t child;
    while (in >> child) collect_tree(child, out);
  }
}

}  // namespace

std::vector<std::string> missing_privileges() {
  std::vector<std::string> missing;
  struct stat st;
  if (::stat("/sys/kernel/btf/vmlinux", &st) != 0)
    missing.push_back("kernel BTF (/sys/kernel/btf/vmlinux is missing: a kernel built with "
                      "CONFIG_DEBUG_INFO_BTF=y is needed for CO-RE and tp_btf programs)");
  uint64_t caps = effective_caps();
  bool admin = has_cap(caps, kCapSysAdmin);
  if (!admin && !has_cap(caps, kCapBpf))
    missing.push_back("CAP_BPF (or CAP_SYS_ADMIN) to create BPF maps and load programs: run rastro as root "
                      "(unprivileged BPF is disabled by kernel.unprivileged_bpf_disabled)");
  if (!admin && !has_cap(caps, kCapPerfmon))
    missing.push_back("CAP_PERFMON (or CAP_SYS_ADMIN) to attach BPF programs to the syscall tracepoints: "
                      "run rastro as root");
  return missing;
}

std::vector<std::string> EbpfBackend::missing_requirements() const {
  std::vector<std::string> missing = missing_privileges();
  if (!missing.empty()) return missing;
  // Everything looks present: prove it by loading the programs (verifier, CO-RE, task storage).
  FsLoaderConfig probe;
  probe.ring_bytes = 4096;
  probe.attach = false;
  auto loader = FsLoader::open(probe);
  if (!loader.ok()) missing.push_back(loader.error());
  return missing;
}

int EbpfBackend::run(const CaptureOptions& options, trace::TraceSink& sink) {
  FsLoaderConfig config;
  config.roles = build_roles(options.syscalls);
  config.ring_bytes = options.buffer_bytes;
  auto opened = FsLoader::open(config);
  if (!opened.ok()) {
    std::string msg = opened.error();
    for (const std::string& m : missing_requirements()) msg += "\nmissing: " + m;
    throw Error(msg);
  }
  std::unique_ptr<FsLoader> loader = std::move(opened.value());

  uint64_t captured = 0, malformed = 0;
  PeriodicFlush flush;
  DecodeState state;
  const DecodeCounters& counters = state.counters;
  std::string first_malformed;
  FsLoader::RecordFn on_record = [&](std::span<const std::byte> rec) {
    auto ev = decode_fs_event(rec, sink.strings(), state);
    if (!ev.ok()) {
      if (malformed++ == 0) first_malformed = ev.error();
      return;
    }
    sink.append(ev.value());
    ++captured;
    if (flush.due(ev.value().end_ns)) sink.flush();
  };
  auto drain = [&](int timeout_ms) {
    auto n = loader->poll(timeout_ms, on_record);
    if (!n.ok()) throw Error(n.error());
    return n.value();
  };

  std::atomic<bool> reaped{false};
  int status = 0;
  std::thread waiter;
  WorkloadLauncher launcher;
  if (options.attach_pid > 0) {
    std::set<pid_t> tids;
    collect_tree(options.attach_pid, tids);
    if (tids.empty()) throw Error(fmt::format("capture -p {}: no such process", options.attach_pid));
    for (pid_t tid : tids) {
      auto added = loader->add_task(tid, true);
      // A task that exited meanwhile is fine; anything else means we cannot trace it.
      if (!added.ok() && ::kill(tid, 0) == 0) throw Error(added.error());
    }
    if (hooks_.on_attached) hooks_.on_attached();
  } else {
    become_subreaper();
    LaunchSpec spec;
    spec.argv = options.command;
    pid_t pid = launcher.spawn(spec);
    auto added = loader->add_task(pid, false);  // pending: recorded from its exec on
    if (!added.ok()) throw Error(added.error());
    set_stop_forward_pid(pid);
    launcher.release();
    waiter = std::thread([&status, &reaped, pid] {
      status = wait_all_children(pid);
      reaped = true;
    });
  }

  if (hooks_.consumer_delay_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(hooks_.consumer_delay_ms));
  const bool attached = options.attach_pid > 0;
  int64_t settle_deadline = 0;
  for (;;) {
    drain(kPollMs);
    bool workload_gone = attached ? loader->live_tasks() <= 0 : reaped.load();
    if (attached && stop_requested()) break;  // detach: the process is not ours to stop
    if (!workload_gone) continue;
    // Every child is reaped; sched_process_exit has run for each traced task by then, so the
    // kernel count is 0 unless a traced task escaped our reaping. Give it a moment, not forever.
    if (loader->live_tasks() <= 0) break;
    if (settle_deadline == 0) settle_deadline = monotonic_ns() + 1'000'000'000;
    if (monotonic_ns() > settle_deadline) {
      std::fprintf(stderr, "rastro: ebpf: %lld traced task(s) outlived the workload; stopping\n",
                   static_cast<long long>(loader->live_tasks()));
      break;
    }
  }
  while (drain(0) > 0) {
  }
  if (waiter.joinable()) waiter.join();
  set_stop_forward_pid(0);

  FsDrops drops = loader->drops();
  auto& h = sink.header();
  h.backend = "ebpf";
  h.events_captured = captured;
  h.events_lost = drops.ringbuf_full + malformed + drops.uring_untracked + drops.fault_unresolved;
  trace::set_lost_reason(h.lost_reasons, trace::kStat_ringbuf_full, drops.ringbuf_full);
  trace::set_lost_reason(h.lost_reasons, trace::kStat_malformed_record, malformed);
  trace::set_lost_reason(h.lost_reasons, trace::kStat_untracked_tasks, drops.untracked_tasks);
  trace::set_lost_reason(h.lost_reasons, trace::kStat_uring_untracked, drops.uring_untracked);
  trace::set_lost_reason(h.lost_reasons, trace::kStat_fault_unresolved, drops.fault_unresolved);
  h.settings["ebpf"] = {{"hooks", "tp_btf/sys_enter, tp_btf/sys_exit, tp_btf/sched_process_{fork,exec,exit}, "
                                  "tp_btf/sched_switch, tp_btf/io_uring_{submit_req,complete}, "
                                  "tp_btf/page_fault_user, tp_btf/mm_filemap_{fault,map_pages}"},
                        {"ring_bytes", loader->ring_bytes()},
                        {"requested_ring_bytes", options.buffer_bytes},
                        {"wakeup_bytes", loader->wakeup_bytes()},
                        {"fd_paths", "kernel d_parent walk at entry"},
                        {"truncated_strings", counters.truncated_strings},
                        {"unreadable_strings", counters.unreadable_strings},
                        {"truncated_fd_paths", counters.truncated_fd_paths},
                        {"unknown_fd_paths", counters.unknown_fd_paths},
                        {"unfinished_calls", counters.unfinished},
                        {"fd_path_cache_misses", state.cache_misses},
                        {"page_faults", state.faults},
                        {"fault_around_ranges", state.fault_arounds},
                        {"faults_deferred", drops.faults_deferred},
                        {"uring_pathless", drops.uring_pathless},
                        {"untracked_tasks", drops.untracked_tasks}};
  sink.flush();

  if (h.events_lost > 0 || drops.untracked_tasks > 0) {
    std::string msg = fmt::format("rastro: ebpf: {} event(s) lost: {} ring buffer full (ring {} bytes; raise "
                                  "--buffer)",
                                  h.events_lost, drops.ringbuf_full, loader->ring_bytes());
    if (drops.uring_untracked > 0)
      msg += fmt::format(", {} io_uring request(s) beyond 65536 in flight", drops.uring_untracked);
    if (drops.fault_unresolved > 0)
      msg += fmt::format(", {} page fault(s) whose mapping could not be looked up", drops.fault_unresolved);
    if (malformed > 0) msg += fmt::format(", {} malformed record(s) (first: {})", malformed, first_malformed);
    if (drops.untracked_tasks > 0)
      msg += fmt::format("; {} child task(s) could not be followed (kernel allocation failed)",
                         drops.untracked_tasks);
    std::fprintf(stderr, "%s\n", msg.c_str());
  }
  if (!attached) {
    std::string failure = launcher.launch_failure();
    if (!failure.empty()) throw Error(failure, 127);
  }
  return status;
}

}  // namespace rastro::capture::ebpf

namespace rastro::capture {

std::unique_ptr<Backend> make_ebpf_backend() { return std::make_unique<ebpf::EbpfBackend>(); }

}  // namespace rastro::capture

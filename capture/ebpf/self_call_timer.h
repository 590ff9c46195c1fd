// `rastro replay --time-with ebpf`: the eBPF capture's own syscall probes (fs_events.bpf.c through
// FsLoader, decoded by fs_event_decoder.h) attached to the calling process, so that a replay is
// timed with the instrument that timed its capture: bpf_ktime_get_ns() at sys_enter and sys_exit,
// CLOCK_MONOTONIC like the replayer's own clock (common/clock.h).
//
// start() registers every thread of this process but the one draining the ring; threads they
// create later are traced from their clone on (the probes' fork hook). Every syscall is recorded,
// with no argument work: the replayer needs each call's times, the trace already has its paths.
// The ring is drained while the caller runs, so a long replay loses nothing unless the kernel
// outruns the drain (then stop() says how many records were lost).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"

namespace rastro::capture::ebpf {

class FsLoader;

// One syscall of a traced thread, as the kernel timed it.
struct KernelCall {
  int32_t tid = 0;
  int32_t nr = 0;
  int64_t begin_ns = 0;  // sys_enter
  int64_t end_ns = 0;    // sys_exit
};

struct SelfCallTimes {
  std::vector<KernelCall> calls;  // per tid in the order the kernel emitted them
  uint64_t lost = 0;              // records the ring could not take, or malformed ones
  uint64_t untracked_tasks = 0;   // threads created by a traced one that got no probe state
  uint64_t unfinished = 0;        // calls a thread was still in when it exited (not in `calls`)
  std::string error;              // the drain failed (polling the ring): the calls are partial
};

class SelfCallTimer {
 public:
  // Fails with libbpf's diagnostics and every missing requirement (capabilities, BTF) when the
  // probes cannot be loaded or attached.
  static Result<std::unique_ptr<SelfCallTimer>> start(uint64_t ring_bytes = 64u << 20);
  ~SelfCallTimer();
  SelfCallTimer(const SelfCallTimer&) = delete;
  SelfCallTimer& operator=(const SelfCallTimer&) = delete;

  // Stops draining, drains what is left and hands out the calls (once).
  SelfCallTimes stop();

 private:
  SelfCallTimer() = default;
  void drain_loop();
  std::unique_ptr<FsLoader> loader_;
  std::thread drainer_;
  std::atomic<pid_t> drainer_tid_{0};
  std::atomic<bool> stopping_{false};
  SelfCallTimes times_;
};

}  // namespace rastro::capture::ebpf

// Issuing one plan request: what every engine (and the compiled replayer's generated code) does
// once the request's dependencies are done and its planned time has come. The request's action
// (decided by inference) says whether it is executed, emulated or skipped.
#pragma once

#include "common/clock.h"
#include "replay/plan/plan.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/replay_output.h"

namespace rastro::replay {

// When a request whose dependencies are all done became ready: if none had to be waited for,
// when its thread's previous request ended (a time already read: the common fullspeed path
// costs no extra clock read); otherwise now. `prev_end_ns` < 0: the thread's first request.
// At fullspeed the issue error (begin - ready) is then the replayer's own gap between calls.
inline int64_t ready_ns(bool waited, int64_t prev_end_ns) {
  return waited || prev_end_ns < 0 ? monotonic_ns() : prev_end_ns;
}

// `issued_ns` (optional): where the request began before its timed region was narrowed to the
// call — what `--time-with ebpf` needs to find the sandbox's resolution of a name (kernel_timing.h).
inline void issue_request(const CallExecutor& exec, const trace::Event& e, RequestAction action,
                          const trace::StrId* resolved_paths, const int32_t* fd_keys, ProcessState* proc,
                          ThreadScratch& scratch, RequestRecord* rec, int64_t* issued_ns = nullptr) {
  CallOutcome out;
  // The executor counts emulation in its stats, not in the outcome: the counter's step says it.
  const uint64_t emulated_before = scratch.stats.emulated;
  scratch.call = SyscallSpan{};
  rec->begin_ns = monotonic_ns();
  switch (action) {
    case RequestAction::kReplay:
    case RequestAction::kLifecycle:  // emulated: updates fd tables on fork/exec
      out = exec.execute(e, proc, scratch, resolved_paths, fd_keys);
      break;
    case RequestAction::kSkipUnknown:
      out = exec.skip(e, SkipReason::kUnsupported, scratch);
      break;
    case RequestAction::kSkipUnfinished:
      out = exec.skip(e, SkipReason::kUnfinished, scratch);
      break;
  }
  rec->end_ns = monotonic_ns();
  if (issued_ns) *issued_ns = rec->begin_ns;
  // Timed region = the call: where the executor marked it, the sandbox's path resolution before
  // the syscall and the bookkeeping after it are left out (they show in the issue delay instead:
  // the fidelity report's replayer overhead).
  if (scratch.call.begin_ns > rec->begin_ns && scratch.call.begin_ns <= rec->end_ns) rec->begin_ns = scratch.call.begin_ns;
  if (scratch.call.end_ns >= rec->begin_ns && scratch.call.end_ns < rec->end_ns) rec->end_ns = scratch.call.end_ns;
  rec->rvalue = out.rvalue;
  rec->flags = out.flags;
  rec->skip = out.skip;
  rec->emulated = scratch.stats.emulated != emulated_before;
}

}  // namespace rastro::replay

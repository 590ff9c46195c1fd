// The replayer's timer bias (trace::TimerBias): measured once at the start of a replay, for every
// engine and the compiled replayer (replay_session.cpp), so that the fidelity report can give the
// latency ratios corrected for where the replay measures a call (docs/replay.md, "Timer bias").
//
// The capture times a call in the kernel, sys_enter -> sys_exit; the replay times it in user
// space (SyscallSpan, request_runner.h): two vDSO clock reads around the syscall, with its entry
// and exit. The span the replay gives a null syscall, timed the same way, is that difference.
#pragma once

#include <cstdint>

#include "trace/analysis/replay_fidelity.h"

namespace rastro::replay {

// `samples` getppid() calls, each timed between two monotonic_ns() reads as a replayed call is;
// the median and the p10/p90 spread of their spans. Takes ~1 ms for 2000.
trace::TimerBias measure_timer_bias(uint32_t samples = 2000);

}  // namespace rastro::replay

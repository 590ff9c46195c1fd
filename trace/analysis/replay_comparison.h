// `rastro compare ORIGINAL REPLAYED`: the fidelity report (replay_fidelity.h) of two trace files,
// an original and its replay, streamed and paired call by call (replay_pairing.h).
//
// The counts, latencies and spans come from the two traces. What only the replayer knew — why it
// skipped a call, which calls it emulated — comes from its summary: `summary_path` (a
// `--summary-json` file), else the one the replayer stored in the replayed trace's header
// (extra.replay_summary). Its per-syscall rows are used where their counts agree with the traces;
// a summary from before the fidelity report gives the skip reasons of the total only; without one,
// skipped calls are "reason_unknown". The replayer's timer bias, for the corrected latency ratios,
// comes from the replayed trace's header (settings.timer_bias), else from that summary.
#pragma once

#include <string>

#include "trace/analysis/replay_fidelity.h"

namespace rastro::trace {

// Throws rastro::Error naming the file (and event) when a trace cannot be read, REPLAYED is not a
// replayer's output or not the replay of ORIGINAL, or the summary is not this replay's.
FidelityReport compare_replay(const std::string& original, const std::string& replayed,
                              const std::string& summary_path = {});

}  // namespace rastro::trace

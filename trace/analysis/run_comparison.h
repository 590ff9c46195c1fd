// `rastro compare A B` when neither trace is a replay — two runs of one program (two captures) — or
// both are (two replayers' replays of one trace), set side by side. No call of one run is the replay of a call of the other — pids, tids, interleaving
// and even the number of calls differ from run to run — so nothing is paired (replay_pairing.h
// pairs a replay with its original; this does not): each run is summarised on its own, per syscall,
// per call class (call_class.h) and in total — calls, failed calls, and over the finished calls
// that took time their summed duration and its median — and the two summaries are compared: B's
// latency against A's as the ratio of the sums and the ratio of the medians, and B's span against
// A's (the span error, as the fidelity report has it).
//
// What it is for: the same figures a replay's fidelity report gives, for a second run of the
// program against the first — the spread of the reference itself (SPEC §6.0: a reference value is
// a distribution of runs of the reference method, not one run), against which a replay's figures
// are read. The fidelity report's latency median is the median of per-call ratios (each call has
// its replay); here it is the ratio of the two medians, the only one unpaired calls allow.
//
// Streamed block by block, like `rastro stats`: memory grows with the distinct syscalls.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::trace {

struct RunRow {
  std::string key;         // syscall name, class name, or "total"
  std::string call_class;  // syscall rows: the call's class
  // Index 0: run A, 1: run B.
  std::array<uint64_t, 2> calls{};
  std::array<uint64_t, 2> failed{};  // returned -errno
  std::array<uint64_t, 2> timed{};   // finished, duration > 0: what the latencies are over
  std::array<int64_t, 2> sum_ns{};
  std::array<double, 2> median_ns{};

  // B / A; 0 when either side has nothing timed.
  double latency_ratio_sum() const;
  double latency_ratio_median() const;
  nlohmann::json to_json() const;
};

struct RunComparison {
  std::array<std::string, 2> paths;
  std::array<std::string, 2> backends;  // the instruments that recorded them (trace headers)
  std::array<int64_t, 2> span_ns{};     // first begin to last end; an unfinished call ends at its begin
  RunRow total;
  std::vector<RunRow> by_class;  // classes with calls in either run, in call_class_names() order
  std::vector<RunRow> by_call;   // by class, then calls (A + B) descending, then name
  std::vector<std::string> warnings;
  bool inputs_intact = true;  // false: a trace was damaged and only its intact prefix counted

  double span_error_pct() const;  // (B - A) / A; 0 when A's span is 0
  nlohmann::json to_json() const;
  std::string to_text(bool by_call = false) const;
};

// Throws rastro::Error naming the file when a trace cannot be read.
RunComparison compare_runs(const std::string& a, const std::string& b);

// Whether a trace is a replayer's output: its first event carries kEventReplayed (a replayer flags
// every event it writes). An empty trace is not. Throws rastro::Error when it cannot be read.
bool is_replay_output(const std::string& path);

}  // namespace rastro::trace

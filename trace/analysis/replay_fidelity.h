// The replay fidelity report (issue #15): how faithfully a replay reproduced its original trace,
// per syscall, per call class (call_class.h) and in total — calls in the original; replayed
// (executed, or emulated by the replayer); skipped and why; mismatched (replayed with a return value
// other than the traced one); the replay/original latency ratio; and the span error (replay span vs
// original span, the figure think and timestamp timing aim to keep).
//
// Counting rules:
// - every original call is replayed or skipped; mismatched and emulated are parts of replayed;
//   "faithful" = replayed with the traced result = replayed - mismatched;
// - latency: over the calls replayed with the traced result that were executed against the kernel
//   (emulated calls left out) and took time in the trace (finished, duration > 0): the ratio of the
//   summed durations, and the median of the per-call ratios replay/original; and the same two
//   "corrected" for the replayer's timer bias (TimerBias below) when it is known: each replayed
//   duration minus the bias, floored at 0 (with no bias known, corrected = raw);
// - replayer overhead: over the same calls, when the replayed trace says when each call was
//   planned: the mean of begin - planned, the replayer's own time between a call becoming due
//   (dependencies done, its planned time come) and its issue — what it adds before each call, so
//   that the latency ratio (the call alone) can be read against it;
// - span: first begin to last end over every call (an unfinished original call ends at its begin);
//   span error = (replay span - original span) / original span, in %.
//
// Fed one (original call, its replay) pair at a time, in any order: by the replayers themselves at
// the end of a run (replay/runtime/replay_output.cpp, which know each skip's reason and which calls
// they emulated) and by `rastro compare` over two trace files (replay_comparison.h, which learns
// those from the replayer's summary). Memory grows with the distinct syscalls, not the calls.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/analysis/calls_span.h"
#include "trace/analysis/quantile_sketch.h"
#include "trace/model/event.h"

namespace rastro::trace {

// The replayer's timer bias: the span it times around a null syscall (getppid) with the clock
// reads it times every call with (SyscallSpan), over `samples` tries — what its user-space timing
// adds to a call that the capture timed in the kernel (sys_enter -> sys_exit). The median is the
// correction; p10/p90 its spread, reported with it.
struct TimerBias {
  int64_t median_ns = 0;
  int64_t p10_ns = 0;
  int64_t p90_ns = 0;
  uint64_t samples = 0;  // 0: not measured (no correction)

  nlohmann::json to_json() const;
  // From to_json()'s object; std::nullopt when `j` is not one (throws nlohmann::json::exception on a
  // damaged one).
  static std::optional<TimerBias> from_json(const nlohmann::json& j);
};

// The skip reason of a skipped call whose replayer did not say why.
inline constexpr std::string_view kReasonUnknown = "reason_unknown";

struct FidelityRow {
  std::string key;         // syscall name, class name, or "total"
  std::string call_class;  // syscall rows: the call's class (call_class.h)
  uint64_t calls = 0;      // in the original
  uint64_t replayed = 0;   // executed or emulated
  uint64_t emulated = 0;   // of replayed: emulated by the replayer (when it said so)
  uint64_t skipped = 0;
  std::map<std::string, uint64_t, std::less<>> skipped_by_reason;
  uint64_t mismatched = 0;  // of replayed
  // Latency (rules above).
  uint64_t timed = 0;
  int64_t original_ns = 0;  // summed traced durations of the timed calls
  int64_t replay_ns = 0;    // summed replayed durations of the same calls
  int64_t replay_corrected_ns = 0;  // the same, each minus the timer bias floored at 0
  double latency_ratio_median = 0;
  double latency_ratio_median_corrected = 0;
  // Replayer overhead (rules above): over `overhead_calls` of the timed calls.
  uint64_t overhead_calls = 0;
  int64_t overhead_ns = 0;  // summed begin - planned

  uint64_t faithful() const { return replayed - mismatched; }
  double faithful_pct() const;       // of calls; 100 when there are none
  double latency_ratio_sum() const;  // replay_ns / original_ns; 0 when nothing was timed
  double latency_ratio_sum_corrected() const;  // replay_corrected_ns / original_ns
  double overhead_mean_ns() const;   // 0 when not known
  nlohmann::json to_json() const;
};

struct FidelityReport {
  std::string timing;  // the replay's timing policy ("think", "timestamp:2", ...), "" when unknown
  // Where the skip reasons and emulated counts come from: "replayer" (it counted them itself),
  // "summary" (the replayer's summary, per syscall), "summary totals" (per reason, for the total
  // only), "none" (unknown: every skip is kReasonUnknown).
  std::string notes = "replayer";
  int64_t original_span_ns = 0;
  int64_t replay_span_ns = 0;
  TimerBias timer_bias;  // what the corrected latency ratios subtract (samples 0: nothing)
  // The instrument that timed the replayed calls: "ebpf" (`replay --time-with ebpf`: in the kernel,
  // like an eBPF capture, so no timer bias), "user-space" (around the syscall), "" not known.
  std::string timed_with;
  FidelityRow total;
  std::vector<FidelityRow> by_class;  // classes with calls, in call_class_names() order
  std::vector<FidelityRow> by_call;   // by class (same order), then calls descending, then name
  std::vector<std::string> warnings;
  bool inputs_intact = true;  // false: a trace was damaged and only its intact prefix counted

  double span_error_pct() const;  // 0 when the original span is 0
  nlohmann::json to_json() const;
  // A compact table per class (and per syscall with `by_call`), the skip reasons under each row.
  std::string to_text(bool by_call = false) const;
};

// Whether the replayer emulated a call (structure only, or a special file/pipe it served itself)
// instead of executing it: emulated calls are replayed but their latency is not the kernel's.
enum class Emulation : uint8_t { kExecuted, kEmulated, kUnknown };

// The replay of one call, as the replayed trace and the replayer know it.
struct ReplayedCall {
  int64_t begin_ns = 0;  // replayer-side
  int64_t end_ns = 0;
  uint32_t flags = 0;            // kEventSkipped / kEventMismatch
  std::string_view skip_reason;  // of a skipped call; empty: not known
  Emulation emulation = Emulation::kUnknown;
  int64_t planned_ns = 0;  // when the call became due (Event::planned_ns); 0: not known
};

// What a replayer's own report says of one syscall's calls: used for a replayed trace that does not
// carry skip reasons and emulation per call.
struct ReplayerCallNote {
  uint64_t calls = 0, replayed = 0, skipped = 0, emulated = 0;
  std::map<std::string, uint64_t, std::less<>> skipped_by_reason;
};

class FidelityAccumulator {
 public:
  // `bias`: the replayer's timer bias, subtracted from each replayed duration for the corrected
  // latency ratios (a negative one, from a damaged input, counts as none).
  explicit FidelityAccumulator(const TimerBias& bias = {}) : bias_(bias) {
    if (bias_.median_ns < 0) bias_ = TimerBias{};
  }

  // `original` is the traced call, `name` its syscall name (function_name()).
  void add(const Event& original, std::string_view name, const ReplayedCall& replayed);

  // Takes skip reasons and emulated counts from `notes` (by syscall name) for the calls whose counts
  // (calls, replayed, skipped) agree with the ones added here; a syscall whose calls were all
  // emulated leaves the latency figures. Returns the names whose note disagreed or was missing
  // while some of their calls were skipped.
  std::vector<std::string> apply_notes(const std::map<std::string, ReplayerCallNote, std::less<>>& notes);

  FidelityReport finish() const;

 private:
  struct CallTally {
    FidelityRow row;
    QuantileSketch ratio_ppm;            // per-call replay/original duration ratio, in millionths
    QuantileSketch corrected_ratio_ppm;  // the same with the replayed duration minus the bias
  };
  TimerBias bias_;
  std::map<std::string, CallTally, std::less<>> calls_;
  CallsSpan original_span_, replay_span_;
};

// Thresholds a caller can ask the report to meet (`rastro compare --max-span-error/--min-replayed`).
struct FidelityThresholds {
  std::optional<double> max_span_error_pct;  // |span error| above it fails
  std::optional<double> min_replayed_pct;    // total faithful % below it fails
};

// One sentence per threshold the report misses; empty when it meets them all.
std::vector<std::string> threshold_failures(const FidelityReport& report, const FidelityThresholds& thresholds);

}  // namespace rastro::trace

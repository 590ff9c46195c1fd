// What `--time-with ebpf` did (kernel_timing.h): how many executed calls got their kernel times,
// why the others kept their user-space ones, and what the probes lost. Carried in the replay's
// summary (replay_output.h); computed and printed by kernel_timing.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::replay {

// One executed request that kept its user-space times, and why: the first few are kept so a user
// (and a failing test) can look at the call in the replayed trace instead of guessing.
struct UnmatchedCall {
  uint32_t request = 0;
  uint32_t thread = 0;  // plan thread
  int32_t nr = 0;       // the traced call's number
  std::string reason;   // "no kernel call", "several calls in its span", "call taken twice", ...
};

struct KernelTimingReport {
  static constexpr size_t kMaxExamples = 16;

  uint64_t executed = 0;          // requests executed against the kernel as a syscall of their own
  uint64_t matched = 0;           // of executed: given their kernel begin/end
  uint64_t matched_other_nr = 0;  // of matched: through another syscall than the traced one
  uint64_t with_walk = 0;         // of matched: a call on a name, its sandbox's path walk (openat2) included
  uint64_t walk_only = 0;         // of with_walk: the walk failed, no call after it (e.g. ENOENT parent)
  int64_t open_fixed_ns = 0;      // an openat2 of the root itself (kernel_timing.h): taken off each walk
  uint64_t no_kernel_call = 0;    // of executed: no kernel call inside the span (the replayer answered it
                                  // before any syscall, e.g. ENOENT for a missing parent; or a lost record)
  uint64_t ambiguous = 0;         // of executed: several candidate calls and no way to choose
  uint64_t not_executed = 0;      // skipped, emulated, page faults, io_uring ring requests: user-space times
  uint64_t kernel_calls = 0;      // recorded by the probes (the replayer's own calls included)
  uint64_t lost = 0;              // probe records lost (ring full, malformed)
  uint64_t untracked_threads = 0;
  uint64_t unfinished = 0;
  std::string drain_error;
  std::vector<UnmatchedCall> examples;  // the first kMaxExamples unmatched executed calls

  void note_unmatched(uint32_t request, uint32_t thread, int32_t nr, std::string reason);

  uint64_t unmatched() const { return executed - matched; }
  nlohmann::json to_json() const;
  std::string to_text() const;  // one paragraph for the replay's summary
};

}  // namespace rastro::replay

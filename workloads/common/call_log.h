// Per-thread storage of CallRecords: preallocated chunks, so recording a call never allocates
// or locks while a request is in flight. A full chunk is followed by a new one allocated
// *between* requests (after the end timestamp was taken), which the macro workload needs because
// its request count depends on --duration.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "workloads/common/call_record.h"

namespace rastro::workloads {

class CallLog {
 public:
  // `expected` records are allocated up front (at least one chunk).
  explicit CallLog(size_t expected = kChunk);
  CallLog(CallLog&&) noexcept = default;
  CallLog& operator=(CallLog&&) noexcept = default;

  CallRecord& next() {
    if (used_ == capacity_) grow();
    ++used_;
    return at(used_ - 1);
  }
  size_t size() const { return used_; }
  CallRecord& at(size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const CallRecord& at(size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  // Drops the last record (a call that was abandoned before it was made).
  void pop() { --used_; }

  static constexpr size_t kChunk = 1u << 16;

 private:
  void grow();
  std::vector<std::unique_ptr<CallRecord[]>> chunks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

// Times one call: takes CLOCK_MONOTONIC immediately before and after `call()` (the reference
// method: nothing else sits between the two readings and the syscall wrapper).
template <typename F>
inline CallRecord& timed_call(CallLog& log, CallKind kind, F&& call) {
  CallRecord& r = log.next();
  r.kind = kind;
  r.begin_ns = monotonic_ns();
  const int64_t rv = static_cast<int64_t>(call());
  const int err = errno;
  r.end_ns = monotonic_ns();
  r.rvalue = rv < 0 ? -static_cast<int64_t>(err) : rv;
  return r;
}

}  // namespace rastro::workloads

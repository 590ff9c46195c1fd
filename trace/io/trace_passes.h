// A trace consumed in passes over its blocks, so a whole-trace consumer runs in memory bounded by
// one block: a consumer needing a fact about the whole trace before its first output (the final
// header, the event count, the earliest begin, which strings the events use) reads the trace once
// to learn it and again to write, instead of holding every event.
//
// A file is re-read for every pass (the first pass also learns header(), strings(), size() and
// report(), which are asked for lazily); an in-memory trace is walked in place. Every pass of a
// file stops at the events the first pass found, so a file still being written reads the same
// prefix every time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/progress.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace rastro::trace {

class TracePasses {
 public:
  // One block of events, in trace order; `strings` resolves their StrIds.
  using BlockFn = std::function<void(std::span<const Event> block, const StringTable& strings)>;

  virtual ~TracePasses() = default;
  // Facts about the whole trace (for a file: read by a first pass when not known yet).
  virtual const TraceHeader& header() = 0;   // the final header (a binary trailer's)
  virtual const StringTable& strings() = 0;  // every string of the trace
  virtual uint64_t size() = 0;               // events
  virtual const ReadReport& report() = 0;    // intact, or the problem that ended the prefix
  // Calls `fn` for every block, in order.
  virtual void pass(const BlockFn& fn) = 0;
};

// Passes over an in-memory trace (which must outlive them).
std::unique_ptr<TracePasses> passes_over(const Trace& trace);

// Passes over the trace file `path` (any format, see open_trace_reader; errors as read_trace's).
// `progress` (may be null) is updated with the events read in the current pass.
std::unique_ptr<TracePasses> passes_over_file(const std::string& path, Progress* progress = nullptr);

}  // namespace rastro::trace

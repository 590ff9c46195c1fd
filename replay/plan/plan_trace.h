// The trace a plan carries: header, string table and the events packed (compact_events.h), so
// that inference and replay of a long trace hold ~25 bytes per event instead of a 224-byte
// trace::Event. Reads like a trace::Trace (`plan.trace.events[i]` decodes one event).
#pragma once

#include <string>
#include <string_view>

#include "replay/plan/compact_events.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace rastro {
class Progress;
}

namespace rastro::replay {

struct PlanTrace {
  trace::TraceHeader header;
  trace::StringTable strings;
  CompactEvents events;

  PlanTrace() = default;
  // Packs an in-memory trace (implicit: what tests and small traces build; long traces are read
  // straight into a PlanTrace by read_plan_trace). The moving form frees the events as it goes.
  PlanTrace(const trace::Trace& t);       // NOLINT(google-explicit-constructor)
  PlanTrace(trace::Trace&& t);            // NOLINT(google-explicit-constructor)

  std::string_view str(trace::StrId id) const { return strings.get(id); }
};

// Reads a trace file block by block into a PlanTrace (never the whole trace as trace::Events);
// damage is reported as trace::read_trace does. `progress`: counts the events read.
PlanTrace read_plan_trace(const std::string& path, trace::ReadReport* report = nullptr, Progress* progress = nullptr);

}  // namespace rastro::replay

// Where producers (capture backends, importers, workloads, replayers) put events.
//
// Producers intern their strings into sink.strings() and append events whose StrIds refer to
// that table. The header may be updated until finish() (counters, background load, summary).
#pragma once

#include "trace/model/event.h"
#include "trace/model/header.h"
#include "trace/model/string_table.h"
#include "trace/model/trace.h"

namespace rastro::trace {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual StringTable& strings() = 0;
  virtual TraceHeader& header() = 0;
  // Appends one event; its seq is assigned by the sink (0, 1, 2, ... in append order).
  virtual void append(Event e) = 0;
  // Makes everything appended so far durable (readable if the process dies after this returns).
  virtual void flush() = 0;
  // Writes the final header (complete = true unless the producer said otherwise) and closes.
  virtual void finish() = 0;
};

// Collects into an in-memory Trace (tests, small tools).
class MemorySink final : public TraceSink {
 public:
  StringTable& strings() override { return trace_.strings; }
  TraceHeader& header() override { return trace_.header; }
  void append(Event e) override {
    e.seq = trace_.events.size();
    trace_.events.push_back(e);
  }
  void flush() override {}
  void finish() override { trace_.header.complete = true; }
  Trace& trace() { return trace_; }
  Trace take() { return std::move(trace_); }

 private:
  Trace trace_;
};

}  // namespace rastro::trace

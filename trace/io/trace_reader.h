// Streaming reading of a trace in any supported format: the header, then the events in order,
// block by block, in memory bounded by one block plus the string table (the distinct paths and
// names, not the events).
//
// Binary traces are read in their own blocks (a strings block always precedes the events block
// using its strings, docs/format.md, so every event returned can be resolved at once); text traces
// line by line, in blocks of kTextBlockEvents rows. Damage is reported exactly as read_trace does:
// a binary trace cut short ends at its intact prefix with report().intact false, and malformed text
// throws rastro::Error naming the file and line.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace rastro::trace {

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // The header read so far: a binary trace's header block until the trailer is reached, then the
  // final header from the trailer (complete == true only then).
  virtual const TraceHeader& header() const = 0;
  // Every string read so far: enough to resolve the StrIds of every event returned so far.
  virtual const StringTable& strings() const = 0;
  virtual StringTable take_strings() = 0;
  // Appends the next block of events to `out` (without clearing it); false at the end of the trace
  // or at the first bad block (see report()).
  virtual bool next_block(std::vector<Event>* out) = 0;
  // The next events as a view into a buffer of the reader's own, valid until the next call (a
  // block or, for binary traces, a cache-sized part of one); false where next_block() would be.
  // What streaming consumers use: no copy, and nothing grows.
  virtual bool next_events(std::span<const Event>* out);
  // Final once next_block() returned false.
  virtual const ReadReport& report() const = 0;
  // Events returned so far.
  virtual uint64_t events_read() const = 0;
  // A guess of the events still to come, for progress and reserving (0 when unknown).
  virtual uint64_t remaining_hint() = 0;

 private:
  std::vector<Event> view_buffer_;  // next_events() of readers without their own
};

// Opens a trace, picking the format by content as read_trace does. Throws rastro::Error naming the
// file when it cannot be opened, is empty or is not a trace.
std::unique_ptr<TraceReader> open_trace_reader(const std::string& path);

// Reads everything `reader` has left into one in-memory trace (what read_trace returns).
Trace read_remaining(TraceReader& reader, ReadReport* report = nullptr);

}  // namespace rastro::trace

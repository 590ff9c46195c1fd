// Reading and writing whole traces in any supported format.
//
// Formats: native binary (.rastro, docs/format.md), TSV (.tsv) and CSV (.csv) with the thesis
// columns `pid tid begin end function args rvalue` (lossless round trip). Reading sniffs the
// format from the content, not the extension.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "trace/io/trace_sink.h"
#include "trace/model/trace.h"

namespace rastro::trace {

enum class TraceFormat { kBinary, kTsv, kCsv };

// Picks the format from a file name: .tsv, .csv, else binary.
TraceFormat format_for_path(const std::string& path);

// What a reader found besides the events. A truncated/corrupt binary trace yields its intact
// prefix with `intact == false` and `problem` naming the block, byte offset and what is wrong.
struct ReadReport {
  bool intact = true;
  std::string problem;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
};

// Reads a whole trace. Throws rastro::Error (naming the file and the line/block/record and what
// is wrong) when the file is unusable: missing, bad magic, unsupported version, malformed text.
// A binary trace cut short is *not* an error: the intact prefix is returned and the report says so.
Trace read_trace(const std::string& path, ReadReport* report = nullptr);

// Writes a whole trace; the file appears atomically (temp file + rename) so a failed write never
// leaves a partial file pretending to be complete.
void write_trace(const std::string& path, const Trace& trace);
void write_trace(const std::string& path, const Trace& trace, TraceFormat format);

class TracePasses;
// The same from passes over a trace (trace_passes.h): memory bounded by a block.
void write_trace(const std::string& path, TracePasses& trace, TraceFormat format);
// Writes a TSV (sep '\t') or CSV (',') trace file atomically from passes over a trace (memory
// bounded by a block; trace_passes.h).
void write_text_trace_file(const std::string& path, TracePasses& trace, char sep);

// A streaming sink writing `path` in the format chosen by its name (binary for captures:
// blocks are flushed as they fill and on flush(), so a killed writer leaves a readable prefix).
std::unique_ptr<TraceSink> open_trace_sink(const std::string& path, TraceHeader header);
// The same in a given format (e.g. a temporary file renamed into place when finished).
std::unique_ptr<TraceSink> open_trace_sink(const std::string& path, TraceHeader header,
                                           TraceFormat format);

}  // namespace rastro::trace

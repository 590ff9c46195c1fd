// TSV/CSV text traces (docs/text-format.md): the thesis columns
//   pid tid begin end function args rvalue
// followed by the remaining Event fields (flags planned_ns expected_rvalue raw_end_ns seq, and
// offcpu_ns vol_switches invol_switches when the trace measured them, uring_user_data
// uring_enter_ns when it has io_uring requests), so binary -> TSV -> binary is lossless. The first line is a comment carrying the header JSON:
//   # rastro-trace text 1 {"backend":"ebpf",...}
//   # strings "" "/etc/passwd" ...          (only when needed to reproduce string ids exactly)
//   pid  tid  begin  end  function  args  rvalue  flags  planned_ns  expected_rvalue  raw_end_ns  seq
//   812  812  1000   1900 openat    AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC, 0   3  0 0 0 0 0
// args and rvalue use the strace-like codec of trace/syscalls/arg_format.h. The CSV variant
// quotes fields as RFC 4180 does.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "trace/io/trace_passes.h"
#include "trace/io/trace_reader.h"
#include "trace/model/trace.h"

namespace rastro::trace {

// sep is '\t' (TSV) or ',' (CSV).
void write_text_trace(std::ostream& out, const Trace& trace, char sep);
// The same in two passes over `trace` (one to decide on the '# strings' line, one to write the
// rows): memory bounded by a block.
void write_text_trace(std::ostream& out, TracePasses& trace, char sep);

// Reads a TSV or CSV trace (the separator is taken from the column line). Throws rastro::Error
// naming `name_for_errors:line` and what is wrong.
Trace read_text_trace(std::istream& in, const std::string& name_for_errors);

// Rows per block of a streaming text reader (as many as a binary events block holds).
inline constexpr size_t kTextBlockEvents = 65536;

// A streaming reader of a TSV or CSV trace (see TraceReader); reads the lines up to the column
// line at once. Throws rastro::Error naming `name_for_errors:line` as read_text_trace does.
std::unique_ptr<TraceReader> open_text_reader(std::unique_ptr<std::istream> in,
                                              const std::string& name_for_errors);

// Sniffing: true when the first bytes look like a text trace written by write_text_trace (or a
// hand-made one starting with the column line).
bool looks_like_text_trace(std::string_view first_bytes);

}  // namespace rastro::trace

// TSV / CSV text traces with the thesis columns `pid tid begin end function args rvalue`
// (lossless round trip with the binary format). Implemented by the text-format engineer.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace rastro::trace {

// Writes `trace` as text; `sep` is '\t' (TSV) or ',' (CSV).
void write_text_trace(std::ostream& out, const Trace& trace, char sep);

// Reads a TSV or CSV trace (separator detected from the content). `name` (the file name) is used
// in error messages, which name the line and what is wrong; throws rastro::Error.
Trace read_text_trace(std::istream& in, const std::string& name);

// True when `prefix` (the first bytes of a file) looks like a TSV/CSV trace.
bool looks_like_text_trace(std::string_view prefix);

}  // namespace rastro::trace

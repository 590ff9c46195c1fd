// Converts the output of the generated SystemTap script (stap_script.h) into uniform events.
//
// Lines (numbers are decimal; registers are printed as signed 64-bit; times are
// gettimeofday_ns(), i.e. CLOCK_REALTIME, converted with the capture's clock anchor):
//   RASTRO-STAP 1                                   header, printed by `probe begin`
//   S 1234 1235 257 1700000000123456789 1700000000123460000 3 -100 140735 524288 0 0 0 | "/etc/passwd"
//     completed call: pid tid nr begin end ret a0..a5, then after " | " the string arguments of
//     the call (path/str roles, in argument order) as stap's C-escaped quoted strings
//   X 1234 1234 231 1700000000123456789 0           exit/exit_group at entry: pid tid nr begin a0
// Anything else (stap warnings, the workload's own output mixed in) is counted and skipped; a
// line starting with S or X that does not parse is a malformed record (line number kept).
//
// fd -> path: SystemTap's raw tracepoint gives no fd paths, so they are rebuilt from the traced
// calls themselves (open* results, dup*, close, fork inheritance); fds opened before the capture
// keep no path.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "trace/io/trace_sink.h"

namespace rastro::capture {

struct StapParseStats {
  uint64_t events = 0;
  uint64_t ignored_lines = 0;
  uint64_t malformed = 0;
  std::string first_malformed;  // "line N: what"
};

// Unescapes one stap quoted string ("..." with \n, \t, \", \\, \ooo escapes). Returns false when
// `quoted` is not such a string.
bool unquote_stap_string(std::string_view quoted, std::string* out);

// Parses the whole output into `sink`; `realtime_to_monotonic_ns` is added to every timestamp.
StapParseStats parse_stap_output(std::istream& in, trace::TraceSink& sink, int64_t realtime_to_monotonic_ns);

}  // namespace rastro::capture

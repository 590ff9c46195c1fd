// Small helpers shared by the exporters.
#pragma once

#include <string>
#include <string_view>

#include "trace/model/event.h"

namespace rastro::trace::exporters {

// A short lowercase name for an argument type ("fd", "path", "offset", ...), used as JSON keys
// and SQLite values.
std::string_view arg_type_name(ArgType t);

// The symbolic errno name ("ENOENT") of a failed event's error number, or "" when unknown.
std::string_view errno_name(int err);

// end - begin without signed overflow (damaged or synthetic traces may hold extreme values).
inline int64_t duration_ns(const Event& e) {
  return static_cast<int64_t>(static_cast<uint64_t>(e.end_ns) - static_cast<uint64_t>(e.begin_ns));
}

bool is_valid_utf8(std::string_view s);

// Appends `s` as a JSON string literal (quotes included). Bytes that are not valid UTF-8 are
// written as \u00XX (their Latin-1 reading) so the output is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

}  // namespace rastro::trace::exporters

// Writes TSV/CSV text traces; see text_format.h for the layout.
#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "trace/formats/text/text_columns.h"
#include "trace/formats/text/text_format.h"
#include "trace/syscalls/arg_format.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

namespace {

// "openat" for table syscalls, the stored name for unknown ones; "name#nr" whenever the reader
// could not rebuild (nr, name) from the plain name.
void append_function(std::string& out, const Event& e, const StringTable& strings) {
  const SyscallInfo* info = syscall_by_nr(e.nr);
  std::string_view name = strings.get(e.name);
  if (info && e.name == kNoStr) {
    out += info->name;
    return;
  }
  bool plain = !info && e.nr == -1 && !name.empty() && !syscall_by_name(name) &&
               name.find('#') == std::string_view::npos;
  append_c_escaped(out, name);
  if (!plain) fmt::format_to(std::back_inserter(out), "#{}", e.nr);
}

// The string table the reader builds by interning strings in row order.
bool reader_rebuilds_ids(const Trace& t) {
  StringTable sim;
  for (const Event& e : t.events) {
    auto check = [&](StrId id) {
      if (id == kNoStr) return true;
      return sim.intern(t.strings.get(id)) == id;
    };
    if (e.name != kNoStr && !check(e.name)) return false;
    for (int i = 0; i < e.nargs && i < kMaxArgs; ++i)
      if (!check(e.args[static_cast<size_t>(i)].str)) return false;
  }
  return sim.size() == t.strings.size();
}

void append_field(std::string& line, std::string_view field, char sep) {
  if (sep == ',' && field.find_first_of(",\"\r\n") != std::string_view::npos) {
    line += '"';
    for (char c : field) {
      if (c == '"') line += '"';
      line += c;
    }
    line += '"';
  } else {
    line += field;
  }
}

}  // namespace

void write_text_trace(std::ostream& out, const Trace& trace, char sep) {
  std::string line;
  line += text::kMagic;
  line += trace.header.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  if (!reader_rebuilds_ids(trace)) {
    line += text::kStringsLine;
    for (size_t i = 1; i < trace.strings.size(); ++i) {
      if (i > 1) line += ' ';
      line += '"';
      append_c_escaped(line, trace.strings.get(static_cast<StrId>(i)));
      line += '"';
    }
    line += '\n';
  }
  const bool sched = std::any_of(trace.events.begin(), trace.events.end(),
                                 [](const Event& e) { return (e.flags & kEventOffCpu) != 0; });
  const bool uring = std::any_of(trace.events.begin(), trace.events.end(),
                                 [](const Event& e) { return (e.flags & kEventUring) != 0; });
  for (size_t c = 0; c < text::kColumnNames.size(); ++c) {
    const bool is_sched = c >= text::kFirstSchedColumn && c < text::kFirstUringColumn;
    if ((is_sched && !sched) || (c >= text::kFirstUringColumn && !uring)) continue;
    if (c) line += sep;
    line += text::kColumnNames[c];
  }
  line += '\n';
  out << line;
  std::string field;
  for (const Event& e : trace.events) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}{}{}{}{}{}{}{}", e.pid, sep, e.tid, sep, e.begin_ns, sep, e.end_ns, sep);
    field.clear();
    append_function(field, e, trace.strings);
    append_field(line, field, sep);
    line += sep;
    field.clear();
    append_args(field, e, trace.strings);
    append_field(line, field, sep);
    line += sep;
    field.clear();
    append_rvalue(field, e.rvalue, return_kind_of(e));
    append_field(line, field, sep);
    fmt::format_to(std::back_inserter(line), "{}{}{}{}{}{}{}{}{}{}", sep, e.flags, sep, e.planned_ns, sep,
                   e.expected_rvalue, sep, e.raw_end_ns, sep, e.seq);
    if (sched)
      fmt::format_to(std::back_inserter(line), "{}{}{}{}{}{}", sep, e.offcpu_ns, sep, e.vol_switches, sep,
                     e.invol_switches);
    if (uring) fmt::format_to(std::back_inserter(line), "{}{}{}{}", sep, e.uring_user_data, sep, e.uring_enter_ns);
    line += '\n';
    out << line;
  }
}

}  // namespace rastro::trace

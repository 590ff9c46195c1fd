// Writes TSV/CSV text traces; see text_format.h for the layout.
#include <algorithm>
#include <ostream>
#include <span>

#include <fmt/format.h>

#include "trace/formats/text/text_columns.h"
#include "trace/formats/text/text_format.h"
#include "trace/io/trace_passes.h"
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

// Whether the text reader, interning strings in row order, rebuilds the same ids (else the
// writer lists the table in a '# strings' line). Strings are unique in a table, so the reader
// rebuilds it exactly when every id is either one seen before or the next new one.
class IdOrderCheck {
 public:
  void add(std::span<const Event> events, const StringTable& strings) {
    for (const Event& e : events) {
      if (e.name != kNoStr) check(e.name, strings);
      for (int i = 0; i < e.nargs && i < kMaxArgs; ++i) check(e.args[static_cast<size_t>(i)].str, strings);
    }
  }
  bool rebuilds(const StringTable& strings) const { return ok_ && next_ == strings.size(); }

 private:
  void check(StrId id, const StringTable& strings) {
    if (id == kNoStr || id < next_) return;
    if (id == next_ && id < strings.size())
      ++next_;
    else
      ok_ = false;
  }
  bool ok_ = true;
  size_t next_ = 1;  // id 0 is the empty string
};

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
  write_text_trace(out, *passes_over(trace), sep);
}

void write_text_trace(std::ostream& out, TracePasses& trace, char sep) {
  // The first pass also finds whether any event carries the optional columns (written only then).
  IdOrderCheck ids;
  bool sched = false, uring = false, gap = false;
  trace.pass([&](std::span<const Event> block, const StringTable& strings) {
    ids.add(block, strings);
    for (const Event& e : block) {
      sched |= (e.flags & kEventOffCpu) != 0;
      uring |= (e.flags & kEventUring) != 0;
      gap |= e.gap_offcpu_ns != 0;
    }
  });
  std::string line;
  line += text::kMagic;
  line += trace.header().to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  const StringTable& all = trace.strings();
  if (!ids.rebuilds(all)) {
    line += text::kStringsLine;
    for (size_t i = 1; i < all.size(); ++i) {
      if (i > 1) line += ' ';
      line += '"';
      append_c_escaped(line, all.get(static_cast<StrId>(i)));
      line += '"';
    }
    line += '\n';
  }
  for (size_t c = 0; c < text::kColumnNames.size(); ++c) {
    const bool is_sched = c >= text::kFirstSchedColumn && c < text::kFirstUringColumn;
    const bool is_uring = c >= text::kFirstUringColumn && c < text::kFirstGapColumn;
    if ((is_sched && !sched) || (is_uring && !uring) || (c >= text::kFirstGapColumn && !gap)) continue;
    if (c) line += sep;
    line += text::kColumnNames[c];
  }
  line += '\n';
  out << line;
  std::string field;
  trace.pass([&](std::span<const Event> block, const StringTable& strings) {
    for (const Event& e : block) {
      line.clear();
      fmt::format_to(std::back_inserter(line), "{}{}{}{}{}{}{}{}", e.pid, sep, e.tid, sep, e.begin_ns, sep, e.end_ns, sep);
      field.clear();
      append_function(field, e, strings);
      append_field(line, field, sep);
      line += sep;
      field.clear();
      append_args(field, e, strings);
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
      if (gap) fmt::format_to(std::back_inserter(line), "{}{}", sep, e.gap_offcpu_ns);
      line += '\n';
      out << line;
    }
  });
}

}  // namespace rastro::trace

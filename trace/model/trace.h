// An in-memory trace: header, string table and events in seq order.
#pragma once

#include <string_view>
#include <vector>

#include "trace/model/event.h"
#include "trace/model/header.h"
#include "trace/model/string_table.h"

namespace rastro::trace {

struct Trace {
  TraceHeader header;
  StringTable strings;
  std::vector<Event> events;

  std::string_view str(StrId id) const { return strings.get(id); }
};

// The syscall name of an event (from the syscall table, or the stored unknown name).
std::string_view function_name(const Event& e, const StringTable& strings);

}  // namespace rastro::trace

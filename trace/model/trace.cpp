#include "trace/model/trace.h"

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

std::string_view function_name(const Event& e, const StringTable& strings) {
  if (const SyscallInfo* s = syscall_by_nr(e.nr)) return s->name;
  std::string_view n = strings.get(e.name);
  return n.empty() ? std::string_view("unknown") : n;
}

}  // namespace rastro::trace

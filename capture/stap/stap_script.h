// The SystemTap script of the stap backend, generated for the selected syscalls.
//
// It probes the raw_syscalls tracepoints (the module runtime's cheapest syscall hook), follows
// the `-c` command and its descendants with the target_set tapset, keeps entry state per tid and
// prints one line per completed call (format in stap_output_parser.h). Path and string arguments
// are read at entry with user_string_n_quoted, so the parser sees C-escaped quoted strings.
#pragma once

#include <string>

#include "trace/syscalls/syscall_table.h"

namespace rastro::capture {

// The script text. `set.all` traces every syscall (strings only for known ones).
std::string generate_stap_script(const trace::SyscallSet& set, const std::string& spec_text);

}  // namespace rastro::capture

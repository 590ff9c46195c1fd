// One line of an strace log, split into its parts but not yet interpreted (like perfetto's
// plugins/strace/strace_event.h). Views point into the line.
#pragma once

#include <cstdint>
#include <string_view>

namespace rastro::trace::strace {

enum class StraceLineKind {
  kComplete,            // 812 1700000000.000100 openat(AT_FDCWD, "/x", O_RDONLY) = 3 <0.000010>
  kUnfinished,          // 812 1700000000.000100 read(3,  <unfinished ...>
  kResumed,             // 812 1700000000.000300 <... read resumed>"ab", 4096) = 2 <0.000200>
  kResumedUnfinished,   // 812 1700000000.000300 <... wait4 resumed> <unfinished ...>
  kSignal,              // 812 1700000000.000400 --- SIGCHLD {si_signo=SIGCHLD, ...} ---
  kExit,                // 812 1700000000.000500 +++ exited with 0 +++
  kStraceMessage,       // strace: Process 813 attached
  kBlank,
  kNotStrace,           // not strace output at all (garbage, another tool's text)
  kUnsupported,         // a syscall line in a format we refuse (see `problem`)
};

struct StraceLine {
  StraceLineKind kind = StraceLineKind::kNotStrace;
  int tid = 0;             // from "[pid N] " or "N " prefixes
  bool has_tid = false;
  int64_t time_ns = 0;     // -ttt / --absolute-timestamps=format:unix, any precision
  bool has_time = false;
  std::string_view name;   // syscall name
  std::string_view args;   // argument text (for kResumed: the part after "resumed>")
  std::string_view ret;    // text after " = " ("3</etc/x>", "-1 ENOENT (...)", "?")
  int64_t duration_ns = 0; // -T / --syscall-times
  bool has_duration = false;
  int message_pid = 0;     // "strace: Process N attached"
  std::string_view problem;  // why kNotStrace / kUnsupported
};

}  // namespace rastro::trace::strace

// The pure line parser of strace logs. Accepted forms (any mix in one log):
//
//   1700000000.123456 openat(AT_FDCWD, "/etc/x", O_RDONLY) = 3 <0.000010>       strace -ttt -T
//   812   1700000000.123456 read(3</etc/x>, "ab"..., 4096) = 2 <0.000004>       -f -o FILE, -y
//   [pid   812] 1700000000.123456789 close(3) = 0 <0.000004123>                  -f to stderr, ns
//   812   1700000000.123456 read(3,  <unfinished ...>                            interrupted call
//   812   1700000000.123499 <... read resumed>"ab", 4096) = 2 <0.000043>        ...and its end
//   812   1700000000.2 exit_group(0) = ?
//   812   1700000000.3 +++ exited with 0 +++        /  --- SIGCHLD {...} ---   (skipped)
//
// Refused (kUnsupported, with the reason): `-t`/`-tt` times ("12:01:02.123456": no date, so no
// absolute time — perfetto refuses them too) and syscall lines without any timestamp.
#pragma once

#include <string_view>

#include "trace/importers/strace/strace_event.h"

namespace rastro::trace::strace {

StraceLine ParseStraceLine(std::string_view line);

// "strace: Process 123 attached" may be spliced into the middle of a syscall line when strace
// writes to a terminal/stderr; returns the position of such a message or npos.
size_t FindSplicedMessage(std::string_view line);

// Position of the ')' that closes an argument list whose '(' precedes `text`, skipping quoted
// strings, brackets and -y <...> annotations; npos if none.
size_t FindArgsEnd(std::string_view text);

}  // namespace rastro::trace::strace

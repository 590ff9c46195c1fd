// Symbolic names of flag, enum and errno values, as strace prints them (its xlat/*.in tables),
// for x86_64 Linux. Used by the one text codec (arg_format.h) in both directions.
//
//   format_flags(kOpenFlags, 02000000)        -> "O_RDONLY|O_CLOEXEC"
//   format_flags(kMode, 0100644)              -> "S_IFREG|0644"
//   format_flags(kCloneFlags, 0x1200011)      -> "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD"
//   parse_flags(kMapFlags, "MAP_PRIVATE|0x80000000") -> 0x80000002
//
// Bits without a name are printed as one trailing hex number and parsed back, so every value
// round-trips exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/model/event.h"

namespace rastro::trace {

// True for the argument types whose value is printed symbolically by format_flags().
// Parses a C integer literal: decimal, 0x-hex, 0-octal (as strace prints modes), optional '-'.
std::optional<int64_t> parse_c_integer(std::string_view s);

bool has_flag_names(ArgType type);

// Symbolic text for `value` of a flag/enum type (see has_flag_names). Negative values (which no
// flag set has) print as plain decimal.
std::string format_flags(ArgType type, int64_t value);
void append_flags(std::string& out, ArgType type, int64_t value);

// Parses "NAME|NAME|0x10", a decimal, 0x-hex or 0-octal number (modes), or a mix. Unknown
// names give nullopt. Names of other tables are accepted too (strace prints e.g. AT_EACCESS and
// AT_REMOVEDIR for the same bit).
std::optional<int64_t> parse_flags(ArgType type, std::string_view text);

// Any constant name of any table (O_*, AT_*, SEEK_*, F_*, CLONE_*, PROT_*, MAP_*, SIG*, ...)
// plus a few argument constants strace prints for calls rastro stores as plain ints
// (FD_CLOEXEC, LOCK_*, STATX_*, POSIX_FADV_*). For decoding unknown/int arguments.
std::optional<int64_t> constant_value(std::string_view name);

// Signals: "SIGCHLD" <-> 17; real-time signals as strace prints them (SIGRTMIN, SIGRT_1...).
std::string signal_name(int sig);
std::optional<int> signal_number(std::string_view name);

// errno: "ENOENT" <-> 2; unknown numbers as strace prints them ("ERRNO_600").
std::string errno_name(int err);
std::optional<int> errno_number(std::string_view name);
// strerror()-like text, as strace prints in parentheses; kernel-internal codes included.
std::string errno_description(int err);

}  // namespace rastro::trace

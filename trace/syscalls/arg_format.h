// The one strace-like text codec for typed arguments and return values. The strace importer,
// the TSV/CSV format and everything that prints events use it, so a value always reads the same.
//
// One argument, by type (value `v`, string `s`):
//   kFd        3   3</etc/passwd>          kDirFd   AT_FDCWD  AT_FDCWD</home/u>  5</tmp>
//   kPath/kStr "/etc/passwd"  "a\"b\n\xff"  (C escapes; valid UTF-8 kept, other bytes \xNN)
//   kOpenFlags O_RDONLY|O_CLOEXEC         kMode    0644  S_IFREG|0644
//   kWhence    SEEK_SET                    kFcntlCmd F_GETFL
//   kCloneFlags CLONE_VM|CLONE_THREAD|SIGCHLD   kProt PROT_READ|PROT_WRITE
//   kMapFlags  MAP_PRIVATE|MAP_ANONYMOUS   kAtFlags AT_SYMLINK_NOFOLLOW    kAccessMode F_OK|R_OK
//   kPtr       NULL  0x7f0000001000        kBuf     ...  (contents are never recorded; v == 0)
//   kTime      NULL  [...] (given)         kFdPair  [3, 4]
//   kLockType  F_RDLCK  F_WRLCK  F_UNLCK
//   others     decimal
// Bits without a name print as hex and parse back. A string attached to a type that normally
// has none prints as a `<s>` suffix (like strace -y); inside `<>` the characters `<>\` are
// escaped too. A kPath/kStr with a non-zero value gets an `@v` suffix. So for every
// (type, value, string) the text parses back to exactly the same Arg.
//
// Argument lists (format_args/parse_args): "3</x>, ..., 4096". When the types are not the
// syscall table's signature (unknown syscalls, or a signature that does not match; a 6-argument
// fcntl is matched against the lock signature of trace/syscalls/fcntl_lock.h), an argument
// whose type cannot be inferred from its text carries a `type:` tag, e.g. `fd:3`, `path:"x"`.
// Untagged text infers kStr for a quoted string and kInt for a number.
//
// Return values (format_rvalue/parse_rvalue): "0", "4096", "0x7f12a000" (pointer returns),
// "-1 ENOENT (No such file or directory)" for -errno. Parsing also accepts strace's forms
// "3</etc/x>", "? ERESTARTSYS (...)", "0x1 (flags FD_CLOEXEC)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "trace/model/event.h"
#include "trace/model/string_table.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

// Type tag names used in text ("fd", "dirfd", "path", "openflags", ...).
std::string_view arg_type_name(ArgType type);
std::optional<ArgType> arg_type_from_name(std::string_view name);

// C-style escaping of arbitrary bytes: \n \t \r \v \f \" \\ and \xNN for other control bytes,
// DEL and bytes that are not part of valid UTF-8; valid UTF-8 sequences are kept.
// `extra` lists further ASCII characters to escape as \xNN (e.g. "<>" inside fd annotations).
void append_c_escaped(std::string& out, std::string_view bytes, std::string_view extra = {});
// Inverse of append_c_escaped; also accepts strace's octal escapes (\0, \177, \303) and \a \b \e.
// Fails on a dangling backslash or a malformed escape.
Result<std::string> c_unescape(std::string_view text);
// Fast path: true and *plain set when text has no backslash (no copy needed).
bool needs_unescape(std::string_view text);

void append_arg(std::string& out, const Arg& arg, const StringTable& strings);
std::string format_arg(const Arg& arg, const StringTable& strings);
// Parses the text of one argument of a known type (interning strings into `strings`).
Result<Arg> parse_arg(ArgType type, std::string_view text, StringTable& strings);

// Splits an argument list at top-level ", " (outside quotes, (), [], {}, <>).
std::vector<std::string_view> split_args(std::string_view text);

void append_args(std::string& out, const Event& e, const StringTable& strings);
std::string format_args(const Event& e, const StringTable& strings);
// Fills e.nargs/e.args from `text` for the syscall e.nr / e.name already set in `e`.
Result<bool> parse_args(std::string_view text, Event& e, StringTable& strings);

// The return kind used to print an event's rvalue (kInt for unknown syscalls).
ReturnKind return_kind_of(const Event& e);
void append_rvalue(std::string& out, int64_t rvalue, ReturnKind kind);
std::string format_rvalue(int64_t rvalue, ReturnKind kind);
Result<int64_t> parse_rvalue(std::string_view text);

}  // namespace rastro::trace

// Maps strace's argument text onto the syscall table's argument roles:
//   read(3</etc/x>, "data"..., 4096)            -> kFd 3 "/etc/x", kBuf 0, kCount 4096
//   newfstatat(AT_FDCWD, "/x", {st_mode=...}, 0) -> kDirFd -100, kPath "/x", kBuf 0, kAtFlags 0
//   clone(child_stack=NULL, flags=CLONE_VM|...|SIGCHLD, child_tidptr=0x...)  (named, reordered)
//   clone3({flags=CLONE_VM|..., ...} => {parent_tid=[9028]}, 88) -> kBuf 0, kCount 88 (+ flags)
//   openat(AT_FDCWD, "/x", O_RDONLY)            -> the missing mode is 0
//   fcntl(3</db>, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=1})
//                                                -> the 6-argument lock form (fcntl_lock.h)
// Unknown syscalls keep up to 6 arguments: quoted text as kStr, numbers and known constant
// names as kInt, anything else (structs, arrays) as kStr holding strace's text.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "trace/model/event.h"
#include "trace/model/string_table.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace::strace {

struct DecodedArgs {
  int64_t clone_flags = 0;   // clone/clone3 flags (the pid model needs CLONE_THREAD/FILES/FS)
  bool has_clone_flags = false;
  std::array<int, 2> pair_fds{-1, -1};  // pipe/pipe2/socketpair result
  std::array<std::string, 2> pair_paths;  // their -y annotations
  int bad = 0;        // role arguments that could not be decoded (stored as 0 / empty)
  int symbolic = 0;   // integer arguments with a constant name we do not know (stored as 0)
};

// Fills e.nargs/e.args for syscall `info` (nullptr: unknown syscall). -y annotations of fd
// arguments go into Arg::str (device suffixes of -yy such as "<char 1:3>" are dropped).
void DecodeStraceArgs(const SyscallInfo* info, std::string_view text, Event& e,
                      StringTable& strings, DecodedArgs& out);

// Splits "3</etc/x>" into 3 and "/etc/x" (unescaped; -yy device suffix dropped).
bool DecodeAnnotatedInt(std::string_view text, int64_t* value, std::string* note, bool* has_note);

}  // namespace rastro::trace::strace

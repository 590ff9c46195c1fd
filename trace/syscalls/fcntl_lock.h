// fcntl's record-lock commands (F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ forms) pass a
// struct flock that the table's 3-argument fcntl row shows only as an address. A backend that
// reads the struct records such a call with 6 arguments instead, the lock signature:
//
//   fd (kFd), cmd (kFcntlCmd), l_type (kLockType), l_whence (kWhence), l_start (kOffset),
//   l_len (kCount)
//
// — `fcntl(3</db>, F_SETLK, F_WRLCK, SEEK_SET, 1073741824, 1)` in the text format. A backend that
// could not read the struct keeps the 3-argument form, and the replayers skip the call
// (`lock_args_not_recorded`). l_pid is not recorded: it is an output (F_GETLK) or must be 0.
#pragma once

#include <array>
#include <cstdint>

#include "trace/model/event.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

inline constexpr uint8_t kLockArgCount = 6;
inline constexpr std::array<ArgType, kMaxArgs> kLockSignature = {
    ArgType::kFd, ArgType::kFcntlCmd, ArgType::kLockType, ArgType::kWhence, ArgType::kOffset, ArgType::kCount};

// The struct flock fields a lock call carries.
struct LockFields {
  int64_t type = 0;    // F_RDLCK, F_WRLCK, F_UNLCK
  int64_t whence = 0;  // SEEK_SET, SEEK_CUR, SEEK_END
  int64_t start = 0;
  int64_t len = 0;     // 0: to the end of the file, however far it grows
};

// The six lock commands; the blocking ones (F_SETLKW, F_OFD_SETLKW); the queries (F_GETLK,
// F_OFD_GETLK); the open-file-description forms (F_OFD_*).
bool is_lock_command(int64_t fcntl_command);
bool is_blocking_lock_command(int64_t fcntl_command);
bool is_query_lock_command(int64_t fcntl_command);
bool is_ofd_lock_command(int64_t fcntl_command);

// Whether calls of this row take lock commands (the fcntl row: its fd effect is by command).
bool takes_lock_commands(const SyscallInfo* info);
// Whether `e` is a lock command, in either form; whether it carries the struct (6-arg form).
bool is_lock_call(const Event& e);
bool has_lock_fields(const Event& e);
// Whether `e` may have waited for another process to release a lock: a blocking fcntl lock command
// that takes a lock (F_SETLKW, F_OFD_SETLKW; not F_UNLCK) or flock(LOCK_SH/LOCK_EX) without
// LOCK_NB. Its end is the release's doing, so a tracer's timestamps may put it before the release.
bool may_wait_for_lock_release(const Event& e);
// Whether `e` releases a lock: an fcntl lock command setting F_UNLCK, or flock(LOCK_UN).
bool releases_lock(const Event& e);
// The fields of a 6-argument lock call (has_lock_fields(e) must hold).
LockFields lock_fields(const Event& e);
// Turns a lock call whose fd and command are set into the 6-argument form.
void set_lock_fields(Event& e, const LockFields& f);

// The argument types a call of `info` with `nargs` arguments has: the table's row, or the lock
// signature for the fcntl row with 6; nullptr when neither (an unknown syscall, another count).
const std::array<ArgType, kMaxArgs>* signature_for(const SyscallInfo* info, int nargs);

}  // namespace rastro::trace

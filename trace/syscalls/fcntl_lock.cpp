#include "trace/syscalls/fcntl_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/syscall.h>

namespace rastro::trace {

bool is_lock_command(int64_t c) {
  return c == F_GETLK || c == F_SETLK || c == F_SETLKW || c == F_OFD_GETLK || c == F_OFD_SETLK ||
         c == F_OFD_SETLKW;
}

bool is_blocking_lock_command(int64_t c) { return c == F_SETLKW || c == F_OFD_SETLKW; }

bool is_query_lock_command(int64_t c) { return c == F_GETLK || c == F_OFD_GETLK; }

bool is_ofd_lock_command(int64_t c) { return c == F_OFD_GETLK || c == F_OFD_SETLK || c == F_OFD_SETLKW; }

bool takes_lock_commands(const SyscallInfo* info) { return info != nullptr && info->fd == FdEffect::kByCommand; }

bool is_lock_call(const Event& e) {
  return e.nargs >= 2 && takes_lock_commands(syscall_by_nr(e.nr)) && e.arg(1).type == ArgType::kFcntlCmd &&
         is_lock_command(e.arg(1).value);
}

bool has_lock_fields(const Event& e) {
  if (!is_lock_call(e) || e.nargs != kLockArgCount) return false;
  for (size_t i = 0; i < kLockArgCount; ++i)
    if (e.args[i].type != kLockSignature[i]) return false;
  return true;
}

bool may_wait_for_lock_release(const Event& e) {
  if (e.nr == SYS_flock) {
    const int64_t op = e.nargs >= 2 ? e.arg(1).value : 0;
    return (op & (LOCK_SH | LOCK_EX)) != 0 && (op & LOCK_NB) == 0;
  }
  if (!is_lock_call(e) || !is_blocking_lock_command(e.arg(1).value)) return false;
  return !has_lock_fields(e) || lock_fields(e).type != F_UNLCK;  // without the struct: maybe a lock
}

bool releases_lock(const Event& e) {
  if (e.nr == SYS_flock) return e.nargs >= 2 && (e.arg(1).value & LOCK_UN) != 0;
  return has_lock_fields(e) && !is_query_lock_command(e.arg(1).value) && lock_fields(e).type == F_UNLCK;
}

LockFields lock_fields(const Event& e) { return {e.arg(2).value, e.arg(3).value, e.arg(4).value, e.arg(5).value}; }

void set_lock_fields(Event& e, const LockFields& f) {
  e.nargs = kLockArgCount;
  e.args[2] = {ArgType::kLockType, f.type, kNoStr};
  e.args[3] = {ArgType::kWhence, f.whence, kNoStr};
  e.args[4] = {ArgType::kOffset, f.start, kNoStr};
  e.args[5] = {ArgType::kCount, f.len, kNoStr};
}

const std::array<ArgType, kMaxArgs>* signature_for(const SyscallInfo* info, int nargs) {
  if (info == nullptr) return nullptr;
  if (nargs == info->nargs) return &info->args;
  if (nargs == kLockArgCount && takes_lock_commands(info)) return &kLockSignature;
  return nullptr;
}

}  // namespace rastro::trace

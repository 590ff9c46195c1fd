// From a raw syscall register to the uniform trace's argument value, by argument role, so every
// backend that sees registers (ptrace, SystemTap, eBPF) stores the same numbers strace prints:
// C `int` parameters (fds, dirfds, whence, fcntl commands, uids) are sign-extended from 32 bits
// (the kernel ignores the upper half; AT_FDCWD is -100, chown's "unchanged" is -1), flag and
// mode words are zero-extended 32-bit values, sizes, offsets and addresses keep all 64 bits,
// user buffers are 0 (not recorded) and a `times` pointer is 1 when given, 0 for NULL.
#pragma once

#include <cstdint>

#include "trace/model/event.h"

namespace rastro::capture {

inline int64_t arg_value_from_register(trace::ArgType type, uint64_t raw) {
  using trace::ArgType;
  switch (type) {
    case ArgType::kFd:
    case ArgType::kDirFd:
    case ArgType::kWhence:
    case ArgType::kFcntlCmd:
    case ArgType::kSignal:
    case ArgType::kUid:
      return static_cast<int32_t>(static_cast<uint32_t>(raw));
    case ArgType::kLockType:  // a C short inside struct flock (backends read it from memory)
      return static_cast<int16_t>(static_cast<uint16_t>(raw));
    case ArgType::kOpenFlags:
    case ArgType::kMode:
    case ArgType::kAtFlags:
    case ArgType::kProt:
    case ArgType::kMapFlags:
    case ArgType::kRenameFlags:
    case ArgType::kXattrFlags:
    case ArgType::kMsyncFlags:
    case ArgType::kFallocMode:
    case ArgType::kAccessMode:
      return static_cast<int64_t>(static_cast<uint32_t>(raw));
    case ArgType::kInt: {
      // Mostly C ints; keep a genuinely 64-bit value (fcntl's long arg) intact.
      uint64_t hi = raw >> 32;
      if (hi == 0 || hi == 0xffffffffu) return static_cast<int32_t>(static_cast<uint32_t>(raw));
      return static_cast<int64_t>(raw);
    }
    case ArgType::kBuf:
    case ArgType::kPath:  // the string goes in Arg::str; the address is not recorded
    case ArgType::kStr:
    case ArgType::kFdPair:  // filled from user memory at exit
    case ArgType::kNone:
      return 0;
    case ArgType::kTime:
      return raw != 0 ? 1 : 0;
    case ArgType::kOffset:
    case ArgType::kCount:
    case ArgType::kPtr:
    case ArgType::kCloneFlags:
      return static_cast<int64_t>(raw);
  }
  return static_cast<int64_t>(raw);
}

}  // namespace rastro::capture

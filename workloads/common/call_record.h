// One application-timed system call of a reference workload (the *reference method*, SPEC §5).
//
// Workers write these compact records on the hot path (no strings, no allocation); they become
// uniform trace events only after the run (workloads/common/trace_emit.h).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "common/clock.h"

namespace rastro::workloads {

// The calls the reference workloads issue. Each maps to exactly one x86_64 syscall of the
// syscall table (the glibc wrappers used for them are 1:1 on x86_64; tests/cli checks this
// against the real strace).
enum class CallKind : uint8_t {
  kOpenat,      // openat(AT_FDCWD, path, flags, mode)
  kClose,       // close(fd)
  kRead,        // read(fd, buf, count)
  kWrite,       // write(fd, buf, count)
  kPread,       // pread64(fd, buf, count, offset)
  kPwrite,      // pwrite64(fd, buf, count, offset)
  kFsync,       // fsync(fd)
  kNewfstatat,  // newfstatat(AT_FDCWD, path, &st, 0)
  kUnlinkat,    // unlinkat(AT_FDCWD, path, 0)
  kMkdir,       // mkdir(path, mode)
};

struct CallRecord {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t rvalue = 0;  // -errno on failure
  int64_t count = 0;   // byte count (read/write), open flags (openat), mode (mkdir)
  int64_t offset = 0;  // pread/pwrite offset; mode for openat
  int32_t fd = -1;     // the fd used (or returned, for openat)
  uint32_t path = 0;   // index into the workload's path table
  CallKind kind = CallKind::kClose;
};

// The syscall-table name of a call kind.
inline const char* call_syscall_name(CallKind k) {
  switch (k) {
    case CallKind::kOpenat: return "openat";
    case CallKind::kClose: return "close";
    case CallKind::kRead: return "read";
    case CallKind::kWrite: return "write";
    case CallKind::kPread: return "pread64";
    case CallKind::kPwrite: return "pwrite64";
    case CallKind::kFsync: return "fsync";
    case CallKind::kNewfstatat: return "newfstatat";
    case CallKind::kUnlinkat: return "unlinkat";
    case CallKind::kMkdir: return "mkdir";
  }
  return "?";
}
inline constexpr size_t kCallKinds = static_cast<size_t>(CallKind::kMkdir) + 1;

// Turns a libc return value into the kernel convention (-errno on failure).
inline int64_t kernel_rvalue(int64_t r) { return r < 0 ? -static_cast<int64_t>(errno) : r; }

}  // namespace rastro::workloads

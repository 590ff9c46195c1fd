// Replays the mmap/munmap/msync of files (the table's Family::kMemory rows): one case per syscall the replayers issue;
// a row of this family with no case here is counted as unsupported.
#include "replay/runtime/call_ops.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "replay/runtime/forced_nonblock.h"

namespace rastro::replay {

int64_t CallOps::memory() {
  switch (e.nr) {
    case SYS_mmap: {
      int flags = static_cast<int>(c.a(3));
      if ((flags & MAP_ANONYMOUS) || c.a(4) < 0) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      int fd = fd_arg(4);
      if (fd < 0) return e.rvalue;
      size_t len = static_cast<size_t>(std::max<int64_t>(c.a(1), 0));
      void* p = ::mmap(nullptr, len, static_cast<int>(c.a(2)), flags & ~(MAP_FIXED | MAP_FIXED_NOREPLACE), fd, c.a(5));
      if (p == MAP_FAILED) return -errno;
      if (c.traced_ok()) {
        c.proc.add_mapping(static_cast<uint64_t>(e.rvalue), {reinterpret_cast<uint64_t>(p), len});
      } else {
        ::munmap(p, len);
      }
      return reinterpret_cast<int64_t>(p);
    }
    case SYS_munmap: {
      Mapping m;
      if (!c.proc.take_mapping(static_cast<uint64_t>(c.a(0)), &m)) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      return sysret(::munmap(reinterpret_cast<void*>(m.replay_addr), m.length));
    }
    case SYS_msync: {
      Mapping m;
      if (!c.proc.find_mapping(static_cast<uint64_t>(c.a(0)), &m)) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      size_t len = std::min<uint64_t>(m.length, static_cast<uint64_t>(std::max<int64_t>(c.a(1), 0)));
      return sysret(::msync(reinterpret_cast<void*>(m.replay_addr), len, static_cast<int>(c.a(2))));
    }
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

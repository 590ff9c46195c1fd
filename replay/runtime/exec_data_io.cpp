// Replays the read/write family, lseek, sync family, readahead/fadvise, ftruncate, fallocate, sendfile/copy_file_range (the table's Family::kDataIo rows): one case per syscall the replayers issue;
// a row of this family with no case here is counted as unsupported. read/readv/write/writev on a
// replayer pipe or socket pair move their traced byte counts, waiting (bounded) for the other end
// (stream_io.h).
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
#include "replay/runtime/stream_io.h"

namespace rastro::replay {

int64_t CallOps::data_io() {
  // read/write family: the fd's slot says whether it is a stream (stream_io.h).
  FdLookup l;
  auto open_fd = [&](int i) {
    l = fds.get(c.key(i));
    if (l.state == FdState::kOpen) return true;
    fd_not_open(l.state);
    return false;
  };
  switch (e.nr) {
    case SYS_read: {
      if (!open_fd(0)) return e.rvalue;
      size_t n = bytes(2);
      if (l.stream) return stream_read(l.fd, c.scratch.read_area(n), n, e.rvalue, e.duration_ns());
      return sysret(::read(l.fd, c.scratch.read_area(n), n));
    }
    case SYS_pread64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::pread(fd, c.scratch.read_area(n), n, c.a(3)));
    }
    case SYS_readv: {
      if (!open_fd(0)) return e.rvalue;
      size_t n = vec_bytes();
      if (l.stream) return stream_read(l.fd, c.scratch.read_area(n), n, e.rvalue, e.duration_ns());
      return sysret(::read(l.fd, c.scratch.read_area(n), n));
    }
    case SYS_preadv:
    case SYS_preadv2: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(c.a(3) == -1 ? ::read(fd, c.scratch.read_area(n), n)
                                 : ::pread(fd, c.scratch.read_area(n), n, c.a(3)));
    }
    case SYS_write: {
      if (!open_fd(0)) return e.rvalue;
      size_t n = bytes(2);
      if (l.stream) return stream_write(l.fd, c.scratch.write_area(n), n, e.rvalue, e.duration_ns());
      return sysret(::write(l.fd, c.scratch.write_area(n), n));
    }
    case SYS_pwrite64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::pwrite(fd, c.scratch.write_area(n), n, c.a(3)));
    }
    case SYS_writev: {
      if (!open_fd(0)) return e.rvalue;
      size_t n = vec_bytes();
      if (l.stream) return stream_write(l.fd, c.scratch.write_area(n), n, e.rvalue, e.duration_ns());
      return sysret(::write(l.fd, c.scratch.write_area(n), n));
    }
    case SYS_pwritev:
    case SYS_pwritev2: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(c.a(3) == -1 ? ::write(fd, c.scratch.write_area(n), n)
                                 : ::pwrite(fd, c.scratch.write_area(n), n, c.a(3)));
    }
    case SYS_lseek: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::lseek(fd, c.a(1), static_cast<int>(c.a(2))));
    }
    case SYS_fsync:
    case SYS_fdatasync:
    case SYS_syncfs: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(e.nr == SYS_fsync ? ::fsync(fd) : e.nr == SYS_fdatasync ? ::fdatasync(fd) : ::syncfs(fd));
    }
    case SYS_sync_file_range: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::sync_file_range(fd, c.a(1), c.a(2), static_cast<unsigned>(c.a(3))));
    }
    case SYS_sync:
      ::sync();
      return 0;
    case SYS_readahead: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::readahead(fd, c.a(1), bytes(2)));
    }
    case SYS_fadvise64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return -static_cast<int64_t>(::posix_fadvise(fd, c.a(1), c.a(2), static_cast<int>(c.a(3))));
    }
    case SYS_ftruncate: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::ftruncate(fd, c.a(1)));
    }
    case SYS_fallocate: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fallocate(fd, static_cast<int>(c.a(1)), c.a(2), c.a(3)));
    }
    case SYS_sendfile: {
      int out = fd_arg(0);
      if (out < 0) return e.rvalue;
      int in = fd_arg(1);
      if (in < 0) return e.rvalue;
      return sysret(::sendfile(out, in, nullptr, bytes(3)));
    }
    case SYS_copy_file_range: {
      int in = fd_arg(0);
      if (in < 0) return e.rvalue;
      int out = fd_arg(2);
      if (out < 0) return e.rvalue;
      return sysret(::copy_file_range(in, nullptr, out, nullptr, bytes(4), 0));
    }
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

// Replays the dup family, fcntl (record locks: lock_replay.h), flock, pipes and socket pairs (the table's Family::kFdOps rows): one case per syscall the replayers issue;
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
#include "replay/runtime/stream_io.h"
#include "replay/runtime/lock_replay.h"
#include "trace/syscalls/fcntl_lock.h"

namespace rastro::replay {
namespace {


}  // namespace

int64_t CallOps::fd_ops() {
  switch (e.nr) {
    case SYS_dup: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return dup_to(fd, c.ret_key(), false);
    }
    case SYS_dup2:
    case SYS_dup3: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      if (c.a(0) == c.a(1)) return e.nr == SYS_dup3 ? -EINVAL : c.a(1);
      bool cloexec = e.nr == SYS_dup3 && (c.a(2) & O_CLOEXEC);
      int64_t r = dup_to(fd, c.key(1), cloexec);
      return r < 0 ? r : c.a(1);
    }
    case SYS_fcntl: {
      int cmd = static_cast<int>(c.a(1));
      if (trace::is_lock_command(cmd) && !trace::has_lock_fields(e)) {
        c.skip = SkipReason::kLockArgsNotRecorded;  // only the struct's address was captured
        return e.rvalue;
      }
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      if (trace::is_lock_command(cmd)) return replay_fcntl_lock(fd, cmd, trace::lock_fields(e), e.rvalue);
      switch (cmd) {
        case F_DUPFD:
        case F_DUPFD_CLOEXEC:
          return dup_to(fd, c.ret_key(), cmd == F_DUPFD_CLOEXEC);
        // Only a replayer-made pipe, socket pair or FIFO has an O_NONBLOCK the program did not ask
        // for (forced_nonblock.h), and only its lookup there costs calls of the replayer's own
        // (fcntl, fstat), which would warm the path of the program's next fcntl.
        case F_GETFL: {
          const bool stream = fds.get(c.key(0)).stream;
          const int fl = the_call([&] { return ::fcntl(fd, F_GETFL); });
          if (fl < 0) return -errno;
          return stream ? forced_nonblock_getfl(fd, fl) : fl;
        }
        case F_SETFL: {
          int flags = static_cast<int>(c.a(2));
          if (fds.get(c.key(0)).stream) flags = forced_nonblock_setfl_flags(fd, flags);
          return sysret(the_call([&] { return ::fcntl(fd, F_SETFL, flags); }));
        }
        // Close-on-exec is the traced process's, kept in the fd map (the replayer's own fds stay
        // close-on-exec); the call itself is made on the replay fd, as the program made it, so
        // that it costs what it cost (before, the map answered alone: make's `fd` class replayed
        // at 0.46 of its traced time, and `--time-with ebpf` found no kernel call to time).
        case F_GETFD: {
          const int r = the_call([&] { return ::fcntl(fd, F_GETFD); });
          if (r < 0) return -errno;
          return fds.get(c.key(0)).cloexec ? FD_CLOEXEC : 0;
        }
        case F_SETFD: {
          const int r = the_call([&] { return ::fcntl(fd, F_SETFD, FD_CLOEXEC); });
          if (r < 0) return -errno;
          fds.set_cloexec(c.key(0), c.a(2) & FD_CLOEXEC);
          return 0;
        }
        default:
          return unsupported();
      }
    }
    case SYS_flock: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      // A blocking flock waits, bounded: a lock the replay cannot take must not hang it.
      return replay_flock(fd, static_cast<int>(c.a(1)), e.rvalue);
    }
    case SYS_pipe:
    case SYS_pipe2:
    case SYS_socketpair: {
      int pair[2];
      int r;
      if (e.nr == SYS_socketpair) {
        r = ::socketpair(static_cast<int>(c.a(0)), static_cast<int>(c.a(1)) | SOCK_NONBLOCK | SOCK_CLOEXEC,
                         static_cast<int>(c.a(2)), pair);
      } else {
        int flags = e.nr == SYS_pipe2 ? static_cast<int>(c.a(1)) : 0;
        r = ::pipe2(pair, (flags & ~O_CLOEXEC) | O_NONBLOCK | O_CLOEXEC);
        // As large as the system allows (1 MiB by default): the replay's readers are ordered by the
        // plan and wait for their bytes, so the pipe's capacity must not order anything too. A
        // kernel pipe holds 16 pages, and how full it is depends on how reads and writes
        // interleaved: a traced write that fit could block here, waiting for a reader the plan
        // orders after that write (the tar pipeline's temporal replays: a 10 KiB write returned
        // 8 KiB after its 1 s deadline).
        if (r == 0) (void)::fcntl(pair[1], F_SETPIPE_SZ, kReplayPipeBytes);
      }
      if (r != 0) return -errno;
      const bool wanted_nonblock = e.nr == SYS_socketpair ? (c.a(1) & SOCK_NONBLOCK) != 0
                                   : e.nr == SYS_pipe2    ? (c.a(1) & O_NONBLOCK) != 0
                                                          : false;
      forced_nonblock_created(pair[0], wanted_nonblock);
      forced_nonblock_created(pair[1], wanted_nonblock);
      int ai = e.nr == SYS_socketpair ? 3 : 0;
      auto v = static_cast<uint64_t>(c.a(ai));
      bool cloexec = e.nr == SYS_pipe2 && (c.a(1) & O_CLOEXEC);
      install(c.keys ? c.keys[ai] : static_cast<int>(v & 0xffffffffu), pair[0], cloexec, "");
      install(c.keys ? c.keys[FdKeys::kPair2] : static_cast<int>(v >> 32), pair[1], cloexec, "");
      return 0;
    }
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

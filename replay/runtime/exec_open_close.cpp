// Replays the open family, close (the table's Family::kOpenClose rows): one case per syscall the replayers issue;
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

int64_t CallOps::open_close() {
  switch (e.nr) {
    case SYS_close: {
      FdLookup l = fds.take(c.key(0));
      if (l.state != FdState::kOpen) {
        fd_not_open(l.state);
        return e.rvalue;
      }
      return sysret(::close(l.fd));
    }
    case SYS_open:
      return open_path(-1, 0, static_cast<int>(c.a(1)), static_cast<mode_t>(c.a(2)));
    case SYS_creat:
      return open_path(-1, 0, O_CREAT | O_WRONLY | O_TRUNC, static_cast<mode_t>(c.a(1)));
    case SYS_openat:
      return open_path(0, 1, static_cast<int>(c.a(2)), static_cast<mode_t>(c.a(3)));
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

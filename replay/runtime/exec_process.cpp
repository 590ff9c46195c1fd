// Replays the clone/fork/exec/exit as structure only, chdir/fchdir, umask, getcwd (the table's Family::kProcess rows): one case per syscall the replayers issue;
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

int64_t CallOps::process() {
  switch (e.nr) {
    case SYS_chdir: {
      std::string abs;
      if (!path_arg(-1, 0, &abs)) return e.rvalue;
      UniqueFd o(sandbox_.open(abs, O_PATH | O_DIRECTORY, 0));
      if (!o.valid()) return o.get();  // -errno
      c.proc.set_cwd(SandboxResolver::normalise(abs));
      return 0;
    }
    case SYS_fchdir: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct stat st;
      if (::fstat(fd, &st) != 0) return -errno;
      if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
      std::string p = fds.path(c.key(0));
      if (p.empty()) p = std::string(str(0));
      if (!p.empty() && p.front() == '/') c.proc.set_cwd(SandboxResolver::normalise(p));
      return 0;
    }
    // Structure only: process lifecycle changes fd tables; it is not executed.
    case SYS_clone:
    case SYS_fork:
    case SYS_vfork:
    case SYS_clone3: {
      c.emulated = true;
      if (e.rvalue > 0) {
        procs_.spawn(e.pid, static_cast<int32_t>(e.rvalue), static_cast<uint64_t>(c.a(0)), e.nr == SYS_clone);
      }
      return e.rvalue;
    }
    case SYS_execve:
    case SYS_execveat:
      c.emulated = true;
      if (!e.failed()) {
        fds.close_cloexec();
        c.proc.maps.clear();  // a new address space: the old image's mappings are gone
      }
      return e.rvalue;
    case SYS_exit_group:
      // The kernel closed the process's fds here; for pipes and socket pairs that is what a
      // reader's end-of-file and a writer's EPIPE wait for (stream_io.h). (A table shared with
      // another process through CLONE_FILES stays open.)
      c.emulated = true;
      if (c.proc.fds.use_count() == 1) fds.close_streams();
      return e.rvalue;
    case SYS_exit:
    case SYS_umask:
    case SYS_getcwd:
      c.emulated = true;
      return e.rvalue;
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

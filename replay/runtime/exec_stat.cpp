// Replays the stat family, statfs, access, readlink, getdents (the table's Family::kStat rows): one case per syscall the replayers issue;
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

int64_t CallOps::stat() {
  switch (e.nr) {
    case SYS_fstat: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct stat st;
      return sysret(::fstat(fd, &st));
    }
    case SYS_stat:
    case SYS_lstat: {
      struct stat st;
      if (e.nr == SYS_stat) {
        UniqueFd o;
        int64_t r = object(-1, 0, true, &o);
        if (r != 0) return r > 0 ? e.rvalue : r;
        return sysret(::fstatat(o.get(), "", &st, AT_EMPTY_PATH));
      }
      SandboxResolver::Parent p;
      int64_t r = parent(-1, 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::fstatat(p.dir.get(), p.name.empty() ? "" : p.name.c_str(), &st,
                              p.name.empty() ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW));
    }
    case SYS_newfstatat:
    case SYS_statx: {
      int flags = static_cast<int>(e.nr == SYS_newfstatat ? c.a(3) : c.a(2));
      struct statx stx;
      struct stat st;
      auto do_stat = [&](int dfd, const char* p, int fl) -> int64_t {
        if (e.nr == SYS_statx) return sysret(::statx(dfd, p, fl, static_cast<unsigned>(c.a(3)), &stx));
        return sysret(::fstatat(dfd, p, &st, fl));
      };
      if ((flags & AT_EMPTY_PATH) && str(1).empty()) {
        if (c.a(0) == AT_FDCWD) {
          UniqueFd o(sandbox_.open_object(SandboxResolver::absolute(c.proc.cwd(), "."), true));
          if (!o.valid()) return -ENOENT;
          return do_stat(o.get(), "", AT_EMPTY_PATH);
        }
        int fd = fd_arg(0);
        if (fd < 0) return e.rvalue;
        return do_stat(fd, "", AT_EMPTY_PATH);
      }
      if (flags & AT_SYMLINK_NOFOLLOW) {
        SandboxResolver::Parent p;
        int64_t r = parent(0, 1, &p);
        if (r != 0) return r > 0 ? e.rvalue : r;
        if (p.name.empty()) return do_stat(p.dir.get(), "", AT_EMPTY_PATH);
        return do_stat(p.dir.get(), p.name.c_str(), AT_SYMLINK_NOFOLLOW);
      }
      UniqueFd o;
      int64_t r = object(0, 1, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return do_stat(o.get(), "", AT_EMPTY_PATH);
    }
    case SYS_statfs: {
      UniqueFd o;
      int64_t r = object(-1, 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      struct statfs sf;
      return sysret(::fstatfs(o.get(), &sf));
    }
    case SYS_fstatfs: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct statfs sf;
      return sysret(::fstatfs(fd, &sf));
    }
    case SYS_access:
    case SYS_faccessat:
    case SYS_faccessat2: {
      bool at = e.nr != SYS_access;
      int mode = static_cast<int>(c.a(at ? 2 : 1));
      bool follow = !(e.nr == SYS_faccessat2 && (c.a(3) & AT_SYMLINK_NOFOLLOW));
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, follow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return access_object(o.get(), mode);
    }
    case SYS_readlink:
    case SYS_readlinkat: {
      bool at = e.nr == SYS_readlinkat;
      size_t n = bytes(at ? 3 : 2);
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EINVAL;
      return sysret(::readlinkat(p.dir.get(), p.name.c_str(), c.scratch.read_area(n + 1), n));
    }
    case SYS_getdents:
    case SYS_getdents64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(syscall(SYS_getdents64, fd, c.scratch.read_area(n), n));
    }
    default:
      return unsupported();
  }
}

}  // namespace rastro::replay

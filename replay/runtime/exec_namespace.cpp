// Replays the mkdir/rmdir/unlink/rename/link/symlink/mknod, chmod/chown, utime family, xattrs, truncate (the table's Family::kNamespace rows): one case per syscall the replayers issue;
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
#include "replay/runtime/xattr_value.h"

namespace rastro::replay {

int64_t CallOps::name_space() {
  switch (e.nr) {
    case SYS_mkdir:
    case SYS_mkdirat: {
      bool at = e.nr == SYS_mkdirat;
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::mkdirat(p.dir.get(), p.name.c_str(), static_cast<mode_t>(c.a(at ? 2 : 1))));
    }
    case SYS_rmdir:
    case SYS_unlink:
    case SYS_unlinkat: {
      bool at = e.nr == SYS_unlinkat;
      int flags = e.nr == SYS_rmdir ? AT_REMOVEDIR : at ? static_cast<int>(c.a(2)) : 0;
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return (flags & AT_REMOVEDIR) ? -EBUSY : -EISDIR;
      return sysret(::unlinkat(p.dir.get(), p.name.c_str(), flags));
    }
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2: {
      bool at = e.nr != SYS_rename;
      SandboxResolver::Parent from, to;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &from);
      if (r != 0) return r > 0 ? e.rvalue : r;
      r = parent(at ? 2 : -1, at ? 3 : 1, &to);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (from.name.empty() || to.name.empty()) return -EBUSY;
      unsigned flags = e.nr == SYS_renameat2 ? static_cast<unsigned>(c.a(4)) : 0;
      return sysret(syscall(SYS_renameat2, from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(), flags));
    }
    case SYS_link:
    case SYS_linkat: {
      bool at = e.nr == SYS_linkat;
      int flags = at ? static_cast<int>(c.a(4)) : 0;
      SandboxResolver::Parent to;
      int64_t r = parent(at ? 2 : -1, at ? 3 : 1, &to);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (to.name.empty()) return -EEXIST;
      if (flags & AT_SYMLINK_FOLLOW) {
        UniqueFd o;
        r = object(at ? 0 : -1, at ? 1 : 0, true, &o);
        if (r != 0) return r > 0 ? e.rvalue : r;
        return sysret(::linkat(o.get(), "", to.dir.get(), to.name.c_str(), AT_EMPTY_PATH));
      }
      SandboxResolver::Parent from;
      r = parent(at ? 0 : -1, at ? 1 : 0, &from);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (from.name.empty()) return -EPERM;  // a directory cannot be hard-linked
      return sysret(::linkat(from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(), 0));
    }
    case SYS_symlink:
    case SYS_symlinkat: {
      bool at = e.nr == SYS_symlinkat;
      std::string target(str(0));  // a symlink's content is data; later lookups stay in the root
      if (target.empty() || target.find('\0') != std::string::npos) {
        c.skip = SkipReason::kBadPath;
        return e.rvalue;
      }
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 1 : -1, at ? 2 : 1, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::symlinkat(target.c_str(), p.dir.get(), p.name.c_str()));
    }
    case SYS_chmod:
    case SYS_fchmodat: {
      bool at = e.nr == SYS_fchmodat;
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return chmod_object(o.get(), static_cast<mode_t>(c.a(at ? 2 : 1)));
    }
    case SYS_fchmod: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fchmod(fd, static_cast<mode_t>(c.a(1))));
    }
    case SYS_chown:
    case SYS_lchown:
    case SYS_fchownat: {
      bool at = e.nr == SYS_fchownat;
      bool follow = e.nr == SYS_chown || (at && !(c.a(4) & AT_SYMLINK_NOFOLLOW));
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, follow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::fchownat(o.get(), "", static_cast<uid_t>(c.a(at ? 2 : 1)),
                               static_cast<gid_t>(c.a(at ? 3 : 2)), AT_EMPTY_PATH));
    }
    case SYS_fchown: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fchown(fd, static_cast<uid_t>(c.a(1)), static_cast<gid_t>(c.a(2))));
    }
    case SYS_truncate: {
      std::string abs;
      if (!path_arg(-1, 0, &abs)) return e.rvalue;
      UniqueFd fd(sandbox_.open(abs, O_WRONLY, 0));
      if (!fd.valid()) return fd.get();  // -errno
      return sysret(::ftruncate(fd.get(), c.a(1)));
    }
    case SYS_utimensat: {
      int flags = static_cast<int>(c.a(3));
      if (str(1).empty()) {  // utimensat(fd, NULL, ...) = futimens
        int fd = fd_arg(0);
        if (fd < 0) return e.rvalue;
        return sysret(syscall(SYS_utimensat, fd, nullptr, nullptr, 0));
      }
      UniqueFd o;
      int64_t r = object(0, 1, !(flags & AT_SYMLINK_NOFOLLOW), &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return touch_object(o.get());
    }
    case SYS_utime:
    case SYS_utimes: {
      UniqueFd o;
      int64_t r = object(-1, 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return touch_object(o.get());
    }
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_getxattr:
    case SYS_lgetxattr:
    case SYS_listxattr:
    case SYS_llistxattr:
    case SYS_removexattr:
    case SYS_lremovexattr: {
      bool nofollow = e.nr == SYS_lsetxattr || e.nr == SYS_lgetxattr || e.nr == SYS_llistxattr ||
                      e.nr == SYS_lremovexattr;
      if (int64_t r; xattr_on_name(nofollow, &r)) return r;
      UniqueFd o;
      int64_t r = object(-1, 0, !nofollow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (nofollow) {
        struct stat st;
        if (::fstatat(o.get(), "", &st, AT_EMPTY_PATH) == 0 && S_ISLNK(st.st_mode)) {
          return e.nr == SYS_lgetxattr ? -ENODATA : e.nr == SYS_llistxattr ? 0 : -EPERM;
        }
      }
      const std::string via = fd_path(o.get());
      return xattr({.path = via.c_str()}, o.get());
    }
    case SYS_fsetxattr:
    case SYS_fgetxattr:
    case SYS_flistxattr:
    case SYS_fremovexattr: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return xattr({.fd = fd}, fd);
    }
    case SYS_mknod:
    case SYS_mknodat: {
      bool at = e.nr == SYS_mknodat;
      auto mode = static_cast<mode_t>(c.a(at ? 2 : 1));
      if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISSOCK(mode)) {
        c.skip = SkipReason::kDeviceNode;
        return e.rvalue;
      }
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::mknodat(p.dir.get(), p.name.c_str(), mode, 0));
    }
    default:
      return unsupported();
  }
}

// A path xattr call (setxattr, getxattr, listxattr, removexattr and their l- forms) on its last
// name relative to its parent, resolved inside the root: the timed call walks a name, not /proc's
// magic link. Taken unless the name is a symlink the call would follow (following it from the
// parent could leave the root) or the kernel has no *xattrat; false then, and the caller acts on
// the object's O_PATH fd through fd_path.
bool CallOps::xattr_on_name(bool nofollow, int64_t* r) {
  SandboxResolver::Parent par;
  if (const int64_t p = parent(-1, 0, &par); p != 0) {
    *r = p > 0 ? e.rvalue : p;
    return true;
  }
  if (par.name.empty()) return false;
  struct stat st;
  if (!nofollow && ::fstatat(par.dir.get(), par.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) return false;
  const int64_t out = xattr({.dirfd = par.dir.get(), .name = par.name.c_str()}, par.dir.get(), par.name.c_str());
  if (out == -ENOSYS) return false;
  *r = out;
  return true;
}

int64_t CallOps::xattr(const XattrTarget& t, int value_fd, const char* below) {
  const XattrOp op = xattr_op(e.nr);
  const std::string attr(op == XattrOp::kList ? std::string_view() : str(1));
  const size_t n = op == XattrOp::kRemove ? 0 : bytes(op == XattrOp::kList ? 2 : 3);
  void* buf = op == XattrOp::kSet    ? const_cast<void*>(xattr_value(attr, n, value_fd, below))
              : op == XattrOp::kRemove ? nullptr
                                       : c.scratch.read_area(n);
  const int flags = op == XattrOp::kSet ? static_cast<int>(c.a(4)) : 0;
  return the_call([&] { return xattr_call(op, t, attr.c_str(), buf, n, flags); });
}

}  // namespace rastro::replay

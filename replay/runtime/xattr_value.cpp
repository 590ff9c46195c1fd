#include "replay/runtime/xattr_value.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace rastro::replay {
namespace {

// include/uapi/linux/posix_acl_xattr.h and posix_acl.h (not installed as user headers everywhere).
constexpr uint32_t kAclVersion = 2;
constexpr uint16_t kUserObj = 0x01, kUser = 0x02, kGroupObj = 0x04, kMask = 0x10, kOther = 0x20;
constexpr uint32_t kUndefinedId = 0xffffffffu;
constexpr size_t kHeader = 4, kEntry = 8;

void put_le(unsigned char* p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

}  // namespace

XattrOp xattr_op(long nr) {
  switch (nr) {
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr: return XattrOp::kSet;
    case SYS_getxattr:
    case SYS_lgetxattr:
    case SYS_fgetxattr: return XattrOp::kGet;
    case SYS_listxattr:
    case SYS_llistxattr:
    case SYS_flistxattr: return XattrOp::kList;
    default: return XattrOp::kRemove;
  }
}

namespace {

int64_t xattr_at(XattrOp op, int dirfd, const char* name, const char* attr, void* buf, size_t n, int flags) {
  // x86-64 numbers (the build's kernel headers may predate them) and struct xattr_args.
  constexpr long kSetxattrat = 463, kGetxattrat = 464, kListxattrat = 465, kRemovexattrat = 466;
  struct XattrArgs {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
  } args{reinterpret_cast<uintptr_t>(buf), static_cast<uint32_t>(n), static_cast<uint32_t>(flags)};
  switch (op) {
    case XattrOp::kSet: return ::syscall(kSetxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, attr, &args, sizeof args);
    case XattrOp::kGet: return ::syscall(kGetxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, attr, &args, sizeof args);
    case XattrOp::kList: return ::syscall(kListxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, buf, n);
    case XattrOp::kRemove: break;
  }
  return ::syscall(kRemovexattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, attr);
}

int64_t xattr_on(XattrOp op, const XattrTarget& t, const char* attr, void* buf, size_t n, int flags) {
  if (t.name != nullptr) return xattr_at(op, t.dirfd, t.name, attr, buf, n, flags);
  if (t.path != nullptr) {
    switch (op) {
      case XattrOp::kSet: return ::setxattr(t.path, attr, buf, n, flags);
      case XattrOp::kGet: return ::getxattr(t.path, attr, buf, n);
      case XattrOp::kList: return ::listxattr(t.path, static_cast<char*>(buf), n);
      case XattrOp::kRemove: break;
    }
    return ::removexattr(t.path, attr);
  }
  switch (op) {
    case XattrOp::kSet: return ::fsetxattr(t.fd, attr, buf, n, flags);
    case XattrOp::kGet: return ::fgetxattr(t.fd, attr, buf, n);
    case XattrOp::kList: return ::flistxattr(t.fd, static_cast<char*>(buf), n);
    case XattrOp::kRemove: break;
  }
  return ::fremovexattr(t.fd, attr);
}

}  // namespace

int64_t xattr_call(XattrOp op, const XattrTarget& t, const char* attr, void* buf, size_t n, int flags) {
  const int64_t r = xattr_on(op, t, attr, buf, n, flags);
  return r < 0 ? -static_cast<int64_t>(errno) : r;
}

bool is_posix_acl_xattr(std::string_view name) {
  return name == "system.posix_acl_access" || name == "system.posix_acl_default";
}

bool posix_acl_value(size_t n, mode_t mode, unsigned char* out) {
  if (n < kHeader + 3 * kEntry || (n - kHeader) % kEntry != 0) return false;
  const size_t entries = (n - kHeader) / kEntry;
  // The kernel wants the entries sorted by tag, then id; named ones need a mask. 4 entries: the
  // mask alone (valid, and what `setfacl -m m::rx` leaves).
  const size_t named = entries > 4 ? entries - 4 : 0;
  const uint16_t user = (mode >> 6) & 7, group = (mode >> 3) & 7, other = mode & 7;
  put_le(out, kAclVersion, 4);
  unsigned char* p = out + kHeader;
  auto entry = [&](uint16_t tag, uint16_t perm, uint32_t id) {
    put_le(p, tag, 2);
    put_le(p + 2, perm, 2);
    put_le(p + 4, id, 4);
    p += kEntry;
  };
  entry(kUserObj, user, kUndefinedId);
  for (size_t i = 0; i < named; ++i) entry(kUser, group, static_cast<uint32_t>(i));
  entry(kGroupObj, group, kUndefinedId);
  if (entries > 3) entry(kMask, group, kUndefinedId);
  entry(kOther, other, kUndefinedId);
  return true;
}

}  // namespace rastro::replay

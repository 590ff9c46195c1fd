// The value a replayed setxattr writes. The trace keeps only its size: most names take any bytes,
// but the kernel parses a POSIX ACL (system.posix_acl_access / system.posix_acl_default) and
// refuses what is not one (EOPNOTSUPP for a wrong version, EINVAL for a bad entry) — and `cp -a`,
// `rsync -A` and `tar --acls` copy them. For those names the value is a valid ACL of the traced
// size: owner, group and others with the object's own mode bits (so setting it leaves the mode as
// it is), and, for each 8 bytes more, a named user (ids 0, 1, ...) and then a mask.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rastro::replay {

// Whether `name` is one of the POSIX ACL attributes the kernel parses.
bool is_posix_acl_xattr(std::string_view name);

// What a replayed xattr call does, whichever of its forms the trace shows.
enum class XattrOp { kSet, kGet, kList, kRemove };
// The operation of an xattr syscall number (set/get/list/remove, with or without l- or f-).
XattrOp xattr_op(long nr);

// Where a replayed xattr call acts: an open fd (the f- calls), a path (the O_PATH fd's
// /proc/thread-self/fd route, following a last link), or a name relative to a directory fd. The
// last uses the *xattrat calls (Linux 6.13), never following a final symlink
// (AT_SYMLINK_NOFOLLOW), so a path xattr call walks one name, as the traced call walked its path,
// instead of /proc's magic link (2.6 times a direct getxattr here); -ENOSYS on an older kernel.
struct XattrTarget {
  int fd = -1;
  const char* path = nullptr;
  int dirfd = -1;
  const char* name = nullptr;
};

// The call: `value`/`n`/`flags` for kSet, `buf`/`n` for kGet and kList (attr unused by kList);
// the result, or -errno.
int64_t xattr_call(XattrOp op, const XattrTarget& t, const char* attr, void* buf, size_t n, int flags);

// Writes a valid POSIX ACL of `n` bytes (4 + 8 per entry, at least 3 entries) for an object of
// mode `mode` into `out`; false (nothing written) when no ACL has that size.
bool posix_acl_value(size_t n, mode_t mode, unsigned char* out);

}  // namespace rastro::replay

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

// The *xattrat calls (Linux 6.13) on `name` relative to the directory `dirfd`, never following a
// final symlink (AT_SYMLINK_NOFOLLOW); -errno on failure, -ENOSYS on an older kernel. `op`: 's'
// set (value, n, flags), 'g' get (buf, n), 'l' list (buf, n), 'r' remove. They let a replayed
// path xattr call walk one name, as the traced call walked its path, instead of the
// /proc/thread-self/fd magic link (2.6 times a direct getxattr here).
int64_t xattr_at(char op, int dirfd, const char* name, const char* attr, void* buf, size_t n, int flags);

// Writes a valid POSIX ACL of `n` bytes (4 + 8 per entry, at least 3 entries) for an object of
// mode `mode` into `out`; false (nothing written) when no ACL has that size.
bool posix_acl_value(size_t n, mode_t mode, unsigned char* out);

}  // namespace rastro::replay

// AT_FDCWD as traces store it (Linux UAPI <linux/fcntl.h>: -100), for code that reads dirfd
// arguments without including <fcntl.h>. The one definition.
#pragma once

namespace rastro {

inline constexpr int kAtFdCwd = -100;

}  // namespace rastro

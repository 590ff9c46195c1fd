// Capture procedure (thesis §5.1.2): sync, then drop the page, dentry and inode caches so a capture
// starts from cold caches.
#pragma once

#include "common/error.h"

namespace rastro::capture {

// sync() + "3" > /proc/sys/vm/drop_caches. Fails (naming the file and errno) e.g. without root.
Result<bool> drop_caches();

}  // namespace rastro::capture

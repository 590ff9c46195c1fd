// Cold-cache procedure (thesis §5.1.2) shared by capture and replay: sync, then drop the page,
// dentry and inode caches. The one copy; its failure is reported, never ignored.
#pragma once

#include "common/error.h"

namespace rastro {

// sync() + "3" > /proc/sys/vm/drop_caches. Fails (naming the file and errno) e.g. without root.
Result<bool> drop_caches();

}  // namespace rastro

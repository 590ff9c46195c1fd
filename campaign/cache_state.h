// The cache state of a run, an explicit factor of the campaign design (docs/campaign.md):
// "cold" drops the page/dentry/inode caches after the files are laid out, "warm" reads every laid
// out file once so that the run finds its data cached.
#pragma once

#include <cstdint>
#include <string>

#include "common/error.h"

namespace rastro::campaign {

// Reads every regular file under `dir` (recursively) to its end; returns the bytes read, or an
// error naming the file that could not be read.
Result<uint64_t> warm_files(const std::string& dir);

}  // namespace rastro::campaign

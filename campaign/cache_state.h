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

// Pages of the regular files under `dir` (recursively) and how many of them are in the page cache,
// as mincore(2) reports them.
struct ResidentPages {
  uint64_t resident = 0;
  uint64_t total = 0;
};
Result<ResidentPages> resident_pages(const std::string& dir);

// A warm run is in its cell's state only if its files stayed cached while it ran: something else
// dropping the caches (another process writing /proc/sys/vm/drop_caches) or memory pressure during
// the run sends its requests to the disk, and its measurement to the wrong cell. Checked after the
// run; returns the reason the run is not warm, or an empty string.
Result<std::string> warm_state_lost(const std::string& dir);

}  // namespace rastro::campaign

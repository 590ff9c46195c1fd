// Capture procedure (thesis §5.1.2): store the trace on a different file system than the one being
// traced, so the instrument's own writes do not disturb the measurand.
#pragma once

#include <string>
#include <vector>

namespace rastro::capture {

// A warning when the trace output `trace_path` lives on the same file system (st_dev) as the
// current directory or one of `traced_paths` (e.g. the command's arguments that exist);
// "" when they differ or cannot be checked.
std::string same_fs_warning(const std::string& trace_path, const std::vector<std::string>& traced_paths);

}  // namespace rastro::capture

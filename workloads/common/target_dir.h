// Checks on the directory a workload writes into, done before any work starts (issue 4 "bad
// input"): it must be (made) a writable directory with room for the files.
#pragma once

#include <cstdint>
#include <string>

namespace rastro::workloads {

// Creates `dir` (and missing parents) if needed, checks it is a directory we can create files
// in (a probe file, so read-only mounts and permissions are caught even as root), and returns its
// absolute path. Throws rastro::Error naming the directory and the reason.
std::string prepare_target_dir(const std::string& dir);

// Throws rastro::Error unless the file system of `dir` has `bytes` available to us (statvfs
// f_bavail), saying how much is needed for `what` and how much is free.
void require_free_space(const std::string& dir, uint64_t bytes, const std::string& what);

}  // namespace rastro::workloads

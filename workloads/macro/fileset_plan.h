// The file set of the fileserver personality, decided before anything touches the disk and
// deterministic given the seed: every entry's path, planned size (gamma distributed) and whether
// the prepare step creates it (prealloc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/macro/fileserver_options.h"

namespace rastro::workloads {

struct FileEntry {
  std::string path;
  uint64_t size = 0;   // bytes written by createfile/writewholefile (and by the prepare step)
  uint32_t dir = 0;    // index into FilesetPlan::dirs
  bool prealloc = false;
};

struct FilesetPlan {
  std::string root;               // <dir>/rastro-fileserver
  std::vector<std::string> dirs;  // leaf directories, dirwidth files each
  std::vector<FileEntry> files;
};

// Sizes: std::gamma_distribution<double>(shape = gamma, scale = mean_size / gamma) driven by
// std::mt19937_64(seed), rounded to whole bytes; prealloc: a bernoulli(prealloc%) draw per entry
// from the same engine, after all sizes.
FilesetPlan plan_fileset(const FileserverOptions& o, const std::string& abs_dir);

// Total planned bytes (for the free-space check).
uint64_t planned_bytes(const FilesetPlan& plan);

}  // namespace rastro::workloads

#include "workloads/macro/fileset_plan.h"

#include <cmath>
#include <random>

#include <fmt/format.h>

namespace rastro::workloads {

FilesetPlan plan_fileset(const FileserverOptions& o, const std::string& abs_dir) {
  FilesetPlan p;
  p.root = abs_dir + "/rastro-fileserver";
  const uint64_t ndirs = (o.files + static_cast<uint64_t>(o.dirwidth) - 1) / static_cast<uint64_t>(o.dirwidth);
  for (uint64_t d = 0; d < ndirs; ++d) p.dirs.push_back(fmt::format("{}/d{:05}", p.root, d));
  std::mt19937_64 rng(o.seed);
  std::gamma_distribution<double> size_dist(o.gamma, o.mean_size / o.gamma);
  p.files.resize(o.files);
  for (uint64_t i = 0; i < o.files; ++i) {
    FileEntry& f = p.files[i];
    f.dir = static_cast<uint32_t>(i / static_cast<uint64_t>(o.dirwidth));
    f.path = fmt::format("{}/f{:07}", p.dirs[f.dir], i);
    f.size = static_cast<uint64_t>(std::llround(size_dist(rng)));
  }
  std::bernoulli_distribution pre(o.prealloc_percent / 100.0);
  for (auto& f : p.files) f.prealloc = pre(rng);
  return p;
}

uint64_t planned_bytes(const FilesetPlan& plan) {
  uint64_t total = 0;
  for (const auto& f : plan.files) total += f.size;
  return total;
}

}  // namespace rastro::workloads

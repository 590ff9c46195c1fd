#include "workloads/macro/fileset_state.h"

namespace rastro::workloads {

FilesetState::FilesetState(const FilesetPlan& plan)
    : plan_(plan), size_(plan.files.size(), 0), pos_(plan.files.size(), 0), dirs_(plan.dirs.size(), Dir::kAbsent) {
  for (uint32_t i = 0; i < plan.files.size(); ++i) {
    const FileEntry& f = plan.files[i];
    if (f.prealloc) {
      size_[i] = f.size;
      dirs_[f.dir] = Dir::kExists;
      add(existing_, i);
    } else {
      add(absent_, i);
    }
  }
}

void FilesetState::add(std::vector<uint32_t>& set, uint32_t file) {
  pos_[file] = static_cast<uint32_t>(set.size());
  set.push_back(file);
}

void FilesetState::remove(std::vector<uint32_t>& set, uint32_t file) {
  const uint32_t at = pos_[file];
  const uint32_t last = set.back();
  set[at] = last;
  pos_[last] = at;
  set.pop_back();
}

std::optional<FilesetState::Pick> FilesetState::pick_absent(std::mt19937_64& rng) {
  std::lock_guard lock(mu_);
  // An entry whose directory another thread is creating right now is not usable yet.
  for (int attempt = 0; attempt < 16 && !absent_.empty(); ++attempt) {
    const uint32_t file = absent_[rng() % absent_.size()];
    const uint32_t dir = plan_.files[file].dir;
    if (dirs_[dir] == Dir::kCreating) continue;
    Pick p{file, 0, dirs_[dir] == Dir::kAbsent};
    if (p.make_dir) dirs_[dir] = Dir::kCreating;
    remove(absent_, file);
    return p;
  }
  return std::nullopt;
}

std::optional<FilesetState::Pick> FilesetState::pick_existing(std::mt19937_64& rng) {
  std::lock_guard lock(mu_);
  if (existing_.empty()) return std::nullopt;
  const uint32_t file = existing_[rng() % existing_.size()];
  remove(existing_, file);
  return Pick{file, size_[file], false};
}

void FilesetState::release(uint32_t file, bool exists, uint64_t size, bool dir_made) {
  std::lock_guard lock(mu_);
  Dir& d = dirs_[plan_.files[file].dir];
  if (d == Dir::kCreating) d = dir_made ? Dir::kExists : Dir::kAbsent;
  size_[file] = exists ? size : 0;
  add(exists ? existing_ : absent_, file);
}

}  // namespace rastro::workloads

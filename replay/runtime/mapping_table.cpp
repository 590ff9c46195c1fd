#include "replay/runtime/mapping_table.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <cerrno>
#include <mutex>
#include <vector>

#include "common/page_size.h"

namespace rastro::replay {

namespace {

// Reads, or writes one pattern byte at, `addr` of this process without risking SIGBUS.
int64_t touch_byte(uint64_t addr, bool write, uint64_t pattern_seed) {
  char byte = static_cast<char>('a' + pattern_seed % 26);
  iovec local{&byte, 1};
  iovec remote{reinterpret_cast<void*>(addr), 1};
  const ssize_t n = write ? ::process_vm_writev(::getpid(), &local, 1, &remote, 1, 0)
                          : ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
  return n == 1 ? 0 : n < 0 ? -errno : -EFAULT;
}

}  // namespace

MappingTable::~MappingTable() { clear(); }

void MappingTable::clear() {
  std::unique_lock lock(mu_);
  for (auto& [traced, p] : pieces_) ::munmap(reinterpret_cast<void*>(p.replay), p.length);
  for (auto& [path, p] : files_) ::munmap(reinterpret_cast<void*>(p.replay), p.length);
  pieces_.clear();
  files_.clear();
  inherited_.clear();
}

void MappingTable::inherit(const MappingTable& parent) {
  std::map<uint64_t, uint64_t> ranges;
  {
    std::shared_lock lock(parent.mu_);
    ranges = parent.inherited_;
    for (const auto& [traced, p] : parent.pieces_) ranges[traced] = traced + p.length;  // (disjoint from those)
  }
  std::unique_lock lock(mu_);
  inherited_ = std::move(ranges);
}

bool MappingTable::inherited(uint64_t traced, uint64_t length) const {
  const uint64_t end = traced + length;
  std::shared_lock lock(mu_);
  auto it = inherited_.upper_bound(traced);
  if (it != inherited_.begin() && std::prev(it)->second > traced) return true;
  return it != inherited_.end() && it->first < end;
}

bool MappingTable::forget_inherited(uint64_t start, uint64_t end) {
  auto it = inherited_.upper_bound(start);
  if (it != inherited_.begin()) --it;
  bool overlaps = false;
  std::vector<std::pair<uint64_t, uint64_t>> kept;
  while (it != inherited_.end() && it->first < end) {
    const uint64_t rs = it->first, re = it->second;
    if (re <= start) {
      ++it;
      continue;
    }
    overlaps = true;
    if (rs < start) kept.emplace_back(rs, start);
    if (re > end) kept.emplace_back(end, re);
    it = inherited_.erase(it);
  }
  for (const auto& [s, e] : kept) inherited_[s] = e;
  return overlaps;
}

uint64_t MappingTable::cut(uint64_t start, uint64_t end) {
  uint64_t removed = 0;
  auto it = pieces_.upper_bound(start);
  if (it != pieces_.begin()) --it;
  std::vector<std::pair<uint64_t, Piece>> kept;
  while (it != pieces_.end() && it->first < end) {
    const uint64_t ps = it->first, pe = ps + it->second.length, r = it->second.replay;
    if (pe <= start) {
      ++it;
      continue;
    }
    const uint64_t os = std::max(ps, start), oe = std::min(pe, end);
    ::munmap(reinterpret_cast<void*>(r + (os - ps)), oe - os);
    removed += oe - os;
    if (os > ps) kept.push_back({ps, {r, os - ps}});
    if (pe > oe) kept.push_back({oe, {r + (oe - ps), pe - oe}});
    it = pieces_.erase(it);
  }
  for (auto& [s, p] : kept) pieces_[s] = p;
  return removed;
}

void MappingTable::add(uint64_t traced, uint64_t replay, uint64_t length) {
  length = page_round_up(length);
  std::unique_lock lock(mu_);
  cut(traced, traced + length);
  forget_inherited(traced, traced + length);  // the child's own mapping replaces its copy
  pieces_[traced] = {replay, length};
}

bool MappingTable::map_over(uint64_t traced, uint64_t length, const std::function<int64_t(uint64_t)>& op,
                            int64_t* result) {
  length = page_round_up(length);
  std::unique_lock lock(mu_);
  auto it = pieces_.upper_bound(traced);
  if (it == pieces_.begin()) return false;
  --it;
  const uint64_t ps = it->first, pe = ps + it->second.length, end = traced + length;
  if (length == 0 || end < traced || end > pe) return false;
  const Piece old = it->second;
  const uint64_t at = old.replay + (traced - ps);
  *result = op(at);
  // (A failed MAP_FIXED may have unmapped part of the range: the table keeps it, and a later
  // touch of a page that is gone gives EFAULT, never SIGBUS.)
  if (*result < 0) return true;
  pieces_.erase(it);
  if (traced > ps) pieces_[ps] = {old.replay, traced - ps};
  pieces_[traced] = {static_cast<uint64_t>(*result), length};
  if (pe > end) pieces_[end] = {old.replay + (end - ps), pe - end};
  return true;
}

uint64_t MappingTable::remove(uint64_t traced, uint64_t length, bool* inherited) {
  const uint64_t end = traced + page_round_up(length);
  std::unique_lock lock(mu_);
  const bool was_inherited = forget_inherited(traced, end);
  if (inherited) *inherited = was_inherited;
  return cut(traced, end);
}

int64_t MappingTable::apply(uint64_t traced, uint64_t length, const std::function<int64_t(uint64_t, uint64_t)>& op,
                            uint64_t* covered) const {
  const uint64_t start = traced, end = traced + page_round_up(length);
  std::shared_lock lock(mu_);
  *covered = 0;
  auto it = pieces_.upper_bound(start);
  if (it != pieces_.begin()) --it;
  for (; it != pieces_.end() && it->first < end; ++it) {
    const uint64_t ps = it->first, pe = ps + it->second.length;
    if (pe <= start) continue;
    const uint64_t os = std::max(ps, start), oe = std::min(pe, end);
    *covered += oe - os;
    const int64_t r = op(it->second.replay + (os - ps), oe - os);
    if (r < 0) return r;
  }
  return 0;
}

int64_t MappingTable::remap(uint64_t traced, uint64_t old_length, uint64_t new_traced, uint64_t new_length,
                            const std::function<int64_t(uint64_t, uint64_t)>& op) {
  old_length = page_round_up(old_length);
  std::unique_lock lock(mu_);
  auto it = pieces_.find(traced);
  if (it == pieces_.end() || it->second.length < old_length) return -ENOENT;
  const Piece p = it->second;
  const int64_t moved = op(p.replay, old_length);
  if (moved < 0) return moved;
  // The old range is the kernel's to have moved: forget it without unmapping.
  pieces_.erase(it);
  if (p.length > old_length) pieces_[traced + old_length] = {p.replay + old_length, p.length - old_length};
  new_length = page_round_up(new_length);
  cut(new_traced, new_traced + new_length);
  pieces_[new_traced] = {static_cast<uint64_t>(moved), new_length};
  return moved;
}

int64_t MappingTable::touch(uint64_t traced, bool write) const {
  std::shared_lock lock(mu_);
  auto it = pieces_.upper_bound(traced);
  if (it == pieces_.begin()) return -ENOENT;
  --it;
  if (traced >= it->first + it->second.length) return -ENOENT;
  return touch_byte(it->second.replay + (traced - it->first), write, traced);
}

int64_t MappingTable::touch_file(const std::string& path, uint64_t offset, bool write,
                                 const std::function<int64_t(uint64_t* length)>& map_file) {
  {
    std::shared_lock lock(mu_);
    auto it = files_.find(path);
    if (it != files_.end())
      return offset < it->second.length ? touch_byte(it->second.replay + offset, write, offset) : -EFAULT;
  }
  std::unique_lock lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) {
    uint64_t length = 0;
    const int64_t at = map_file(&length);
    if (at < 0) return at;
    it = files_.emplace(path, Piece{static_cast<uint64_t>(at), length}).first;
  }
  return offset < it->second.length ? touch_byte(it->second.replay + offset, write, offset) : -EFAULT;
}

uint64_t MappingTable::mapped_bytes() const {
  std::shared_lock lock(mu_);
  uint64_t n = 0;
  for (auto& [traced, p] : pieces_) n += p.length;
  return n;
}

}  // namespace rastro::replay

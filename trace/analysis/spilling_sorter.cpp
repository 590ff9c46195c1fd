#include "trace/analysis/spilling_sorter.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::trace {
namespace {

constexpr size_t kRunBuffer = 8192;  // values read at a time from each spilled run

}  // namespace

SpillingSorter::SpillingSorter(size_t memory_values) : memory_values_(std::max<size_t>(memory_values, 1)) {}

SpillingSorter::~SpillingSorter() {
  if (file_) std::fclose(file_);
}

void SpillingSorter::add(int64_t v) {
  values_.push_back(v);
  if (values_.size() >= memory_values_) spill();
}

void SpillingSorter::spill() {
  if (!file_) {
    file_ = std::tmpfile();
    if (!file_) throw Error(fmt::format("cannot create a temporary file to sort in: {}", std::strerror(errno)));
  }
  std::sort(values_.begin(), values_.end());
  if (std::fseek(file_, static_cast<long>(file_values_ * sizeof(int64_t)), SEEK_SET) != 0 ||
      std::fwrite(values_.data(), sizeof(int64_t), values_.size(), file_) != values_.size())
    throw Error(fmt::format("cannot write a temporary sort file: {}", std::strerror(errno)));
  runs_.push_back(Run{file_values_, values_.size(), {}, 0});
  file_values_ += values_.size();
  values_.clear();
}

void SpillingSorter::start_reading() {
  if (runs_.empty()) {
    std::sort(values_.begin(), values_.end());
    return;
  }
  if (!values_.empty()) spill();
  values_ = {};
  if (std::fflush(file_) != 0) throw Error(fmt::format("cannot write a temporary sort file: {}", std::strerror(errno)));
  for (size_t i = 0; i < runs_.size(); ++i) push_head(i);
}

bool SpillingSorter::refill(Run& r) {
  if (r.left == 0) return false;
  size_t n = static_cast<size_t>(std::min<uint64_t>(r.left, kRunBuffer));
  r.buf.resize(n);
  if (std::fseek(file_, static_cast<long>(r.offset * sizeof(int64_t)), SEEK_SET) != 0 ||
      std::fread(r.buf.data(), sizeof(int64_t), n, file_) != n)
    throw Error(fmt::format("cannot read a temporary sort file: {}", std::strerror(errno)));
  r.offset += n;
  r.left -= n;
  r.pos = 0;
  return true;
}

void SpillingSorter::push_head(size_t run) {
  Run& r = runs_[run];
  if (r.pos == r.buf.size() && !refill(r)) return;
  heap_.emplace_back(r.buf[r.pos], run);
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
}

bool SpillingSorter::peek(int64_t* v) {
  if (runs_.empty()) {
    if (pos_ >= values_.size()) return false;
    *v = values_[pos_];
    return true;
  }
  if (heap_.empty()) return false;
  *v = heap_.front().first;
  return true;
}

bool SpillingSorter::next(int64_t* v) {
  if (runs_.empty()) {
    if (pos_ >= values_.size()) return false;
    *v = values_[pos_++];
    return true;
  }
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
  auto [value, run] = heap_.back();
  heap_.pop_back();
  *v = value;
  ++runs_[run].pos;
  push_head(run);
  return true;
}

}  // namespace rastro::trace

// Sorting more integers than memory should hold: values are gathered in a buffer of
// `memory_values`; each full buffer is sorted and spilled as a run to an anonymous temporary file
// (tmpfile(3), in $TMPDIR or /tmp, gone when closed), and reading merges the runs. Memory stays
// about memory_values plus a small read buffer per run, whatever the count; nothing touches the
// disk while everything fits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace rastro::trace {

class SpillingSorter {
 public:
  explicit SpillingSorter(size_t memory_values = size_t{1} << 21);
  ~SpillingSorter();
  SpillingSorter(const SpillingSorter&) = delete;
  SpillingSorter& operator=(const SpillingSorter&) = delete;

  void add(int64_t v);
  // Ends adding and starts reading in ascending order. Throws rastro::Error when a spill file
  // cannot be written or read.
  void start_reading();
  // The next value in ascending order; false after the last one.
  bool next(int64_t* v);
  // The next value without consuming it.
  bool peek(int64_t* v);
  uint64_t spilled_runs() const { return runs_.size(); }

 private:
  struct Run {
    uint64_t offset = 0;  // in values, in file_
    uint64_t left = 0;    // values not yet read into buf
    std::vector<int64_t> buf;
    size_t pos = 0;
  };
  void spill();
  bool refill(Run& r);
  // Puts run `run`'s next value on the merge heap (if it has one).
  void push_head(size_t run);

  size_t memory_values_;
  std::vector<int64_t> values_;
  size_t pos_ = 0;  // reading values_ when there are no runs
  std::FILE* file_ = nullptr;
  uint64_t file_values_ = 0;
  std::vector<Run> runs_;
  std::vector<std::pair<int64_t, size_t>> heap_;  // (head value, run), smallest first
};

}  // namespace rastro::trace

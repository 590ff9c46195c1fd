// The events of a plan's trace, packed (issue #16: infer and replay a 100 M-event trace in memory).
// A trace::Event is 224 bytes; most of it is zero or implied by the syscall table. Here each event
// is one variable-length record of varints (~20-30 bytes) in a chunked byte arena, and
// operator[] decodes it back into a trace::Event, equal to the one pushed (round trip exact, the
// rare fields included), so `const trace::Event& e = events[i]` reads as it did on a vector.
//
// A record: a presence mask; the thread (index into a (pid, tid) table); begin as a delta from its
// group's first begin; end - begin; nr; rvalue; seq when it is not the event's index, the unknown
// syscall's name and flags when the mask says so (the fixed fields end here: fields() reads no
// further); argument types when they differ from the syscall table's; the argument strings present
// (mask); each argument's value and string; then the replay, off-CPU and io_uring fields when
// present. Records never straddle a chunk, and are found by a 2-byte offset from their group of
// kGroup events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/model/event.h"

namespace rastro::replay {

class CompactEvents {
 public:
  CompactEvents() = default;
  CompactEvents(CompactEvents&&) noexcept = default;
  CompactEvents& operator=(CompactEvents&&) noexcept = default;
  CompactEvents(const CompactEvents& o);
  CompactEvents& operator=(const CompactEvents& o);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void reserve(size_t n);
  void push_back(const trace::Event& e);
  void clear() { *this = CompactEvents{}; }

  trace::Event operator[](size_t i) const;
  trace::Event front() const { return (*this)[0]; }
  trace::Event back() const { return (*this)[size_ - 1]; }
  // Without decoding the whole record (sorting by begin reads only this).
  int64_t begin_ns(size_t i) const;

  // The fixed fields of an event, read without building a trace::Event or storing its
  // arguments: the passes' whole-trace walks need only these for most events.
  struct Fields {
    int32_t pid = 0;
    int32_t tid = 0;
    int32_t nr = 0;
    uint32_t flags = 0;
    int64_t begin_ns = 0;
    int64_t end_ns = 0;
    int64_t rvalue = 0;
    bool failed() const { return rvalue < 0 && rvalue >= -4095; }  // as trace::Event::failed
  };
  Fields fields(size_t i) const;

  // Decodes events into one reused trace::Event: what a pass's walk over every event uses,
  // saving the construction of a 224-byte Event per event that operator[] pays. The reference
  // holds event i until the next call (so one Reader per event in use at a time).
  class Reader {
   public:
    explicit Reader(const CompactEvents& events) : events_(&events) {}
    const trace::Event& operator()(size_t i);

   private:
    const CompactEvents* events_;
    trace::Event e_;
    int args_set_ = 0;  // e_.args[0, args_set_) may hold the previous event's arguments
  };

  // The union of every event's flags: a pass looking for rare events (io_uring) that none has
  // need not read any.
  uint32_t flags_union() const { return flags_union_; }

  // Bytes held (arena chunks, offsets, group and thread tables), for the scale measurements.
  size_t memory_bytes() const;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = trace::Event;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = trace::Event;
    Iterator(const CompactEvents* ev, size_t i) : ev_(ev), i_(i) {}
    trace::Event operator*() const { return (*ev_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const CompactEvents* ev_;
    size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size_}; }

 private:
  static constexpr size_t kGroup = 64;              // events per group (one offset + begin base)
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  const uint8_t* record(size_t i) const;
  // Decodes record i's fixed fields into `f` and, when `full` is set, its arguments and rare
  // fields into *full (the fixed fields of *full are left to the caller). Every field of *full
  // but args[m, kMaxArgs) is written; returns m, the arguments written.
  int decode(size_t i, Fields& f, trace::Event* full) const;

  std::vector<std::unique_ptr<uint8_t[]>> chunks_;
  size_t used_ = 0;                      // bytes used in the last chunk
  std::vector<uint64_t> group_offset_;   // arena offset (chunk << 20 | pos) of the group's first record
  std::vector<int64_t> group_begin_;     // begin_ns of the group's first event
  std::vector<uint16_t> offset_in_group_;  // per event: its record's offset from its group's first
  std::vector<std::pair<int32_t, int32_t>> threads_;  // (pid, tid) by thread index
  std::unordered_map<uint64_t, uint32_t> thread_index_;
  size_t size_ = 0;
  uint32_t flags_union_ = 0;
  std::string scratch_;  // one record being encoded
};

}  // namespace rastro::replay

// Events parked on disk while their producer cannot emit them yet (the strace importer waiting to
// learn which process a thread belongs to, or sorting -ff files by completion time). Runs of
// events go to an anonymous temporary file (tmpfile(3), in /tmp; gone when closed) in the binary
// format's event columns (tens of bytes per event instead of ~260 in memory), and are read back
// run by run in chunks of kSpillChunkEvents, so memory stays one chunk per run being read,
// whatever the number of events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "trace/formats/binary/event_columns.h"
#include "trace/model/event.h"

namespace rastro::trace {

inline constexpr size_t kSpillChunkEvents = 256;

class EventSpill {
 public:
  EventSpill() = default;
  ~EventSpill();
  EventSpill(const EventSpill&) = delete;
  EventSpill& operator=(const EventSpill&) = delete;

  // Appends `events` as a new run, kept in this order; returns its index. Throws rastro::Error
  // when the temporary file cannot be created or written.
  size_t add_run(std::span<const Event> events);
  size_t runs() const { return runs_.size(); }
  uint64_t events() const { return events_; }  // in all runs
  // The next events of run `run` in order, as a view valid until the next call for that run;
  // false once the run is used up. Throws rastro::Error when the file cannot be read back.
  bool next(size_t run, std::span<const Event>* out);
  // Forgets every run and empties the file.
  void clear();

 private:
  struct Run {
    uint64_t offset = 0;  // of its next chunk in the file
    uint64_t end = 0;
    std::vector<Event> buf;
    std::string raw;
  };
  void read_at(uint64_t offset, void* buf, size_t n);

  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;  // bytes written
  uint64_t events_ = 0;
  std::vector<Run> runs_;
  binary::EventColumnEncoder encoder_;
  binary::EventColumnDecoder decoder_;
  std::string raw_, out_;
};

}  // namespace rastro::trace

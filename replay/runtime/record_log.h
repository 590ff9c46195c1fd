// What the replay made of each request (its RequestRecord), kept compact while the replay runs
// (issue #16: a 40-byte record per request was the largest per-request cost of a replay).
//
// A plan thread's requests complete in program order — thread order is always a dependency, in
// every engine, whichever OS thread runs them — so each plan thread appends its records, in that
// order, to a byte stream of its own: no lock, no system call, written by the thread that just
// ran the request. A record is a header varint (flags, emulated, skip reason present, completed
// later), the skip reason when there is one, then zigzag varints of the planned time as a delta
// from the thread's previous end, the begin as a delta from the planned time (the issue error),
// the duration and the rvalue: 6-10 bytes a request. Every value round-trips exactly (deltas wrap
// as unsigned 64-bit numbers). The streams grow in chunks of their own (256 B doubling up to
// 64 KiB: a thread with few requests keeps little; nothing is ever copied).
//
// An io_uring request submitted to a ring completes only after its thread went on
// (exec_uring.h): it is logged with its provisional record, flagged "completes later", and
// UringReplay::finish() supplies its completion (complete_late), which reading merges in.
//
// Reading is in request order r = 0..n-1 (what the summary and the output trace want), with one
// cursor per plan thread: r's thread is requests[r].thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "replay/plan/plan.h"
#include "replay/runtime/call_executor.h"

namespace rastro::replay {

struct RequestRecord {
  int64_t planned_ns = 0;  // CLOCK_MONOTONIC: when the timing policy meant to issue it
  int64_t begin_ns = 0;    // replayer-side begin/end around the call
  int64_t end_ns = 0;
  int64_t rvalue = 0;
  uint32_t flags = 0;      // trace::kEventSkipped / kEventMismatch / kEventUring
  SkipReason skip = SkipReason::kNone;  // why, when skipped (the output trace has no field for it: the
                                        // fidelity report in the summary carries it per syscall)
  bool emulated = false;                // replayed by the replayer itself, not by the kernel
};

// What UringReplay::finish() learns of a ring request after the run (the rest of its record —
// planned time, skip, emulation — is the logged one).
struct LateCompletion {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t rvalue = 0;
  uint32_t flags = 0;
};

class RecordLog {
 public:
  RecordLog() = default;
  // A log for the requests of a plan (which must outlive it): one stream per plan thread.
  explicit RecordLog(std::span<const Request> requests);
  // The records of a whole replay given in request order (hand-made ones, or kernel-timed ones).
  static RecordLog encode(std::span<const Request> requests, std::span<const RequestRecord> records);

  // Appends the next record of plan thread `thread` (its requests in program order). One writer
  // per thread at a time; the engine's completion of the previous request orders the writes.
  void append(uint32_t thread, const RequestRecord& rec, bool completes_later = false) {
    Stream& s = streams_[thread];
    if (static_cast<size_t>(s.end - s.p) < kMaxRecordBytes) new_chunk(s);
    s.p = put(s.p, rec, completes_later, s.prev_end);
    s.prev_end = rec.end_ns;
  }
  // After the run: request r (logged as "completes later") completed so (exec_uring.h).
  void complete_late(uint32_t r, const LateCompletion& c) { late_[r] = c; }

  // Plan thread `thread`'s stream as bytes, and its last record's end (a replay process hands its
  // threads' records to the engine so: EngineOptions::processes, replay_threads.h).
  std::string stream_bytes(uint32_t thread) const;
  int64_t stream_end(uint32_t thread) const { return streams_[thread].prev_end; }
  // Replaces plan thread `thread`'s stream with `bytes` (from stream_bytes) ending at `end_ns`.
  void adopt_stream(uint32_t thread, std::string_view bytes, int64_t end_ns);

  std::span<const Request> requests() const { return requests_; }
  size_t size() const { return requests_.size(); }
  size_t bytes() const;  // held by the streams

  // The records in request order. Every request must have been appended.
  class Reader {
   public:
    explicit Reader(const RecordLog& log);
    RequestRecord next();  // the record of the next request

   private:
    struct Cursor {
      size_t chunk = 0;
      const uint8_t* p = nullptr;
      const uint8_t* end = nullptr;
      int64_t prev_end = 0;
    };
    const RecordLog& log_;
    uint32_t r_ = 0;
    std::vector<Cursor> cursors_;
  };
  // f(uint32_t r, const RequestRecord&) for every request, in request order.
  template <typename F>
  void for_each(F&& f) const {
    Reader rd(*this);
    for (uint32_t r = 0; r < requests_.size(); ++r) f(r, rd.next());
  }
  std::vector<RequestRecord> decode() const;

  // Visible for testing: the longest record (a 5-byte header, the skip reason, 4 varints of 10).
  static constexpr size_t kMaxRecordBytes = 5 + 1 + 4 * 10;

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t used = 0;  // set when the next chunk starts (the last one's end is Stream::p)
  };
  // One cache line each: the streams of different threads are written concurrently.
  struct alignas(64) Stream {
    std::vector<Chunk> chunks;
    uint8_t* p = nullptr;
    uint8_t* end = nullptr;
    size_t capacity = 0;   // of the last chunk
    int64_t prev_end = 0;  // the last record's end: the next one's planned time is a delta from it
  };
  static uint8_t* put(uint8_t* p, const RequestRecord& rec, bool completes_later, int64_t prev_end);
  static void new_chunk(Stream& s);

  std::span<const Request> requests_;
  std::vector<Stream> streams_;
  std::map<uint32_t, LateCompletion> late_;  // only ring requests (exec_uring.h)
};

}  // namespace rastro::replay

// The payload of an events block: every Event field as its own column of zigzag varints,
// delta-coded against the previous event of the same block (docs/format.md, "events block").
// Columns group similar numbers (all begin deltas, all offsets) so zstd compresses them well;
// each block starts from zero state, so a block decodes without the blocks before it (only the
// string table is shared).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/formats/binary/varint.h"
#include "trace/model/event.h"

namespace rastro::trace::binary {

// Columns of a payload: the first kBaseEventColumns always, the later ones (appended since) only
// when a block has a value for them, so traces without those values keep the original layout.
inline constexpr size_t kBaseEventColumns = 15;
inline constexpr size_t kEventColumns = 20;

// What the delta coding of a block refers to: the previous event's seq/pid/tid/begin and, per
// argument slot, the last value of each argument type and the last string id. Encoder and decoder
// keep the same state; every block starts from this zero state.
struct ColumnDeltaState {
  uint64_t seq = static_cast<uint64_t>(-1);
  int32_t pid = 0, tid = 0;
  int64_t begin = 0;
  std::array<std::array<int64_t, static_cast<size_t>(ArgType::kLast) + 1>, kMaxArgs> value{};
  std::array<int64_t, kMaxArgs> str{};
};

class EventColumnEncoder {
 public:
  // Encodes `events` as one raw (uncompressed) events payload into `out` (replaced).
  void encode(std::span<const Event> events, std::string& out);

 private:
  std::string cols_[kEventColumns];
};

// Events a streaming reader decodes at a time: 2 048 x ~260 bytes stay in a core's 1 MiB L2.
inline constexpr size_t kDecodeChunkEvents = 2048;

// Decodes one events payload incrementally, a few events at a time, so that a streaming reader
// can decode into a small buffer that stays in the CPU cache instead of materializing a whole
// block (65 536 events of ~260 bytes: more than the cache holds). start() checks the column
// layout, decode() fills the next events, finish() checks that every column was used up exactly.
// The payload must outlive the decoding.
class EventColumnDecoder {
 public:
  // String ids must be below `nstrings` (the strings known so far). False with `why` when the
  // column lengths do not fit the payload.
  bool start(std::string_view raw, uint32_t count, size_t nstrings, std::string* why);
  // Decodes the next `n` (<= remaining()) events into dst[0..n). The slots may hold events of an
  // earlier call (a reused buffer): every field is overwritten. False with `why` on any
  // inconsistency (then the slots' contents are unspecified).
  bool decode(Event* dst, size_t n, std::string* why);
  uint32_t remaining() const { return count_ - done_; }
  // After the last event: false with `why` when a column is shorter than its events or has
  // trailing bytes.
  bool finish(std::string* why) const;

 private:
  std::array<VarintCursor, kEventColumns> c_;
  size_t ncols_ = 0;
  bool sched_ = false, uring_ = false, gap_ = false;
  size_t nstrings_ = 0;
  uint32_t count_ = 0, done_ = 0;
  ColumnDeltaState s_;
};

// Decodes an events payload of `count` events, appending to `out`. String ids must be below
// `nstrings` (the strings known so far). False with `why` on any inconsistency; `out` is then
// left as it was.
bool decode_event_columns(std::string_view raw, uint32_t count, size_t nstrings,
                          std::vector<Event>& out, std::string* why);

}  // namespace rastro::trace::binary

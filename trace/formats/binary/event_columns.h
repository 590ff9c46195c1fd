// The payload of an events block: every Event field as its own column of zigzag varints,
// delta-coded against the previous event of the same block (docs/format.md, "events block").
// Columns group similar numbers (all begin deltas, all offsets) so zstd compresses them well;
// each block starts from zero state, so a block decodes without the blocks before it (only the
// string table is shared).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/event.h"

namespace rastro::trace::binary {

// Columns of a payload: the first kBaseEventColumns always, the later ones (appended since) only
// when a block has a value for them, so traces without those values keep the original layout.
inline constexpr size_t kBaseEventColumns = 15;
inline constexpr size_t kEventColumns = 19;

class EventColumnEncoder {
 public:
  // Encodes `events` as one raw (uncompressed) events payload into `out` (replaced).
  void encode(std::span<const Event> events, std::string& out);

 private:
  std::string cols_[kEventColumns];
};

// Decodes an events payload of `count` events, appending to `out`. String ids must be below
// `nstrings` (the strings known so far). False with `why` on any inconsistency; `out` is then
// left as it was.
bool decode_event_columns(std::string_view raw, uint32_t count, size_t nstrings,
                          std::vector<Event>& out, std::string* why);

}  // namespace rastro::trace::binary

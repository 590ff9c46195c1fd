// Reader of the native binary format (.rastro, docs/format.md), streaming or whole-trace.
//
// It stops cleanly at the first block that is truncated, fails its checksum or does not decode,
// keeps everything before it, and says in report() which block, at which byte offset, and why.
// A trace without its trailer block (a writer that was killed or is still running) reads with
// header().complete == false.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/formats/binary/block_codec.h"
#include "trace/formats/binary/event_columns.h"
#include "trace/io/trace_io.h"
#include "trace/io/trace_reader.h"
#include "trace/model/trace.h"

namespace rastro::trace::binary {

// True when `prefix` starts like a binary trace (the magic, or a prefix of it when shorter).
bool has_binary_magic(std::string_view prefix);

class BinaryReader final : public TraceReader {
 public:
  // Opens `path` and reads the header block. Throws rastro::Error naming the file when it cannot
  // be opened, is not a binary trace (bad magic) or has an unsupported version.
  explicit BinaryReader(const std::string& path);
  ~BinaryReader() override;
  BinaryReader(const BinaryReader&) = delete;
  BinaryReader& operator=(const BinaryReader&) = delete;

  // The header block's header until the trailer is reached, then the trailer's final one.
  const TraceHeader& header() const override { return header_; }
  // Every string read so far: enough to resolve the StrIds of every event returned so far.
  const StringTable& strings() const override { return strings_; }
  StringTable take_strings() override { return std::move(strings_); }

  // Next event; false at the end of the trace or at the first bad block (see report()).
  bool next(Event* e);
  // Decodes the rest of the current events block (the next one when none is being decoded) and
  // appends its events to `out`; false when there is none. A block that does not decode adds
  // nothing.
  bool next_block(std::vector<Event>* out) override;
  // The next kDecodeChunkEvents events at most, decoded into a buffer reused from call to call (it
  // stays in the CPU cache, which a whole 65 536-event block does not). A block found not to
  // decode part-way ends the trace after the events of it already returned.
  bool next_events(std::span<const Event>* out) override;

  // Events announced by the block headers from the current position on (no payload is read or
  // checked): a size hint for reserving memory, exact for an undamaged file.
  uint64_t count_remaining_events();
  uint64_t remaining_hint() override { return count_remaining_events(); }

  // Final once next()/next_block() returned false.
  const ReadReport& report() const override { return report_; }
  uint64_t events_read() const override { return events_; }

 private:
  bool read_exact(uint64_t offset, void* buf, size_t n, size_t* got);
  // Reads and checks the block at offset_ and moves past it; false (after stop()) at the end.
  bool read_block(BlockHeader* h, std::string_view* raw);
  // The block just read was understood: count it as part of the intact prefix.
  void accept();
  // Ends reading at the current block, recording why.
  void stop(const std::string& why);
  void read_header_block();
  bool read_strings_block(const BlockHeader& h, std::string_view raw);
  // Reads blocks up to the next events block and starts decoding it; false at the end.
  bool open_events_block();
  // The events block being decoded is used up: checks its columns and counts it.
  bool close_events_block();

  std::string path_;
  int fd_ = -1;
  uint64_t offset_ = 0;        // of the next block
  uint64_t block_offset_ = 0;  // of the block being read
  uint64_t block_index_ = 0;
  bool done_ = false;
  bool trailer_ = false;
  TraceHeader header_;
  StringTable strings_;
  ReadReport report_;
  uint64_t events_ = 0;
  BlockDecoder decoder_;
  std::string payload_;
  EventColumnDecoder columns_;  // of the events block being decoded (its payload: payload_ or
  bool in_events_ = false;      // decoder_'s buffer, both untouched until the block is used up)
  std::vector<Event> chunk_;    // next_events()'s reused buffer
  std::span<const Event> view_;  // for next()
  size_t view_pos_ = 0;
};

// Reads the whole trace (its intact prefix when damaged; see BinaryReader).
Trace read_binary_trace(const std::string& path, ReadReport* report = nullptr);

}  // namespace rastro::trace::binary

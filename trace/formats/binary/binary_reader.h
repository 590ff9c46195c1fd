// Reader of the native binary format (.rastro, docs/format.md), streaming or whole-trace.
//
// It stops cleanly at the first block that is truncated, fails its checksum or does not decode,
// keeps everything before it, and says in report() which block, at which byte offset, and why.
// A trace without its trailer block (a writer that was killed or is still running) reads with
// header().complete == false.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/formats/binary/block_codec.h"
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
  // Decodes the next events block and appends its events to `out`; false when there is none.
  bool next_block(std::vector<Event>* out) override;

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
  std::vector<Event> block_;  // for next()
  size_t block_pos_ = 0;
};

// Reads the whole trace (its intact prefix when damaged; see BinaryReader).
Trace read_binary_trace(const std::string& path, ReadReport* report = nullptr);

}  // namespace rastro::trace::binary

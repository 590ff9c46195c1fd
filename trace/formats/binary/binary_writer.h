// Streaming writer of the native binary format (.rastro, docs/format.md).
//
// Events are buffered and written as one block every `events_per_block` events and on flush(),
// each block preceded by the strings interned since the previous block. Blocks go out with
// write(2), so a writer killed at any point (even SIGKILL) leaves a file whose complete blocks
// are readable; only finish() writes the trailer that marks the trace complete.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "trace/formats/binary/block_codec.h"
#include "trace/formats/binary/event_columns.h"
#include "trace/io/trace_passes.h"
#include "trace/io/trace_sink.h"

namespace rastro::trace::binary {

struct BinaryWriterOptions {
  size_t events_per_block = 65536;
  int zstd_level = 3;
};

class BinaryWriter final : public TraceSink {
 public:
  // Creates/truncates `path` and writes the file header and the header block.
  // Throws rastro::Error naming the file when it cannot be created or written.
  BinaryWriter(const std::string& path, TraceHeader header, BinaryWriterOptions options = {});
  // Without finish(): writes the buffered events but no trailer (the trace reads as incomplete).
  ~BinaryWriter() override;
  BinaryWriter(const BinaryWriter&) = delete;
  BinaryWriter& operator=(const BinaryWriter&) = delete;

  StringTable& strings() override { return strings_; }
  TraceHeader& header() override { return header_; }
  void append(Event e) override;
  // Appends keeping e.seq (whole-trace writes preserve the seq of filtered traces).
  void append_keep_seq(const Event& e);
  void flush() override;
  void finish() override;

  uint64_t events_written() const { return events_; }
  uint64_t bytes_written() const { return bytes_; }

 private:
  void write_pending_block();
  void write_all(const std::string& bytes);

  std::string path_;
  int fd_ = -1;
  BinaryWriterOptions options_;
  TraceHeader header_;
  StringTable strings_;
  size_t strings_written_ = 1;  // id 0 ("") is implicit
  std::vector<Event> pending_;
  uint64_t events_ = 0;
  uint64_t bytes_ = 0;
  bool finished_ = false;
  BlockEncoder blocks_;
  EventColumnEncoder columns_;
  std::string raw_, out_;
};

// Writes a whole trace to `path` (not atomic; trace_io's write_trace adds temp + rename).
void write_binary_trace(const std::string& path, const Trace& trace,
                        BinaryWriterOptions options = {});
// The same from passes over a trace (one pass; memory bounded by a block).
void write_binary_trace(const std::string& path, TracePasses& trace, BinaryWriterOptions options = {});

}  // namespace rastro::trace::binary

#include "trace/formats/binary/binary_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/formats/binary/varint.h"
#include "trace/io/trace_passes.h"

namespace rastro::trace::binary {
namespace {
// Invalid UTF-8 (a command line with Latin-1 bytes) is replaced rather than aborting the capture.
std::string header_json(const TraceHeader& h) {
  return h.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

BinaryWriter::BinaryWriter(const std::string& path, TraceHeader header, BinaryWriterOptions options)
    : path_(path), options_(options), header_(std::move(header)), blocks_(options.zstd_level) {
  if (options_.events_per_block == 0) options_.events_per_block = 1;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  header_.complete = false;
  out_ = file_header();
  blocks_.append_block(out_, BlockType::kHeader, 0, header_json(header_));
  write_all(out_);
  pending_.reserve(options_.events_per_block);
}

BinaryWriter::~BinaryWriter() {
  if (fd_ < 0) return;
  if (!finished_) {
    try {
      write_pending_block();
    } catch (const std::exception&) {
      // A destructor cannot report; the reader will see the trace as incomplete.
    }
  }
  ::close(fd_);
}

void BinaryWriter::append(Event e) {
  e.seq = events_ + pending_.size();
  pending_.push_back(e);
  if (pending_.size() >= options_.events_per_block) write_pending_block();
}

void BinaryWriter::append_keep_seq(const Event& e) {
  pending_.push_back(e);
  if (pending_.size() >= options_.events_per_block) write_pending_block();
}

void BinaryWriter::flush() { write_pending_block(); }

void BinaryWriter::finish() {
  if (finished_) return;
  write_pending_block();
  header_.complete = true;
  out_.clear();
  blocks_.append_block(out_, BlockType::kTrailer, static_cast<uint32_t>(events_),
                       header_json(header_));
  write_all(out_);
  finished_ = true;
}

void BinaryWriter::write_pending_block() {
  if (finished_) throw Error(fmt::format("{}: append after finish()", path_));
  out_.clear();
  // Strings first: the events of this block may refer to any of them.
  // Several strings blocks when there are many, to keep every block far below the size limit.
  constexpr size_t kMaxStringsBlockBytes = 8u << 20;
  while (strings_written_ < strings_.size()) {
    raw_.clear();
    put_varint(raw_, strings_written_);
    size_t id = strings_written_;
    for (; id < strings_.size() && raw_.size() < kMaxStringsBlockBytes; ++id) {
      std::string_view s = strings_.get(static_cast<StrId>(id));
      put_varint(raw_, s.size());
      raw_.append(s);
    }
    blocks_.append_block(out_, BlockType::kStrings, static_cast<uint32_t>(id - strings_written_),
                         raw_);
    strings_written_ = id;
  }
  if (!pending_.empty()) {
    columns_.encode(pending_, raw_);
    blocks_.append_block(out_, BlockType::kEvents, static_cast<uint32_t>(pending_.size()), raw_);
  }
  if (out_.empty()) return;
  // One write(2) per flush: the kernel has the bytes once it returns, whatever happens to us.
  write_all(out_);
  events_ += pending_.size();
  pending_.clear();
}

void BinaryWriter::write_all(const std::string& bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  bytes_ += bytes.size();
}

void write_binary_trace(const std::string& path, const Trace& trace, BinaryWriterOptions options) {
  write_binary_trace(path, *passes_over(trace), options);
}

void write_binary_trace(const std::string& path, TracePasses& trace, BinaryWriterOptions options) {
  BinaryWriter w(path, trace.header(), options);
  w.strings() = trace.strings();
  trace.pass([&](std::span<const Event> block, const StringTable&) {
    for (const Event& e : block) w.append_keep_seq(e);
  });
  w.finish();
}

}  // namespace rastro::trace::binary

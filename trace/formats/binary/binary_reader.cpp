#include "trace/formats/binary/binary_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/formats/binary/event_columns.h"
#include "trace/formats/binary/varint.h"

namespace rastro::trace::binary {

bool has_binary_magic(std::string_view prefix) {
  size_t n = std::min(prefix.size(), sizeof kMagic);
  return n > 0 && std::memcmp(prefix.data(), kMagic, n) == 0;
}

BinaryReader::BinaryReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  try {
    char fh[kFileHeaderSize];
    size_t got = 0;
    read_exact(0, fh, sizeof fh, &got);
    uint32_t version = 0;
    switch (check_file_header(std::string_view(fh, got), &version)) {
      case FileHeaderCheck::kOk:
        break;
      case FileHeaderCheck::kBadMagic:
        throw Error(fmt::format("{}: not a rastro binary trace (bad magic number)", path));
      case FileHeaderCheck::kTooShort:
        throw Error(fmt::format("{}: truncated inside the {}-byte file header ({} bytes)", path,
                                kFileHeaderSize, got));
      case FileHeaderCheck::kBadVersion:
        throw Error(fmt::format("{}: binary format version {} is not supported (this rastro reads "
                                "1 to {})",
                                path, version, kBinaryVersion));
      case FileHeaderCheck::kBadFlags:
        throw Error(fmt::format("{}: unknown feature flags in the file header", path));
    }
    offset_ = kFileHeaderSize;
    report_.bytes = offset_;
    read_header_block();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

BinaryReader::~BinaryReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool BinaryReader::read_exact(uint64_t offset, void* buf, size_t n, size_t* got) {
  auto* p = static_cast<char*>(buf);
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: read failed at byte {}: {}", path_, offset + done,
                              std::strerror(errno)));
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  *got = done;
  return done == n;
}

void BinaryReader::stop(const std::string& why) {
  done_ = true;
  report_.intact = false;
  report_.problem = fmt::format("{}: block {} at byte offset {}: {}; kept the {} events before it",
                                path_, block_index_, block_offset_, why, events_);
}

void BinaryReader::accept() {
  ++block_index_;
  report_.blocks = block_index_;
  report_.bytes = offset_;
}

bool BinaryReader::read_block(BlockHeader* h, std::string_view* raw) {
  if (done_) return false;
  block_offset_ = offset_;
  uint8_t hb[kBlockHeaderSize];
  size_t got = 0;
  bool whole = read_exact(offset_, hb, sizeof hb, &got);
  if (trailer_ && got > 0) {
    stop("unexpected data after the trailer block");
    return false;
  }
  if (!whole) {
    if (got != 0)
      stop(fmt::format("truncated block header ({} of {} bytes)", got, kBlockHeaderSize));
    else if (!trailer_)
      stop("the file ends without the trailer block: the writer did not finish (killed, or "
           "still writing)");
    done_ = true;
    return false;
  }
  std::string why;
  if (!parse_block_header(hb, h, &why)) {
    stop(why);
    return false;
  }
  if (payload_.size() < h->stored_size) payload_.resize(h->stored_size);
  if (!read_exact(offset_ + kBlockHeaderSize, payload_.data(), h->stored_size, &got)) {
    stop(fmt::format("truncated payload ({} of {} bytes)", got, h->stored_size));
    return false;
  }
  if (!decoder_.decode(*h, reinterpret_cast<const uint8_t*>(payload_.data()), raw, &why)) {
    stop(why);
    return false;
  }
  offset_ += kBlockHeaderSize + h->stored_size;
  return true;
}

void BinaryReader::read_header_block() {
  BlockHeader h;
  std::string_view raw;
  if (read_block(&h, &raw)) {
    if (h.type != BlockType::kHeader) {
      stop(fmt::format("the first block has type {}, expected the header block (1)",
                       static_cast<int>(h.type)));
    } else {
      nlohmann::json j = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        stop("the header block is not valid JSON");
      } else {
        try {
          header_ = TraceHeader::from_json(j);
        } catch (const Error& e) {
          throw Error(fmt::format("{}: {}", path_, e.what()));
        }
        accept();
      }
    }
  }
  header_.complete = false;  // only the trailer says otherwise
}

bool BinaryReader::read_strings_block(const BlockHeader& h, std::string_view raw) {
  auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  VarintCursor c(p, p + raw.size());
  uint64_t first = c.get();
  if (c.bad() || first != strings_.size()) {
    stop(fmt::format("strings block starts at id {}, expected {}", first, strings_.size()));
    return false;
  }
  for (uint32_t i = 0; i < h.count; ++i) {
    uint64_t len = c.get();
    const uint8_t* s = c.bad() ? nullptr : c.take(len);
    if (!s) {
      stop(fmt::format("strings block: string {} is cut short", first + i));
      return false;
    }
    StrId id = strings_.intern(std::string_view(reinterpret_cast<const char*>(s), len));
    if (id != first + i) {
      stop(fmt::format("strings block: string {} repeats string {}", first + i, id));
      return false;
    }
  }
  if (!c.at_end()) {
    stop("strings block has trailing bytes");
    return false;
  }
  return true;
}

bool BinaryReader::open_events_block() {
  BlockHeader h;
  std::string_view raw;
  while (read_block(&h, &raw)) {
    switch (h.type) {
      case BlockType::kStrings:
        if (!read_strings_block(h, raw)) return false;
        accept();
        break;
      case BlockType::kEvents: {
        std::string why;
        if (!columns_.start(raw, h.count, strings_.size(), &why)) {
          stop(why);
          return false;
        }
        in_events_ = true;
        return true;
      }
      case BlockType::kTrailer: {
        nlohmann::json j = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded()) {
          stop("the trailer block is not valid JSON");
          return false;
        }
        TraceHeader final_header;
        try {
          final_header = TraceHeader::from_json(j);
        } catch (const Error& e) {
          stop(fmt::format("trailer block: {}", e.what()));
          return false;
        }
        if (h.count != static_cast<uint32_t>(events_)) {
          stop(fmt::format("the trailer counts {} events but the blocks hold {}", h.count,
                           events_));
          return false;
        }
        header_ = std::move(final_header);
        trailer_ = true;
        accept();
        break;  // read_block then checks that nothing follows
      }
      case BlockType::kHeader:
        stop("a second header block");
        return false;
      default:
        accept();  // a block type from a later minor revision: skippable by design
        break;
    }
  }
  return false;
}

bool BinaryReader::close_events_block() {
  in_events_ = false;
  std::string why;
  if (!columns_.finish(&why)) {
    stop(why);
    return false;
  }
  accept();
  return true;
}

bool BinaryReader::next_block(std::vector<Event>* out) {
  if (!in_events_ && !open_events_block()) return false;
  const size_t old_size = out->size();
  const size_t count = columns_.remaining();
  // One allocation for the block (a doubling vector would copy ~260-byte events again and again).
  if (out->capacity() < old_size + count)
    out->reserve(std::max<size_t>(old_size + count, 2 * out->capacity()));
  if (chunk_.size() < std::min(count, kDecodeChunkEvents)) chunk_.resize(kDecodeChunkEvents);
  std::string why;
  while (columns_.remaining() > 0) {
    const size_t n = std::min<size_t>(columns_.remaining(), kDecodeChunkEvents);
    if (!columns_.decode(chunk_.data(), n, &why)) {
      out->resize(old_size);
      in_events_ = false;
      stop(why);
      return false;
    }
    out->insert(out->end(), chunk_.begin(), chunk_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (!close_events_block()) {
    out->resize(old_size);
    return false;
  }
  events_ += count;
  return true;
}

bool BinaryReader::next_events(std::span<const Event>* out) {
  for (;;) {
    if (!in_events_ && !open_events_block()) return false;
    if (columns_.remaining() == 0) {  // an empty events block
      if (!close_events_block()) return false;
      continue;
    }
    const size_t n = std::min<size_t>(columns_.remaining(), kDecodeChunkEvents);
    if (chunk_.size() < n) chunk_.resize(kDecodeChunkEvents);
    std::string why;
    if (!columns_.decode(chunk_.data(), n, &why)) {
      in_events_ = false;
      stop(why);
      return false;
    }
    if (columns_.remaining() == 0 && !close_events_block()) return false;
    events_ += n;
    *out = std::span<const Event>(chunk_.data(), n);
    return true;
  }
}

bool BinaryReader::next(Event* e) {
  while (view_pos_ == view_.size()) {  // while: a view may be empty
    view_pos_ = 0;
    view_ = {};
    if (!next_events(&view_)) return false;
  }
  *e = view_[view_pos_++];
  return true;
}

uint64_t BinaryReader::count_remaining_events() {
  uint64_t total = in_events_ ? columns_.remaining() : 0;
  uint64_t off = offset_;
  for (;;) {
    uint8_t hb[kBlockHeaderSize];
    size_t got = 0;
    BlockHeader h;
    std::string why;
    if (!read_exact(off, hb, sizeof hb, &got) || !parse_block_header(hb, &h, &why)) break;
    if (h.type == BlockType::kEvents) total += h.count;
    off += kBlockHeaderSize + h.stored_size;
  }
  return total;
}

Trace read_binary_trace(const std::string& path, ReadReport* report) {
  BinaryReader r(path);
  return read_remaining(r, report);
}

}  // namespace rastro::trace::binary

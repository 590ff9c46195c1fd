#include "trace/io/event_spill.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::trace {
namespace {

// A chunk in the file: u32 events, u32 payload bytes, then the events-column payload.
constexpr size_t kChunkHeader = 8;

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t get_u32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

EventSpill::~EventSpill() {
  if (file_) std::fclose(file_);
}

size_t EventSpill::add_run(std::span<const Event> events) {
  if (!file_) {
    file_ = std::tmpfile();
    if (!file_) throw Error(fmt::format("cannot create a temporary file to park events in: {}", std::strerror(errno)));
  }
  out_.clear();
  for (size_t i = 0; i < events.size(); i += kSpillChunkEvents) {
    std::span<const Event> chunk = events.subspan(i, std::min(kSpillChunkEvents, events.size() - i));
    encoder_.encode(chunk, raw_);
    put_u32(out_, static_cast<uint32_t>(chunk.size()));
    put_u32(out_, static_cast<uint32_t>(raw_.size()));
    out_ += raw_;
  }
  const int fd = ::fileno(file_);
  for (size_t done = 0; done < out_.size();) {
    ssize_t n = ::pwrite(fd, out_.data() + done, out_.size() - done, static_cast<off_t>(size_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("cannot write a temporary file of parked events: {}", std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  runs_.push_back(Run{size_, size_ + out_.size(), {}, {}});
  size_ += out_.size();
  events_ += events.size();
  return runs_.size() - 1;
}

void EventSpill::read_at(uint64_t offset, void* buf, size_t n) {
  auto* p = static_cast<char*>(buf);
  for (size_t done = 0; done < n;) {
    ssize_t r = ::pread(::fileno(file_), p + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw Error(fmt::format("cannot read back a temporary file of parked events: {}",
                              r == 0 ? "it is shorter than written" : std::strerror(errno)));
    done += static_cast<size_t>(r);
  }
}

bool EventSpill::next(size_t run, std::span<const Event>* out) {
  Run& r = runs_.at(run);
  if (r.offset >= r.end) return false;
  unsigned char h[kChunkHeader];
  read_at(r.offset, h, sizeof h);
  const uint32_t count = get_u32(h), bytes = get_u32(h + 4);
  r.raw.resize(bytes);
  read_at(r.offset + kChunkHeader, r.raw.data(), bytes);
  r.offset += kChunkHeader + bytes;
  if (r.buf.size() < count) r.buf.resize(count);
  std::string why;
  // Every string id was valid when the events were parked.
  if (!decoder_.start(r.raw, count, std::numeric_limits<size_t>::max(), &why) ||
      !decoder_.decode(r.buf.data(), count, &why) || !decoder_.finish(&why))
    throw Error(fmt::format("a temporary file of parked events reads back damaged: {}", why));
  *out = std::span<const Event>(r.buf.data(), count);
  return true;
}

void EventSpill::clear() {
  runs_.clear();
  events_ = 0;
  size_ = 0;
  if (file_ && ::ftruncate(::fileno(file_), 0) != 0)
    throw Error(fmt::format("cannot empty a temporary file of parked events: {}", std::strerror(errno)));
}

}  // namespace rastro::trace

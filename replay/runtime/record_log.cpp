#include "replay/runtime/record_log.h"

#include <algorithm>

#include "trace/formats/binary/varint.h"

namespace rastro::replay {
namespace {

using trace::binary::put_varint;
using trace::binary::unzigzag;
using trace::binary::zigzag;

// Header bits below the record's flags.
constexpr uint64_t kEmulated = 1;
constexpr uint64_t kHasSkip = 2;
constexpr uint64_t kLater = 4;
constexpr int kFlagsShift = 3;

constexpr size_t kFirstChunk = 256;
constexpr size_t kMaxChunk = size_t{64} << 10;

// Wrapping differences: any two int64 values give a delta that adds back exactly.
int64_t delta(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t add(int64_t b, int64_t d) { return static_cast<int64_t>(static_cast<uint64_t>(b) + static_cast<uint64_t>(d)); }

}  // namespace

RecordLog::RecordLog(std::span<const Request> requests) : requests_(requests) {
  uint32_t threads = 0;
  for (const Request& q : requests) threads = std::max(threads, q.thread + 1);
  streams_.resize(threads);
}

RecordLog RecordLog::encode(std::span<const Request> requests, std::span<const RequestRecord> records) {
  RecordLog log(requests);
  // Request order is program order within each thread.
  for (size_t r = 0; r < requests.size() && r < records.size(); ++r) log.append(requests[r].thread, records[r]);
  return log;
}

uint8_t* RecordLog::put(uint8_t* p, const RequestRecord& rec, bool completes_later, int64_t prev_end) {
  const bool has_skip = rec.skip != SkipReason::kNone;
  const uint64_t header = (uint64_t{rec.flags} << kFlagsShift) | (rec.emulated ? kEmulated : 0) |
                          (has_skip ? kHasSkip : 0) | (completes_later ? kLater : 0);
  p = put_varint(p, header);
  if (has_skip) *p++ = static_cast<uint8_t>(rec.skip);
  p = put_varint(p, zigzag(delta(rec.planned_ns, prev_end)));
  p = put_varint(p, zigzag(delta(rec.begin_ns, rec.planned_ns)));
  p = put_varint(p, zigzag(delta(rec.end_ns, rec.begin_ns)));
  return put_varint(p, zigzag(rec.rvalue));
}

void RecordLog::new_chunk(Stream& s) {
  if (!s.chunks.empty()) s.chunks.back().used = static_cast<size_t>(s.p - s.chunks.back().data.get());
  s.capacity = s.capacity == 0 ? kFirstChunk : std::min(s.capacity * 2, kMaxChunk);
  static_assert(kFirstChunk >= kMaxRecordBytes);
  s.chunks.push_back({std::make_unique_for_overwrite<uint8_t[]>(s.capacity), 0});
  s.p = s.chunks.back().data.get();
  s.end = s.p + s.capacity;
}

std::string RecordLog::stream_bytes(uint32_t thread) const {
  const Stream& s = streams_[thread];
  std::string out;
  for (size_t i = 0; i < s.chunks.size(); ++i) {
    const uint8_t* b = s.chunks[i].data.get();
    const uint8_t* e = i + 1 == s.chunks.size() ? s.p : b + s.chunks[i].used;
    out.append(reinterpret_cast<const char*>(b), static_cast<size_t>(e - b));
  }
  return out;
}

void RecordLog::adopt_stream(uint32_t thread, std::string_view bytes, int64_t end_ns) {
  Stream& s = streams_[thread];
  s.chunks.clear();
  s.p = s.end = nullptr;
  s.capacity = 0;
  s.prev_end = end_ns;
  if (bytes.empty()) return;
  // One chunk of exactly these bytes: appending more starts a new one (new_chunk).
  s.chunks.push_back({std::make_unique_for_overwrite<uint8_t[]>(bytes.size()), 0});
  std::copy(bytes.begin(), bytes.end(), s.chunks.back().data.get());
  s.p = s.end = s.chunks.back().data.get() + bytes.size();
  s.capacity = bytes.size();
}

size_t RecordLog::bytes() const {
  size_t n = 0;
  for (const Stream& s : streams_) {
    size_t c = kFirstChunk;
    for (size_t i = 0; i < s.chunks.size(); ++i, c = std::min(c * 2, kMaxChunk)) n += c;
  }
  return n;
}

RecordLog::Reader::Reader(const RecordLog& log) : log_(log), cursors_(log.streams_.size()) {
  for (size_t t = 0; t < cursors_.size(); ++t) {
    const Stream& s = log.streams_[t];
    if (s.chunks.empty()) continue;
    cursors_[t].p = s.chunks[0].data.get();
    cursors_[t].end = s.chunks.size() == 1 ? s.p : cursors_[t].p + s.chunks[0].used;
  }
}

RequestRecord RecordLog::Reader::next() {
  const uint32_t r = r_++;
  RequestRecord rec;
  if (r >= log_.requests_.size()) return rec;
  const uint32_t t = log_.requests_[r].thread;
  const Stream& s = log_.streams_[t];
  Cursor& c = cursors_[t];
  if (c.p == c.end) {  // the chunk is read: the next one, if the thread appended more
    if (c.chunk + 1 >= s.chunks.size()) return rec;
    ++c.chunk;
    c.p = s.chunks[c.chunk].data.get();
    c.end = c.chunk + 1 == s.chunks.size() ? s.p : c.p + s.chunks[c.chunk].used;
  }
  trace::binary::VarintCursor in(c.p, c.end);
  const uint64_t header = in.get();
  rec.flags = static_cast<uint32_t>(header >> kFlagsShift);
  rec.emulated = header & kEmulated;
  if (header & kHasSkip) rec.skip = static_cast<SkipReason>(in.get_byte());
  rec.planned_ns = add(c.prev_end, unzigzag(in.get()));
  rec.begin_ns = add(rec.planned_ns, unzigzag(in.get()));
  rec.end_ns = add(rec.begin_ns, unzigzag(in.get()));
  rec.rvalue = unzigzag(in.get());
  c.p = c.end - in.remaining();
  c.prev_end = rec.end_ns;  // the logged end, as the writer had it
  if (header & kLater) {
    if (auto it = log_.late_.find(r); it != log_.late_.end()) {
      rec.begin_ns = it->second.begin_ns;
      rec.end_ns = it->second.end_ns;
      rec.rvalue = it->second.rvalue;
      rec.flags = it->second.flags;
    }
  }
  return rec;
}

std::vector<RequestRecord> RecordLog::decode() const {
  std::vector<RequestRecord> v;
  v.reserve(requests_.size());
  for_each([&](uint32_t, const RequestRecord& rec) { v.push_back(rec); });
  return v;
}

}  // namespace rastro::replay

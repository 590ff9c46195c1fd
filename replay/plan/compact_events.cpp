#include "replay/plan/compact_events.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "trace/formats/binary/varint.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

using trace::binary::put_svarint;
using trace::binary::put_varint;

// Which optional parts a record holds.
enum RecordMask : uint64_t {
  kHasSeq = 1u << 0,     // seq differs from the event's index
  kHasName = 1u << 1,    // an unknown syscall's name
  kHasTypes = 1u << 2,   // nargs and argument types stored (they differ from the syscall table's)
  kHasFlags = 1u << 3,
  kHasReplay = 1u << 4,  // planned_ns, expected_rvalue, raw_end_ns
  kHasOffCpu = 1u << 5,  // offcpu_ns, vol_switches, invol_switches
  kHasUring = 1u << 6,   // uring_user_data, uring_enter_ns
  kHasGap = 1u << 7,     // gap_offcpu_ns
};

// Differences in two's complement (hostile traces hold times near the int64 limits).
int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }

// The argument types the syscall table implies for `e`, or nullptr when they must be stored.
const trace::SyscallInfo* implied_types(const trace::Event& e) {
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  if (info == nullptr || e.nargs != info->nargs) return nullptr;
  for (int k = 0; k < trace::kMaxArgs; ++k) {
    const trace::Arg& a = e.arg(k);
    if (k < e.nargs ? a.type != info->args[static_cast<size_t>(k)] : !(a == trace::Arg{})) return nullptr;
  }
  return info;
}

// Arguments stored: nargs, or more when an argument past nargs is set.
int stored_args(const trace::Event& e) {
  int m = e.nargs;
  for (int k = trace::kMaxArgs - 1; k >= m; --k)
    if (!(e.arg(k) == trace::Arg{})) return k + 1;
  return std::min(m, trace::kMaxArgs);
}

constexpr size_t kMaxRecordBytes = 256;  // a record's worst case is ~240 bytes (every field, 10-byte varints)

}  // namespace

CompactEvents::CompactEvents(const CompactEvents& o)
    : used_(o.used_), group_offset_(o.group_offset_), group_begin_(o.group_begin_),
      offset_in_group_(o.offset_in_group_), threads_(o.threads_), thread_index_(o.thread_index_), size_(o.size_),
      flags_union_(o.flags_union_) {
  for (size_t k = 0; k < o.chunks_.size(); ++k) {
    chunks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kChunkBytes));
    std::memcpy(chunks_.back().get(), o.chunks_[k].get(), k + 1 == o.chunks_.size() ? o.used_ : kChunkBytes);
  }
}

CompactEvents& CompactEvents::operator=(const CompactEvents& o) {
  if (this != &o) *this = CompactEvents(o);
  return *this;
}

void CompactEvents::reserve(size_t n) {
  offset_in_group_.reserve(n);
  group_offset_.reserve(n / kGroup + 1);
  group_begin_.reserve(n / kGroup + 1);
}

void CompactEvents::push_back(const trace::Event& e) {
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) | static_cast<uint32_t>(e.tid);
  auto [it, fresh] = thread_index_.try_emplace(key, static_cast<uint32_t>(threads_.size()));
  if (fresh) threads_.emplace_back(e.pid, e.tid);
  if (size_ % kGroup == 0) group_begin_.push_back(e.begin_ns);

  const trace::SyscallInfo* implied = implied_types(e);
  uint64_t mask = 0;
  if (e.seq != size_) mask |= kHasSeq;
  if (e.name != trace::kNoStr) mask |= kHasName;
  if (implied == nullptr) mask |= kHasTypes;
  if (e.flags != 0) mask |= kHasFlags;
  flags_union_ |= e.flags;
  if (e.planned_ns != 0 || e.expected_rvalue != 0 || e.raw_end_ns != 0) mask |= kHasReplay;
  if (e.offcpu_ns != 0 || e.vol_switches != 0 || e.invol_switches != 0) mask |= kHasOffCpu;
  if (e.uring_user_data != 0 || e.uring_enter_ns != 0) mask |= kHasUring;
  if (e.gap_offcpu_ns != 0) mask |= kHasGap;

  std::string& r = scratch_;
  r.clear();
  put_varint(r, mask);
  put_varint(r, it->second);
  put_svarint(r, wrap_sub(e.begin_ns, group_begin_.back()));
  put_svarint(r, wrap_sub(e.end_ns, e.begin_ns));
  put_svarint(r, e.nr);
  // The rest of the fixed fields before the arguments: fields() stops here.
  put_svarint(r, e.rvalue);
  if (mask & kHasSeq) put_svarint(r, wrap_sub(static_cast<int64_t>(e.seq), static_cast<int64_t>(size_)));
  if (mask & kHasName) put_varint(r, e.name);
  if (mask & kHasFlags) put_varint(r, e.flags);
  const int m = implied ? e.nargs : stored_args(e);
  if (!implied) {
    r.push_back(static_cast<char>(e.nargs));
    r.push_back(static_cast<char>(m));
    for (int k = 0; k < m; ++k) r.push_back(static_cast<char>(e.arg(k).type));
  }
  if (m > 0) {
    unsigned strs = 0;
    for (int k = 0; k < m; ++k)
      if (e.arg(k).str != trace::kNoStr) strs |= 1u << k;
    r.push_back(static_cast<char>(strs));
    for (int k = 0; k < m; ++k) {
      put_svarint(r, e.arg(k).value);
      if (strs & (1u << k)) put_varint(r, e.arg(k).str);
    }
  }
  if (mask & kHasReplay) {
    put_svarint(r, e.planned_ns);
    put_svarint(r, e.expected_rvalue);
    put_svarint(r, e.raw_end_ns);
  }
  if (mask & kHasOffCpu) {
    put_svarint(r, e.offcpu_ns);
    put_varint(r, e.vol_switches);
    put_varint(r, e.invol_switches);
  }
  if (mask & kHasUring) {
    put_varint(r, e.uring_user_data);
    put_svarint(r, e.uring_enter_ns);
  }
  if (mask & kHasGap) put_svarint(r, e.gap_offcpu_ns);

  // Records never straddle chunks, so a record is read from one contiguous buffer.
  if (chunks_.empty() || used_ + r.size() > kChunkBytes) {
    chunks_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kChunkBytes));
    used_ = 0;
  }
  const uint64_t at = (chunks_.size() - 1) * kChunkBytes + used_;
  if (size_ % kGroup == 0) group_offset_.push_back(at);
  const uint64_t rel = at - group_offset_.back();
  // A group is at most kGroup records of kMaxRecordBytes plus one chunk's unused tail.
  if (r.size() > kMaxRecordBytes || rel > UINT16_MAX) throw Error("compact events: record layout overflow");
  offset_in_group_.push_back(static_cast<uint16_t>(rel));
  std::memcpy(chunks_.back().get() + used_, r.data(), r.size());
  used_ += r.size();
  ++size_;
}

const uint8_t* CompactEvents::record(size_t i) const {
  const uint64_t at = group_offset_[i / kGroup] + offset_in_group_[i];
  return chunks_[at / kChunkBytes].get() + at % kChunkBytes;
}

int64_t CompactEvents::begin_ns(size_t i) const {
  const uint8_t* p = record(i);
  trace::binary::VarintCursor c(p, p + kMaxRecordBytes);
  c.get();  // mask
  c.get();  // thread
  return wrap_add(group_begin_[i / kGroup], c.get_signed());
}

int CompactEvents::decode(size_t i, Fields& f, trace::Event* full) const {
  const uint64_t at = group_offset_[i / kGroup] + offset_in_group_[i];
  const uint8_t* chunk = chunks_[at / kChunkBytes].get();
  // A record is whole inside its chunk; the cursor's fast path reads up to 10 bytes ahead of a
  // varint, which stays inside the chunk's allocation or the record's own bytes.
  trace::binary::VarintCursor c(chunk + at % kChunkBytes, chunk + kChunkBytes);
  const uint64_t mask = c.get();
  const auto& th = threads_[c.get()];
  f.pid = th.first;
  f.tid = th.second;
  f.begin_ns = wrap_add(group_begin_[i / kGroup], c.get_signed());
  f.end_ns = wrap_add(f.begin_ns, c.get_signed());
  f.nr = static_cast<int32_t>(c.get_signed());
  f.rvalue = c.get_signed();
  const int64_t seq_delta = (mask & kHasSeq) ? c.get_signed() : 0;
  const auto name = (mask & kHasName) ? static_cast<trace::StrId>(c.get()) : trace::kNoStr;
  f.flags = (mask & kHasFlags) ? static_cast<uint32_t>(c.get()) : 0;
  if (!full) return 0;
  trace::Event& e = *full;
  int m = 0;
  if (mask & kHasTypes) {
    e.nargs = c.get_byte();
    m = c.get_byte();
    for (int k = 0; k < m; ++k) e.args[static_cast<size_t>(k)].type = static_cast<trace::ArgType>(c.get_byte());
  } else {
    const trace::SyscallInfo* info = trace::syscall_by_nr(f.nr);
    m = e.nargs = info->nargs;
    for (int k = 0; k < m; ++k) e.args[static_cast<size_t>(k)].type = info->args[static_cast<size_t>(k)];
  }
  if (m > 0) {
    const unsigned strs = c.get_byte();
    for (int k = 0; k < m; ++k) {
      trace::Arg& a = e.args[static_cast<size_t>(k)];
      a.value = c.get_signed();
      a.str = (strs & (1u << k)) ? static_cast<trace::StrId>(c.get()) : trace::kNoStr;
    }
  }
  e.seq = static_cast<uint64_t>(wrap_add(static_cast<int64_t>(i), seq_delta));
  e.name = name;
  const bool replay = mask & kHasReplay;
  e.planned_ns = replay ? c.get_signed() : 0;
  e.expected_rvalue = replay ? c.get_signed() : 0;
  e.raw_end_ns = replay ? c.get_signed() : 0;
  const bool offcpu = mask & kHasOffCpu;
  e.offcpu_ns = offcpu ? c.get_signed() : 0;
  e.vol_switches = offcpu ? static_cast<uint32_t>(c.get()) : 0;
  e.invol_switches = offcpu ? static_cast<uint32_t>(c.get()) : 0;
  const bool uring = mask & kHasUring;
  e.uring_user_data = uring ? c.get() : 0;
  e.uring_enter_ns = uring ? c.get_signed() : 0;
  e.gap_offcpu_ns = (mask & kHasGap) ? c.get_signed() : 0;
  return m;
}

CompactEvents::Fields CompactEvents::fields(size_t i) const {
  Fields f;
  decode(i, f, nullptr);
  return f;
}

namespace {

void set_fields(trace::Event& e, const CompactEvents::Fields& f) {
  e.pid = f.pid;
  e.tid = f.tid;
  e.nr = f.nr;
  e.flags = f.flags;
  e.begin_ns = f.begin_ns;
  e.end_ns = f.end_ns;
  e.rvalue = f.rvalue;
}

}  // namespace

trace::Event CompactEvents::operator[](size_t i) const {
  trace::Event e;
  Fields f;
  decode(i, f, &e);
  set_fields(e, f);
  return e;
}

const trace::Event& CompactEvents::Reader::operator()(size_t i) {
  Fields f;
  const int m = events_->decode(i, f, &e_);
  set_fields(e_, f);
  // The previous event's arguments past this one's are cleared (decode wrote [0, m)).
  for (int k = m; k < args_set_; ++k) e_.args[static_cast<size_t>(k)] = trace::Arg{};
  args_set_ = m;
  return e_;
}

size_t CompactEvents::memory_bytes() const {
  return chunks_.size() * kChunkBytes + group_offset_.capacity() * sizeof(uint64_t) +
         group_begin_.capacity() * sizeof(int64_t) + offset_in_group_.capacity() * sizeof(uint16_t) +
         threads_.capacity() * sizeof(threads_[0]) + thread_index_.size() * 32;
}

}  // namespace rastro::replay

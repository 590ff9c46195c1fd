#include "trace/formats/binary/event_columns.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "trace/formats/binary/varint.h"

namespace rastro::trace::binary {
namespace {

// Column order in the payload (append only).
enum Col : size_t {
  kSeq,        // zigzag(seq - prev_seq - 1): 0 for dense sequences
  kPid,        // zigzag(pid - prev_pid)
  kTid,        // zigzag(tid - prev_tid)
  kBegin,      // zigzag(begin - prev_begin)
  kDuration,   // zigzag(end - begin)
  kNr,         // zigzag(nr)
  kName,       // varint(name)
  kNargs,      // one byte per event
  kArgTypes,   // one byte per argument
  kArgValues,  // zigzag(value - last value seen in the same (slot, type))
  kArgStrs,    // zigzag(str - last str seen in the same slot)
  kRvalue,     // zigzag(rvalue)
  kFlags,      // varint(flags)
  kExtraMask,  // one byte per event: bit0 planned_ns, bit1 expected_rvalue, bit2 raw_end_ns
  kExtras,     // zigzag(planned - begin), zigzag(expected_rvalue), zigzag(raw_end - end)
  // Optional (written only by blocks with an off-CPU measurement):
  kOffCpu,     // zigzag(offcpu_ns)
  kSwitches,   // varint(vol_switches), varint(invol_switches)
  // Optional (written only by blocks with an io_uring request, after the two above):
  kUringData,  // varint(uring_user_data)
  kUringEnter, // 0 when uring_enter_ns is 0, else 1 + zigzag(begin - uring_enter_ns)
  // Optional (written only by blocks with an off-CPU time between calls, after all of the above):
  kGapOffCpu,  // zigzag(gap_offcpu_ns)
};
static_assert(kExtras + 1 == kBaseEventColumns);
static_assert(kGapOffCpu + 1 == kEventColumns);
constexpr size_t kSchedColumns = kSwitches + 1;
constexpr size_t kUringColumns = kUringEnter + 1;

bool has_sched(const Event& e) {
  return (e.flags & kEventOffCpu) || e.offcpu_ns != 0 || e.vol_switches != 0 || e.invol_switches != 0;
}

bool has_uring(const Event& e) { return (e.flags & kEventUring) || e.uring_user_data != 0 || e.uring_enter_ns != 0; }

bool has_gap(const Event& e) { return e.gap_offcpu_ns != 0; }

constexpr size_t kTypes = static_cast<size_t>(ArgType::kLast) + 1;

}  // namespace

void EventColumnEncoder::encode(std::span<const Event> events, std::string& out) {
  for (auto& c : cols_) c.clear();
  ColumnDeltaState s;
  const bool gap = std::any_of(events.begin(), events.end(), has_gap);
  const bool uring = gap || std::any_of(events.begin(), events.end(), has_uring);
  const bool sched = uring || std::any_of(events.begin(), events.end(), has_sched);
  for (const Event& e : events) {
    if (gap) put_svarint(cols_[kGapOffCpu], e.gap_offcpu_ns);
    if (uring) {
      put_varint(cols_[kUringData], e.uring_user_data);
      put_varint(cols_[kUringEnter], e.uring_enter_ns == 0 ? 0 : 1 + zigzag(static_cast<int64_t>(
                                         static_cast<uint64_t>(e.begin_ns) - static_cast<uint64_t>(e.uring_enter_ns))));
    }
    if (sched) {
      put_svarint(cols_[kOffCpu], e.offcpu_ns);
      put_varint(cols_[kSwitches], e.vol_switches);
      put_varint(cols_[kSwitches], e.invol_switches);
    }
    put_svarint(cols_[kSeq], static_cast<int64_t>(e.seq - s.seq - 1));
    put_svarint(cols_[kPid], static_cast<int64_t>(e.pid) - s.pid);
    put_svarint(cols_[kTid], static_cast<int64_t>(e.tid) - s.tid);
    // Unsigned subtraction: wraps instead of overflowing for extreme timestamps.
    put_varint(cols_[kBegin], zigzag(static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) -
                                                          static_cast<uint64_t>(s.begin))));
    put_varint(cols_[kDuration], zigzag(static_cast<int64_t>(static_cast<uint64_t>(e.end_ns) -
                                                             static_cast<uint64_t>(e.begin_ns))));
    s.seq = e.seq;
    s.pid = e.pid;
    s.tid = e.tid;
    s.begin = e.begin_ns;
    put_svarint(cols_[kNr], e.nr);
    put_varint(cols_[kName], e.name);
    uint8_t nargs = e.nargs > kMaxArgs ? kMaxArgs : e.nargs;
    cols_[kNargs].push_back(static_cast<char>(nargs));
    for (size_t i = 0; i < nargs; ++i) {
      const Arg& a = e.args[i];
      auto t = static_cast<size_t>(a.type);
      if (t >= kTypes) t = 0;  // cannot happen for a valid Event; keeps the encoder in bounds
      cols_[kArgTypes].push_back(static_cast<char>(t));
      int64_t& last = s.value[i][t];
      put_varint(cols_[kArgValues], zigzag(static_cast<int64_t>(static_cast<uint64_t>(a.value) -
                                                               static_cast<uint64_t>(last))));
      last = a.value;
      put_svarint(cols_[kArgStrs], static_cast<int64_t>(a.str) - s.str[i]);
      s.str[i] = a.str;
    }
    put_svarint(cols_[kRvalue], e.rvalue);
    put_varint(cols_[kFlags], e.flags);
    uint8_t mask = (e.planned_ns != 0 ? 1 : 0) | (e.expected_rvalue != 0 ? 2 : 0) |
                   (e.raw_end_ns != 0 ? 4 : 0);
    cols_[kExtraMask].push_back(static_cast<char>(mask));
    if (mask & 1)
      put_varint(cols_[kExtras], zigzag(static_cast<int64_t>(static_cast<uint64_t>(e.planned_ns) -
                                                             static_cast<uint64_t>(e.begin_ns))));
    if (mask & 2) put_svarint(cols_[kExtras], e.expected_rvalue);
    if (mask & 4)
      put_varint(cols_[kExtras], zigzag(static_cast<int64_t>(static_cast<uint64_t>(e.raw_end_ns) -
                                                             static_cast<uint64_t>(e.end_ns))));
  }
  out.clear();
  const size_t ncols = gap ? kEventColumns : uring ? kUringColumns : sched ? kSchedColumns : kBaseEventColumns;
  for (size_t i = 0; i < ncols; ++i) put_varint(out, cols_[i].size());
  for (size_t i = 0; i < ncols; ++i) out += cols_[i];
}

bool EventColumnDecoder::start(std::string_view raw, uint32_t count, size_t nstrings, std::string* why) {
  auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  VarintCursor lens(p, p + raw.size());
  std::array<uint64_t, kEventColumns> len{};
  uint64_t total = 0;
  // kBaseEventColumns lengths, then optional ones until they add up to what follows them: a
  // payload with fewer columns ends its lengths exactly there, one with more cannot (each extra
  // length is at least one byte not counted in the total).
  size_t ncols = 0;
  while (ncols < kEventColumns && (ncols < kBaseEventColumns || total != lens.remaining())) {
    uint64_t& l = len[ncols++];
    l = lens.get();
    total += l;
    if (lens.bad() || l > raw.size() || total > lens.remaining()) {
      *why = "events block: column lengths do not fit the payload";
      return false;
    }
  }
  if (total != lens.remaining()) {
    *why = "events block: column lengths do not add up to the payload size";
    return false;
  }
  if (ncols != kBaseEventColumns && ncols != kSchedColumns && ncols != kUringColumns && ncols != kEventColumns) {
    *why = fmt::format("events block: {} columns (expected {}, {}, {} or {})", ncols, kBaseEventColumns, kSchedColumns,
                       kUringColumns, kEventColumns);
    return false;
  }
  const uint8_t* q = p + (raw.size() - lens.remaining());
  for (size_t i = 0; i < kEventColumns; ++i) {
    c_[i] = i < ncols ? VarintCursor(q, q + len[i]) : VarintCursor();
    if (i < ncols) q += len[i];
  }
  ncols_ = ncols;
  sched_ = ncols > kOffCpu;
  uring_ = ncols > kUringData;
  gap_ = ncols > kGapOffCpu;
  nstrings_ = nstrings;
  count_ = count;
  done_ = 0;
  s_ = ColumnDeltaState{};
  return true;
}

bool EventColumnDecoder::decode(Event* dst, size_t n, std::string* why) {
  // On an inconsistency the decoder's state is left behind: the block is not read any further.
  auto fail = [&](std::string msg) {
    *why = std::move(msg);
    return false;
  };
  // Local copies in the loop: stores into the events cannot alias them, so the compiler keeps
  // the cursors and the delta state in registers or on the stack instead of reloading them.
  std::array<VarintCursor, kEventColumns> c = c_;
  ColumnDeltaState s = s_;
  const size_t nstrings = nstrings_;
  const bool sched = sched_, uring = uring_, gap = gap_;
  const uint32_t first = done_;
  for (size_t j = 0; j < n; ++j) {
    const size_t k = first + j;
    Event& e = dst[j];
    e.seq = s.seq + 1 + static_cast<uint64_t>(c[kSeq].get_signed());
    e.pid = static_cast<int32_t>(s.pid + c[kPid].get_signed());
    e.tid = static_cast<int32_t>(s.tid + c[kTid].get_signed());
    e.begin_ns = static_cast<int64_t>(static_cast<uint64_t>(s.begin) +
                                      static_cast<uint64_t>(c[kBegin].get_signed()));
    e.end_ns = static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) +
                                    static_cast<uint64_t>(c[kDuration].get_signed()));
    s.seq = e.seq;
    s.pid = e.pid;
    s.tid = e.tid;
    s.begin = e.begin_ns;
    e.nr = static_cast<int32_t>(c[kNr].get_signed());
    uint64_t name = c[kName].get();
    if (name >= nstrings) return fail(fmt::format("event {}: name id {} is not in the string table", k, name));
    e.name = static_cast<StrId>(name);
    uint8_t nargs = c[kNargs].get_byte();
    if (nargs > kMaxArgs) return fail(fmt::format("event {}: {} arguments (max {})", k, nargs, kMaxArgs));
    // The slot may hold an earlier event: clear the arguments it used beyond this one's.
    for (size_t i = nargs; i < e.nargs && i < static_cast<size_t>(kMaxArgs); ++i) e.args[i] = Arg{};
    e.nargs = nargs;
    for (size_t i = 0; i < nargs; ++i) {
      Arg& a = e.args[i];
      uint8_t t = c[kArgTypes].get_byte();
      if (t >= kTypes) return fail(fmt::format("event {}: unknown argument type {}", k, t));
      a.type = static_cast<ArgType>(t);
      int64_t& last = s.value[i][t];
      a.value = static_cast<int64_t>(static_cast<uint64_t>(last) +
                                     static_cast<uint64_t>(c[kArgValues].get_signed()));
      last = a.value;
      int64_t str = s.str[i] + c[kArgStrs].get_signed();
      if (str < 0 || static_cast<uint64_t>(str) >= nstrings)
        return fail(fmt::format("event {}: string id {} is not in the string table", k, str));
      a.str = static_cast<StrId>(str);
      s.str[i] = str;
    }
    e.rvalue = c[kRvalue].get_signed();
    e.flags = static_cast<uint32_t>(c[kFlags].get());
    uint8_t mask = c[kExtraMask].get_byte();
    if (mask > 7) return fail(fmt::format("event {}: bad extras mask {}", k, mask));
    e.planned_ns = e.expected_rvalue = e.raw_end_ns = 0;
    if (mask & 1)
      e.planned_ns = static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) +
                                          static_cast<uint64_t>(c[kExtras].get_signed()));
    if (mask & 2) e.expected_rvalue = c[kExtras].get_signed();
    if (mask & 4)
      e.raw_end_ns = static_cast<int64_t>(static_cast<uint64_t>(e.end_ns) +
                                          static_cast<uint64_t>(c[kExtras].get_signed()));
    e.offcpu_ns = 0;
    e.vol_switches = e.invol_switches = 0;
    if (sched) {
      e.offcpu_ns = c[kOffCpu].get_signed();
      const uint64_t vol = c[kSwitches].get(), invol = c[kSwitches].get();
      if (vol > UINT32_MAX || invol > UINT32_MAX)
        return fail(fmt::format("event {}: context switch count {} does not fit 32 bits", k, std::max(vol, invol)));
      e.vol_switches = static_cast<uint32_t>(vol);
      e.invol_switches = static_cast<uint32_t>(invol);
    }
    e.uring_user_data = 0;
    e.uring_enter_ns = 0;
    if (uring) {
      e.uring_user_data = c[kUringData].get();
      const uint64_t link = c[kUringEnter].get();
      if (link != 0)
        e.uring_enter_ns = static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) -
                                                static_cast<uint64_t>(unzigzag(link - 1)));
    }
    e.gap_offcpu_ns = gap ? c[kGapOffCpu].get_signed() : 0;
  }
  c_ = c;
  s_ = s;
  done_ = first + static_cast<uint32_t>(n);
  return true;
}

bool EventColumnDecoder::finish(std::string* why) const {
  for (size_t i = 0; i < ncols_; ++i) {
    if (c_[i].bad()) {
      *why = fmt::format("events block: column {} is shorter than its events", i);
      return false;
    }
    if (!c_[i].at_end()) {
      *why = fmt::format("events block: column {} has trailing bytes", i);
      return false;
    }
  }
  return true;
}

bool decode_event_columns(std::string_view raw, uint32_t count, size_t nstrings,
                          std::vector<Event>& out, std::string* why) {
  EventColumnDecoder d;
  if (!d.start(raw, count, nstrings, why)) return false;
  const size_t old_size = out.size();
  // Decoded a chunk at a time into a small buffer (no allocation proportional to a count the
  // payload may not back), then appended.
  std::vector<Event> chunk(std::min<size_t>(count, kDecodeChunkEvents));
  while (d.remaining() > 0) {
    const size_t n = std::min<size_t>(d.remaining(), chunk.size());
    if (!d.decode(chunk.data(), n, why)) {
      out.resize(old_size);
      return false;
    }
    out.insert(out.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (!d.finish(why)) {
    out.resize(old_size);
    return false;
  }
  return true;
}

}  // namespace rastro::trace::binary

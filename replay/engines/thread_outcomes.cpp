#include "replay/engines/thread_outcomes.h"

#include <map>
#include <set>

#include "common/error.h"
#include "replay/engines/engine_common.h"
#include "trace/formats/binary/varint.h"

namespace rastro::replay::detail {

namespace {

using trace::binary::put_svarint;
using trace::binary::put_varint;

void put_string(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

void put_counts(std::string& out, const std::map<std::string, uint64_t>& m) {
  put_varint(out, m.size());
  for (const auto& [k, v] : m) {
    put_string(out, k);
    put_varint(out, v);
  }
}

class Reader {
 public:
  explicit Reader(std::string_view b)
      : in_(reinterpret_cast<const uint8_t*>(b.data()), reinterpret_cast<const uint8_t*>(b.data()) + b.size()) {}
  uint64_t get() { return check(in_.get()); }
  int64_t get_signed() { return check(in_.get_signed()); }
  std::string_view string() {
    const uint64_t n = get();
    const uint8_t* p = in_.take(n);
    if (!p) bad();
    return {reinterpret_cast<const char*>(p), n};
  }
  void counts(std::map<std::string, uint64_t>& m) {
    for (uint64_t n = get(); n > 0; --n) {
      std::string k(string());
      m[k] += get();
    }
  }
  bool done() const { return in_.remaining() == 0; }

 private:
  template <class T>
  T check(T v) {
    if (in_.bad()) bad();
    return v;
  }
  [[noreturn]] static void bad() { throw Error("replay: a replay process's outcome is truncated or malformed"); }
  trace::binary::VarintCursor in_;
};

}  // namespace

void ThreadOutcomes::merge_into(EngineResult& res, const Plan& plan, bool record_os_threads) const {
  std::vector<int32_t> tids(slots_.size(), 0);
  std::set<int32_t> pids;
  for (size_t t = 0; t < slots_.size(); ++t) {
    const ThreadOutcome& o = slots_[t];
    if (o.os_pid != 0) pids.insert(o.os_pid);
    res.stats.merge(o.stats);
    res.dependency_waits += o.dependency_waits;
    if (!o.warning.empty() && res.warnings.empty()) res.warnings.push_back(o.warning);
    tids[t] = o.os_tid;
  }
  if (record_os_threads) res.os_threads = per_request_os_threads(plan, tids);
  res.replay_processes = pids.size();
}

std::string ThreadOutcomes::encode(std::span<const size_t> threads, const RecordLog& log) const {
  std::string out;
  put_varint(out, threads.size());
  for (size_t t : threads) {
    const ThreadOutcome& o = slots_[t];
    const ExecStats& s = o.stats;
    put_varint(out, t);
    put_varint(out, static_cast<uint32_t>(o.os_tid));
    put_varint(out, static_cast<uint32_t>(o.os_pid));
    put_varint(out, o.dependency_waits);
    put_string(out, o.warning);
    for (uint64_t v : {s.executed, s.emulated, s.emulated_files, s.mismatched}) put_varint(out, v);
    for (uint64_t v : s.skipped) put_varint(out, v);
    put_counts(out, s.unsupported);
    put_counts(out, s.mismatched_by_call);
    put_string(out, log.stream_bytes(static_cast<uint32_t>(t)));
    put_svarint(out, log.stream_end(static_cast<uint32_t>(t)));
  }
  return out;
}

void ThreadOutcomes::adopt(std::string_view bytes, RecordLog& log) {
  Reader in(bytes);
  for (uint64_t n = in.get(); n > 0; --n) {
    const uint64_t t = in.get();
    if (t >= slots_.size()) throw Error("replay: a replay process's outcome names plan thread " + std::to_string(t) +
                                        " of " + std::to_string(slots_.size()));
    ThreadOutcome& o = slots_[t];
    ExecStats& s = o.stats;
    o.os_tid = static_cast<int32_t>(in.get());
    o.os_pid = static_cast<int32_t>(in.get());
    o.dependency_waits = in.get();
    o.warning = std::string(in.string());
    for (uint64_t* v : {&s.executed, &s.emulated, &s.emulated_files, &s.mismatched}) *v = in.get();
    for (uint64_t& v : s.skipped) v = in.get();
    in.counts(s.unsupported);
    in.counts(s.mismatched_by_call);
    const std::string_view stream = in.string();
    log.adopt_stream(static_cast<uint32_t>(t), stream, in.get_signed());
  }
  if (!in.done()) throw Error("replay: a replay process's outcome has bytes after its last thread");
}

}  // namespace rastro::replay::detail

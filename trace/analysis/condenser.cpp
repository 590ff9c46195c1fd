#include "trace/analysis/condenser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "trace/analysis/quantile_sketch.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {

// Accumulates one row: exact counts, bytes, sum and max; the quantiles from a sketch (exact for
// rows of up to QuantileSketch::kExactValues finished events). Outside the anonymous namespace
// because Condenser::Rows, declared in the header, holds it.
struct CondenserAcc {
  LatencyRow row;
  QuantileSketch durations;
  double sum = 0;
  bool any = false;

  void add(const Event& e, uint64_t bytes) {
    ++row.count;
    if (e.failed()) ++row.errors;
    row.bytes += bytes;
    if (e.flags & kEventOffCpu) {
      ++row.sched_measured;
      row.offcpu_ns = static_cast<int64_t>(static_cast<uint64_t>(row.offcpu_ns) + static_cast<uint64_t>(e.offcpu_ns));
      row.vol_switches += e.vol_switches;
      row.invol_switches += e.invol_switches;
      row.gap_offcpu_ns =
          static_cast<int64_t>(static_cast<uint64_t>(row.gap_offcpu_ns) + static_cast<uint64_t>(e.gap_offcpu_ns));
    }
    if (e.flags & kEventUnfinished) {
      ++row.unfinished;
      return;
    }
    // Wrapping subtraction: a damaged trace may hold extreme timestamps (no signed overflow).
    auto d = static_cast<int64_t>(static_cast<uint64_t>(e.end_ns) - static_cast<uint64_t>(e.begin_ns));
    durations.add(d);
    sum += static_cast<double>(d);
    row.max_ns = any ? std::max(row.max_ns, d) : d;
    any = true;
  }
  void merge(const CondenserAcc& o) {
    row.count += o.row.count;
    row.errors += o.row.errors;
    row.bytes += o.row.bytes;
    row.unfinished += o.row.unfinished;
    durations.merge(o.durations);
    sum += o.sum;
    if (o.any) row.max_ns = any ? std::max(row.max_ns, o.row.max_ns) : o.row.max_ns;
    any = any || o.any;
  }
  LatencyRow finish() const {
    LatencyRow r = row;
    if (any) {
      r.mean_ns = sum / static_cast<double>(durations.count());
      r.p50_ns = durations.quantile(0.50);
      r.p99_ns = durations.quantile(0.99);
    }
    return r;
  }
};

namespace {

using Acc = CondenserAcc;

std::vector<LatencyRow> by_count(const std::map<std::string, Acc>& m) {
  std::vector<LatencyRow> rows;
  rows.reserve(m.size());
  for (const auto& [k, acc] : m) {
    rows.push_back(acc.finish());
    rows.back().key = k;
  }
  std::sort(rows.begin(), rows.end(), [](const LatencyRow& a, const LatencyRow& b) {
    return a.count != b.count ? a.count > b.count : a.key < b.key;
  });
  return rows;
}

}  // namespace

double quantile_type7(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  double h = static_cast<double>(sorted.size() - 1) * p;
  auto lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = h - static_cast<double>(lo);
  return static_cast<double>(sorted[lo]) +
         frac * (static_cast<double>(sorted[hi]) - static_cast<double>(sorted[lo]));
}

uint64_t transferred_bytes(const Event& e) {
  // A page fault reached one page of the file (mm_fault_around ranges are not counted: the
  // program did not touch those pages).
  if (e.flags & kEventPageFault)
    return e.nargs == kFaultArgs && !(e.arg(kFaultArgHow).value & kFaultAround)
               ? static_cast<uint64_t>(std::max<int64_t>(e.arg(kFaultArgLength).value, 0))
               : 0;
  if (e.rvalue <= 0 || (e.flags & kEventUnfinished)) return 0;
  const SyscallInfo* s = syscall_by_nr(e.nr);
  if (!s || s->ret != ReturnKind::kCount || !(s->classes & (kClassRead | kClassWrite))) return 0;
  return static_cast<uint64_t>(e.rvalue);
}

StrId event_file_id(const Event& e) {
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == ArgType::kPath && e.arg(i).str != kNoStr) return e.arg(i).str;
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == ArgType::kFd && e.arg(i).str != kNoStr) return e.arg(i).str;
  return kNoStr;
}

std::string_view event_file(const Event& e, const StringTable& strings) {
  return strings.get(event_file_id(e));
}

namespace {

// "rank 2" before "rank 10": runs of digits compare as numbers.
bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::string_view x = a.substr(i, ie - i), y = b.substr(j, je - j);
      while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
      while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

// Group rows merge the thread rows of the pids each group names.
std::vector<GroupRows> condense_groups(const TraceHeader& header,
                                       const std::map<std::pair<int32_t, int32_t>, Acc>& threads) {
  std::vector<GroupRows> out;
  const nlohmann::json& extra = header.extra;
  if (!extra.contains("process_groups") || !extra["process_groups"].is_object()) return out;
  for (const auto& [group, labels] : extra["process_groups"].items()) {
    if (!labels.is_object()) continue;
    std::unordered_map<int32_t, std::string> label_of;
    for (const auto& [pid, label] : labels.items()) {
      char* end = nullptr;
      const long p = std::strtol(pid.c_str(), &end, 10);
      if (*end == '\0' && label.is_string()) label_of[static_cast<int32_t>(p)] = label.get<std::string>();
    }
    std::map<std::string, Acc> acc;
    for (const auto& [thread, a] : threads)
      if (auto it = label_of.find(thread.first); it != label_of.end()) acc[it->second].merge(a);
    GroupRows g{group, {}};
    for (const auto& [label, a] : acc) {
      g.rows.push_back(a.finish());
      g.rows.back().key = label;
    }
    std::sort(g.rows.begin(), g.rows.end(), [](const LatencyRow& x, const LatencyRow& y) { return natural_less(x.key, y.key); });
    out.push_back(std::move(g));
  }
  return out;
}

// Events of a known syscall are keyed by their number, others by their name's string id.
int64_t function_key(const Event& e) { return syscall_by_nr(e.nr) ? e.nr : -1 - int64_t{e.name}; }

}  // namespace

struct Condenser::Rows {
  Acc total;
  std::unordered_map<int64_t, Acc> functions;
  std::unordered_map<StrId, Acc> files;
  std::map<std::pair<int32_t, int32_t>, Acc> threads;
  std::unordered_map<int64_t, Event> function_example;  // to name the function rows
};

Condenser::Condenser() : rows_(std::make_unique<Rows>()) {}
Condenser::~Condenser() = default;

void Condenser::add(std::span<const Event> events) {
  Rows& r = *rows_;
  for (const Event& e : events) {
    uint64_t bytes = transferred_bytes(e);
    r.total.add(e, bytes);
    int64_t f = function_key(e);
    auto [it, added] = r.functions.try_emplace(f);
    if (added) r.function_example[f] = e;
    it->second.add(e, bytes);
    r.threads[{e.pid, e.tid}].add(e, bytes);
    StrId file = event_file_id(e);
    if (file != kNoStr) r.files[file].add(e, bytes);
  }
}

Condensed Condenser::finish(const TraceHeader& header, const StringTable& strings) const {
  const Rows& r = *rows_;
  // Keys become names here; two keys naming the same function or file share a row.
  std::map<std::string, Acc> functions, files;
  for (const auto& [k, acc] : r.functions) functions[std::string(function_name(r.function_example.at(k), strings))].merge(acc);
  for (const auto& [id, acc] : r.files) files[std::string(strings.get(id))].merge(acc);
  Condensed c;
  c.total = r.total.finish();
  c.total.key = "total";
  c.by_function = by_count(functions);
  c.by_file = by_count(files);
  for (const auto& [k, acc] : r.threads) {
    c.by_thread.push_back(acc.finish());
    LatencyRow& row = c.by_thread.back();
    row.pid = k.first;
    row.tid = k.second;
    row.key = fmt::format("{}/{}", k.first, k.second);
  }
  c.by_group = condense_groups(header, r.threads);
  return c;
}

Condensed condense(const Trace& trace) {
  Condenser c;
  c.add(trace.events);
  return c.finish(trace.header, trace.strings);
}

}  // namespace rastro::trace

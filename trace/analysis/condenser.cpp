#include "trace/analysis/condenser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {
namespace {

// Accumulates one row; durations are kept for the quantiles.
struct Acc {
  LatencyRow row;
  std::vector<int64_t> durations;
  double sum = 0;

  void add(const Event& e, uint64_t bytes) {
    ++row.count;
    if (e.failed()) ++row.errors;
    row.bytes += bytes;
    if (e.flags & kEventOffCpu) {
      ++row.sched_measured;
      row.offcpu_ns = static_cast<int64_t>(static_cast<uint64_t>(row.offcpu_ns) + static_cast<uint64_t>(e.offcpu_ns));
      row.vol_switches += e.vol_switches;
      row.invol_switches += e.invol_switches;
    }
    if (e.flags & kEventUnfinished) {
      ++row.unfinished;
      return;
    }
    // Wrapping subtraction: a damaged trace may hold extreme timestamps (no signed overflow).
    auto d = static_cast<int64_t>(static_cast<uint64_t>(e.end_ns) - static_cast<uint64_t>(e.begin_ns));
    durations.push_back(d);
    sum += static_cast<double>(d);
  }
  LatencyRow finish() {
    std::sort(durations.begin(), durations.end());
    if (!durations.empty()) {
      row.mean_ns = sum / static_cast<double>(durations.size());
      row.p50_ns = quantile_type7(durations, 0.50);
      row.p99_ns = quantile_type7(durations, 0.99);
      row.max_ns = durations.back();
    }
    durations = {};
    return std::move(row);
  }
};

std::vector<LatencyRow> by_count(std::unordered_map<std::string_view, Acc>& m) {
  std::vector<LatencyRow> rows;
  rows.reserve(m.size());
  for (auto& [k, acc] : m) {
    acc.row.key = std::string(k);
    rows.push_back(acc.finish());
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
  if (e.rvalue <= 0 || (e.flags & kEventUnfinished)) return 0;
  const SyscallInfo* s = syscall_by_nr(e.nr);
  if (!s || s->ret != ReturnKind::kCount || !(s->classes & (kClassRead | kClassWrite))) return 0;
  return static_cast<uint64_t>(e.rvalue);
}

std::string_view event_file(const Event& e, const StringTable& strings) {
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == ArgType::kPath && e.arg(i).str != kNoStr) return strings.get(e.arg(i).str);
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).type == ArgType::kFd && e.arg(i).str != kNoStr) return strings.get(e.arg(i).str);
  return {};
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

std::vector<GroupRows> condense_groups(const Trace& trace) {
  std::vector<GroupRows> out;
  const nlohmann::json& extra = trace.header.extra;
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
    for (const Event& e : trace.events)
      if (auto it = label_of.find(e.pid); it != label_of.end()) acc[it->second].add(e, transferred_bytes(e));
    GroupRows g{group, {}};
    for (auto& [label, a] : acc) {
      a.row.key = label;
      g.rows.push_back(a.finish());
    }
    std::sort(g.rows.begin(), g.rows.end(), [](const LatencyRow& x, const LatencyRow& y) { return natural_less(x.key, y.key); });
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace

Condensed condense(const Trace& trace) {
  Acc total;
  std::unordered_map<std::string_view, Acc> functions, files;
  std::map<std::pair<int32_t, int32_t>, Acc> threads;
  for (const Event& e : trace.events) {
    uint64_t bytes = transferred_bytes(e);
    total.add(e, bytes);
    functions[function_name(e, trace.strings)].add(e, bytes);
    threads[{e.pid, e.tid}].add(e, bytes);
    std::string_view f = event_file(e, trace.strings);
    if (!f.empty()) files[f].add(e, bytes);
  }
  Condensed c;
  total.row.key = "total";
  c.total = total.finish();
  c.by_function = by_count(functions);
  c.by_file = by_count(files);
  for (auto& [k, acc] : threads) {
    acc.row.pid = k.first;
    acc.row.tid = k.second;
    acc.row.key = fmt::format("{}/{}", k.first, k.second);
    c.by_thread.push_back(acc.finish());
  }
  c.by_group = condense_groups(trace);
  return c;
}

}  // namespace rastro::trace

// The rows of a per-call-class report (the replay fidelity report, replay_fidelity.h; the run
// comparison, run_comparison.h): per-syscall tallies kept by name, rolled up into per-class and
// total rows in the order every report lists them (call_class_names()), and walked for a text table.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/analysis/call_class.h"
#include "trace/model/event.h"

namespace rastro::trace {

// The tally of a call's syscall in a report's per-syscall map, made (with the row's key and class)
// at the syscall's first call.
template <class Tally>
Tally& tally_of(std::map<std::string, Tally, std::less<>>& tallies, std::string_view name, const Event& e) {
  auto it = tallies.find(name);
  if (it == tallies.end()) {
    it = tallies.emplace(std::string(name), Tally{}).first;
    it->second.row.key = std::string(name);
    it->second.row.call_class = std::string(call_class(e));
  }
  return it->second;
}

// A report's rows per syscall, per class and in total.
template <class Row>
struct ClassRollup {
  std::vector<Row> by_call;   // by class (call_class_names() order), then calls descending, then name
  std::vector<Row> by_class;  // classes with calls, in call_class_names() order
  Row total;                  // key "total"
};

// Rolls per-syscall tallies (name -> Tally, whose `row` has `key` and `call_class`) up into a
// report's rows: `add(into, from)` sums a tally into another, `finish(tally)` makes its row (the
// medians, from the merged sketches), `calls(row)` is what rows of one class are sorted by.
template <class Tally, class Add, class Finish, class Calls>
auto roll_up_by_class(const std::map<std::string, Tally, std::less<>>& tallies, Add add, Finish finish, Calls calls) {
  using Row = decltype(finish(std::declval<const Tally&>()));
  ClassRollup<Row> out;
  Tally all;
  std::map<size_t, Tally> classes;
  for (const auto& entry : tallies) {
    const Tally& t = entry.second;
    out.by_call.push_back(finish(t));
    Tally& c = classes[call_class_rank(t.row.call_class)];
    c.row.key = t.row.call_class;
    add(c, t);
    add(all, t);
  }
  for (const auto& entry : classes) out.by_class.push_back(finish(entry.second));
  all.row.key = "total";
  out.total = finish(all);
  std::stable_sort(out.by_call.begin(), out.by_call.end(), [&calls](const Row& a, const Row& b) {
    const size_t ca = call_class_rank(a.call_class), cb = call_class_rank(b.call_class);
    if (ca != cb) return ca < cb;
    const uint64_t na = calls(a), nb = calls(b);
    if (na != nb) return na > nb;
    return a.key < b.key;
  });
  return out;
}

// A report's text rows: each class's row, its syscalls' rows under it (indented) when `with_calls`,
// then the total: `print(row, indent)`.
template <class Row, class Print>
void for_each_report_row(const std::vector<Row>& by_class, const std::vector<Row>& by_call, const Row& total,
                         bool with_calls, Print print) {
  for (const auto& c : by_class) {
    print(c, std::string_view());
    if (!with_calls) continue;
    for (const auto& r : by_call)
      if (r.call_class == c.key) print(r, std::string_view("  "));
  }
  print(total, std::string_view());
}

}  // namespace rastro::trace

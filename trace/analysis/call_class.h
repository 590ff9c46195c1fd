// The class of a call, for reports that group syscalls (the replay fidelity report): one name per
// call, read from the syscall table's columns (classes and family), never from syscall names.
//
//   data        read/write family, lseek, fallocate, ftruncate, readahead, sendfile, ...
//   sync        fsync, fdatasync, sync, syncfs, sync_file_range
//   metadata    stat family, access, readlink, getdents, statfs
//   namespace   mkdir/rmdir/unlink/rename/link/symlink/mknod, chmod/chown, utime, xattrs, truncate
//   open/close  the open family, close
//   fd          dup family, fcntl, flock, ioctl, pipes and sockets
//   memory      mmap family
//   process     clone/fork/exec/exit, chdir, umask, getcwd, signals
//   other       a call the syscall table does not know (its name stored in the trace)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/model/event.h"

namespace rastro::trace {

// Every class name, in the order reports list them.
std::span<const std::string_view> call_class_names();

// A class name's place in call_class_names() (its size for a name not there): reports sort by it.
size_t call_class_rank(std::string_view cls);

// The class of an event's call (by its nr).
std::string_view call_class(const Event& e);

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

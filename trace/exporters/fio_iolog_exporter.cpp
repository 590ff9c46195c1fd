// fio iolog version 3 (fio >= 3.31, `man fio` "Trace file format v3"): the trace's file data
// traffic, replayable with `fio --read_iolog=OUT`.
//
//   fio version 3 iolog
//   0 f1_a add
//   200 f1_a open
//   200 f1_a read 0 4096
//   1400 f1_a close
//
// Timestamps are microseconds from the first event (fio's log_io_u writes utime_since_now).
// fio parses names with %256s, so each traced file becomes a short relative name
// "f<N>_<basename>" (no blanks): fio then works in its current directory, never on the traced
// paths. (fio 3.33 crashes when --directory is combined with --read_iolog, so the names are
// relative to where fio runs.) Bytes are what each call moved (file_access.h); a file is opened
// in fio before its first I/O and closed when the trace's last descriptor on it closes.
//
// fio fails a read past the end of a file ("full resid"), so OUT.layout.sh is written next to
// OUT: it creates each file the log reads, as large as the largest offset + length read from it
// (`truncate`, so the sizes cost no disk). Run it in fio's directory first.
#include <algorithm>
#include <limits>
#include <span>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "common/atomic_write.h"
#include "common/error.h"
#include "trace/analysis/file_access.h"
#include "trace/exporters/export_util.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

// "f<N>_<basename>" with every byte outside [A-Za-z0-9._-] replaced by '_', at most 64 bytes.
std::string fio_file_name(size_t index, std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::string name = fmt::format("f{}_", index + 1);
  for (char c : base.substr(0, 48)) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    name.push_back(plain ? c : '_');
  }
  return name;
}

class FioIologExporter final : public Exporter {
 public:
  std::string_view name() const override { return "fio-iolog"; }
  std::string_view description() const override {
    return "fio iolog v3 (+ OUT.layout.sh creating the files it reads): `fio --read_iolog=OUT`";
  }
  using Exporter::write;
  void write(TracePasses& trace, const std::string& path) const override;
};

// Calls fn(const FileAccess&, const FileAccessLog&) for every access of the trace, in order,
// in one pass.
template <class Fn>
void for_each_access(TracePasses& trace, Fn&& fn) {
  FileAccessReducer reducer;
  uint64_t index = 0;
  trace.pass([&](std::span<const Event> block, const StringTable& strings) {
    for (const Event& e : block) reducer.add(index++, e, strings);
    FileAccessLog& log = reducer.log();
    for (const FileAccess& a : log.accesses) fn(a, log);
    log.accesses.clear();
  });
}

// What fio does with an access: nothing for descriptor bookkeeping and end-of-file reads.
bool is_fio_io(const FileAccess& a) {
  if (a.kind == AccessKind::kOpen || a.kind == AccessKind::kClose) return false;
  return !(a.kind == AccessKind::kRead && a.bytes == 0);  // end of file: fio has no such I/O
}

void FioIologExporter::write(TracePasses& trace, const std::string& path) const {
  // First pass: the time origin, the files fio touches and how far it reads them.
  int64_t origin = std::numeric_limits<int64_t>::max();
  std::vector<std::string> names;
  std::vector<bool> used;
  std::vector<uint64_t> read_extent;
  for_each_access(trace, [&](const FileAccess& a, const FileAccessLog& log) {
    while (names.size() < log.files.size()) {
      names.push_back(fio_file_name(names.size(), log.files[names.size()]));
      used.push_back(false);
      read_extent.push_back(0);
    }
    if (!is_fio_io(a)) return;
    used[a.file] = true;
    if (a.kind == AccessKind::kRead) read_extent[a.file] = std::max(read_extent[a.file], a.offset + a.bytes);
  });
  trace.pass([&](std::span<const Event> block, const StringTable&) {
    for (const Event& e : block) origin = std::min(origin, e.begin_ns);
  });
  if (trace.size() == 0) origin = 0;
  auto us = [&](int64_t ns) { return static_cast<uint64_t>(std::max<int64_t>(0, ns - origin)) / 1000; };

  size_t n = names.size();
  std::string layout = fmt::format(
      "#!/bin/sh\n# Creates the files {} reads, at the sizes it reads them (run where fio runs).\nset -e\n",
      path);
  for (size_t i = 0; i < n; ++i)
    if (used[i] && read_extent[i] > 0) layout += fmt::format("truncate -s {} '{}'\n", read_extent[i], names[i]);
  write_text_atomically(path + ".layout.sh", layout);

  // Second pass: the log itself.
  write_file_atomically(path, [&](std::ofstream& out) {
    out << "fio version 3 iolog\n";
    for (size_t i = 0; i < n; ++i)
      if (used[i]) out << fmt::format("0 {} add\n", names[i]);
    std::vector<bool> open_in_fio(n, false);
    std::vector<uint32_t> descriptors(n, 0);
    uint64_t last_us = 0;
    for_each_access(trace, [&](const FileAccess& a, const FileAccessLog&) {
      const std::string& f = names[a.file];
      last_us = std::max(last_us, us(a.time_ns));
      switch (a.kind) {
        case AccessKind::kOpen:
          ++descriptors[a.file];
          return;
        case AccessKind::kClose:
          if (descriptors[a.file] > 0) --descriptors[a.file];
          if (descriptors[a.file] == 0 && open_in_fio[a.file]) {
            out << fmt::format("{} {} close\n", us(a.time_ns), f);
            open_in_fio[a.file] = false;
          }
          return;
        default:
          break;
      }
      if (!is_fio_io(a)) return;
      if (!open_in_fio[a.file]) {
        out << fmt::format("{} {} open\n", us(a.time_ns), f);
        open_in_fio[a.file] = true;
      }
      switch (a.kind) {
        case AccessKind::kRead:
          out << fmt::format("{} {} read {} {}\n", us(a.time_ns), f, a.offset, a.bytes);
          break;
        case AccessKind::kWrite:
          out << fmt::format("{} {} write {} {}\n", us(a.time_ns), f, a.offset, a.bytes);
          break;
        case AccessKind::kSync:
          out << fmt::format("{} {} sync 0 0\n", us(a.time_ns), f);
          break;
        default:
          out << fmt::format("{} {} datasync 0 0\n", us(a.time_ns), f);
          break;
      }
    });
    for (size_t i = 0; i < n; ++i)
      if (open_in_fio[i]) out << fmt::format("{} {} close\n", last_us, names[i]);
  });
}

}  // namespace

const Exporter& fio_iolog_exporter() {
  static const FioIologExporter e;
  return e;
}

}  // namespace rastro::trace

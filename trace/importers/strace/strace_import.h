// Importing strace logs into the uniform trace (docs/strace-import.md).
//
//   strace -f -ttt -T [-y|-yy] -o LOG -- cmd        (also --absolute-timestamps=format:unix,
//   strace -ff -ttt -T -o LOG -- cmd  -> LOG.<pid>    precision:ns --syscall-times=ns, stderr)
//
// <unfinished ...> / <... resumed> pairs become one event (begin = the unfinished line's time,
// end = begin + the -T duration strace printed). Calls still unfinished at the end are kept
// with kEventUnfinished. Signal, exit and strace's own lines are counted and skipped. Unknown
// syscalls are kept as generic events. fd paths come from -y annotations or, without -y, from
// tracking opens/dups/closes per process (trace/common/fd_table.h). With -f, strace's pid is
// the thread id; the thread-group id (Event::pid) is derived from clone(CLONE_THREAD).
//
// Memory does not grow with the log: events wait in memory only until their thread's process is
// known (a clone's child can print lines before the clone returns in its parent), and beyond
// 65 536 waiting events they wait in a temporary file (trace/io/event_spill.h); -ff files, read
// one after the other and put back in completion order, are sorted the same way (sorted runs
// parked on disk, then merged).
//
// Timestamps are strace's wall-clock times (header clock "CLOCK_REALTIME") unless
// clock_offset_ns maps them to CLOCK_MONOTONIC (the strace capture backend knows the offset).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/progress.h"
#include "trace/io/trace_sink.h"
#include "trace/stats.h"

namespace rastro::trace {

struct StraceImportOptions {
  int default_tid = 0;          // tid of lines without a pid prefix (0: infer it, see docs)
  int64_t clock_offset_ns = 0;  // added to every timestamp (0: keep wall-clock time)
  size_t max_reported_problems = 10;
  bool fill_header = true;      // set backend/clock/settings/counters in sink.header()
  // Lines done, and the share of `input_bytes` (the log's size; all files' with -ff) read, for a
  // progress line (may be null).
  Progress* progress = nullptr;
  uint64_t input_bytes = 0;
};

struct ImportReport {
  Stats stats;
  std::vector<std::string> problems;  // the first few "file:line: what" (data loss and errors)
  uint64_t problems_total = 0;
  uint64_t events = 0;
  bool has_errors() const { return stats.has_errors(); }
  // Every counter (zeros included), then the reported problems.
  void print(std::ostream& out) const;
};

// Appends the events of one strace log (one file, any -f form) to `sink` (does not call
// sink.finish()). Throws rastro::Error only when the stream cannot be read.
ImportReport import_strace(std::istream& in, const std::string& name_for_errors, TraceSink& sink,
                           const StraceImportOptions& options = {});

// strace -ff -o PREFIX writes PREFIX.<pid>: lists them (sorted by pid); empty if none.
std::vector<std::string> find_strace_ff_files(const std::string& prefix);
// Imports -ff files; each file's tid is its numeric suffix. Throws rastro::Error if a file
// cannot be opened or has no numeric suffix.
ImportReport import_strace_ff(const std::vector<std::string>& paths, TraceSink& sink,
                              const StraceImportOptions& options = {});

}  // namespace rastro::trace

// The condenser (seed 003): a trace boiled down to per-function, per-thread and per-file rows of
// count, bytes, latency (mean / p50 / p99 / max of end - begin) and errors. `rastro stats`
// prints it.
//
// Rules: latency statistics use finished events only (an unfinished call has no end); bytes are
// the successful return values of data-transfer calls (the read and write classes returning a
// count); errors are events with rvalue in [-4095, -1]; off-CPU time and switch counts are sums
// over the events that measured them (kEventOffCpu: the eBPF backend); the file of an event is its first path
// argument, else the path of its first fd argument, and events with neither have no file row.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace rastro::trace {

struct LatencyRow {
  std::string key;       // function name, "pid/tid", or path
  int32_t pid = 0;       // thread rows only
  int32_t tid = 0;       // thread rows only
  uint64_t count = 0;    // events, unfinished included
  uint64_t unfinished = 0;
  uint64_t errors = 0;
  uint64_t bytes = 0;
  double mean_ns = 0;    // over finished events; 0 when there are none
  double p50_ns = 0;     // quantiles as R's quantile(type = 7)
  double p99_ns = 0;
  int64_t max_ns = 0;
  // Scheduling inside the calls, summed over the events that measured it (kEventOffCpu).
  uint64_t sched_measured = 0;
  int64_t offcpu_ns = 0;
  uint64_t vol_switches = 0;
  uint64_t invol_switches = 0;
  int64_t gap_offcpu_ns = 0;  // off-CPU between calls, before each (Event::gap_offcpu_ns)
};

// Rows of one grouping of processes named by the trace header (see condense()).
struct GroupRows {
  std::string group;             // "rank", "host", ...
  std::vector<LatencyRow> rows;  // one per label, labels in natural order ("rank 2" < "rank 10")
};

struct Condensed {
  LatencyRow total;
  std::vector<LatencyRow> by_function;  // count descending, then name
  std::vector<LatencyRow> by_thread;    // pid, tid ascending
  std::vector<LatencyRow> by_file;      // count descending, then path
  std::vector<GroupRows> by_group;      // header.extra.process_groups, when the trace has them
};

// header.extra.process_groups = {"GROUP": {"PID": "LABEL", ...}, ...} (a merged MPI job has
// "rank" and "host") adds one table per group; events of pids the group does not name are left
// out of that table.
Condensed condense(const Trace& trace);

// The same over a stream of blocks, in memory that grows with the rows (functions, threads,
// files), not the events: counts, bytes, errors, means and maxima stay exact; p50/p99 come from a
// QuantileSketch (quantile_sketch.h: exact for rows of up to 1,024 finished events, else within
// 1 % relative error).
class Condenser {
 public:
  Condenser();
  ~Condenser();
  Condenser(const Condenser&) = delete;
  Condenser& operator=(const Condenser&) = delete;

  void add(std::span<const Event> events);
  // `header` names the process groups; `strings` resolves every event added.
  Condensed finish(const TraceHeader& header, const StringTable& strings) const;

 private:
  struct Rows;
  std::unique_ptr<Rows> rows_;
};

// Bytes moved by a successful data-transfer call, else 0.
uint64_t transferred_bytes(const Event& e);

// The path an event concerns (see the header comment), or "" when none is known.
std::string_view event_file(const Event& e, const StringTable& strings);
// Its string id (kNoStr when none is known).
StrId event_file_id(const Event& e);

// Quantile p in [0, 1] of an ascending sample, R's default (type 7) definition:
// h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]). 0 for an empty sample.
double quantile_type7(const std::vector<int64_t>& sorted, double p);

}  // namespace rastro::trace

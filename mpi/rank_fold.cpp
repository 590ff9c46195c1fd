#include "mpi/rank_fold.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/saturating.h"
#include "mpi/mpi_ops.h"
#include "trace/stats.h"

namespace rastro::mpi {

namespace {

bool touches_log(const trace::Event& e, trace::StrId log_id) {
  if (log_id == trace::kNoStr) return false;
  for (int i = 0; i < e.nargs; ++i)
    if (e.arg(i).str == log_id) return true;
  return false;
}

trace::Arg int_arg(int64_t v) { return {trace::ArgType::kInt, v, trace::kNoStr}; }

}  // namespace

FoldReport fold_rank_log(trace::Trace& trace, const RankLog& log, const FoldOptions& options) {
  FoldReport report;
  trace::StrId log_id = trace::kNoStr;
  if (!options.log_path.empty() && !trace.strings.find(options.log_path, &log_id)) log_id = trace::kNoStr;
  std::vector<trace::Event> events;
  events.reserve(trace.events.size() + log.records.size());
  for (trace::Event e : trace.events) {
    if (touches_log(e, log_id)) {
      ++report.log_io_events_removed;
      continue;
    }
    e.begin_ns = sat_add(e.begin_ns, options.clock_shift_ns);
    if (!(e.flags & trace::kEventUnfinished)) e.end_ns = sat_add(e.end_ns, options.clock_shift_ns);
    events.push_back(e);
  }
  for (const MpiRecord& r : log.records) {
    if (!mpi_op_by_name(r.name)) ++report.unknown_ops;
    trace::Event e;
    e.pid = log.pid;
    e.tid = r.tid;
    e.begin_ns = r.begin;
    e.end_ns = r.end;
    e.nr = -1;
    e.name = trace.strings.intern(r.name);
    e.nargs = 5;
    e.args[kArgComm] = int_arg(r.comm);
    e.args[kArgPeer] = int_arg(r.peer);
    e.args[kArgTag] = int_arg(r.tag);
    e.args[kArgBytes] = {trace::ArgType::kCount, r.bytes, trace::kNoStr};
    e.args[kArgExtra] = int_arg(r.extra);
    e.rvalue = r.rc == 0 ? 0 : -1;
    events.push_back(e);
    ++report.mpi_events;
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const trace::Event& a, const trace::Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t i = 0; i < events.size(); ++i) events[i].seq = i;
  trace.events = std::move(events);

  auto& h = trace.header;
  h.extra["mpi"] = {
      {"rank", log.rank},
      {"size", log.size},
      {"host", log.host},
      {"job", log.job},
      {"pid", log.pid},
      {"finalized", log.finalized},
      {"sync", {{"init", sync_rounds_json(log.init_sync)}, {"finalize", sync_rounds_json(log.finalize_sync)}}},
      {"clock_shift_ns", options.clock_shift_ns},
      {"mpi_events", report.mpi_events},
      {"log_io_events_removed", report.log_io_events_removed},
      {"unknown_ops", report.unknown_ops},
      {"records_dropped_by_library", log.dropped_by_library},
  };
  h.events_captured += report.mpi_events;
  h.events_captured -= std::min(h.events_captured, report.log_io_events_removed);
  if (log.dropped_by_library > 0) {
    h.events_lost += log.dropped_by_library;
    trace::set_lost_reason(h.lost_reasons, trace::kStat_mpi_records_dropped_by_library, log.dropped_by_library);
  }
  return report;
}

}  // namespace rastro::mpi

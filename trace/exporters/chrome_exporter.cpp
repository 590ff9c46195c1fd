// Chrome trace-event JSON ("JSON Object Format"): one "X" complete event per syscall on its
// process/thread track, so Perfetto and chrome://tracing show a per-thread timeline.
//
//   {"displayTimeUnit":"ns","otherData":{<trace header>},"traceEvents":[
//    {"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"pid 1"}},
//    {"name":"read","cat":"syscall","ph":"X","pid":1,"tid":10,"ts":0.200,"dur":0.300,
//     "args":{"seq":1,"fd":3,"fd_path":"/a","count":4096,"rvalue":4096}}, ...]}
//
// A header may carry viewer hints (`rastro merge` writes them): extra.process_names {pid: label}
// names process tracks, and extra.flows [[from_seq, to_seq], ...] draws arrows between two events
// (flow events "s"/"f", e.g. an MPI send to its receive).
//
// ts/dur are microseconds (the format's unit) with three decimals, so nanoseconds survive; ts
// counts from the first event's begin, because doubles of absolute CLOCK_MONOTONIC
// microseconds would lose the nanoseconds in viewers. The offset is in otherData.ts_origin_ns.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <span>
#include <unordered_map>
#include <tuple>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.h"
#include "common/atomic_write.h"
#include "trace/exporters/export_util.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

using exporters::append_json_string;

void append_us(std::string& out, int64_t ns) {
  uint64_t u = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    u = 0 - u;  // well defined for INT64_MIN too
  }
  fmt::format_to(std::back_inserter(out), "{}.{:03}", u / 1000, u % 1000);
}

class ChromeExporter final : public Exporter {
 public:
  std::string_view name() const override { return "chrome"; }
  std::string_view description() const override {
    return "Chrome trace-event JSON: a per-thread timeline for Perfetto / chrome://tracing";
  }
  using Exporter::write;
  void write(TracePasses& trace, const std::string& path) const override;
};

void append_event(std::string& out, const StringTable& strings, const Event& e, int64_t origin) {
  out += "{\"name\":";
  append_json_string(out, function_name(e, strings));
  fmt::format_to(std::back_inserter(out), ",\"cat\":\"syscall\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":",
                 e.pid, e.tid);
  append_us(out, static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) - static_cast<uint64_t>(origin)));
  out += ",\"dur\":";
  bool unfinished = e.flags & kEventUnfinished;
  append_us(out, unfinished ? 0 : std::max<int64_t>(0, exporters::duration_ns(e)));
  fmt::format_to(std::back_inserter(out), ",\"args\":{{\"seq\":{}", e.seq);
  std::set<std::string> used;
  for (int i = 0; i < e.nargs; ++i) {
    const Arg& a = e.arg(i);
    if (a.type == ArgType::kBuf || a.type == ArgType::kNone) continue;  // nothing recorded
    std::string key(exporters::arg_type_name(a.type));
    if (!used.insert(key).second) key += fmt::format("_{}", i);
    out += ",";
    append_json_string(out, key);
    out += ":";
    if (a.type == ArgType::kPath || a.type == ArgType::kStr) {
      append_json_string(out, strings.get(a.str));
      continue;
    }
    fmt::format_to(std::back_inserter(out), "{}", a.value);
    if (a.str != kNoStr) {
      out += ",";
      append_json_string(out, key + "_path");
      out += ":";
      append_json_string(out, strings.get(a.str));
    }
  }
  if (unfinished) {
    out += ",\"unfinished\":true";
  } else {
    fmt::format_to(std::back_inserter(out), ",\"rvalue\":{}", e.rvalue);
    if (e.failed()) {
      out += ",\"error\":";
      append_json_string(out, exporters::errno_name(e.error_number()));
    }
  }
  if (e.flags) fmt::format_to(std::back_inserter(out), ",\"flags\":{}", e.flags);
  if (e.flags & kEventReplayed)
    fmt::format_to(std::back_inserter(out), ",\"planned_ns\":{},\"expected_rvalue\":{}",
                   e.planned_ns, e.expected_rvalue);
  if (e.flags & kEventCalibrated)
    fmt::format_to(std::back_inserter(out), ",\"raw_end_ns\":{}", e.raw_end_ns);
  if (e.flags & kEventOffCpu)
    fmt::format_to(std::back_inserter(out),
                   ",\"offcpu_ns\":{},\"vol_switches\":{},\"invol_switches\":{},\"gap_offcpu_ns\":{}", e.offcpu_ns,
                   e.vol_switches, e.invol_switches, e.gap_offcpu_ns);
  if (e.flags & kEventUring)
    fmt::format_to(std::back_inserter(out), ",\"io_uring\":true,\"user_data\":{},\"enter_ns\":{}", e.uring_user_data,
                   e.uring_enter_ns);
  out += "}}";
}

void ChromeExporter::write(TracePasses& trace, const std::string& path) const {
  // First pass: the time origin and the tracks.
  int64_t origin = std::numeric_limits<int64_t>::max();
  std::map<int32_t, std::set<int32_t>> threads;
  trace.pass([&](std::span<const Event> block, const StringTable&) {
    for (const Event& e : block) {
      origin = std::min(origin, e.begin_ns);
      threads[e.pid].insert(e.tid);
    }
  });
  if (trace.size() == 0) origin = 0;
  const TraceHeader& header = trace.header();
  std::string tmp = temp_path_for(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(fmt::format("{}: cannot create: {}", tmp, std::strerror(errno)));
  bool ok = true;
  std::string out;
  auto drain = [&](bool force) {
    if (out.size() < (1u << 20) && !force) return;
    if (std::fwrite(out.data(), 1, out.size(), f) != out.size()) ok = false;
    out.clear();
  };
  nlohmann::json other = header.to_json();
  other["ts_origin_ns"] = origin;
  out += "{\"displayTimeUnit\":\"ns\",\"otherData\":";
  out += other.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += ",\"traceEvents\":[";
  // Track names first: processes and threads in id order.
  std::string process_label = header.command.empty() ? "" : " " + header.command[0];
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  const nlohmann::json& extra = header.extra;
  const nlohmann::json* names = extra.contains("process_names") && extra["process_names"].is_object()
                                    ? &extra["process_names"] : nullptr;
  for (const auto& [pid, tids] : threads) {
    sep();
    out += fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
                       pid, pid);
    const std::string key = std::to_string(pid);
    if (names && names->contains(key) && (*names)[key].is_string())
      append_json_string(out, (*names)[key].get<std::string>());
    else
      append_json_string(out, fmt::format("pid {}{}", pid, process_label));
    out += "}}";
    for (int32_t tid : tids) {
      sep();
      out += fmt::format("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"tid {}\"}}}}",
                         pid, tid, tid);
    }
  }
  // Second pass: the events, keeping those the flows (positions in the trace) connect.
  const bool has_flows = extra.contains("flows") && extra["flows"].is_array();
  std::unordered_map<uint64_t, Event> flow_ends;
  if (has_flows)
    for (const auto& flow : extra["flows"])
      if (flow.is_array() && flow.size() == 2 && flow[0].is_number_unsigned() && flow[1].is_number_unsigned())
        for (const auto& at : flow) flow_ends.emplace(at.get<uint64_t>(), Event{});
  uint64_t position = 0;
  try {
    trace.pass([&](std::span<const Event> block, const StringTable& strings) {
      for (const Event& e : block) {
        sep();
        append_event(out, strings, e, origin);
        drain(false);
        if (!flow_ends.empty()) {
          auto it = flow_ends.find(position);
          if (it != flow_ends.end()) it->second = e;
        }
        ++position;
      }
    });
  } catch (...) {  // e.g. the file changed between passes: leave nothing behind
    std::fclose(f);
    std::remove(tmp.c_str());
    throw;
  }
  if (has_flows) {
    uint64_t id = 0;
    for (const auto& flow : extra["flows"]) {
      if (!flow.is_array() || flow.size() != 2 || !flow[0].is_number_unsigned() || !flow[1].is_number_unsigned()) continue;
      const uint64_t from = flow[0].get<uint64_t>(), to = flow[1].get<uint64_t>();
      if (from >= trace.size() || to >= trace.size()) continue;  // a hint, never trusted
      ++id;
      const Event& a = flow_ends.at(from);
      const Event& b = flow_ends.at(to);
      // The arrow leaves where `a` begins and lands inside `b` as close to that as `b` allows.
      const int64_t land = std::clamp(a.begin_ns, b.begin_ns, std::max(b.begin_ns, b.end_ns));
      for (const auto& [ph, e, ts] : {std::tuple{"s", &a, a.begin_ns}, std::tuple{"f", &b, land}}) {
        sep();
        out += fmt::format("{{\"name\":\"message\",\"cat\":\"flow\",\"ph\":\"{}\",{}\"id\":{},\"pid\":{},\"tid\":{},\"ts\":",
                           ph, ph[0] == 'f' ? "\"bp\":\"e\"," : "", id, e->pid, e->tid);
        append_us(out, static_cast<int64_t>(static_cast<uint64_t>(ts) - static_cast<uint64_t>(origin)));
        out += "}";
      }
      drain(false);
    }
  }
  out += "]}\n";
  drain(true);
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  }
  commit_temp_file(tmp, path);
}

}  // namespace

const Exporter& chrome_exporter() {
  static const ChromeExporter e;
  return e;
}

}  // namespace rastro::trace

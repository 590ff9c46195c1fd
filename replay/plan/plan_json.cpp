#include "replay/plan/plan_json.h"

#include <fmt/format.h>

#include "replay/plan/plan_names.h"

namespace rastro::replay {

nlohmann::json figures_json(const Plan& plan) {
  const PlanFigures& f = plan.figures;
  nlohmann::json edges = nlohmann::json::object();
  uint64_t total = 0;
  for (int k = 0; k < kEdgeKinds; ++k) {
    edges[std::string(edge_kind_name(static_cast<EdgeKind>(k)))] = f.edges_by_kind[k];
    total += f.edges_by_kind[k];
  }
  nlohmann::json actions = nlohmann::json::object();
  for (int a = 0; a < kRequestActions; ++a)
    actions[std::string(action_name(static_cast<RequestAction>(a)))] = f.by_action[a];
  return {
      {"ordering", ordering_name(plan.ordering)},
      {"requests", f.requests},
      {"threads", plan.threads.size()},
      {"actions", actions},
      {"failed", f.failed},
      {"edges", total},
      {"edges_by_kind", edges},
      {"critical_path_ns", f.critical_path_ns},
      {"max_parallelism", f.max_parallelism},
      {"mean_parallelism", f.mean_parallelism},
      {"unconstrained", f.unconstrained},
      {"inherited_fds", f.inherited_fds},
      {"unresolved_paths", f.unresolved_paths},
  };
}

void write_plan_json(std::ostream& out, const Plan& plan) {
  auto q = [](std::string_view s) { return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  out << "{\"format\":\"rastro-plan\",\"version\":1,\"ordering\":\"" << ordering_name(plan.ordering) << "\",\n";
  out << "\"figures\":" << figures_json(plan).dump() << ",\n";
  out << "\"threads\":[";
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    const auto& th = plan.threads[t];
    out << (t ? ",\n" : "\n") << fmt::format("{{\"index\":{},\"pid\":{},\"tid\":{},\"requests\":[", t, th.pid, th.tid);
    for (size_t i = 0; i < th.requests.size(); ++i) out << (i ? "," : "") << th.requests[i];
    out << "]}";
  }
  out << "],\n\"requests\":[";
  std::string line;
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const Request& rq = plan.requests[r];
    const trace::Event& e = plan.trace.events[rq.event];
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{}{{\"id\":{},\"event\":{},\"seq\":{},\"thread\":{},\"function\":{},\"action\":\"{}\","
                   "\"begin_ns\":{},\"end_ns\":{},\"rvalue\":{},\"paths\":[",
                   r ? ",\n" : "\n", r, rq.event, e.seq, rq.thread, q(trace::function_name(e, plan.trace.strings)),
                   action_name(rq.action), rq.trace_begin_ns, rq.trace_end_ns, e.rvalue);
    bool first = true;
    for (trace::StrId p : rq.path) {
      if (p == trace::kNoStr) continue;
      line += first ? "" : ",";
      line += q(plan.trace.str(p));
      first = false;
    }
    line += "],\"deps\":[";
    for (uint32_t k = 0; k < rq.deps_count; ++k) {
      const Dep& d = plan.deps[rq.deps_begin + k];
      fmt::format_to(std::back_inserter(line), "{}[{},\"{}\"]", k ? "," : "", d.request, edge_kind_name(d.kind));
    }
    line += "]}";
    out << line;
  }
  out << "\n]}\n";
}

}  // namespace rastro::replay

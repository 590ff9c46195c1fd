#include "replay/plan/plan_json.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"
#include "replay/plan/plan_names.h"
#include "replay/plan/thread_order.h"

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

namespace {

constexpr const char* kInitKindNames[] = {"dir", "file", "symlink"};

template <class T>
T field(const nlohmann::json& j, const char* key, const char* what) {
  auto it = j.find(key);
  if (it == j.end()) throw Error(fmt::format("plan: {} without \"{}\"", what, key));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("plan: {}: \"{}\" has the wrong type", what, key));
  }
}

}  // namespace

namespace {

// Sparse: [request, depth, batch_end] per ring request, [request, awaited...] per request that
// awaits any.
nlohmann::json uring_json(const UringPlan& u) {
  nlohmann::json reqs = nlohmann::json::array(), awaits = nlohmann::json::array();
  for (size_t r = 0; r < u.depth.size(); ++r) {
    if (u.depth[r]) reqs.push_back({r, u.depth[r], u.batch_end[r]});
    if (u.awaits_begin[r] == u.awaits_begin[r + 1]) continue;
    nlohmann::json a = {r};
    for (uint32_t i = u.awaits_begin[r]; i < u.awaits_begin[r + 1]; ++i) a.push_back(u.awaits[i]);
    awaits.push_back(std::move(a));
  }
  return {{"requests", std::move(reqs)}, {"awaits", std::move(awaits)}, {"thread_depth", u.thread_depth}};
}

void read_uring_json(const nlohmann::json& j, Plan* plan) {
  const size_t n = plan->requests.size();
  UringPlan& u = plan->uring;
  u = UringPlan{};
  u.depth.assign(n, 0);
  u.batch_end.assign(n, 0);
  u.thread_depth = field<std::vector<uint32_t>>(j, "thread_depth", "uring");
  auto request = [&](const nlohmann::json& v) {
    const auto r = v.get<size_t>();
    if (r >= n) throw Error(fmt::format("plan: uring: request {} outside the plan ({} requests)", r, n));
    return r;
  };
  try {
    for (const auto& x : field<nlohmann::json>(j, "requests", "uring")) {
      const size_t r = request(x.at(0));
      u.depth[r] = x.at(1).get<uint32_t>();
      u.batch_end[r] = x.at(2).get<uint8_t>();
    }
    std::vector<std::vector<uint32_t>> awaits(n);
    for (const auto& x : field<nlohmann::json>(j, "awaits", "uring")) {
      const size_t r = request(x.at(0));
      for (size_t i = 1; i < x.size(); ++i) awaits[r].push_back(static_cast<uint32_t>(request(x.at(i))));
    }
    u.awaits_begin.assign(n + 1, 0);
    for (size_t r = 0; r < n; ++r) {
      u.awaits_begin[r] = static_cast<uint32_t>(u.awaits.size());
      u.awaits.insert(u.awaits.end(), awaits[r].begin(), awaits[r].end());
    }
    u.awaits_begin[n] = static_cast<uint32_t>(u.awaits.size());
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("plan: uring: malformed entry (") + e.what() + ")");
  }
}

}  // namespace

nlohmann::json replayer_data_json(const Plan& plan) {
  nlohmann::json procs = nlohmann::json::array();
  for (const ProcessSeed& s : plan.processes)
    procs.push_back({{"pid", s.pid},
                     {"cwd", s.cwd},
                     {"inherited_fd_keys", s.inherited_fds},
                     {"inherited_fds", s.inherited_traced_fds},
                     {"tids", s.tids}});
  nlohmann::json entries = nlohmann::json::array();
  for (const InitEntry& e : plan.init.entries) {
    nlohmann::json x = {{"kind", kInitKindNames[static_cast<int>(e.kind)]}, {"path", e.path}};
    if (e.kind == InitEntry::Kind::kFile) {
      x["size"] = e.size;
      x["mode"] = e.mode;
    }
    if (e.kind == InitEntry::Kind::kSymlink) x["target"] = e.target;
    entries.push_back(std::move(x));
  }
  nlohmann::json j = {{"processes", std::move(procs)},
                      {"fd_key_count", plan.fd_keys.count},
                      {"initial_state", {{"bytes", plan.init.bytes}, {"entries", std::move(entries)}}}};
  if (!plan.uring.empty()) j["uring"] = uring_json(plan.uring);
  return j;
}

void read_replayer_data_json(const nlohmann::json& j, Plan* plan) {
  if (!j.is_object()) throw Error("plan: replayer data is not an object");
  plan->processes.clear();
  for (const auto& p : field<nlohmann::json>(j, "processes", "plan")) {
    ProcessSeed s;
    s.pid = field<int32_t>(p, "pid", "process");
    s.cwd = field<std::string>(p, "cwd", "process");
    s.inherited_fds = field<std::vector<int>>(p, "inherited_fd_keys", "process");
    s.inherited_traced_fds = field<std::vector<int>>(p, "inherited_fds", "process");
    s.tids = field<std::vector<int32_t>>(p, "tids", "process");
    plan->processes.push_back(std::move(s));
  }
  plan->fd_keys.count = field<int32_t>(j, "fd_key_count", "plan");
  const auto init = field<nlohmann::json>(j, "initial_state", "plan");
  plan->init = InitPlan{};
  plan->init.bytes = field<uint64_t>(init, "bytes", "initial_state");
  for (const auto& x : field<nlohmann::json>(init, "entries", "initial_state")) {
    InitEntry e;
    const auto kind = field<std::string>(x, "kind", "initial_state entry");
    const auto* k = std::find(std::begin(kInitKindNames), std::end(kInitKindNames), kind);
    if (k == std::end(kInitKindNames)) throw Error("plan: initial_state entry of unknown kind '" + kind + "'");
    e.kind = static_cast<InitEntry::Kind>(k - std::begin(kInitKindNames));
    e.path = field<std::string>(x, "path", "initial_state entry");
    if (e.kind == InitEntry::Kind::kFile) {
      e.size = field<uint64_t>(x, "size", "initial_state entry");
      e.mode = field<mode_t>(x, "mode", "initial_state entry");
    }
    if (e.kind == InitEntry::Kind::kSymlink) e.target = field<std::string>(x, "target", "initial_state entry");
    plan->init.entries.push_back(std::move(e));
  }
  if (j.contains("uring")) read_uring_json(j["uring"], plan);
}

void write_plan_json(std::ostream& out, const Plan& plan) {
  auto q = [](std::string_view s) { return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  out << "{\"format\":\"rastro-plan\",\"version\":2,\"ordering\":\"" << ordering_name(plan.ordering) << "\",\n";
  out << "\"figures\":" << figures_json(plan).dump() << ",\n";
  const nlohmann::json data = replayer_data_json(plan);
  for (const auto& [key, value] : data.items())
    out << q(key) << ":" << value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\n";
  out << "\"threads\":[";
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    const auto& th = plan.threads[t];
    out << (t ? ",\n" : "\n") << fmt::format("{{\"index\":{},\"pid\":{},\"tid\":{},\"requests\":[", t, th.pid, th.tid);
    for (size_t i = 0; i < th.requests.size(); ++i) out << (i ? "," : "") << th.requests[i];
    out << "]}";
  }
  out << "],\n\"requests\":[";
  const std::vector<uint32_t> prev = thread_predecessors(plan);  // program order, the first edge
  std::string line;
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const Request& rq = plan.requests[r];
    const trace::Event& e = plan.trace.events[rq.event];
    const TracedTimes times = trace_times(plan, static_cast<uint32_t>(r));
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{}{{\"id\":{},\"event\":{},\"seq\":{},\"thread\":{},\"function\":{},\"action\":\"{}\","
                   "\"begin_ns\":{},\"end_ns\":{},\"rvalue\":{},\"paths\":[",
                   r ? ",\n" : "\n", r, rq.event, e.seq, rq.thread, q(trace::function_name(e, plan.trace.strings)),
                   action_name(rq.action), times.begin_ns, times.end_ns, e.rvalue);
    bool first = true;
    for (trace::StrId p : plan.paths[static_cast<uint32_t>(r)]) {
      if (p == trace::kNoStr) continue;
      line += first ? "" : ",";
      line += q(plan.trace.str(p));
      first = false;
    }
    line += "],\"deps\":[";
    bool first_dep = prev[r] == kNoRequest;
    if (!first_dep) fmt::format_to(std::back_inserter(line), "[{},\"{}\"]", prev[r], edge_kind_name(EdgeKind::kThread));
    for (const Dep& d : deps_of(plan, static_cast<uint32_t>(r))) {
      fmt::format_to(std::back_inserter(line), "{}[{},\"{}\"]", first_dep ? "" : ",", d.request, edge_kind_name(d.kind));
      first_dep = false;
    }
    line += "]";
    // fd keys (replay/plan/plan.h FdKeys): slots 0-5 = arguments, 6 = returned fd, 7 = second fd
    // of a pair; only for requests that touch an fd.
    if (r < plan.fd_keys.keys.size()) {
      const auto& k = plan.fd_keys.keys[r];
      if (std::any_of(k.begin(), k.end(), [](int32_t x) { return x >= 0; }))
        fmt::format_to(std::back_inserter(line), ",\"fd_keys\":[{}]", fmt::join(k, ","));
    }
    line += "}";
    out << line;
  }
  out << "\n]}\n";
}

}  // namespace rastro::replay

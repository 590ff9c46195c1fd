#include "replay/plan/plan_dot.h"

#include <string>

#include <fmt/format.h>

#include "replay/plan/plan_names.h"
#include "replay/plan/thread_order.h"

namespace rastro::replay {

const char* edge_kind_colour(EdgeKind k) {
  switch (k) {
    case EdgeKind::kThread: return "gray50";
    case EdgeKind::kFdStage: return "blue";
    case EdgeKind::kFdSeq: return "deepskyblue3";
    case EdgeKind::kFile: return "forestgreen";
    case EdgeKind::kPath: return "darkorange";
    case EdgeKind::kTemporal: return "red";
    case EdgeKind::kMapping: return "purple";
  }
  return "black";
}

namespace {

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

void write_plan_dot(std::ostream& out, const Plan& plan) {
  out << "digraph plan {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n";
  out << fmt::format("  label=\"rastro plan, ordering {}\";\n", ordering_name(plan.ordering));
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    const auto& th = plan.threads[t];
    out << fmt::format("  subgraph cluster_t{} {{\n    label=\"pid {} tid {}\";\n", t, th.pid, th.tid);
    for (uint32_t r : th.requests) {
      const Request& q = plan.requests[r];
      const trace::Event& e = plan.trace.events[q.event];
      std::string label = fmt::format("{} {}", r, trace::function_name(e, plan.trace.strings));
      for (trace::StrId p : plan.paths[r])
        if (p != trace::kNoStr) label += " " + std::string(plan.trace.str(p));
      label += fmt::format(" = {}", e.rvalue);
      const char* style = q.action == RequestAction::kReplay ? (e.failed() ? "dashed" : "solid") : "dotted";
      out << fmt::format("    r{} [label=\"{}\", style={}];\n", r, dot_escape(label), style);
    }
    out << "  }\n";
  }
  const std::vector<uint32_t> prev = thread_predecessors(plan);  // program order, the first edge
  auto edge = [&](uint32_t from, uint32_t to, EdgeKind kind) {
    out << fmt::format("  r{} -> r{} [color={}, tooltip=\"{}\"];\n", from, to, edge_kind_colour(kind), edge_kind_name(kind));
  };
  for (uint32_t r = 0; r < plan.requests.size(); ++r) {
    if (prev[r] != kNoRequest) edge(prev[r], r, EdgeKind::kThread);
    for (const Dep& d : deps_of(plan, r)) edge(d.request, r, d.kind);
  }
  out << "  subgraph cluster_legend {\n    label=\"edge kinds\";\n";
  for (int k = 0; k < kEdgeKinds; ++k) {
    const auto kind = static_cast<EdgeKind>(k);
    out << fmt::format("    legend{0}a [label=\"\", shape=point]; legend{0}b [label=\"{1}\", shape=plaintext];\n"
                       "    legend{0}a -> legend{0}b [color={2}];\n",
                       k, edge_kind_name(kind), edge_kind_colour(kind));
  }
  out << "  }\n}\n";
}

}  // namespace rastro::replay

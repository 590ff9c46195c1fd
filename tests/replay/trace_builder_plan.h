// Test helper for the inference tests: builds in-memory traces event by event, with arguments
// typed from the syscall table (strings for path/str arguments, numbers for the rest).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <tuple>
#include <variant>

#include <gtest/gtest.h>

#include "replay/plan/plan.h"
#include "replay/plan/plan_names.h"
#include "replay/plan/thread_order.h"
#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay::testing {

using ArgV = std::variant<int64_t, std::string>;

class PlanTraceBuilder {
 public:
  // Adds a completed call; returns its event index.
  size_t add(int32_t pid, int32_t tid, int64_t begin, int64_t end, std::string_view name,
             std::initializer_list<ArgV> args, int64_t rvalue) {
    trace::Event e;
    e.seq = t_.events.size();
    e.pid = pid;
    e.tid = tid;
    e.begin_ns = begin;
    e.end_ns = end;
    e.rvalue = rvalue;
    const trace::SyscallInfo* info = trace::syscall_by_name(name);
    if (info == nullptr) {
      e.nr = -1;
      e.name = t_.strings.intern(name);
    } else {
      e.nr = info->nr;
      e.nargs = info->nargs;
    }
    int i = 0;
    for (const auto& a : args) {
      auto& slot = e.args[static_cast<size_t>(i)];
      slot.type = info ? info->args[static_cast<size_t>(i)] : trace::ArgType::kInt;
      if (const auto* s = std::get_if<std::string>(&a)) slot.str = t_.strings.intern(*s);
      else slot.value = std::get<int64_t>(a);
      ++i;
    }
    t_.events.push_back(e);
    return t_.events.size() - 1;
  }
  trace::Trace& trace() { return t_; }
  trace::Trace take() { return std::move(t_); }

 private:
  trace::Trace t_;
};

// Edges as (from request, to request, kind name): program order (thread_order.h), then the
// plan's CSR storage.
using Edge = std::tuple<uint32_t, uint32_t, std::string>;
inline std::set<Edge> edges_of(const Plan& p, bool with_thread = true) {
  std::set<Edge> out;
  const std::vector<uint32_t> prev = thread_predecessors(p);
  for (uint32_t r = 0; r < p.requests.size(); ++r) {
    if (with_thread && prev[r] != kNoRequest) out.emplace(prev[r], r, std::string(edge_kind_name(EdgeKind::kThread)));
    for (const Dep& d : deps_of(p, r)) {
      if (!with_thread && d.kind == EdgeKind::kThread) continue;
      out.emplace(d.request, r, std::string(edge_kind_name(d.kind)));
    }
  }
  return out;
}

inline std::string dump(const std::set<Edge>& e) {
  std::string s;
  for (const auto& [a, b, k] : e) s += std::to_string(a) + "->" + std::to_string(b) + " " + k + "\n";
  return s;
}

inline std::set<std::pair<uint32_t, uint32_t>> pairs_of(const Plan& p) {
  std::set<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [a, b, k] : edges_of(p)) out.emplace(a, b);
  return out;
}

}  // namespace rastro::replay::testing

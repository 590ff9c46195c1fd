#include "replay/passes/pass_dump.h"

#include <fmt/format.h>

#include "replay/plan/plan_json.h"
#include "replay/plan/plan_names.h"
#include "replay/plan/thread_order.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

std::string_view fd_role_name(FdRole role) {
  switch (role) {
    case FdRole::kUse: return "use";
    case FdRole::kClose: return "close";
    case FdRole::kCreate: return "create";
    case FdRole::kInherit: return "inherit";
  }
  return "?";
}

std::string call_name(const InferContext& ctx, uint32_t r) {
  const trace::Event& e = ctx.trace.events[ctx.order[r]];
  if (const trace::SyscallInfo* s = trace::syscall_by_nr(e.nr)) return std::string(s->name);
  return e.nr < 0 ? std::string(ctx.trace.str(e.name)) : fmt::format("syscall_{}", e.nr);
}

}  // namespace

void dump_after_pass(std::ostream& out, const std::string& pass, const InferContext& ctx) {
  out << "# after pass " << pass << "\n";
  if (pass == "plan") {
    write_plan_json(out, ctx.plan);
    out << "\n";
    return;
  }
  const bool paths = ctx.paths.size() == ctx.order.size();
  const bool fds = ctx.fd_refs_at.finished() && ctx.fd_refs_at.size() == ctx.order.size();
  const bool deps = ctx.deps_at.finished() && ctx.deps_at.size() == ctx.order.size();
  ThreadOrderCursor program_order(deps ? ctx.threads.size() : 0);  // the first edge (thread_order.h)
  for (uint32_t r = 0; r < ctx.order.size(); ++r) {
    std::string line = fmt::format("{}\tevent {}\tthread {}\t{}\t{}", r, ctx.order[r], ctx.thread[r], call_name(ctx, r),
                                   action_name(ctx.action[r]));
    if (paths) {
      for (trace::StrId p : ctx.paths[r])
        if (p != trace::kNoStr) line += fmt::format("\tpath {}", ctx.trace.str(p));
    }
    if (fds) {
      for (uint32_t i = ctx.fd_refs_at.begin(r); i < ctx.fd_refs_at.end(r); ++i) {
        const FdRef& ref = ctx.fd_refs[i];
        const FdEntry& entry = ctx.fd_entries[ref.entry];
        line += fmt::format("\tfd {} {}", fd_role_name(ref.role), ref.entry);
        if (entry.creator == kNoIndex) line += " (inherited)";
      }
    }
    if (deps) {
      if (const uint32_t p = program_order.advance(r, ctx.thread[r]); p != kNoRequest)
        line += fmt::format("\tafter {} {}", p, edge_kind_name(EdgeKind::kThread));
      for (uint32_t i = ctx.deps_at.begin(r); i < ctx.deps_at.end(r); ++i)
        line += fmt::format("\tafter {} {}", ctx.deps[i].request, edge_kind_name(ctx.deps[i].kind));
    }
    if (!ctx.uring.empty()) {
      const UringPlan& u = ctx.uring;
      if (u.depth[r]) line += fmt::format("\turing depth {}{}", u.depth[r], u.batch_end[r] ? " batch_end" : "");
      for (uint32_t i = u.awaits_begin[r]; i < u.awaits_begin[r + 1]; ++i) line += fmt::format("\tawaits {}", u.awaits[i]);
    }
    out << line << "\n";
  }
}

}  // namespace rastro::replay

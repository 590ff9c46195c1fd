#include "replay/engines/issue_schedule.h"

#include <algorithm>

namespace rastro::replay::detail {

IssueSchedule::IssueSchedule(const Plan& plan, const ImplicitDeps& imp, const TimingSpec& timing, bool across_processes)
    : plan_(plan), imp_(imp), timing_(timing), start_(1, across_processes) {
  // At full speed nothing is scheduled: none of these 32 bytes a request (issue #16). Otherwise the
  // traced times are decoded here once, not from the packed events while the replay is timed.
  if (timing_.policy != TimingPolicy::kFullspeed) {
    begin_ = SharedArray<int64_t>(plan.requests.size(), across_processes);
    end_ = SharedArray<int64_t>(plan.requests.size(), across_processes);
    traced_.reserve(plan.requests.size());
    for (uint32_t r = 0; r < plan.requests.size(); ++r) traced_.push_back(trace_times(plan, r));
    think_ = ThinkBuffer(timing_.think_work);
    if (think_.active()) {
      gap_offcpu_.reserve(plan.requests.size());
      CompactEvents::Reader events(plan.trace.events);
      for (const Request& q : plan.requests) gap_offcpu_.push_back(events(q.event).gap_offcpu_ns);
    }
  }
}

int64_t IssueSchedule::planned_ns(uint32_t r, uint32_t prev, int64_t ready_ns) const {
  if (timing_.policy == TimingPolicy::kFullspeed) return ready_ns;
  IssueInputs in;
  in.start_ns = start_[0];
  in.trace_begin_ns = traced_[r].begin_ns;
  in.ready_ns = ready_ns;
  in.deps_sched_end_ns = start_[0];
  // A dependency that ended at `trace_end` in the trace and at `sched_end` on the schedule.
  auto consider = [&](int64_t trace_end, int64_t sched_end) {
    in.deps_sched_end_ns = std::max(in.deps_sched_end_ns, sched_end);
    if (trace_end > in.dep_trace_end_ns) {
      in.dep_trace_end_ns = trace_end;
      in.dep_sched_end_ns = sched_end;
    }
  };
  auto consider_request = [&](int64_t d) {
    if (d >= 0 && d != r) consider(traced_[static_cast<size_t>(d)].end_ns, end_[static_cast<size_t>(d)]);
  };
  if (prev != kNoRequest) {
    in.prev_trace_end_ns = traced_[prev].end_ns;
    in.prev_sched_end_ns = end_[prev];
    consider_request(prev);
  }
  // A thread's first call after the clone that made it: the child ran while the clone was still
  // under way in its parent (a vfork lasts until the child's exec), so its time counts from the
  // clone's begin, not from the end of the clone's traced duration.
  if (const int64_t c = imp_.spawn(r); c >= 0)
    consider(traced_[static_cast<size_t>(c)].begin_ns, begin_[static_cast<size_t>(c)]);
  for (const Dep& d : deps_of(plan_, r)) consider_request(d.request);
  return planned_issue_ns(timing_, in);
}

int64_t IssueSchedule::await_issue(uint32_t r, uint32_t prev, int64_t ready_ns) const {
  const int64_t planned = planned_ns(r, prev, ready_ns);
  if (timing_.policy == TimingPolicy::kFullspeed) return planned;
  if (think_.active() && prev != kNoRequest) {
    // The thread ran its own code from its previous call's end to r's begin in the trace, but for
    // the time it was off-CPU (preempted, or blocked in a call not recorded: eBPF captures say how
    // long): that part of the wait, right before r, is worked through; the rest is waited. (After
    // a page fault the off-CPU time counts from the previous syscall: clamped at no work.)
    const int64_t on_cpu = traced_[r].begin_ns - traced_[prev].end_ns - gap_offcpu_[r];
    const auto own_gap = static_cast<int64_t>(static_cast<double>(on_cpu) / timing_.speed);
    if (own_gap > 0) {
      wait_until(planned - own_gap);
      think_.work_until(planned);
    }
  }
  wait_until(planned);
  return planned;
}

void IssueSchedule::finish(uint32_t r, const RequestRecord& rec) {
  if (timing_.policy == TimingPolicy::kFullspeed) return;
  const Request& q = plan_.requests[r];
  ScheduledCall kind = ScheduledCall::kExecuted;
  if (plan_.trace.events.fields(q.event).flags & trace::kEventPageFault) {
    kind = ScheduledCall::kInstant;
  } else if (rec.emulated || (rec.flags & trace::kEventSkipped)) {
    kind = ScheduledCall::kNotExecuted;
  } else if (rec.flags & trace::kEventUring) {
    // Submitted to a ring (exec_uring.h): its completion is not known yet, so it ends on the
    // schedule where the trace completed it; its dependants still wait for the real completion.
    kind = ScheduledCall::kNotExecuted;
  }
  begin_[r] = rec.planned_ns;
  end_[r] = schedule_end_ns(timing_, kind, rec.planned_ns, rec.end_ns - rec.begin_ns, traced_[r].duration_ns());
}

}  // namespace rastro::replay::detail

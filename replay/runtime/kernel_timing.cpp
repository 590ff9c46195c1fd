#include "replay/runtime/kernel_timing.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/clock.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

using capture::ebpf::KernelCall;

constexpr uint32_t kNoCandidate = std::numeric_limits<uint32_t>::max();

// One OS thread's kernel calls, sorted by begin (a thread's calls never overlap).
struct ThreadCalls {
  int32_t tid;
  std::span<const KernelCall> calls;
  size_t offset;  // of calls[0] in the sorted vector
};

// The calls of `t` inside [begin, end]: the only one of number `nr`, and the only one of any
// number (kNoCandidate: none or several).
struct Candidates {
  uint32_t same_nr = kNoCandidate;
  uint32_t any = kNoCandidate;
  uint32_t count = 0;  // calls inside, the helpers aside
};

Candidates candidates_in(const ThreadCalls& t, int64_t begin, int64_t end, int32_t nr) {
  Candidates c;
  uint32_t same = 0, all = 0;
  auto it = std::lower_bound(t.calls.begin(), t.calls.end(), begin,
                             [](const KernelCall& k, int64_t b) { return k.begin_ns < b; });
  for (; it != t.calls.end() && it->begin_ns <= end; ++it) {
    if (it->end_ns > end) continue;
    const auto idx = static_cast<uint32_t>(t.offset + static_cast<size_t>(it - t.calls.begin()));
    if (it->nr == nr && same++ == 0) c.same_nr = idx;
    // Never "the" call: a ring request's io_uring_enter, and the close of the O_PATH fd the
    // sandbox resolved a name to, inside the timed region of a call on a name (docs/replay.md,
    // "Timed region").
    const bool helper = it->nr == SYS_io_uring_enter || (it->nr == SYS_close && nr != SYS_close);
    if (!helper && all++ == 0) c.any = idx;
  }
  if (same != 1) c.same_nr = kNoCandidate;
  if (all != 1) c.any = kNoCandidate;
  c.count = all;
  return c;
}

// The sandbox's path walks on `t` inside [from, to]: its openat2 calls no request took yet
// (kernel_timing.h). `take`: mark them taken.
struct Walk {
  int64_t ns = 0;        // their durations less `fixed` each (at least 0), summed
  int64_t whole_ns = 0;  // their durations, summed
  int64_t last_end = 0;  // the last one's sys_exit
  uint32_t n = 0;
};

Walk walk_in(const ThreadCalls& t, int64_t from, int64_t to, std::vector<bool>& used, bool take, int64_t fixed = 0) {
  Walk w;
  auto it = std::lower_bound(t.calls.begin(), t.calls.end(), from,
                             [](const KernelCall& k, int64_t b) { return k.begin_ns < b; });
  for (; it != t.calls.end() && it->begin_ns <= to; ++it) {
    const size_t idx = t.offset + static_cast<size_t>(it - t.calls.begin());
    if (it->nr != SYS_openat2 || it->end_ns > to || used[idx]) continue;
    w.ns += std::max<int64_t>(0, it->end_ns - it->begin_ns - fixed);
    w.whole_ns += it->end_ns - it->begin_ns;
    w.last_end = it->end_ns;
    ++w.n;
    if (take) used[idx] = true;
  }
  return w;
}

// The median kernel time of the calibration's openat2 calls (0: none recorded).
int64_t open_fixed_ns(const std::vector<KernelCall>& calls, const ResolutionCalibration& cal) {
  if (cal.tid == 0) return 0;
  std::vector<int64_t> d;
  for (const KernelCall& k : calls)
    if (k.tid == cal.tid && k.nr == SYS_openat2 && k.begin_ns >= cal.begin_ns && k.end_ns <= cal.end_ns)
      d.push_back(k.end_ns - k.begin_ns);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

}  // namespace

ResolutionCalibration calibrate_resolution(const SandboxResolver& sandbox) {
  ResolutionCalibration cal;
  cal.tid = static_cast<int32_t>(::syscall(SYS_gettid));
  cal.begin_ns = monotonic_ns();
  for (int i = 0; i < 64; ++i) {
    const int fd = sandbox.open_object("/", true);
    if (fd >= 0) ::close(fd);
  }
  cal.end_ns = monotonic_ns();
  return cal;
}

KernelTimingReport apply_kernel_timing(const Plan& plan, std::span<RequestRecord> records,
                                       capture::ebpf::SelfCallTimes times, std::span<const int64_t> issued_ns,
                                       ResolutionCalibration calibration, std::span<const int32_t> os_threads) {
  KernelTimingReport rep;
  rep.kernel_calls = times.calls.size();
  rep.lost = times.lost;
  rep.untracked_threads = times.untracked_tasks;
  rep.unfinished = times.unfinished;
  rep.drain_error = times.error;

  std::vector<KernelCall>& calls = times.calls;
  rep.open_fixed_ns = open_fixed_ns(calls, calibration);
  std::sort(calls.begin(), calls.end(), [](const KernelCall& a, const KernelCall& b) {
    return a.tid != b.tid ? a.tid < b.tid : a.begin_ns < b.begin_ns;
  });
  std::vector<ThreadCalls> threads;
  for (size_t i = 0; i < calls.size();) {
    size_t j = i;
    while (j < calls.size() && calls[j].tid == calls[i].tid) ++j;
    threads.push_back({calls[i].tid, std::span<const KernelCall>(calls.data() + i, j - i), i});
    i = j;
  }
  std::vector<bool> used(calls.size(), false);
  auto thread_of = [&threads](int32_t tid) -> const ThreadCalls* {
    auto t = std::lower_bound(threads.begin(), threads.end(), tid,
                              [](const ThreadCalls& x, int32_t v) { return x.tid < v; });
    return t != threads.end() && t->tid == tid ? &*t : nullptr;
  };
  // Where request r's resolution may lie: [issued, narrowed begin), or nothing (kernel_timing.h).
  auto has_walk_window = [&](uint32_t r) {
    return r < issued_ns.size() && issued_ns[r] > 0 && issued_ns[r] < records[r].begin_ns;
  };

  // The OS thread that issued request r, where the engine said (0: it did not).
  auto ran_on = [&os_threads](uint32_t r) { return r < os_threads.size() ? os_threads[r] : 0; };
  // Without it: the OS thread each plan thread's unambiguous requests ran on (0 unknown, -1 several).
  std::vector<int32_t> os_tid(plan.threads.size(), 0);
  auto unmatched = [&](uint32_t r, bool ambiguous, const char* why) {
    ++(ambiguous ? rep.ambiguous : rep.no_kernel_call);
    const Request& q = plan.requests[r];
    rep.note_unmatched(r, q.thread, plan.trace.events[q.event].nr, why);
  };
  auto assign = [&](uint32_t r, uint32_t idx, bool same_nr) {
    if (used[idx]) {  // already some other request's call: this one cannot be sure
      unmatched(r, true, "its only candidate call was already another request's");
      return;
    }
    used[idx] = true;
    Walk w;
    if (has_walk_window(r))
      w = walk_in(*thread_of(calls[idx].tid), issued_ns[r], records[r].begin_ns, used, true, rep.open_fixed_ns);
    records[r].end_ns = calls[idx].end_ns;
    records[r].begin_ns = calls[idx].end_ns - (calls[idx].end_ns - calls[idx].begin_ns) - w.ns;
    ++rep.matched;
    if (!same_nr) ++rep.matched_other_nr;
    if (w.n > 0) ++rep.with_walk;
  };
  // The call of r's number alone in its span on one OS thread, else the one call there: true when
  // either was taken.
  auto take_candidate = [&](uint32_t r, const Candidates& c, int32_t nr) {
    if (c.same_nr != kNoCandidate)
      assign(r, c.same_nr, true);
    else if (c.any != kNoCandidate)
      assign(r, c.any, calls[c.any].nr == nr);
    return c.same_nr != kNoCandidate || c.any != kNoCandidate;
  };
  // No call in the span, only a walk before it (a failed resolution): the walk is the kernel time.
  auto assign_walk = [&](uint32_t r, const ThreadCalls& t) {
    Walk w = walk_in(t, issued_ns[r], records[r].begin_ns, used, true);
    records[r].begin_ns = w.last_end - w.whole_ns;
    records[r].end_ns = w.last_end;
    ++rep.matched;
    ++rep.matched_other_nr;
    ++rep.with_walk;
    ++rep.walk_only;
  };

  std::vector<uint32_t> undecided, walk_only;
  for (uint32_t r = 0; r < records.size(); ++r) {
    const RequestRecord& rec = records[r];
    const Request& q = plan.requests[r];
    // A replayed page fault is a memory touch, not a syscall (trace/model/page_fault.h).
    if (rec.skip != SkipReason::kNone || rec.emulated || q.action != RequestAction::kReplay ||
        (rec.flags & (trace::kEventSkipped | trace::kEventUring)) ||
        (plan.trace.events[q.event].flags & trace::kEventPageFault)) {
      ++rep.not_executed;
      continue;
    }
    ++rep.executed;
    const int32_t nr = plan.trace.events[q.event].nr;
    if (ran_on(r) > 0) {  // its own OS thread's calls only
      const ThreadCalls* t = thread_of(ran_on(r));
      const Candidates c = t ? candidates_in(*t, rec.begin_ns, rec.end_ns, nr) : Candidates{};
      if (take_candidate(r, c, nr)) continue;
      if (c.count == 0 && has_walk_window(r))
        walk_only.push_back(r);
      else
        unmatched(r, c.count > 0, c.count > 0 ? "several calls in its span on its OS thread, none the only one of its number"
                                              : "no kernel call in its span");
      continue;
    }
    uint32_t by_nr = kNoCandidate, by_any = kNoCandidate, n_by_nr = 0, n_by_any = 0;
    int32_t tid_nr = 0, tid_any = 0;
    bool some_call = false;
    for (const ThreadCalls& t : threads) {
      Candidates c = candidates_in(t, rec.begin_ns, rec.end_ns, nr);
      some_call |= c.count > 0;
      if (c.same_nr != kNoCandidate && n_by_nr++ == 0) by_nr = c.same_nr, tid_nr = t.tid;
      if (c.any != kNoCandidate && n_by_any++ == 0) by_any = c.any, tid_any = t.tid;
    }
    int32_t tid = 0;
    if (n_by_nr == 1) {
      assign(r, by_nr, true);
      tid = tid_nr;
    } else if (n_by_nr == 0 && n_by_any == 1) {
      assign(r, by_any, calls[by_any].nr == nr);
      tid = tid_any;
    } else if (n_by_nr == 0 && n_by_any == 0) {
      if (!some_call && has_walk_window(r))
        walk_only.push_back(r);  // decided once the OS threads are known
      else
        unmatched(r, some_call, some_call ? "several calls in its span, none the only one of its number" : "no kernel call in its span");
    } else {
      undecided.push_back(r);
    }
    if (tid != 0) {
      int32_t& known = os_tid[q.thread];
      known = known == 0 || known == tid ? tid : -1;
    }
  }
  for (uint32_t r : undecided) {
    const int32_t tid = os_tid[plan.requests[r].thread];
    auto t = std::find_if(threads.begin(), threads.end(), [tid](const ThreadCalls& x) { return x.tid == tid; });
    if (tid <= 0 || t == threads.end()) {
      unmatched(r, true, tid < 0 ? "several candidate threads; its plan thread ran on several OS threads"
                                 : "several candidate threads; its plan thread's OS thread unknown");
      continue;
    }
    const RequestRecord& rec = records[r];
    const int32_t nr = plan.trace.events[plan.requests[r].event].nr;
    if (!take_candidate(r, candidates_in(*t, rec.begin_ns, rec.end_ns, nr), nr))
      unmatched(r, true, "several candidate threads; none of its OS thread's calls alone in its span");
  }
  for (uint32_t r : walk_only) {
    // The one OS thread that walked inside the request's window; several (or told): the plan thread's.
    const ThreadCalls* walked = nullptr;
    uint32_t n = 0;
    for (const ThreadCalls& t : threads)
      if (walk_in(t, issued_ns[r], records[r].begin_ns, used, false).n > 0 && n++ == 0) walked = &t;
    if (n > 1 || (n == 1 && ran_on(r) > 0)) {
      walked = thread_of(ran_on(r) > 0 ? ran_on(r) : os_tid[plan.requests[r].thread]);
      if (walked && walk_in(*walked, issued_ns[r], records[r].begin_ns, used, false).n == 0) walked = nullptr;
    }
    if (walked)
      assign_walk(r, *walked);
    else
      unmatched(r, false, "no kernel call in its span; its walk on no single OS thread");
  }
  return rep;
}

void KernelTimingReport::note_unmatched(uint32_t request, uint32_t thread, int32_t nr, std::string reason) {
  if (examples.size() < kMaxExamples) examples.push_back({request, thread, nr, std::move(reason)});
}

namespace {

// The name of syscall nr in the table, or #nr.
std::string syscall_label(int32_t nr) {
  const trace::SyscallInfo* info = trace::syscall_by_nr(nr);
  return info ? std::string(info->name) : fmt::format("#{}", nr);
}

}  // namespace

nlohmann::json KernelTimingReport::to_json() const {
  nlohmann::json ex = nlohmann::json::array();
  for (const UnmatchedCall& u : examples) {
    ex.push_back({{"request", u.request},
                  {"thread", u.thread},
                  {"syscall", syscall_label(u.nr)},
                  {"reason", u.reason}});
  }
  return {{"instrument", "ebpf"},
          {"executed", executed},
          {"matched", matched},
          {"matched_other_nr", matched_other_nr},
          {"with_walk", with_walk},
          {"walk_only", walk_only},
          {"open_fixed_ns", open_fixed_ns},
          {"unmatched", {{"no_kernel_call", no_kernel_call}, {"ambiguous", ambiguous}}},
          {"not_executed", not_executed},
          {"kernel_calls", kernel_calls},
          {"lost", lost},
          {"untracked_threads", untracked_threads},
          {"unfinished", unfinished},
          {"drain_error", drain_error},
          {"unmatched_examples", ex}};
}

std::string KernelTimingReport::to_text() const {
  std::string o = fmt::format(
      "  timed with ebpf (sys_enter -> sys_exit): {} of {} executed calls kernel-timed ({} through an equivalent "
      "syscall; {} calls on a name with the sandbox's openat2 walk of the path, less {} ns an openat2 costs beyond its "
      "walk, {} of them the walk alone: a failed resolution); user-space times kept for {} ({} with no kernel call in their span: answered before the kernel, e.g. a "
      "path whose parent is missing, or a lost record; {} ambiguous) and for the {} skipped, emulated, page-fault or "
      "ring calls\n",
      matched, executed, matched_other_nr, with_walk, open_fixed_ns, walk_only, unmatched(), no_kernel_call, ambiguous, not_executed);
  o += fmt::format("    probe records: {} calls, {} lost, {} untracked threads\n", kernel_calls, lost, untracked_threads);
  for (size_t i = 0; i < std::min<size_t>(examples.size(), 3); ++i) {
    o += fmt::format("    user-space times kept for request {} ({}, plan thread {}): {}\n", examples[i].request,
                     syscall_label(examples[i].nr), examples[i].thread, examples[i].reason);
  }
  if (!drain_error.empty()) o += "    drain failed: " + drain_error + "\n";
  return o;
}

}  // namespace rastro::replay

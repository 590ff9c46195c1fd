// `--time-with ebpf`: each executed replayed call timed in the kernel, like the capture timed it.
// While the replay ran, the eBPF capture's probes recorded every syscall of the replayer's threads
// (capture/ebpf/self_call_timer.h); here each executed request gets the kernel call made inside
// its user-space [begin, end] (request_runner.h: the clock reads around the syscall), and its
// record's begin/end become that call's sys_enter/sys_exit. Same clock: bpf_ktime_get_ns() is
// CLOCK_MONOTONIC, what monotonic_ns() reads.
//
// Which kernel call: the engines say which OS thread issued each request (`os_threads`, with
// EngineOptions::record_os_threads), and only that thread's calls inside the request's user-space
// span are candidates: the only one of the traced call's number, or failing that the only call
// of any number (the replayer issued an equivalent call: stat as newfstatat, open as openat).
// Another thread's call inside a short span (a failed resolution's, whose own thread made none)
// is never taken. Without the engine's word (hand-made records), the match is by containment:
// per OS thread, the calls inside the span, a thread qualifying as above; one qualifying thread:
// matched; several: the OS thread that ran this plan thread's unambiguous requests, when all of
// them ran on one. Otherwise the request keeps its user-space times and is counted, by reason,
// the first few named (KernelTimingReport::examples) — never silently.
//
// A call on a name (stat, lstat, access, readlink, mkdir, unlink, rename, ...): the sandbox first
// resolved its parent, or the object it follows, to an O_PATH fd with openat2(RESOLVE_IN_ROOT),
// the kernel walking the path inside the root as the traced call walked it, and the call then
// walks one component or none. Its timed region starts after that resolution, so where
// `issued_ns[r]` (UringReplay::keep_issue_begins) says the request began earlier, the openat2
// calls of the matched OS thread in [issued_ns[r], the span's begin) are that walk: the request's
// kernel time is their durations plus the call's (end = the call's sys_exit, begin = end minus
// that sum; the user-space gap between them and the sandbox's close are left out). An openat2 is
// more than a walk: it allocates and installs an open file, which the traced stat never did. So
// each walk counts for its openat2's duration minus the median kernel time of an openat2 that
// walks nothing (the root itself, `calibrate_resolution` on the session thread right before the
// replay, as the timer bias is measured), at least 0. A resolution that failed (ENOENT: a missing
// parent) with no call after it: its whole openat2, a syscall that failed in its walk as the
// traced one did, is the kernel time.
#pragma once

#include <cstdint>
#include <span>

#include "capture/ebpf/self_call_timer.h"
#include "replay/plan/plan.h"
#include "replay/runtime/kernel_timing_report.h"
#include "replay/runtime/replay_output.h"
#include "replay/runtime/sandbox_resolver.h"

namespace rastro::replay {

// Where and when the session opened the root itself (the probes running) to learn what an openat2
// costs the kernel beyond its walk.
struct ResolutionCalibration {
  int32_t tid = 0;  // 0: none
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};
// Resolves the root 64 times through `sandbox` on the calling thread (each O_PATH fd closed).
ResolutionCalibration calibrate_resolution(const SandboxResolver& sandbox);

// Rewrites begin/end of the matched records (see above); `times.calls` may be in any order.
// `issued_ns`: empty, or per request where it began before its timed region was narrowed (0: unknown).
// `os_threads`: empty, or per request the OS thread (gettid) that issued it (0: unknown).
KernelTimingReport apply_kernel_timing(const Plan& plan, std::span<RequestRecord> records,
                                       capture::ebpf::SelfCallTimes times,
                                       std::span<const int64_t> issued_ns = {},
                                       ResolutionCalibration calibration = {},
                                       std::span<const int32_t> os_threads = {});

}  // namespace rastro::replay

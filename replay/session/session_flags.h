// The command-line flags of a replay session, shared by `rastro replay` and every compiled
// replayer so both say the same thing about the root and its safety rules (root_guard.h).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "replay/session/replay_session.h"

namespace rastro::replay {

inline void add_session_flags(CLI::App& app, SessionOptions& o) {
  app.add_option("--root", o.root,
                 "Sandbox root: every traced path is mapped inside it (a missing or empty directory is "
                 "made a rastro root)")
      ->required();
  app.add_flag("--init", o.init,
               "Create the initial files/directories the trace needs inside the root (files already there "
               "are kept as they are)");
  app.add_flag("--force", o.force, "Replay into a non-empty rastro root (marker .rastro-root) as it is");
  app.add_flag("--allow-unsafe-root", o.allow_unsafe_root,
               "With --force: also into a mount point, a home directory or a tree rastro did not make (never /)");
  app.add_flag("--drop-caches", o.drop_caches, "sync and drop page/dentry/inode caches before the run");
  app.add_flag("--rt", o.realtime, "Run replay threads SCHED_FIFO (warns if not permitted)");
  app.add_flag("--processes", o.processes,
               "Replay each traced process in a process of its own, forked where the trace forks, instead of as "
               "threads of one replayer: its memory calls get an address space of their own, as the traced "
               "process had (every engine and the compiled replayer; not with --mpi, io_uring rings or a "
               "ThreadSanitizer build)");
  app.add_option_function<std::string>(
         "--think-work", [&o](const std::string& v) { o.think_work = parse_think_work(v).take(); },
         "What a replay thread does through its traced thread's own time before each call (think or timestamp "
         "timing): none = wait (the default); memory[:SIZE] = read a buffer of SIZE bytes (default 4M), a byte a "
         "cache line, so the call finds the caches and TLB as cold as the program's own work left them; "
         "code[:SIZE] = run SIZE bytes of code (default 1M), a jump a cache line, for the instruction cache, "
         "TLB and branch predictors; both joined by a comma (memory,code)")
      ->type_name("MODE");
  app.add_option("-o,--output", o.out, "Replayed trace (uniform format, replayer-side times: .rastro, .tsv, .csv)")
      ->required();
  app.add_option("--summary-json", o.summary_json, "Write the end-of-run summary as JSON");
  app.add_option_function<std::string>(
         "--time-with", [&o](const std::string& v) { o.time_with = parse_call_timer(v).take(); },
         "The instrument timing each replayed call: user = clock reads around the syscall (the default; the "
         "fidelity report also gives ratios corrected for their timer bias); ebpf = the eBPF capture's own probes "
         "on the replayer's threads, sys_enter -> sys_exit in the kernel, like `capture -b ebpf` timed the "
         "original (needs root/CAP_BPF+CAP_PERFMON; the summary then also gives the user-space ratios)")
      ->check(CLI::IsMember({"user", "ebpf"}));
  app.add_option_function<std::string>(
         "--uring", [&o](const std::string& v) { o.uring = parse_uring_mode(v).take(); },
                 "io_uring requests of the trace: ring = through io_uring, one ring per thread at the traced "
                 "queue depth (an error if no ring can be set up); plain = as their equivalent calls, one after "
                 "the other. Default: ring when the trace has io_uring requests and the kernel gives a ring")
      ->check(CLI::IsMember({"ring", "plain"}));
}

}  // namespace rastro::replay

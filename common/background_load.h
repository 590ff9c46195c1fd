// The background-load record (SPEC §6.4, seed 002): how busy the machine was while a measurement
// ran. start() takes /proc snapshots; stop() returns the deltas over the run plus the traced
// tasks' context switches.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro {

class BackgroundLoadRecorder {
 public:
  // Snapshots /proc/loadavg, /proc/stat (cpu jiffies, ctxt, intr total, processes) and
  // /proc/interrupts totals.
  void start();
  // Context switches of one task, read from /proc/PID/task/TID/status. Backends call this when a
  // traced task is about to exit (ptrace: at its exit stop) so its counts survive it.
  void note_task(pid_t pid, pid_t tid);
  // Reads the counters again and returns {duration_ns, loadavg_start, loadavg_end, cpu (jiffy
  // deltas by state and busy fraction), context_switches, interrupts, forks, tasks: [{pid, tid,
  // voluntary_ctxt_switches, nonvoluntary_ctxt_switches}], tasks_voluntary_total,
  // tasks_involuntary_total}. `pids` are the traced processes still alive: all their threads are
  // read now (tasks noted earlier keep their last reading).
  nlohmann::json stop(const std::vector<int>& pids);

 private:
  struct Snapshot {
    int64_t at_ns = 0;
    std::vector<double> loadavg;
    std::vector<uint64_t> cpu;  // user nice system idle iowait irq softirq steal
    uint64_t ctxt = 0, intr = 0, processes = 0, interrupts_file = 0;
  };
  static Snapshot take();
  Snapshot start_;
  std::mutex mu_;
  std::map<std::pair<pid_t, pid_t>, std::pair<uint64_t, uint64_t>> tasks_;
};

}  // namespace rastro

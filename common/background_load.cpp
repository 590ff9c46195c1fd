#include "common/background_load.h"

#include <dirent.h>

#include <fstream>
#include <sstream>

#include "common/clock.h"

namespace rastro {

namespace {

// Sum of every per-CPU count in /proc/interrupts (the rows are IRQ sources, the columns CPUs).
uint64_t interrupts_total() {
  std::ifstream in("/proc/interrupts");
  std::string line;
  std::getline(in, line);  // CPU header
  uint64_t total = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string label;
    ls >> label;
    if (label == "ERR:" || label == "MIS:") continue;
    uint64_t v;
    while (ls >> v) total += v;  // stops at the first non-number (the controller name)
  }
  return total;
}

bool task_switches(pid_t pid, pid_t tid, uint64_t* vol, uint64_t* invol) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  if (!in) return false;
  std::string line;
  bool got_v = false, got_i = false;
  while (std::getline(in, line)) {
    if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
      *vol = std::stoull(line.substr(24));
      got_v = true;
    } else if (line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
      *invol = std::stoull(line.substr(27));
      got_i = true;
    }
  }
  return got_v && got_i;
}

}  // namespace

BackgroundLoadRecorder::Snapshot BackgroundLoadRecorder::take() {
  Snapshot s;
  s.at_ns = monotonic_ns();
  {
    std::ifstream in("/proc/loadavg");
    double a;
    for (int i = 0; i < 3 && (in >> a); ++i) s.loadavg.push_back(a);
  }
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "cpu") {
      uint64_t v;
      while (s.cpu.size() < 8 && (ls >> v)) s.cpu.push_back(v);
    } else if (key == "ctxt") {
      ls >> s.ctxt;
    } else if (key == "intr") {
      ls >> s.intr;  // first number is the total
    } else if (key == "processes") {
      ls >> s.processes;
    }
  }
  s.interrupts_file = interrupts_total();
  return s;
}

void BackgroundLoadRecorder::start() {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.clear();
  start_ = take();
}

void BackgroundLoadRecorder::note_task(pid_t pid, pid_t tid) {
  uint64_t v = 0, i = 0;
  if (!task_switches(pid, tid, &v, &i)) return;
  std::lock_guard<std::mutex> lock(mu_);
  tasks_[{pid, tid}] = {v, i};
}

nlohmann::json BackgroundLoadRecorder::stop(const std::vector<int>& pids) {
  Snapshot end = take();
  for (int pid : pids) {
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    if (DIR* d = ::opendir(dir.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        note_task(pid, std::stoi(e->d_name));
      }
      ::closedir(d);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json j;
  j["duration_ns"] = end.at_ns - start_.at_ns;
  j["loadavg_start"] = start_.loadavg;
  j["loadavg_end"] = end.loadavg;
  static const char* kStates[] = {"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"};
  nlohmann::json cpu = nlohmann::json::object();
  uint64_t total = 0, idle = 0;
  for (size_t k = 0; k < end.cpu.size() && k < start_.cpu.size(); ++k) {
    uint64_t d = end.cpu[k] - start_.cpu[k];
    cpu[kStates[k]] = d;
    total += d;
    if (k == 3 || k == 4) idle += d;
  }
  cpu["busy_fraction"] = total ? static_cast<double>(total - idle) / static_cast<double>(total) : 0.0;
  j["cpu_jiffies"] = cpu;
  j["context_switches"] = end.ctxt - start_.ctxt;
  j["interrupts"] = end.intr - start_.intr;
  j["interrupts_proc_interrupts"] = end.interrupts_file - start_.interrupts_file;
  j["forks"] = end.processes - start_.processes;
  nlohmann::json tasks = nlohmann::json::array();
  uint64_t tv = 0, ti = 0;
  for (const auto& [key, val] : tasks_) {
    tasks.push_back({{"pid", key.first}, {"tid", key.second},
                     {"voluntary_ctxt_switches", val.first}, {"nonvoluntary_ctxt_switches", val.second}});
    tv += val.first;
    ti += val.second;
  }
  j["tasks"] = tasks;
  j["tasks_voluntary_total"] = tv;
  j["tasks_involuntary_total"] = ti;
  return j;
}

}  // namespace rastro

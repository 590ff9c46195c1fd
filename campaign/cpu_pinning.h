// Optional CPU pinning of a campaign's measured processes (docs/campaign.md, `cpus`): on a small
// VM, a workload that migrates between CPUs, or shares one with the campaign's own bookkeeping,
// adds run-to-run spread that is neither the instrument's nor the file system's.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace rastro::campaign {

// Pins the calling thread — and so every process it forks while pinned — to `cpus`; the thread's
// previous mask comes back on destruction. An empty list pins nothing. Throws rastro::Error naming
// the CPUs when the kernel refuses (a CPU that does not exist or is offline).
class ScopedCpuPinning {
 public:
  explicit ScopedCpuPinning(const std::vector<int>& cpus);
  ~ScopedCpuPinning();
  ScopedCpuPinning(const ScopedCpuPinning&) = delete;
  ScopedCpuPinning& operator=(const ScopedCpuPinning&) = delete;

 private:
  bool pinned_ = false;
  cpu_set_t previous_;
};

// The calling thread's allowed CPUs as the kernel reports them (/proc/thread-self/status,
// Cpus_allowed_list, e.g. "0-1"); "" if unreadable.
std::string cpus_allowed_list();

}  // namespace rastro::campaign

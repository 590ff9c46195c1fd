#include "campaign/cpu_pinning.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"

namespace rastro::campaign {

ScopedCpuPinning::ScopedCpuPinning(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  if (sched_getaffinity(0, sizeof previous_, &previous_) != 0)
    throw Error(fmt::format("cpus: cannot read this thread's CPU affinity: {}", std::strerror(errno)));
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) throw Error(fmt::format("cpus: CPU {} is out of range", c));
    CPU_SET(static_cast<size_t>(c), &set);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw Error(fmt::format("cpus: cannot pin to CPU(s) {}: {}", fmt::join(cpus, ","), std::strerror(errno)));
  pinned_ = true;
}

ScopedCpuPinning::~ScopedCpuPinning() {
  if (pinned_) sched_setaffinity(0, sizeof previous_, &previous_);
}

std::string cpus_allowed_list() {
  std::ifstream in("/proc/thread-self/status");
  for (std::string line; std::getline(in, line);) {
    static constexpr char kKey[] = "Cpus_allowed_list:";
    if (line.rfind(kKey, 0) != 0) continue;
    const auto start = line.find_first_not_of(" \t", sizeof kKey - 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace rastro::campaign

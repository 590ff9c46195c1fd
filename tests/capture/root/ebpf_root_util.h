// Shared by the root-only eBPF suites: why eBPF cannot run here, and this test binary's path
// (each suite re-executes itself as its workload).
#pragma once

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>

#include "capture/ebpf/ebpf_backend.h"

namespace rastro::capture::ebpf::testing {

// "" when the eBPF backend can run; else each missing piece, also printed so a skip shows why.
inline std::string ebpf_missing() {
  std::string why;
  for (auto& m : EbpfBackend().missing_requirements()) why += m + "; ";
  if (!why.empty()) std::printf("eBPF unavailable here: %s\n", why.c_str());
  return why;
}

inline std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace rastro::capture::ebpf::testing

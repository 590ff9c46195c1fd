#include "capture/stap/stap_requirements.h"

#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace rastro::capture {

namespace {

bool in_path(const std::string& tool) {
  const char* p = std::getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && ::access(fmt::format("{}/{}", dir, tool).c_str(), X_OK) == 0) return true;
  return false;
}

uint64_t effective_caps() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  return 0;
}

constexpr int kCapSysModule = 16, kCapSysAdmin = 21, kCapSysResource = 24;

}  // namespace

StapRuntimeChoice check_stap_requirements() {
  StapRuntimeChoice r;
  if (!in_path("stap"))
    r.missing.push_back("SystemTap is not installed: `stap` is not in PATH (Debian package `systemtap`)");
  utsname u{};
  ::uname(&u);
  std::string build = fmt::format("/lib/modules/{}/build", u.release);
  if (::access((build + "/.config").c_str(), R_OK) != 0)
    r.missing.push_back(fmt::format(
        "kernel build tree for {}: {}/.config is missing (stap compiles against the headers and "
        ".config of this exact kernel; install them, e.g. the linux-headers-{} package)",
        u.release, build, u.release));

  const uint64_t caps = effective_caps();
  std::vector<std::string> module_missing, bpf_missing;
  // init_module(NULL, 0, "") cannot load anything: ENOSYS means the kernel has no module
  // support at all; EPERM no privilege; EFAULT (the bad pointer) means modules could load.
  long rc = ::syscall(SYS_init_module, nullptr, 0UL, "");
  int err = rc == 0 ? 0 : errno;
  if (err == ENOSYS)
    module_missing.push_back("module runtime: this kernel cannot load modules (init_module returns ENOSYS: built without CONFIG_MODULES)");
  std::ifstream disabled("/proc/sys/kernel/modules_disabled");
  int d = 0;
  if (err != ENOSYS && disabled >> d && d != 0)
    module_missing.push_back("module runtime: module loading is disabled (kernel.modules_disabled = 1)");
  if (err != ENOSYS && !(caps & (1ull << kCapSysModule)))
    module_missing.push_back("module runtime: loading the probe module needs CAP_SYS_MODULE (run as root)");

  if (!in_path("stapbpf"))
    bpf_missing.push_back("bpf runtime (--runtime=bpf): `stapbpf` is not installed");
  if (!(caps & (1ull << kCapSysAdmin)))
    bpf_missing.push_back("bpf runtime (--runtime=bpf): stapbpf needs CAP_SYS_ADMIN (run as root)");
  if (!(caps & (1ull << kCapSysResource)))
    bpf_missing.push_back("bpf runtime (--runtime=bpf): stapbpf needs CAP_SYS_RESOURCE to raise RLIMIT_MEMLOCK, and this process lacks it");

  if (module_missing.empty()) {
    r.use_bpf_runtime = false;
  } else if (bpf_missing.empty()) {
    r.use_bpf_runtime = true;
  } else {
    r.missing.insert(r.missing.end(), module_missing.begin(), module_missing.end());
    r.missing.insert(r.missing.end(), bpf_missing.begin(), bpf_missing.end());
  }
  return r;
}

}  // namespace rastro::capture

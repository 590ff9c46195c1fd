// What SystemTap needs on this machine, checked before running it (PLATFORM.md: on the project's
// kernel nothing of it is available, and stap's own errors — "…/build/.config: No such file or
// directory" — do not say what to install).
#pragma once

#include <string>
#include <vector>

namespace rastro::capture {

struct StapRuntimeChoice {
  std::vector<std::string> missing;  // one precise item per missing piece (empty = can run)
  bool use_bpf_runtime = false;      // the module runtime is impossible but --runtime=bpf works
};

// Checks: stap installed; the kernel build tree /lib/modules/RELEASE/build with .config; then
// either the module runtime (modules loadable: CONFIG_MODULES, kernel.modules_disabled = 0,
// CAP_SYS_MODULE) or the bpf runtime (stapbpf installed, CAP_SYS_ADMIN and CAP_SYS_RESOURCE).
// Runtime items are listed only when neither runtime is usable.
StapRuntimeChoice check_stap_requirements();

}  // namespace rastro::capture

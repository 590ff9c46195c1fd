// `rastro capture -b ebpf`: the kernel-probe instrument (fs_events.bpf.c via fs_loader.h) behind
// the Backend contract. The class is visible for testing: tests delay the consumer to force
// ring-buffer overflow and check the loss accounting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <functional>

#include "capture/common/backend.h"

namespace rastro::capture::ebpf {

struct EbpfTestHooks {
  int consumer_delay_ms = 0;  // sleep before draining the ring the first time
  std::function<void()> on_attached;  // called once the tasks of `capture -p` are registered
};

// What the probes need that can be checked without loading them (kernel BTF, CAP_BPF and
// CAP_PERFMON or CAP_SYS_ADMIN): one sentence per missing piece. missing_requirements() adds the
// proof, a load of the programs (seconds: the verifier).
std::vector<std::string> missing_privileges();

class EbpfBackend final : public Backend {
 public:
  explicit EbpfBackend(EbpfTestHooks hooks = {}) : hooks_(hooks) {}
  std::string_view name() const override { return "ebpf"; }
  std::vector<std::string> missing_requirements() const override;
  int run(const CaptureOptions& options, trace::TraceSink& sink) override;

 private:
  EbpfTestHooks hooks_;
};

}  // namespace rastro::capture::ebpf

// One factory per capture backend; each is defined in its backend's folder and listed once in
// backend_registry.cpp. Declared here (not in backend.h) so only the registry and tests that want a
// specific backend see them.
#pragma once

#include <memory>

#include "capture/common/backend.h"

namespace rastro::capture {

std::unique_ptr<Backend> make_strace_backend();  // capture/strace/
std::unique_ptr<Backend> make_ptrace_backend();  // capture/ptrace/
std::unique_ptr<Backend> make_stap_backend();    // capture/stap/
std::unique_ptr<Backend> make_ebpf_backend();    // capture/ebpf/

}  // namespace rastro::capture

// The list of capture backends, in the order `rastro capture --help` shows them.
#include <functional>

#include "capture/common/backend.h"
#include "capture/common/backend_factories.h"

namespace rastro::capture {

namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<Backend> (*make)();
};

constexpr Entry kBackends[] = {
    {"strace", &make_strace_backend},
    {"ptrace", &make_ptrace_backend},
    {"ebpf", &make_ebpf_backend},
    {"stap", &make_stap_backend},
};

}  // namespace

std::unique_ptr<Backend> make_backend(std::string_view name) {
  for (const auto& e : kBackends)
    if (e.name == name) return e.make();
  return nullptr;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& e : kBackends) out.emplace_back(e.name);
  return out;
}

}  // namespace rastro::capture

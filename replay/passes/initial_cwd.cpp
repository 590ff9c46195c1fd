#include "replay/passes/initial_cwd.h"

#include "replay/passes/resolve_paths.h"

namespace rastro::replay {

std::string initial_cwd(const trace::TraceHeader& header) {
  for (const auto* j : {&header.settings, &header.environment, &header.extra}) {
    if (!j->is_object()) continue;
    auto it = j->find("cwd");
    if (it == j->end() || !it->is_string()) continue;
    const auto& s = it->get_ref<const std::string&>();
    if (!s.empty() && s[0] == '/') return normalize_path("/", s);
  }
  return {};
}

std::string initial_cwd_or_root(const trace::TraceHeader& header) {
  std::string c = initial_cwd(header);
  return c.empty() ? std::string("/") : c;
}

}  // namespace rastro::replay

#include "trace/model/header.h"

#include <type_traits>

#include <fmt/format.h>

#include "common/error.h"
#include "common/json_integer.h"

namespace rastro::trace {

nlohmann::json TraceHeader::to_json() const {
  return nlohmann::json{
      {"format_version", format_version},
      {"backend", backend},
      {"settings", settings},
      {"command", command},
      {"host", host},
      {"kernel", kernel},
      {"clock", clock},
      {"anchor_monotonic_ns", anchor_monotonic_ns},
      {"anchor_realtime_ns", anchor_realtime_ns},
      {"environment", environment},
      {"background_load", background_load},
      {"events_captured", events_captured},
      {"events_lost", events_lost},
      {"lost_reasons", lost_reasons},
      {"complete", complete},
      {"extra", extra},
  };
}

TraceHeader TraceHeader::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("trace header is not a JSON object");
  TraceHeader h;
  auto get = [&](const char* key, auto& out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    using T = std::remove_reference_t<decltype(out)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!json_to_integer(*it, &out))
        throw Error(fmt::format("trace header key '{}' must be a whole number in range, not {}", key, it->dump()));
      return;
    }
    try {
      it->get_to(out);
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("trace header key '{}' has the wrong type: {}", key, e.what()));
    }
  };
  get("format_version", h.format_version);
  get("backend", h.backend);
  get("settings", h.settings);
  get("command", h.command);
  get("host", h.host);
  get("kernel", h.kernel);
  get("clock", h.clock);
  get("anchor_monotonic_ns", h.anchor_monotonic_ns);
  get("anchor_realtime_ns", h.anchor_realtime_ns);
  get("environment", h.environment);
  get("background_load", h.background_load);
  get("events_captured", h.events_captured);
  get("events_lost", h.events_lost);
  get("lost_reasons", h.lost_reasons);
  get("complete", h.complete);
  get("extra", h.extra);
  if (h.format_version == 0 || h.format_version > kFormatVersion)
    throw Error(fmt::format("trace format version {} is not supported (this rastro reads up to {})",
                            h.format_version, kFormatVersion));
  return h;
}

}  // namespace rastro::trace

#include "trace/stats.h"

#include <ostream>

#include <fmt/format.h>

namespace rastro::trace {

namespace {
constexpr StatInfo kInfos[] = {
#define RASTRO_STAT_INFO(name, sev, desc) {#name, StatSeverity::sev, desc},
    RASTRO_STATS(RASTRO_STAT_INFO)
#undef RASTRO_STAT_INFO
};
}  // namespace

const StatInfo& stat_info(StatId id) { return kInfos[static_cast<size_t>(id)]; }

const StatInfo* stat_by_name(std::string_view name) {
  for (const StatInfo& s : kInfos)
    if (s.name == name) return &s;
  return nullptr;
}

void set_lost_reason(nlohmann::json& lost_reasons, StatId id, uint64_t n) {
  lost_reasons[std::string(stat_info(id).name)] = n;
}

std::string_view severity_name(StatSeverity s) {
  switch (s) {
    case StatSeverity::kInfo: return "info";
    case StatSeverity::kDataLoss: return "data-loss";
    case StatSeverity::kError: return "error";
  }
  return "?";
}

bool Stats::has_errors() const {
  for (int i = 0; i < kNumStats; ++i)
    if (values[static_cast<size_t>(i)] > 0 && kInfos[i].severity == StatSeverity::kError) return true;
  return false;
}

void Stats::print(std::ostream& out) const {
  for (int i = 0; i < kNumStats; ++i) {
    const StatInfo& s = kInfos[i];
    out << fmt::format("{:<36} {:<9} {:>10}  {}\n", s.name, severity_name(s.severity),
                       values[static_cast<size_t>(i)], s.description);
  }
}

nlohmann::json Stats::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kNumStats; ++i) j[std::string(kInfos[i].name)] = values[static_cast<size_t>(i)];
  return j;
}

}  // namespace rastro::trace

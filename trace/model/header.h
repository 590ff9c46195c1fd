// Per-trace header (SPEC §2, §6.4): who made the trace, where, with which settings, and how
// complete it is. Open-ended parts (environment inventory, background-load record, settings)
// are JSON objects so components can add keys without changing the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::trace {

inline constexpr uint32_t kFormatVersion = 1;

struct TraceHeader {
  uint32_t format_version = kFormatVersion;
  std::string backend;                 // "ebpf", "ptrace", "strace", "stap", "import-strace",
                                       // "reference-micro", "replay-workers", ...
  nlohmann::json settings = nlohmann::json::object();  // backend / replayer settings
  std::vector<std::string> command;    // traced command line, when known
  std::string host;
  std::string kernel;
  std::string clock = "CLOCK_MONOTONIC";
  int64_t anchor_monotonic_ns = 0;     // a monotonic reading ...
  int64_t anchor_realtime_ns = 0;      // ... and the wall time taken right after it
  nlohmann::json environment = nlohmann::json::object();      // SPEC §6.4 inventory
  nlohmann::json background_load = nlohmann::json::object();  // SPEC §6.4 run-time record
  // Counters: never silently lose events.
  uint64_t events_captured = 0;
  uint64_t events_lost = 0;
  nlohmann::json lost_reasons = nlohmann::json::object();  // reason -> count
  bool complete = false;  // false while being written or when the writer died mid-way
  nlohmann::json extra = nlohmann::json::object();  // calibration record, replay summary, ...

  nlohmann::json to_json() const;
  // Throws rastro::Error naming the bad key.
  static TraceHeader from_json(const nlohmann::json& j);
};

}  // namespace rastro::trace

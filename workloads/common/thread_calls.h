// What a reference workload hands to the trace writer and the summary: each worker thread's
// identity and its CallLog, plus the path table the records index into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/common/call_log.h"

namespace rastro::workloads {

struct ThreadCalls {
  int32_t pid = 0;
  int32_t tid = 0;
  CallLog log;
};

struct WorkloadRun {
  std::vector<std::string> paths;    // CallRecord::path indexes this (absolute paths)
  std::vector<ThreadCalls> threads;
  int stopped_by = 0;                // StopSignal value that cut the run short, 0 if it completed
  std::string stop_reason;           // set when the run is partial
};

}  // namespace rastro::workloads

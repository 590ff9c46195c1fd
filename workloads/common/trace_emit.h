// Turns the application-timed calls of a run into uniform trace events (SPEC §2): nr from the
// syscall table, args exactly in the table's signature (kFd args carry the file path in `str`,
// kBuf args are 0, AT_FDCWD dirfds are -100), begin/end CLOCK_MONOTONIC, rvalue -errno on failure.
// Events of all threads are merged by begin time.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/io/trace_sink.h"
#include "trace/model/header.h"
#include "workloads/common/thread_calls.h"

namespace rastro::workloads {

// Appends every call of `run` to `sink` (interning paths into sink.strings()).
void emit_run(const WorkloadRun& run, trace::TraceSink& sink);

// The header of a reference trace: backend, settings, command line, clock anchor, host, kernel,
// and the environment inventory of `target_dir` when common/env_inventory.h is available.
trace::TraceHeader make_reference_header(const std::string& backend, nlohmann::json settings,
                                         std::vector<std::string> command, const std::string& target_dir);

// Records the outcome in the header: counters, the summary, and the partial flag + reason when
// the run was cut short (header.complete is then false too).
void finish_header(const WorkloadRun& run, const nlohmann::json& summary, trace::TraceHeader& header);

}  // namespace rastro::workloads

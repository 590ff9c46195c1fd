// The replay plan (SPEC §4): passive data, no invariants or methods. Inference produces it; the
// event-based engines and the compiler read only this. A new ordering policy changes how a Plan is
// built, never the replayers (thesis §2.4.2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace rastro::replay {

enum class Ordering : uint8_t { kThread, kFs, kTemporal };

// Why an edge exists (thread = program order; fd-stage/fd-seq/file/path = ARTC ROOT resource
// rules; temporal = completed-before-began in the trace).
enum class EdgeKind : uint8_t { kThread, kFdStage, kFdSeq, kFile, kPath, kTemporal };
inline constexpr int kEdgeKinds = 6;

struct Dep {
  uint32_t request;  // index into Plan::requests that must complete first
  EdgeKind kind;
};

struct Request {
  uint32_t event;        // index into Plan::trace.events
  uint32_t thread;       // index into Plan::threads
  uint32_t deps_begin;   // this request's dependencies are deps[deps_begin, deps_begin+deps_count)
  uint32_t deps_count;
  int64_t trace_begin_ns;  // begin/end relative to the first event's begin
  int64_t trace_end_ns;
};

struct PlanThread {
  int32_t pid = 0;
  int32_t tid = 0;
  std::vector<uint32_t> requests;  // indices into Plan::requests, in program order
};

struct PlanFigures {
  uint64_t edges_by_kind[kEdgeKinds] = {};
  int64_t critical_path_ns = 0;   // longest dependency chain of traced durations (fullspeed bound)
  uint32_t max_parallelism = 0;
  double mean_parallelism = 0;
  uint64_t unconstrained = 0;     // requests with no dependencies at all
};

struct Plan {
  Ordering ordering = Ordering::kFs;
  trace::Trace trace;              // the input trace (header, strings, events)
  std::vector<Request> requests;   // one per replayable event, in trace order
  std::vector<Dep> deps;           // CSR storage of every request's dependencies
  std::vector<PlanThread> threads;
  PlanFigures figures;
};

}  // namespace rastro::replay

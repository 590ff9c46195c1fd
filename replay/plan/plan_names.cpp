#include "replay/plan/plan_names.h"

#include <string>

namespace rastro::replay {

std::string_view ordering_name(Ordering o) {
  switch (o) {
    case Ordering::kThread: return "thread";
    case Ordering::kFs: return "fs";
    case Ordering::kTemporal: return "temporal";
  }
  return "?";
}

Result<Ordering> parse_ordering(std::string_view s) {
  if (s == "thread") return Ordering::kThread;
  if (s == "fs") return Ordering::kFs;
  if (s == "temporal") return Ordering::kTemporal;
  return fail("unknown ordering '" + std::string(s) + "' (expected thread, fs or temporal)");
}

std::string_view edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::kThread: return "thread";
    case EdgeKind::kFdStage: return "fd-stage";
    case EdgeKind::kFdSeq: return "fd-seq";
    case EdgeKind::kFile: return "file";
    case EdgeKind::kPath: return "path";
    case EdgeKind::kTemporal: return "temporal";
    case EdgeKind::kMapping: return "mapping";
  }
  return "?";
}

std::string_view action_name(RequestAction a) {
  switch (a) {
    case RequestAction::kReplay: return "replay";
    case RequestAction::kSkipUnknown: return "skip-unknown";
    case RequestAction::kSkipUnfinished: return "skip-unfinished";
    case RequestAction::kLifecycle: return "lifecycle";
  }
  return "?";
}

}  // namespace rastro::replay

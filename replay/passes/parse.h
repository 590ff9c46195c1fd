// Pass "parse": orders the trace's events by begin time (stable by seq) into requests, decides
// each request's action from the syscall table classes, and groups requests into traced threads.
// Reads: trace. Produces: requests (order, action, thread, begin/end), threads.
#pragma once

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreateParsePass();

}  // namespace rastro::replay

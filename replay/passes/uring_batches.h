// Pass uring_batches: the io_uring requests of each traced thread, for the ring replay
// (replay/runtime/exec_uring.h): which were submitted together (one io_uring_enter), how many were
// in flight at each submission (the traced queue depth), and which a later call of the thread
// must find completed (the traced overlap). Reads the requests; produces InferContext::uring
// (Plan::uring, replay/plan/plan.h). Every ordering gets it: it is program order, like thread order.
#pragma once

#include <cstdint>

#include "replay/passes/pass_manager.h"
#include "trace/model/event.h"

namespace rastro::replay {

// An io_uring request the ring replay can submit: a finished kEventUring event whose equivalent
// call has an io_uring opcode (pread64, pwrite64, preadv, pwritev, fsync, sync_file_range,
// fallocate, fadvise64). Others (close, io_uring_op_N) replay as plain calls.
bool is_ring_call(const trace::Event& e);
// The same from the two fields it reads (the pass checks every request without decoding it).
bool is_ring_call(uint32_t flags, int32_t nr);

Pass CreateUringBatchesPass();

}  // namespace rastro::replay

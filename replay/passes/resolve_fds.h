// Pass "resolve_fds": per traced process, the lifetime of every fd: which call created it
// (open/openat/openat2/creat, dup/dup2/dup3, fcntl(F_DUPFD[_CLOEXEC]), pipe/pipe2/socketpair,
// socket/accept/accept4), which calls use it, which call ends it (close, dup2 over it, exec of a
// close-on-exec fd). A fork child's table is a copy of its parent's (same creators, same open
// file descriptions); CLONE_FILES shares one table. An fd used without a traced creator (0/1/2,
// or opened before the capture started) gets an entry with no creator, counted as inherited.
// In the same walk, for the replayers, one fd key per lifetime per request (fd_keys.h's
// FdKeyAssigner; the process seeds' inherited fds become keys), which the plan pass stores in the
// Plan.
// Reads: requests, paths, processes. Produces: fds, fd_keys.
#pragma once

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreateResolveFdsPass();

}  // namespace rastro::replay

// Pass "infer_order": the dependencies of every request under the chosen ordering (SPEC §4).
//
//  thread    program order within each traced thread (always on).
//  fs        thread + ARTC ROOT / TBBT FS-dependency resource rules, applied only to calls that
//            succeeded and are replayed (failed calls get no resource constraints and constrain
//            nobody):
//            fd-stage  a use of an fd waits for the call that created it; close (and dup2 over
//                      an fd) waits for every other user of that fd lifetime in its process;
//            fd-seq    a use of an open file description waits for its last user that completed
//                      before this call began (calls that overlapped in the trace stay concurrent);
//            file      the same rule per underlying file, reached by path or by fd (names are
//                      followed through rename and link);
//            path      a call using a path waits for the call that made it exist (or made its
//                      nearest ancestor exist); a call removing a path (unlink, rmdir, rename
//                      source, rename over a target) waits for every user of it; a call needing
//                      it absent (O_EXCL create, mkdir, mknod, symlink, link target) waits for the
//                      call that removed it; creating or removing an entry uses the parent
//                      directory; renaming a directory renames every path below it.
//  temporal  thread + a call waits for every call that completed before it began, stored as the
//            transitive reduction of that interval order: the calls completed before it began
//            that no other such call began after - at most one per other thread. Page faults
//            (no calls) are ordered within their thread only.
//
// Redundant edges are skipped where it is cheap: an edge to the same thread (implied by thread
// order) and, per other thread, all but the latest dependency (thread order implies the rest).
// Reads: requests, paths, fds. Produces: deps.
#pragma once

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreateInferOrderPass();

}  // namespace rastro::replay

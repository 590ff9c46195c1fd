// The initial file-system state a trace needs (`--init`, ARTC-style two-pass preparation, SPEC
// §4), planned by the resolve_paths pass into Plan::init; replay/runtime/fs_init.h creates it.
//
// Walks the trace in order, following each process's cwd (from initial_cwd.h's rule) and fds, and
// decides for every path from its *first* use whether it existed before the trace began: a
// successful open without O_CREAT, stat, access, unlink, rename source, chdir, readlink (also one
// failing EINVAL: no symlink)... says it existed; a successful mkdir, O_EXCL create, symlink or
// link target, or an ENOENT failure, says it did not — and then nothing below it existed either.
// Files are sized to the largest offset+bytes read from them (read, pread, readv, mmap, sendfile)
// while they still held their original content and past everything the trace wrote to them, and
// to lseek(SEEK_END) results. Ancestors of every path a successful call used are directories, and
// so is a path named "X/." or with an ENOENT below it (a file would have given ENOTDIR). A symlink
// gets the target the thread's path walk after its readlink shows (the next path of the link's
// length), else a placeholder of that length; access(X_OK) through links makes the file at the
// end of the chain executable. Sizes in the trace header's
// settings ("initial_files": {path: size} or [{"path":..,"size":..}]) are honoured too. Paths the
// replay sandbox refuses (SandboxResolver::check) are left out.
#pragma once

#include <functional>

#include "replay/plan/plan.h"
#include "trace/model/trace.h"

namespace rastro::replay {

// `also` (if set) sees every event of the walk too, in trace order: a pass that needs another
// whole-trace walk in that order rides on this one instead of decoding the events again.
using EventVisitor = std::function<void(const trace::Event&)>;
InitPlan plan_initial_state(const PlanTrace& trace, const EventVisitor& also = {});

}  // namespace rastro::replay

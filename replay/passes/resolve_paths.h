// Pass "resolve_paths": turns every path argument into an absolute, lexically normalised traced
// path. Relative paths follow the traced process's cwd (chdir, fchdir; inherited over fork,
// shared with CLONE_FS) and *at calls their dirfd's path (from the open that created it, or
// the fd's recorded path, as strace -y prints it). The initial cwd is initial_cwd.h's rule (the
// header's "cwd" in settings, environment or extra); without one, relative names resolve against
// "/" and are counted as unresolved. Then plans the initial file-system state (initial_state.h)
// under the same cwd rule, which the plan pass stores in the Plan; that walk over every event
// also collects the process seeds (fd_keys.h's SeedCollector) for resolve_fds.
// Lexical: ".." removes the previous component without following symlinks, as the replay
// sandbox will see the same names.
// Reads: requests. Produces: paths, initial_state, processes.
#pragma once

#include <string>
#include <string_view>

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreateResolvePathsPass();

// Visible for testing: `p` made absolute against `base` (an absolute directory) and normalised:
// no "//", "." or ".." components, no trailing slash ("/" stays "/").
std::string normalize_path(std::string_view base, std::string_view p);

}  // namespace rastro::replay

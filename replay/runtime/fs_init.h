// `--init`: recreate inside the root the initial file-system state a trace needs (ARTC-style
// two-pass preparation, SPEC §4).
//
// Pass 1 (plan_initial_state) walks the trace in order, following each process's cwd and fds, and
// decides for every path from its *first* use whether it existed before the trace began: a
// successful open without O_CREAT, stat, access, unlink, rename source, chdir, readlink... says it
// existed; a successful mkdir, O_EXCL create, symlink or link target, or an ENOENT failure, says it
// did not. Files are sized to the largest offset+bytes read from them (read, pread, readv, mmap,
// sendfile) while they still held their original content, and to lseek(SEEK_END) results.
// Ancestors of every path a successful call used are directories. Sizes in the trace header's
// settings ("initial_files": {path: size} or [{"path":..,"size":..}]) are honoured too.
//
// Pass 2 (create_initial_state) creates those directories, files (filled with real bytes, not
// holes, so reads behave as on written data) and symlinks through the sandbox resolver.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "replay/runtime/sandbox_resolver.h"
#include "trace/model/trace.h"

namespace rastro::replay {

struct InitEntry {
  enum class Kind : uint8_t { kDir, kFile, kSymlink };
  Kind kind = Kind::kFile;
  std::string path;    // absolute traced path (normalised)
  uint64_t size = 0;   // files: minimum size
  mode_t mode = 0644;  // files: 0755 when the trace found them executable (access X_OK, exec)
  std::string target;  // symlinks: a placeholder of the traced readlink length
};

struct InitPlan {
  std::vector<InitEntry> entries;  // parents before children
  uint64_t bytes = 0;
};

InitPlan plan_initial_state(const trace::Trace& trace);

struct InitReport {
  uint64_t dirs = 0, files = 0, symlinks = 0, bytes_written = 0;
  uint64_t refused = 0;              // special or corrupt paths not created
  uint64_t kept = 0;                 // files already in the root, left exactly as they were
  std::vector<std::string> problems; // entries that could not be created, with the reason
};

InitReport create_initial_state(const SandboxResolver& sandbox, const InitPlan& plan);

}  // namespace rastro::replay

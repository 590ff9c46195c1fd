// Executes one traced call inside the sandbox (SPEC §4): the table of what the replayers can do.
//
// Supported: the open family, read/pread/readv-as-read, write/pwrite (deterministic bytes of the
// recorded size), lseek, close, fsync/fdatasync/syncfs/sync_file_range, the stat family, access,
// mkdir/rmdir/unlink(at)/rename(at,2)/link/symlink/readlink, truncate/ftruncate, fallocate, the dup
// family, fcntl (dup/getfl/setfl/getfd/setfd, record locks as OFD locks: lock_replay.h), getdents(64),
// chdir/fchdir, chmod/chown (inside the root), utimensat/utime(s), xattrs, mknod of regular files,
// the mmap family (mapping_table.h) and page faults (touches of the replay mapping), pipes and
// socket pairs (non-blocking; reads and writes on them wait, bounded, for their traced byte
// counts: stream_io.h), readahead/fadvise, sendfile/copy_file_range, flock (blocking ones wait,
// bounded), and clone/fork/exec/exit as structure only (they change the fd tables and are not executed).
// Special files (/dev/null, /dev/zero, /dev/urandom, the terminal, /proc, /sys) and sockets are
// emulated: calls on them return the traced values (emulated_call.h). Everything else is skipped
// and counted by name; nothing aborts the replay.
//
// Used by both event-based engines and by the compiled replayer's generated code. run() dispatches
// by the syscall table's Family column; each family's cases are in exec_<family>.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replay/runtime/io_buffer.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/sandbox_resolver.h"
#include "replay/runtime/unique_fd.h"
#include "trace/model/event.h"
#include "trace/model/string_table.h"

namespace rastro::replay {

enum class SkipReason : uint8_t {
  kNone = 0,
  kUnsupported,       // syscall not in the table above (counted by name too)
  kFdBeforeOpen,      // fd never created in this process: inconsistent trace
  kFdAfterClose,      // fd used after it was closed
  kFdOpenFailed,      // the call that created the fd failed in the replay
  kFdRefused,         // the fd's path was refused by the sandbox
  kSpecialPath,       // /dev paths that are not emulated (disks, /dev/mem ...): special_file.h
  kBadPath,           // empty path or NUL byte: corrupt trace
  kDeviceNode,        // mknod of a character/block device
  kUnknownMapping,    // munmap/mprotect/msync/madvise/mremap/page fault of a range no traced mmap
                      // of this process mapped (made by execve, before the capture, or in a parent)
  kUnknownProcess,    // event of a pid the runtime was not seeded with
  kUnfinished,        // the plan says: the call never returned within the trace
  kLockArgsNotRecorded,  // fcntl lock command whose struct flock the capture could not read
  kCount,
};
inline constexpr int kSkipReasons = static_cast<int>(SkipReason::kCount);
const char* skip_reason_name(SkipReason r);

// Per-thread counters (merged after the run; no atomics on the hot path).
struct ExecStats {
  uint64_t executed = 0;   // calls run against the kernel
  uint64_t emulated = 0;   // structure only (clone/fork/exec/exit/umask/getcwd), and emulated_files
  uint64_t emulated_files = 0;  // calls on special files and sockets served by emulation
  uint64_t mismatched = 0;
  std::array<uint64_t, kSkipReasons> skipped{};
  std::map<std::string, uint64_t> unsupported;  // by syscall name
  std::map<std::string, uint64_t> mismatched_by_call;

  uint64_t skipped_total() const;
  void merge(const ExecStats& o);
};

// A replay thread's own buffers and counters.
struct ThreadScratch {
  IoBuffer read_buf;   // page-aligned (io_buffer.h): O_DIRECT reads and writes work
  IoBuffer write_buf;  // the deterministic pattern written by every write
  ExecStats stats;
  // The timed region of the call being executed, when the executor narrowed it to the syscall
  // (0: not narrowed): the sandbox's path resolution before it and the fd-table bookkeeping after
  // it are the replayer's work, not the call's (request_runner.h).
  SyscallSpan call;
  // Its traced process's cwd inside the root, an O_PATH fd of this thread's fd table, kept while
  // the process stays in that cwd: traced relative paths are walked from it (SandboxResolver::Base).
  struct Cwd {
    const ProcessState* proc = nullptr;
    std::string path;
    UniqueFd fd;
  } cwd;
  char* read_area(size_t n);
  const char* write_area(size_t n);
};

struct CallOutcome {
  int64_t rvalue = 0;
  uint32_t flags = 0;  // trace::kEventSkipped / kEventMismatch
  SkipReason skip = SkipReason::kNone;
};

// The pattern byte written at position i of every write: deterministic and not all zeros (so a
// file system cannot store it as a hole).
inline char write_pattern_byte(size_t i) { return static_cast<char>('a' + i % 26); }

struct CallCtx;

class CallExecutor {
 public:
  CallExecutor(const SandboxResolver& sandbox, ProcessTable& procs, const trace::StringTable& strings)
      : sandbox_(sandbox), procs_(procs), strings_(strings) {}

  // Executes `e` for its traced process `proc` (nullptr = look it up by e.pid). Updates the
  // process state (fds, cwd, mappings) and scratch.stats; compares the result with e.rvalue.
  // `resolved` (optional, 2 entries): the plan's absolute traced paths for the call's path
  // arguments in order (Request::path); kNoStr entries are resolved here from the traced cwd.
  // `fd_keys` (optional, 8 entries): the request's fd-lifetime keys from plan_fd_keys(); without
  // them the fd table is keyed by traced fd numbers.
  CallOutcome execute(const trace::Event& e, ProcessState* proc, ThreadScratch& scratch,
                      const trace::StrId* resolved = nullptr, const int32_t* fd_keys = nullptr) const;
  // Counts `e` as skipped for `why` without executing it (kUnsupported also counts its name).
  CallOutcome skip(const trace::Event& e, SkipReason why, ThreadScratch& scratch) const;

 private:
  // Dispatches by the syscall table's Family column to CallOps (call_ops.h, exec_*.cpp).
  int64_t run(CallCtx& c) const;

  const SandboxResolver& sandbox_;
  ProcessTable& procs_;
  const trace::StringTable& strings_;
};

// Whether a replayed return value counts as a mismatch with the traced one (fds and addresses
// only have to agree on success/failure and errno; counts, offsets and statuses exactly).
bool rvalue_mismatch(const trace::Event& traced, int64_t replay_rvalue);

}  // namespace rastro::replay

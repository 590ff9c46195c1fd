// The uniform trace event (SPEC §2): one record per completed system call.
//
// Every backend, importer and replayer produces exactly this struct. Strings (paths, fd paths,
// unknown syscall names) live in the trace's StringTable and are referenced by StrId, so an
// event is a fixed-size value that is cheap to copy and to encode.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rastro::trace {

using StrId = uint32_t;
inline constexpr StrId kNoStr = 0;  // id 0 is always the empty string

// The role of an argument; it decides how the value is printed, parsed and replayed.
// Stored in the binary format: append only, never renumber.
enum class ArgType : uint8_t {
  kNone = 0,
  kInt = 1,        // generic signed integer
  kFd = 2,         // file descriptor; str = the fd's path when known (like strace -y)
  kDirFd = 3,      // dirfd of *at calls; AT_FDCWD = -100; str = its path when known
  kPath = 4,       // path string as passed by the program (str)
  kOpenFlags = 5,  // O_* flags
  kMode = 6,       // permission bits / file type bits
  kOffset = 7,     // file offset
  kCount = 8,      // byte count / length
  kWhence = 9,     // SEEK_*
  kAtFlags = 10,   // AT_* flags
  kBuf = 11,       // a user buffer whose address and contents are not recorded (value 0)
  kPtr = 12,       // an address that is recorded (mmap addr)
  kStr = 13,       // a non-path string (xattr name)
  kFcntlCmd = 14,  // F_* command
  kCloneFlags = 15,
  kProt = 16,      // PROT_*
  kMapFlags = 17,  // MAP_*
  kRenameFlags = 18,
  kSignal = 19,
  kFdPair = 20,    // pipe/socketpair result array: value = fd0 | (fd1 << 32)
  kXattrFlags = 21,
  kMsyncFlags = 22,
  kFallocMode = 23,
  kAccessMode = 24,  // F_OK/R_OK/W_OK/X_OK
  kUid = 25,
  kTime = 26,      // utimensat times pointer (recorded as 0 = NULL, 1 = given)
  kLockType = 27,  // struct flock's l_type: F_RDLCK 0, F_WRLCK 1, F_UNLCK 2 (fcntl lock commands)
  kLast = kLockType,
};

struct Arg {
  ArgType type = ArgType::kNone;
  int64_t value = 0;
  StrId str = kNoStr;

  friend bool operator==(const Arg&, const Arg&) = default;
};

// Per-event flags. Stored in the binary format: append only.
enum EventFlags : uint32_t {
  kEventUnfinished = 1u << 0,  // never returned within the trace (end and rvalue unknown)
  kEventReplayed = 1u << 1,    // written by a replayer: planned_ns / expected_rvalue are valid
  kEventMismatch = 1u << 2,    // replay rvalue differs from the traced one
  kEventSkipped = 1u << 3,     // replay skipped this call (see the summary for the reason)
  kEventCalibrated = 1u << 4,  // end was corrected by a calibration curve; raw end in raw_end_ns
  kEventOffCpu = 1u << 5,      // offcpu_ns / vol_switches / invol_switches were measured
  kEventUring = 1u << 6,       // an io_uring request, not a syscall: nr is the equivalent call,
                               // begin = submission, end = completion (uring_* fields valid)
  kEventPageFault = 1u << 7,   // a page fault on a file-backed mapping, not a syscall: the
                               // pseudo-call mm_fault / mm_fault_around (trace/model/page_fault.h)
  kEventEmulated = 1u << 8,    // written by a replayer (with kEventReplayed): the replayer emulated
                               // the call (structure only, a special file, a socket), not the kernel
};

inline constexpr int kMaxArgs = 6;

struct Event {
  uint64_t seq = 0;   // position in the trace (stable id)
  int32_t pid = 0;    // process (thread-group) id as seen by the workload
  int32_t tid = 0;    // thread id
  int64_t begin_ns = 0;  // CLOCK_MONOTONIC at syscall entry
  int64_t end_ns = 0;    // CLOCK_MONOTONIC at syscall exit
  int32_t nr = -1;       // x86_64 syscall number; -1 when unknown (name then in `name`)
  StrId name = kNoStr;   // syscall name, set only when nr is not in the syscall table
  uint8_t nargs = 0;
  std::array<Arg, kMaxArgs> args{};
  int64_t rvalue = 0;    // return value; -errno on failure (kernel convention)
  uint32_t flags = 0;    // EventFlags
  // Replay-side extras (valid with kEventReplayed / kEventCalibrated, else 0).
  int64_t planned_ns = 0;       // when the replayer meant to issue the call
  int64_t expected_rvalue = 0;  // the traced rvalue the replay is compared with
  int64_t raw_end_ns = 0;       // end before calibration
  // Scheduling inside the call (valid with kEventOffCpu, else 0): time the thread spent off-CPU
  // between entry and exit, and its context switches there (voluntary: it blocked; involuntary:
  // it was preempted). A slow file system shows as voluntary off-CPU time, a busy CPU as
  // involuntary switches.
  int64_t offcpu_ns = 0;
  uint32_t vol_switches = 0;
  uint32_t invol_switches = 0;
  // Between calls (valid with kEventOffCpu, else 0): the thread's off-CPU time from its previous
  // recorded call's exit to this call's entry — preempted, or blocked in a call not recorded. The
  // rest of that gap the thread ran its own code (replay/runtime/think_work.h).
  int64_t gap_offcpu_ns = 0;
  // io_uring requests (kEventUring): the SQE's user_data, and the begin_ns of the io_uring_enter
  // of the same tid that submitted it (0: none, e.g. an SQPOLL ring) — the link to that event.
  uint64_t uring_user_data = 0;
  int64_t uring_enter_ns = 0;

  int64_t duration_ns() const { return end_ns - begin_ns; }
  bool failed() const { return rvalue < 0 && rvalue >= -4095; }
  int error_number() const { return failed() ? static_cast<int>(-rvalue) : 0; }
  const Arg& arg(int i) const { return args[static_cast<size_t>(i)]; }

  friend bool operator==(const Event&, const Event&) = default;
};

}  // namespace rastro::trace

// The one syscall table (like strace's linux/64/syscallent.h): one row per x86_64 syscall rastro
// knows, with its argument roles, return kind and classes. Every backend, importer, replayer and
// the compiler use it; nothing else hard-codes syscall numbers or signatures.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "trace/model/event.h"

namespace rastro::trace {

// Classes, for `-e trace=` selection and for replay decisions (strace's %file, %desc, ...).
enum SyscallClass : uint32_t {
  kClassFile = 1u << 0,     // takes a path
  kClassDesc = 1u << 1,     // takes or returns a file descriptor
  kClassProcess = 1u << 2,  // process lifecycle: clone/fork/exec/exit
  kClassMemory = 1u << 3,   // mmap family
  kClassRead = 1u << 4,     // transfers data from a file
  kClassWrite = 1u << 5,    // transfers data to a file
  kClassMeta = 1u << 6,     // reads metadata (stat family, access, readlink, getdents)
  kClassNamespace = 1u << 7,  // changes the name space (create/remove/rename/link)
  kClassSync = 1u << 8,     // fsync family
  kClassFs = 1u << 9,       // in the default "fs" capture set
};

enum class ReturnKind : uint8_t {
  kInt,     // 0 / -errno
  kFd,      // a new file descriptor
  kCount,   // bytes transferred
  kOffset,  // a file offset
  kPtr,     // an address (mmap)
  kPid,     // a process/thread id (clone, fork)
  kNoReturn,  // exit, exit_group; execve on success
};

struct SyscallInfo {
  int nr;
  std::string_view name;
  uint8_t nargs;
  std::array<ArgType, kMaxArgs> args;
  ReturnKind ret;
  uint32_t classes;
};

// All rows, sorted by nr.
std::span<const SyscallInfo> all_syscalls();
const SyscallInfo* syscall_by_nr(int nr);
const SyscallInfo* syscall_by_name(std::string_view name);

// A set of syscall numbers to capture. "all" also admits syscalls not in the table.
struct SyscallSet {
  std::array<bool, 512> enabled{};
  bool all = false;
  bool contains(int nr) const {
    if (all) return true;
    return nr >= 0 && nr < static_cast<int>(enabled.size()) && enabled[static_cast<size_t>(nr)];
  }
  std::vector<int> numbers() const;
};

// Parses a strace-like selection: "fs" (default set), "all", class names ("%file", "%desc",
// "%process", "%memory", "%read", "%write", "%meta", "%namespace", "%sync"), syscall names,
// comma-separated; a leading '!' on an item removes it. Unknown names are an error.
Result<SyscallSet> parse_syscall_set(std::string_view spec);

// Process-lifecycle calls are always needed by replay (who forked whom, exec boundaries).
bool is_lifecycle(int nr);

}  // namespace rastro::trace

#include "capture/ebpf/fs_roles.h"

#include <linux/types.h>

#include "capture/ebpf/fs_events.h"
#include "trace/syscalls/fcntl_lock.h"

namespace rastro::capture::ebpf {

static_assert(kRoleSlots == FS_NR_SLOTS);

namespace {

uint16_t role_of(trace::ArgType t) {
  switch (t) {
    case trace::ArgType::kPath:
    case trace::ArgType::kStr:
      return FS_ROLE_PATH;
    case trace::ArgType::kFd:
    case trace::ArgType::kDirFd:
      return FS_ROLE_FD;
    case trace::ArgType::kFdPair:
      return FS_ROLE_FDPAIR;
    default:
      return FS_ROLE_NONE;
  }
}

}  // namespace

std::array<uint16_t, kRoleSlots> build_roles(const trace::SyscallSet& selected) {
  std::array<uint16_t, kRoleSlots> roles{};
  for (int nr = 0; nr < kRoleSlots; ++nr) {
    if (!selected.contains(nr)) continue;
    uint16_t r = FS_ROLE_WANTED;
    if (const trace::SyscallInfo* info = trace::syscall_by_nr(nr)) {
      // The kernel resolves strings of the first 5 arguments only; no table row has one in arg 6.
      for (int k = 0; k < info->nargs && k < 5; ++k)
        r = static_cast<uint16_t>(r | (role_of(info->args[static_cast<size_t>(k)]) << (2 * k)));
      if (info->proc == trace::ProcEffect::kExec) r |= FS_ROLE_EXEC;
      if (trace::takes_lock_commands(info)) r |= FS_ROLE_LOCK;
    }
    roles[static_cast<size_t>(nr)] = r;
  }
  return roles;
}

}  // namespace rastro::capture::ebpf

// The per-syscall word the kernel side reads (`roles[nr]` in fs_events.bpf.c): whether the call
// is selected and what to do with each argument (copy a user string, resolve an fd's path, read
// a pipe's fd pair at exit). Derived from the one syscall table so the kernel side hard-codes no
// syscall signatures.
#pragma once

#include <array>
#include <cstdint>

#include "trace/syscalls/syscall_table.h"

namespace rastro::capture::ebpf {

inline constexpr int kRoleSlots = 512;  // FS_NR_SLOTS

std::array<uint16_t, kRoleSlots> build_roles(const trace::SyscallSet& selected);

}  // namespace rastro::capture::ebpf

// The seccomp filter of the native ptrace backend (as `strace --seccomp-bpf`): selected syscalls
// return SECCOMP_RET_TRACE and stop for the tracer; every other syscall runs without a stop, so
// untraced calls cost nearly nothing (PLATFORM.md: 0.05 s vs 21 s for 200k untraced writes).
#pragma once

#include <linux/filter.h>

#include <vector>

namespace rastro::capture {

// Classic BPF: check the audit arch (other ABIs — i386, x32 — pass untraced), then one compare
// per syscall number. More than 250 numbers (a jump offset is 8 bits) traces every syscall.
std::vector<sock_filter> build_trace_filter(const std::vector<int>& syscall_numbers, bool trace_all);

// Installs `filter` on the calling thread. Async-signal-safe (meant for a pre-exec hook). Sets
// PR_SET_NO_NEW_PRIVS only when needed (without CAP_SYS_ADMIN), so root workloads may still run
// setuid programs. Returns 0 or errno.
int install_filter(const std::vector<sock_filter>& filter);

}  // namespace rastro::capture

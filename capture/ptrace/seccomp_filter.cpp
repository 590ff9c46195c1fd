#include "capture/ptrace/seccomp_filter.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace rastro::capture {

std::vector<sock_filter> build_trace_filter(const std::vector<int>& syscall_numbers, bool trace_all) {
  std::vector<sock_filter> f;
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  // Not x86_64: allow (the syscall table only knows x86_64 numbers).
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  if (trace_all || syscall_numbers.size() > 250) {
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE));
    return f;
  }
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  const size_t n = syscall_numbers.size();
  for (size_t i = 0; i < n; ++i) {
    // On a match jump over the remaining compares and the ALLOW to the TRACE return.
    auto jt = static_cast<unsigned char>(n - i);
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(syscall_numbers[i]), jt, 0));
  }
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE));
  return f;
}

int install_filter(const std::vector<sock_filter>& filter) {
  sock_fprog prog{};
  prog.len = static_cast<unsigned short>(filter.size());
  prog.filter = const_cast<sock_filter*>(filter.data());
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) return 0;
  if (errno != EACCES) return errno;
  // Without CAP_SYS_ADMIN the kernel requires no_new_privs first.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0) return 0;
  return errno;
}

}  // namespace rastro::capture

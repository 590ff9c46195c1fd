// The first call of a syscall whose kernel path is cold: a parent that never calls fcntl or
// getppid forks N children; each closes its pipe's read end and calls fcntl(F_GETFD),
// fcntl(F_SETFD), fcntl(F_GETFD), fcntl(F_SETFD) on the write end, the way git's run-command
// children do (docs/replay.md r22). What each child calls first is the variant:
//   0  nothing more
//   1  getppid ten times (another syscall: its path is warm after the first, fcntl's is not)
//   2  sleep 1 ms (the CPU goes idle)
//   3  fcntl(F_GETFL) and fcntl(F_SETFL) on the write end: what the replayer did after each open
//      of a file before 73210f8, between the traced calls
// Usage: first_call_after_fork N VARIANT. Kernel times (sys_enter -> sys_exit) by rastro's eBPF
// capture, mean per call position in the children:
//
//   cc -O2 -o first_call_after_fork bench/first_call_after_fork.c
//   for v in 0 1 2 3; do rastro capture -q -b ebpf -e trace=all -o /dev/shm/f$v.rastro -- ./first_call_after_fork 150 $v
//     rastro cat /dev/shm/f$v.rastro | awk -F'\t' '$5 ~ /^(fcntl|getppid|close)$/ { k = sprintf("%02d %s %.12s",
//       ++pos[$1], $5, $6); s[k] += $4 - $3; c[k]++ } END { for (k in s) if (c[k] > 20) printf "%s %d\n", k, s[k] / c[k] }' |
//       sort; done
//
// 2026-12-07, this VM, mean of 150 children (ns): variant 0: close 267, F_GETFD 198, F_SETFD 70,
// F_GETFD 58, F_SETFD 63; variant 1: getppid 207 then 49-52, F_GETFD 198, F_SETFD 72, F_GETFD 56;
// variant 2: F_GETFD 603, F_SETFD 95; variant 3: F_GETFL 311, F_SETFL 123, then F_GETFD 71,
// F_SETFD 110, F_GETFD 61: the replayer's two calls took the first call's cost on themselves.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const int variant = argc > 2 ? atoi(argv[2]) : 0;
  for (int i = 0; i < n; ++i) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return 1;
    const pid_t c = fork();
    if (c < 0) return 1;
    if (c == 0) {
      syscall(SYS_close, p[0]);
      if (variant == 1)
        for (int k = 0; k < 10; ++k) syscall(SYS_getppid);
      if (variant == 2) {
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, 0);
      }
      if (variant == 3) syscall(SYS_fcntl, p[1], F_SETFL, syscall(SYS_fcntl, p[1], F_GETFL));
      for (int k = 0; k < 2; ++k) syscall(SYS_fcntl, p[1], F_SETFD, syscall(SYS_fcntl, p[1], F_GETFD) | FD_CLOEXEC);
      _exit(0);
    }
    close(p[1]);
    char b;
    (void)!read(p[0], &b, 1);  // end-of-file: the child has exited
    close(p[0]);
    waitpid(c, 0, 0);
    usleep(2000);
  }
  return 0;
}

#!/bin/sh
# Per-traced-syscall cost of every capture backend vs the uninstrumented loop (issue 3 bench),
# side by side with the system's strace, perf trace and bpftrace on the same loop:
#   write: N x write(2) of 16 bytes to /dev/null;  pread: N x 4 KiB pread(2) of a cached file.
# The loop times itself with CLOCK_MONOTONIC (wall time: a ptrace stop costs the traced thread
# the tracer's wake-up and scheduling, which CPU time would hide), so tool start-up, BPF loading
# and trace conversion are excluded. Tracers that stop the tracee (ptrace, strace) run a smaller
# N (they cost ~10-100 us per call here); the result is per call either way.
#
#   bench/capture_overhead.sh [BUILD_DIR] [N] [N_STOPPING] [REPEATS]
#                              (root; defaults build-capture 200000 20000 3)
set -eu
BUILD=${1:-build-capture}
N=${2:-200000}
NS=${3:-20000}
REPS=${4:-3}
RASTRO=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/rastro
[ -x "$RASTRO" ] || { echo "no rastro at $RASTRO (build it first)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rastro_capture_bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

cat > "$TMP/loop.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
  long n = atol(argv[2]);
  char buf[4096]; memset(buf, 'x', sizeof buf);
  int pr = strcmp(argv[1], "pread") == 0;
  int fd = pr ? open(argv[3], O_RDONLY) : open("/dev/null", O_WRONLY);
  if (fd < 0) { perror("open"); return 1; }
  long long t0 = now();
  for (long i = 0; i < n; ++i) {
    if (pr) { if (pread(fd, buf, 4096, 0) != 4096) return 2; }
    else if (write(fd, buf, 16) != 16) return 2;
  }
  /* stderr: stdout may be a traced write */
  fprintf(stderr, "NSPERCALL %.1f\n", (double)(now() - t0) / n);
  return 0;
}
C
cc -O2 -o "$TMP/loop" "$TMP/loop.c"
head -c 4096 /dev/urandom > "$TMP/data"
cat "$TMP/data" > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
runs() {  # runs CMD... : REPS runs, median ns/call (the loop prints it on stderr)
  for i in $(seq "$REPS"); do "$@" 2>&1 >/dev/null | awk '/^NSPERCALL/ {print $2}' | tail -1; done | median
}

echo "# capture overhead: median of $REPS runs, wall ns per call (N=$N; $NS for stopping tracers)"
echo "# $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-6s %-44s %12s %12s %9s\n' call configuration ns/call added ratio
for op in write pread; do
  arg=""; [ "$op" = pread ] && arg="$TMP/data"
  sys=$op; [ "$op" = pread ] && sys=pread64
  base=$(runs "$TMP/loop" $op "$N" $arg)
  printf '%-6s %-44s %12s %12s %9s\n' $op "uninstrumented" "$base" 0 1.00
  row() {  # row LABEL CMD...
    label=$1; shift
    v=$(runs "$@")
    if [ -z "$v" ]; then printf '%-6s %-44s %12s\n' $op "$label" "failed"; return; fi
    printf '%-6s %-44s %12s %12.1f %9.1f\n' $op "$label" "$v" "$(echo "$v - $base" | bc -l)" "$(echo "$v / $base" | bc -l)"
  }
  loop_n() { echo "$TMP/loop $op $1 $arg"; }
  row "rastro ptrace -e trace=$sys" "$RASTRO" capture -q -b ptrace -e trace=$sys -o "$TMP/t.rastro" -- $(loop_n $NS)
  row "rastro ptrace -e trace=$sys --pin" "$RASTRO" capture -q -b ptrace --pin -e trace=$sys -o "$TMP/t.rastro" -- $(loop_n $NS)
  row "rastro strace -e trace=$sys" "$RASTRO" capture -q -b strace -e trace=$sys -o "$TMP/t.rastro" -- $(loop_n $NS)
  row "rastro strace -e trace=$sys --pin" "$RASTRO" capture -q -b strace --pin -e trace=$sys -o "$TMP/t.rastro" -- $(loop_n $NS)
  row "rastro ebpf -e trace=$sys" "$RASTRO" capture -q -b ebpf -e trace=$sys -o "$TMP/t.rastro" -- $(loop_n $N)
  row "strace -f -ttt -T --seccomp-bpf -e $sys" strace -f -ttt -T -y --seccomp-bpf -e trace=$sys -o "$TMP/s.log" $(loop_n $NS)
  row "strace (same) pinned (taskset -c 0)" taskset -c 0 strace -f -ttt -T -y --seccomp-bpf -e trace=$sys -o "$TMP/s.log" $(loop_n $NS)
  if command -v perf >/dev/null 2>&1; then
    row "perf trace -e $sys" perf trace -o "$TMP/p.log" -e $sys -- $(loop_n $NS)
  fi
  if command -v bpftrace >/dev/null 2>&1; then
    row "bpftrace count sys_enter_$sys" bpftrace -q -e "tracepoint:syscalls:sys_enter_$sys /pid == cpid/ { @n = count(); }" -c "$(loop_n $N)"
    row "bpftrace enter+exit timestamps (ringbuf printf)" bpftrace -q -o "$TMP/b.log" -e "tracepoint:syscalls:sys_enter_$sys /pid == cpid/ { @s[tid] = nsecs; } tracepoint:syscalls:sys_exit_$sys /@s[tid]/ { printf(\"%d %d %d\\n\", tid, @s[tid], nsecs); delete(@s[tid]); }" -c "$(loop_n $N)"
  fi
done

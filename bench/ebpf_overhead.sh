#!/bin/sh
# Per-syscall cost of `rastro capture -b ebpf` vs the uninstrumented loop (issue 3 bench):
# a C loop of N small write(2)s to /dev/null (and N 4 KiB pread(2)s from a cached file) timed
# by the loop itself in CPU time (CLOCK_PROCESS_CPUTIME_ID: the BPF programs run in the caller's
# context, and CPU time is robust to other load on a shared machine), so process start-up, BPF
# loading and the consumer's work (another thread, another process) are excluded.
# Side by side: the bystander cost (an untraced process while a capture of something else is
# attached: the kernel's syscall-tracepoint slow path and BPF dispatch that every task pays once
# a program is attached, plus our task-storage miss — the floor under any traced call), and, when
# installed, bpftrace counting the same syscall through the perf-event tracepoint (a costlier hook
# than tp_btf: a comparison, not a floor).
#
#   bench/ebpf_overhead.sh [BUILD_DIR] [N] [REPEATS]     (root; default build-ebpf 200000 5)
set -eu
BUILD=${1:-build-ebpf}
N=${2:-200000}
REPS=${3:-5}
RASTRO=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/rastro
[ -x "$RASTRO" ] || { echo "no rastro at $RASTRO (build it first)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rastro_ebpf_bench.XXXXXX)
OUT=$(mktemp -d /dev/shm/rastro_ebpf_bench.XXXXXX)  # traces off the traced file system
trap 'rm -rf "$TMP" "$OUT"' EXIT

cat > "$TMP/loop.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
/* CPU time of this process: the BPF programs run in its context, so this is what tracing
   adds to each call, without the noise of other load on a shared machine. */
static long long now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
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
  printf("%.1f\n", (double)(now() - t0) / n);
  return 0;
}
C
cc -O2 -o "$TMP/loop" "$TMP/loop.c"
head -c 4096 /dev/urandom > "$TMP/data"
cat "$TMP/data" > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
runs() {  # runs LABEL CMD... : REPS runs, median ns/call
  label=$1; shift
  for i in $(seq "$REPS"); do "$@" | tail -1; done | median
}

echo "# eBPF capture overhead: $N calls per run, median of $REPS runs, ns per call"
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-8s %-34s %10s %10s %8s\n' call configuration ns/call added ratio
for op in write pread; do
  arg=""; [ "$op" = pread ] && arg="$TMP/data"
  sysname=$op; [ "$op" = pread ] && sysname=pread64
  base=$(runs base "$TMP/loop" $op "$N" $arg)
  printf '%-8s %-34s %10s %10s %8s\n' $op "uninstrumented" "$base" 0 1.00
  row() {
    v=$(runs "$@")
    [ -n "$v" ] || { printf '%-8s %-34s %10s\n' $op "$label" "failed"; return 0; }
    awk -v op=$op -v l="$label" -v v="$v" -v b="$base" 'BEGIN { printf "%-8s %-34s %10.1f %10.1f %8.2f\n", op, l, v, v - b, v / b }'
  }
  label="rastro ebpf -e trace=$sysname"
  row x "$RASTRO" capture -b ebpf -e trace=$sysname -o "$OUT/t.rastro" -- "$TMP/loop" $op "$N" $arg
  label="rastro ebpf -e trace=fs"
  row x "$RASTRO" capture -b ebpf -e trace=fs -o "$OUT/t.rastro" -- "$TMP/loop" $op "$N" $arg
  # Bystander: an untraced process while a capture (of a sleeping workload) is attached.
  # The capture starts its workload only once every program is attached (loading takes seconds),
  # so the row waits for that workload, never for a fixed time.
  "$RASTRO" capture -b ebpf -o "$OUT/idle.rastro" -- sleep 600 >/dev/null 2>&1 &
  cap=$!
  for i in $(seq 300); do pgrep -P "$cap" -x sleep >/dev/null && break; sleep 0.1; done
  pgrep -P "$cap" -x sleep >/dev/null || { echo "bystander capture did not start" >&2; exit 1; }
  label="untraced, while ebpf attached"
  row x "$TMP/loop" $op "$N" $arg
  kill -TERM "$cap" 2>/dev/null || true  # rastro forwards the stop to its workload
  wait "$cap" 2>/dev/null || true
  # bpftrace resolves tracepoints through tracefs; mount it if the system has not.
  [ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
  if command -v bpftrace >/dev/null 2>&1; then
    label="bpftrace count (perf tracepoint)"
    row x sh -c "bpftrace -q -e 'tracepoint:syscalls:sys_enter_$sysname /pid == cpid/ { @n = count(); }' -c '$TMP/loop $op $N $arg' 2>/dev/null | grep -E '^[0-9.]+$'"
  fi
done

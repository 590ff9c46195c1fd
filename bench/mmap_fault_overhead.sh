#!/bin/sh
# Per-fault cost of recording page faults on mapped files with `rastro capture -b ebpf`
# (tp_btf/page_fault_user + bpf_find_vma + the path, tp_btf/mm_filemap_map_pages; docs/ebpf.md):
# a C loop maps a cached file and touches it, timed by the loop itself in process CPU time (the
# BPF programs and the fault run in its context), so start-up, BPF loading and the consumer are
# excluded. Two kinds of fault:
#   read   a PROT_READ private mapping of a 64 MiB file, one byte every 64 KiB: each touch is one
#          read fault that also maps the 15 cached pages around it (fault-around);
#   write  a shared writable mapping of a 64 MiB file on /dev/shm, one byte per page: one write
#          fault per page, no fault-around.
# Configurations: uninstrumented; traced with faults recorded (-e trace=fs, which has mmap);
# traced without faults (-e trace=fs,!mmap: the hooks are attached, the task is traced, its
# faults are filtered out); and an untraced process while a capture is attached (bystander).
#
#   bench/mmap_fault_overhead.sh [BUILD_DIR] [ROUNDS] [REPEATS]    (root; default build 100 5)
set -eu
BUILD=${1:-build}
ROUNDS=${2:-100}
REPS=${3:-5}
RASTRO=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/rastro
[ -x "$RASTRO" ] || { echo "no rastro at $RASTRO (build it first)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rastro_fault_bench.XXXXXX)
OUT=$(mktemp -d /dev/shm/rastro_fault_bench.XXXXXX)  # traces and the written file off /tmp
trap 'rm -rf "$TMP" "$OUT"' EXIT

cat > "$TMP/faults.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static long long now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
  const long size = 64L << 20, rounds = atol(argv[2]);
  const int wr = strcmp(argv[1], "write") == 0;
  const long stride = wr ? 4096 : 65536;
  int fd = open(argv[3], wr ? O_RDWR : O_RDONLY);
  if (fd < 0) { perror("open"); return 1; }
  long long spent = 0, faults = 0;
  volatile char sink = 0;
  for (long r = 0; r < rounds; ++r) {
    char *p = mmap(NULL, size, wr ? PROT_READ | PROT_WRITE : PROT_READ, wr ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) { perror("mmap"); return 2; }
    long long t0 = now();
    for (long off = 0; off < size; off += stride) {
      if (wr) p[off] = (char)r; else sink += p[off];
      ++faults;
    }
    spent += now() - t0;
    munmap(p, size);
  }
  printf("%.1f\n", (double)spent / faults);
  return 0;
}
C
cc -O2 -o "$TMP/faults" "$TMP/faults.c"
head -c 67108864 /dev/urandom > "$TMP/data"
cat "$TMP/data" > /dev/null
cp "$TMP/data" "$OUT/wdata"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
runs() {  # runs CMD... : REPS runs, median ns/fault
  for i in $(seq "$REPS"); do "$@" | tail -1; done | median
}

echo "# page-fault recording overhead: $ROUNDS rounds per run, median of $REPS runs, ns per fault (CPU time)"
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-6s %-40s %10s %10s %8s\n' fault configuration ns/fault added ratio
for op in read write; do
  file="$TMP/data"; [ "$op" = write ] && file="$OUT/wdata"
  base=$(runs "$TMP/faults" $op "$ROUNDS" "$file")
  printf '%-6s %-40s %10s %10s %8s\n' $op "uninstrumented" "$base" 0 1.00
  row() {
    v=$(runs "$@")
    [ -n "$v" ] || { printf '%-6s %-40s %10s\n' $op "$label" "failed"; return 0; }
    awk -v op=$op -v l="$label" -v v="$v" -v b="$base" 'BEGIN { printf "%-6s %-40s %10.1f %10.1f %8.2f\n", op, l, v, v - b, v / b }'
  }
  label="rastro ebpf -e trace=fs (faults recorded)"
  row "$RASTRO" capture -b ebpf -q --buffer 64M -e trace=fs -o "$OUT/t.rastro" -- "$TMP/faults" $op "$ROUNDS" "$file"
  label="rastro ebpf -e trace=fs,!mmap (no faults)"
  row "$RASTRO" capture -b ebpf -q --buffer 64M -e 'trace=fs,!mmap' -o "$OUT/t.rastro" -- "$TMP/faults" $op "$ROUNDS" "$file"
  "$RASTRO" capture -b ebpf -q -o "$OUT/idle.rastro" -- sleep 600 >/dev/null 2>&1 &
  cap=$!
  sleep 2
  label="untraced, while ebpf attached"
  row "$TMP/faults" $op "$ROUNDS" "$file"
  kill -TERM "$cap" 2>/dev/null || true
  wait "$cap" 2>/dev/null || true
done

#!/bin/sh
# Paired capture overhead of two rastro builds (e.g. main and a branch): the same timed loop as
# bench/capture_overhead.sh (its C source is taken from there), captured by each build in turn,
# REPEATS alternating pairs per backend, so machine drift hits both sides alike. Prints wall ns per
# traced call, one line per run.
#
#   bench/capture_paired.sh BASE_BUILD_DIR NEW_BUILD_DIR [N] [N_STOPPING] [REPEATS]
#                          (root; defaults 200000 20000 3; build dirs as absolute paths)
set -eu
BASE=$1/rastro
NEW=$2/rastro
N=${3:-200000}
NS=${4:-20000}
REPS=${5:-3}
for r in "$BASE" "$NEW"; do [ -x "$r" ] || { echo "no rastro at $r" >&2; exit 1; }; done
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d /tmp/rastro_capture_paired.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
sed -n "/^cat > \"\$TMP\/loop.c\" <<'C'\$/,/^C\$/p" "$HERE/capture_overhead.sh" | sed '1d;$d' > "$TMP/loop.c"
cc -O2 -o "$TMP/loop" "$TMP/loop.c"
head -c 4096 /dev/urandom > "$TMP/data"
cat "$TMP/data" > /dev/null

ns_per_call() { "$@" 2>&1 >/dev/null | awk '/^NSPERCALL/ {print $2}' | tail -1; }
echo "# backend call build run ns/call ($(uname -r), $(date -u +%Y-%m-%dT%H:%MZ))"
for backend in ebpf ptrace; do
  n=$N; [ "$backend" = ptrace ] && n=$NS
  for op in write pread; do
    arg=""; [ "$op" = pread ] && arg="$TMP/data"
    sys=$op; [ "$op" = pread ] && sys=pread64
    for i in $(seq "$REPS"); do
      for side in base new; do
        r=$BASE; [ "$side" = new ] && r=$NEW
        v=$(ns_per_call "$r" capture -q -b "$backend" -e trace=$sys -o "$TMP/t.rastro" -- "$TMP/loop" $op "$n" $arg)
        echo "$backend $op $side $i $v"
      done
    done
  done
done

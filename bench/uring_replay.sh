#!/bin/sh
# Replay time of an io_uring trace through rings vs as plain calls (issue #17): fio's io_uring
# engine at queue depth 8 (2000 random 4 KiB reads, O_DIRECT by default, as
# tests/cli/uring_replay_test.cpp) captured once by eBPF, then replayed by ENGINE at full speed
# with --uring=ring and --uring=plain alternately (paired: each pair runs back to back, so slow
# drifts of a shared machine hit both). Prints per run the span of fio's 2000 reads in the replay
# (first read's submission to last read's completion, from `rastro cat`: the replay's wall time
# also holds fio's other calls, e.g. a bounded pipe wait) and the ring's in-flight maximum.
#
#   bench/uring_replay.sh [BUILD_DIR] [PAIRS] [ENGINE] [DIRECT]   (root; default build 5 workers 1)
set -eu
BUILD=${1:-build}
PAIRS=${2:-5}
ENGINE=${3:-workers}
DIRECT=${4:-1}
RASTRO=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/rastro
[ -x "$RASTRO" ] || { echo "no rastro at $RASTRO (build it first)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/rastro_uring_bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
head -c 8388608 /dev/zero | tr '\0' r > "$TMP/data"
"$RASTRO" capture -b ebpf -q -o "$TMP/fio.rastro" -- /usr/bin/fio --name=uring --ioengine=io_uring \
  --iodepth=8 --rw=randread --bs=4k --size=8M --number_ios=2000 --direct="$DIRECT" \
  --filename="$TMP/data" --output=/dev/null
echo "pair mode reads_ms in_flight_max"
i=1
while [ "$i" -le "$PAIRS" ]; do
  for mode in ring plain; do
    rm -rf "$TMP/root"
    "$RASTRO" replay -O fs -T fullspeed -e "$ENGINE" --root "$TMP/root" --init --uring="$mode" \
      "$TMP/fio.rastro" -o "$TMP/out.rastro" --summary-json "$TMP/s.json" > /dev/null 2> "$TMP/err"
    span=$("$RASTRO" cat "$TMP/out.rastro" | awk -F'\t' -v f="<$TMP/data>" \
      '$5 == "pread64" && index($6, f) { if (b == "" || $3 < b) b = $3; if ($4 > e) e = $4 }
       END { printf "%.2f", (e - b) / 1e6 }')
    depth=$(sed -n 's/.*in flight max \([0-9]*\).*/\1/p' "$TMP/err")
    echo "$i $mode $span ${depth:--}"
  done
  i=$((i + 1))
done

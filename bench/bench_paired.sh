#!/bin/sh
# Paired Google Benchmark runs of two builds (e.g. main and a branch): PAIRS times, the base build
# then the new one, back to back, so the drift of a shared machine hits both alike. Prints one line
# per run: pair, build, benchmark, items/s (CPU time, Google Benchmark's default; a benchmark
# without items/s: its last user counter, e.g. strace_import_bench's lines/s).
#
#   bench/bench_paired.sh BASE_BUILD_DIR NEW_BUILD_DIR BENCH FILTER [PAIRS=7]
#   e.g. bench/bench_paired.sh /work/wt-scale-base/build build binary_format_bench BM_ReadBlocks 9
set -eu
BASE=$1 NEW=$2 BENCH=$3 FILTER=$4 PAIRS=${5:-7}
BASE=$(cd "$BASE" && pwd) NEW=$(cd "$NEW" && pwd)
for b in "$BASE" "$NEW"; do [ -x "$b/bench/$BENCH" ] || { echo "no $b/bench/$BENCH" >&2; exit 1; }; done
echo "# pair build benchmark items_per_second ($(uname -r), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1 /proc/loadavg))"
i=1
while [ "$i" -le "$PAIRS" ]; do
  for side in base new; do
    dir=$BASE; [ "$side" = new ] && dir=$NEW
    # from the build dir: benchmarks find their inputs relative to it (../tests/fixtures)
    (cd "$dir" && "./bench/$BENCH" --benchmark_filter="$FILTER" --benchmark_format=csv 2>/dev/null) |
      awk -F, -v p="$i" -v s="$side" 'NR > 1 && $1 !~ /^name/ { gsub(/"/, "", $1); v = $7; if (v == "") v = $NF; printf "%d %s %s %.0f\n", p, s, $1, v }'
  done
  i=$((i + 1))
done

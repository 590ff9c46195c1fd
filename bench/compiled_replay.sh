#!/usr/bin/env bash
# Compiled-replayer benchmark (issue 6, docs/performance.md "Compiled replayer"):
#  1. a reference trace of N cached 4 KiB preads by one thread (`rastro bench micro --type rr`,
#     1 MiB file: every read hits the page cache), N = 100000 by default;
#  2. `rastro compile --build` of it, timed (generation + build of a 100k-request program);
#  3. the compiled program replays it REPS times (fullspeed, fs ordering); calls/s = replayed
#     calls / the summary's wall time (first call's begin to last call's end);
#  4. each replay is paired with a bare-loop run just before it (bench/replay_engine_bench), and the
#     median ratio is reported, with the workers engine's paired ratio on the same shape.
# Usage: bench/compiled_replay.sh [BUILD_DIR] [N] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-100000}
reps=${3:-5}
rastro="$build/rastro"
work=$(mktemp -d /tmp/rastro-compiled-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$rastro" bench micro --type rr --threads 1 --ops "$n" --file-size 1M --dir "$work/data" -o "$work/ref.rastro" >/dev/null
start=$(date +%s.%N)
/usr/bin/time -f "%e s wall, %M KiB peak RSS" -o "$work/time" \
  "$rastro" compile -O fs -T fullspeed "$work/ref.rastro" -o "$work/c" --build >/dev/null 2>&1
end=$(date +%s.%N)
echo "compile --build of $n+ requests: $(cat "$work/time") ($(echo "$end - $start" | bc) s)"

# Each repetition times the bare loop (replay_engine_bench's BareLoop, 100k cached preads) right
# before the compiled replay and keeps the ratio of the pair: this VM's bare-loop rate drifts by
# 20-30 % between runs a few seconds apart, so only paired ratios compare like with like.
ratios=()
for i in $(seq 1 "$reps"); do
  bare=$("$build/bench/replay_engine_bench" --benchmark_filter='BareLoop' --benchmark_format=json 2>/dev/null |
    python3 -c "import json,sys;print(json.load(sys.stdin)['benchmarks'][0]['items_per_second'])")
  rm -rf "$work/root"
  "$work/c/replay" --root "$work/root" --init -o "$work/out.rastro" --summary-json "$work/s.json" >/dev/null
  read -r rate mm < <(python3 -c "import json;s=json.load(open('$work/s.json'));print(s['replayed']/(s['wall_ns']/1e9), s['mismatched'])")
  ratio=$(python3 -c "print($rate / $bare)")
  ratios+=("$ratio")
  printf 'run %d: bare loop %.0f preads/s, compiled replay %.0f calls/s = %.3fx, %s mismatched\n' "$i" "$bare" "$rate" "$ratio" "$mm"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "compiled replay / bare loop, median of $reps pairs: $median"
echo "workers engine, same pairing (replay_engine_bench BM_WorkersVsBarePaired):"
"$build/bench/replay_engine_bench" --benchmark_filter='Paired' 2>/dev/null | grep -oE 'ratio_in_replay=[0-9.]+.*'

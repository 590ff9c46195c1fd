#!/usr/bin/env bash
# Compiled-replayer benchmark (issue 6, docs/performance.md "Compiled replayer"):
#  1. a reference trace of N cached 4 KiB preads by one thread (`rastro bench micro --type rr`,
#     1 MiB file: every read hits the page cache), N = 100000 by default;
#  2. `rastro compile --build` of it, timed (generation + build of a 100k-request program);
#  3. the compiled program replays it REPS times (fullspeed, fs ordering); calls/s = replayed
#     calls / the summary's wall time (first call's begin to last call's end);
#  4. the bare loop and the workers engine on the same workload shape (bench/replay_engine_bench).
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

rates=()
for i in $(seq 1 "$reps"); do
  rm -rf "$work/root"
  "$work/c/replay" --root "$work/root" --init -o "$work/out.rastro" --summary-json "$work/s.json" >/dev/null
  rate=$(python3 -c "import json;s=json.load(open('$work/s.json'));print(s['replayed']/(s['wall_ns']/1e9))")
  mm=$(python3 -c "import json;print(json.load(open('$work/s.json'))['mismatched'])")
  rates+=("$rate")
  echo "compiled replay run $i: $(printf '%.0f' "$rate") calls/s, $mm mismatched"
done
median=$(printf '%s\n' "${rates[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "compiled replay median: $(printf '%.0f' "$median") calls/s"

"$build/bench/replay_engine_bench" --benchmark_filter='BareLoop|Workers' --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$work/engine.json" 2>/dev/null
python3 - "$work/engine.json" "$median" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
med = {b["run_name"]: b for b in d["benchmarks"] if b.get("aggregate_name") == "median"}
bare = next(v for k, v in med.items() if "BareLoop" in k)
workers = next(v for k, v in med.items() if "Workers" in k)
bare_rate = bare.get("calls_per_s") or 100000 / (bare["real_time"] / 1e3)
work_rate = workers.get("replay_calls_per_s") or workers.get("calls_per_s")
compiled = float(sys.argv[2])
print(f"bare loop median: {bare_rate:,.0f} preads/s")
print(f"workers median:   {work_rate:,.0f} calls/s  = {work_rate / bare_rate:.2f}x bare")
print(f"compiled median:  {compiled:,.0f} calls/s  = {compiled / bare_rate:.2f}x bare")
PY

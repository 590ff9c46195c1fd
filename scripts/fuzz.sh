#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan/UBSan) in build-fuzz and runs each for
# SECONDS_PER_TARGET (default 60). Seeds: tests/fuzz/corpus/<target>/ (read only); new inputs go
# to build-fuzz/fuzz-corpus/<target>/, crash reproducers to build-fuzz/fuzz-artifacts/.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (exit 1 if any target found something)
# RASTRO_FUZZ_RUNS=N also stops a target after N executions (e.g. 10000000 for the long runs).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(strace_import text_trace binary_trace curve_json campaign_config sandbox_resolver replay_plan mpi_log)
build=${RASTRO_FUZZ_BUILD:-build-fuzz}

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DRASTRO_FUZZ=ON -DRASTRO_SANITIZE=address
fi
cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' "${targets[@]}")

declare -A max_len=([strace_import]=8192 [text_trace]=8192 [binary_trace]=16384
                    [curve_json]=4096 [campaign_config]=4096 [sandbox_resolver]=1024
                    [replay_plan]=8192 [mpi_log]=8192)
status=0
mkdir -p "$build/fuzz-artifacts"
for t in "${targets[@]}"; do
  work="$build/fuzz-corpus/$t"
  mkdir -p "$work"
  log="$build/fuzz-artifacts/$t.log"
  set +e
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$t" "$work" "tests/fuzz/corpus/$t" \
    -max_total_time="$secs" ${RASTRO_FUZZ_RUNS:+-runs=$RASTRO_FUZZ_RUNS} -max_len="${max_len[$t]:-4096}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  if [ $rc -eq 0 ]; then
    took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | awk '{print $5}' || true)
    echo "fuzz_$t: ${took:-$secs}s, $execs executions, $cov, no finding"
  else
    echo "fuzz_$t: FINDING (exit $rc) after $execs executions; log $log, reproducer $build/fuzz-artifacts/$t-*"
    grep -m5 -E 'ERROR|fuzz finding|runtime error|SUMMARY' "$log" || true
    status=1
  fi
done
exit $status

#!/usr/bin/env bash
# Build and run the tests under AddressSanitizer+UBSan, then the replay/concurrency suites under TSan.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Line tables (-g1) name every frame of a report by file and line, and build a fifth faster than -g.
BUILD_TYPE=Debug scripts/build.sh build-asan -DRASTRO_SANITIZE=address -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1
# A failure here is reported at the end: the TSan run still goes, so one CI run shows both.
asan_status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --timeout 900 -j"$jobs" -LE no_asan || asan_status=$?

# ThreadSanitizer: only what runs threads against each other (the replay engines, the runtime and
# every suite labelled tsan), built on their own to keep CI within its time limit.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRASTRO_SANITIZE=thread -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DCMAKE_C_FLAGS_DEBUG=-g1 >/dev/null
cmake --build build-tsan -j"$jobs" --target replay_tests workloads_tests
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
build-tsan/tests/replay/replay_tests
build-tsan/tests/workloads/workloads_tests
if [ "$asan_status" -ne 0 ]; then
  echo "sanitizers.sh: the AddressSanitizer+UBSan suite failed (ctest exit $asan_status; see above)" >&2
  exit "$asan_status"
fi

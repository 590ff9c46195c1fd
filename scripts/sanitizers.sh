#!/usr/bin/env bash
# Build and run the tests under AddressSanitizer+UBSan, then the concurrency suites under TSan.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_TYPE=Debug scripts/build.sh build-asan -DRASTRO_SANITIZE=address
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE no_asan
BUILD_TYPE=Debug scripts/build.sh build-tsan -DRASTRO_SANITIZE=thread
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -j"$(nproc)" -L tsan

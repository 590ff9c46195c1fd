#!/usr/bin/env bash
# Set up, build and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
ctest --test-dir build --output-on-failure --timeout 900 -j"$(nproc)" "$@"

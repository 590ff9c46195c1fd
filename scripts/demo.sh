#!/usr/bin/env bash
# Set up, build and run the main job: `rastro demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
exec build/rastro demo "$@"

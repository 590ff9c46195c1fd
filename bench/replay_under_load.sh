#!/usr/bin/env bash
# Replays on a busy machine (docs/performance.md, "The coordinator on a busy machine"): the span
# error of think-timed fs-ordered replays of each TRACE by two rastro binaries, A then B back to
# back, ROUNDS times, first with the machine idle, then with HOGS busy loops (default: one per
# online core) running beside them. Prints one line per replay: load, binary, engine, trace, span
# error (from `rastro compare`).
#
#   bench/replay_under_load.sh [-n ROUNDS=3] [-l HOGS] [-e "ENGINES"] A_RASTRO B_RASTRO TRACE...
#   e.g. bench/replay_under_load.sh /tmp/rastro-old build/rastro /tmp/r12c/{git,make}/trace.rastro
#
# ENGINES default "workers coordinator" (the coordinator with --coordinator-chain, as
# bench/corpus.sh runs it). Captures: bench/corpus.sh -o DIR keeps each program's trace.rastro.
set -euo pipefail
rounds=3
hogs=$(nproc)
engines="workers coordinator"
while getopts "n:l:e:h" opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    l) hogs=$OPTARG ;;
    e) engines=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
a=$1 b=$2
shift 2
for bin in "$a" "$b"; do [ -x "$bin" ] || { echo "replay_under_load: not an executable: $bin" >&2; exit 1; }; done
work=$(mktemp -d /tmp/rastro-load.XXXXXX)
hog_pids=()
stop_hogs() { for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null || true; done; hog_pids=(); }
trap 'stop_hogs; rm -rf "$work"' EXIT

replay_once() {  # load bin engine trace
  local extra=""
  [ "$3" = coordinator ] && extra=--coordinator-chain
  rm -rf "$work/root" "$work/o.rastro" "$work/o.json"
  sync
  # shellcheck disable=SC2086  # $extra: the flag or nothing
  if "$2" replay -e "$3" $extra -O fs -T think "$4" --root "$work/root" --init -o "$work/o.rastro" \
       --summary-json "$work/o.json" > "$work/log" 2>&1; then
    err=$("$2" compare "$4" "$work/o.rastro" | sed -n 's/.*error \([^ ]*\) %.*/\1/p')
  else
    err="failed($(tail -1 "$work/log"))"
  fi
  printf '%s %s %s %s %s\n' "$1" "$2" "$3" "$4" "$err"
}

echo "# load binary engine trace span_error_% ($(uname -r), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ))"
for load in idle busy; do
  if [ $load = busy ]; then
    for _ in $(seq 1 "$hogs"); do (while :; do :; done) & hog_pids+=($!); done
    sleep 1
  fi
  for trace in "$@"; do
    for engine in $engines; do
      for _ in $(seq 1 "$rounds"); do
        replay_once $load "$a" "$engine" "$trace"
        replay_once $load "$b" "$engine" "$trace"
      done
    done
  done
  stop_hogs
done

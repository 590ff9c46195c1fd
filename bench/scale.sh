#!/bin/sh
# Scale benchmark (issue 16): makes an N-event synthetic multi-thread trace (bench/scale_trace_gen,
# streaming) and reports wall time and peak RSS (/usr/bin/time -v) of rastro cat, export -f sqlite,
# stats, infer -O fs and replay -e workers -O fs -T fullspeed on it, one line per command, with
# the peak RSS per event.
#
#   bench/scale.sh [-n EVENTS] [-t THREADS] [-b BUILD_DIR] [-d WORK_DIR] [-s STEPS]
#     defaults: 100000000 events, 8 threads, ./build, a fresh /tmp/rastro_scale.XXXXXX (removed at
#     the end unless -d is given), steps "cat sqlite stats infer replay". Needs ~1.2 GB of disk per
#     100 M events for the trace and more for the SQLite file.
set -eu
N=100000000
THREADS=8
BUILD=build
WORK=
STEPS="cat sqlite stats infer replay"
while getopts n:t:b:d:s: o; do
  case $o in
    n) N=$OPTARG ;;
    t) THREADS=$OPTARG ;;
    b) BUILD=$OPTARG ;;
    d) WORK=$OPTARG ;;
    s) STEPS=$OPTARG ;;
    *) sed -n '2,11p' "$0" >&2; exit 2 ;;
  esac
done
R=$BUILD/rastro
GEN=$BUILD/bench/scale_trace_gen
for x in "$R" "$GEN" /usr/bin/time; do [ -x "$x" ] || { echo "scale.sh: missing $x (build first)" >&2; exit 1; }; done
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d /tmp/rastro_scale.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
T=$WORK/trace.rastro

# measure NAME CMD...: runs CMD (stdout to /dev/null) under /usr/bin/time -v and prints
# "NAME wall_s peak_rss_MB bytes_per_event exit_status".
measure() {
  name=$1; shift
  st=0
  /usr/bin/time -v -o "$WORK/time.txt" "$@" > /dev/null 2> "$WORK/err.txt" || st=$?
  awk -v name="$name" -v n="$N" -v st="$st" '
    /Elapsed \(wall clock\)/ { w = $NF; k = split(w, p, ":"); s = 0; for (i = 1; i <= k; i++) s = s * 60 + p[i] }
    /Maximum resident set size/ { kb = $NF }
    END { printf "%-8s %10.1f %10.1f %8.1f %4d\n", name, s, kb / 1024, kb * 1024 / n, st }' "$WORK/time.txt"
  [ "$st" -eq 0 ] || sed 's/^/  stderr: /' "$WORK/err.txt" | tail -3
}

echo "# bench/scale.sh: $N events, $THREADS threads, $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# command   wall_s  peakRSS_MB  B/event exit"
measure generate "$GEN" "$T" "$N" "$THREADS"
echo "# trace: $(du -h "$T" | cut -f1)"
for step in $STEPS; do
  case $step in
    cat) measure cat "$R" cat -q "$T" ;;
    sqlite) measure sqlite "$R" export -q -f sqlite "$T" -o "$WORK/trace.sqlite"; rm -f "$WORK/trace.sqlite" ;;
    stats) measure stats "$R" stats -q "$T" ;;
    infer) measure infer "$R" infer -O fs "$T" ;;
    replay)
      rm -rf "$WORK/root" "$WORK/replayed.rastro"
      measure replay "$R" replay -e workers -O fs -T fullspeed --init --root "$WORK/root" "$T" -o "$WORK/replayed.rastro"
      rm -rf "$WORK/root" "$WORK/replayed.rastro" ;;
    *) echo "scale.sh: unknown step $step" >&2; exit 2 ;;
  esac
done

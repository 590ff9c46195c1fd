#!/bin/sh
# Scale benchmark (issue 16): makes an N-event trace and reports wall time and peak RSS
# (/usr/bin/time -v) of rastro cat, export -f sqlite, stats, infer -O fs and replay -e workers -O fs
# -T fullspeed on it, one line per command, with the peak RSS per event.
#
# The trace is synthetic (bench/scale_trace_gen: 8 threads in sessions of open/pread/pwrite/close,
# written streaming) unless -c: then it is an eBPF capture (`rastro capture -b ebpf`, root) of
# bench/scale_capture_workload.c, N 1-byte writes to /dev/null in 4 threads, whose row also
# reports the events captured and lost. The step "capture" alone measures the capture without
# using it.
#
#   bench/scale.sh [-n EVENTS] [-t THREADS] [-b BUILD_DIR] [-d WORK_DIR] [-s STEPS] [-c] [-B BUF]
#     defaults: 100000000 events, 8 threads (4 for the capture workload), ./build, a fresh
#     /tmp/rastro_scale.XXXXXX (removed at the end unless -d is given), steps "cat sqlite stats
#     infer replay" (-c puts "capture" first), capture ring buffer 16M (-B, rastro's --buffer).
#     Needs ~1.2 GB of disk per 100 M events for the trace and more for the SQLite file.
set -eu
N=100000000
THREADS=
BUILD=build
WORK=
STEPS="cat sqlite stats infer replay"
CAPTURED=
BUFFER=16M
while getopts n:t:b:d:s:cB: o; do
  case $o in
    n) N=$OPTARG ;;
    t) THREADS=$OPTARG ;;
    b) BUILD=$OPTARG ;;
    d) WORK=$OPTARG ;;
    s) STEPS=$OPTARG ;;
    c) CAPTURED=1 ;;
    B) BUFFER=$OPTARG ;;
    *) sed -n '2,19p' "$0" >&2; exit 2 ;;
  esac
done
if [ -n "$CAPTURED" ]; then
  case " $STEPS " in *" capture "*) ;; *) STEPS="capture $STEPS" ;; esac
fi
R=$BUILD/rastro
GEN=$BUILD/bench/scale_trace_gen
NEED="$R /usr/bin/time"
[ -n "$CAPTURED" ] || NEED="$NEED $GEN"
for x in $NEED; do [ -x "$x" ] || { echo "scale.sh: missing $x (build first)" >&2; exit 1; }; done
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d /tmp/rastro_scale.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
T=$WORK/trace.rastro
SRC=$(cd "$(dirname "$0")" && pwd)

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

echo "# bench/scale.sh: $N events, ${THREADS:-default} threads, $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# command   wall_s  peakRSS_MB  B/event exit"
if [ -z "$CAPTURED" ] && [ "$STEPS" != capture ]; then
  measure generate "$GEN" "$T" "$N" "${THREADS:-8}"
  echo "# trace: $(du -h "$T" | cut -f1)"
fi
for step in $STEPS; do
  case $step in
    capture)
      # Peak RSS is rastro's (the workload's is a few MB): the consumer of the ring buffer and
      # the trace writer, which must not grow with the length of the capture.
      [ "$(id -u)" -eq 0 ] || { echo "capture: skipped (needs root for eBPF)"; continue; }
      cc -O2 -pthread -o "$WORK/workload" "$SRC/scale_capture_workload.c"
      C=$WORK/capture.rastro
      [ -n "$CAPTURED" ] && C=$T
      measure capture "$R" capture -b ebpf -e trace=write --buffer "$BUFFER" -o "$C" -- "$WORK/workload" "$N" "${THREADS:-4}"
      grep '^rastro: capture' "$WORK/err.txt" | sed 's/^/# /'
      sed -n '/^  [a-z_]*: /s/^/# /p' "$WORK/err.txt"
      echo "# captured trace: $(du -h "$C" | cut -f1)"
      [ -n "$CAPTURED" ] || rm -f "$C" ;;
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

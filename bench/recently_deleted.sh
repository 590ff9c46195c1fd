#!/usr/bin/env bash
# What deleting files costs the next files made on the same file system (docs/replay.md, "Files
# deleted before a run"). On ext4 without a journal, a new inode skips every free inode of its
# group whose deletion time is under 60 s old (360 s while the inode-table block is unwritten)
# and reads each one to find out (fs/ext4/ialloc.c, recently_deleted): a run made right after an
# `rm -rf` of many files pays for every create.
#
#   bench/recently_deleted.sh [DIR=/tmp] [FILES=3000] [DELAYS="0 30 60 90 120 180"]
#
# Makes FILES empty files under DIR, syncs, deletes them, syncs; then at each delay (seconds after
# the deletion) creates 1000 files (open O_CREAT|O_EXCL, close) in a fresh directory, deleting
# nothing, and prints the open's p10/p50/p90 in ns.
set -euo pipefail
dir=${1:-/tmp}
files=${2:-3000}
delays=${3:-"0 30 60 90 120 180"}
work=$(mktemp -d "$dir/rastro-recently-deleted.XXXXXX")
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

creates() {  # DIR: 1000 creates, their percentiles
  "$python" - "$1" <<'PY'
import os, sys, time
d = sys.argv[1]
os.makedirs(d)
ts = []
for i in range(1000):
    t = time.perf_counter_ns()
    fd = os.open(f"{d}/f{i}", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    ts.append(time.perf_counter_ns() - t)
    os.close(fd)
ts.sort()
print("p10 %d p50 %d p90 %d" % (ts[100], ts[500], ts[900]))
PY
}

fs=$(findmnt -n -o FSTYPE --target "$work" 2>/dev/null || stat -f -c %T "$work")
echo "# $(uname -r), $fs at $dir, $(date -u +%Y-%m-%dT%H:%MZ): p10/p50/p90 ns of 1000 creates"
mkdir "$work/doomed"
"$python" -c "
import sys
for i in range(int(sys.argv[2])): open(f'{sys.argv[1]}/f{i}', 'w').close()" "$work/doomed" "$files"
sync
rm -rf "$work/doomed"
sync
t0=$(date +%s)
for w in $delays; do
  now=$(date +%s)
  if [ $((t0 + w - now)) -gt 0 ]; then sleep $((t0 + w - now)); fi
  echo "$w s after deleting $files files: $(creates "$work/after-$w")"
done

#!/usr/bin/env bash
# The real-program corpus (issue #15, docs/replay.md "Real programs"): captures everyday programs
# with a capture backend, replays each capture with every replayer and fs/temporal ordering under
# think timing, and prints per program and replayer: requests, replayed, skipped, mismatched, and
# the span error (replayed wall time vs the traced span), as `rastro compare` reports them; the
# whole report per class is `rastro compare DIR/P/trace.rastro DIR/P/ENGINE-ORDERING.rastro`.
#
#   bench/corpus.sh [-b ebpf|ptrace|strace] [-o DIR] [-r RASTRO] [-k] [-t] [-u] [-n N] [-c K] [-e CELLS] [PROGRAM ...]
#
# -k replays the captures already in DIR instead of capturing again (paired runs of two builds on
# the same captures: -r OLD/rastro -k, then -k). The coordinator replays with --coordinator-chain
# (no hand-off for a request that waits only for its thread's previous one); -t: without it, every
# request through the coordinator as in the thesis.
# With eBPF captures every replayer times its calls with the capture's own probes (`--time-with
# ebpf`: like for like, docs/replay.md "Timer bias"); -u: in user space (clock reads around the
# syscall) as without the option. The per-class table then gives both.
# -n N replays every cell N times (default 1): the rows list each replay, and the per-class table
# gives the first run's figures and, after them, the median over the N runs of the class median
# (one run on a loaded machine moves a class median by up to ±0.3: docs/replay.md).
# -c K takes K rounds (default 1), each a new capture of every program replayed at once, so each
# replay is compared with an original of its own moment: two captures of one program minutes apart
# differ per syscall by up to 30 % on this VM (docs/replay.md "Rounds"). The per-class table then
# gives, per cell, the median over the rounds of the class median ratio, and the originals' own
# spread: the coefficient of variation over the rounds of the original's mean latency in the class;
# and, from `rastro compare` of two captures, each round's original against the next one's per
# class (the ratio of their median durations): what a second run of the program gives.
# Round N's capture stays in DIR/PROGRAM/trace.round-N.rastro (the last also as trace.rastro), and
# each replay of it in DIR/PROGRAM/ENGINE-ORDERING.round-N.rastro; at the end, `rastro compare`
# over the rounds judges every class of every replayer cell: the geometric mean of the rounds'
# ratios, its 90 % interval and whether it is shown within ±15 % of the original, beyond, or
# undecided (docs/replay.md "Judging a replay over rounds"), and the same for the originals
# against each other (rounds 1-2, 3-4, ...: what the program's own reruns can show).
# -e CELLS replays only these replayer cells, comma-separated ENGINE-ORDERING (default all six:
# workers-fs,workers-temporal,coordinator-fs,coordinator-temporal,compiled-fs,compiled-temporal);
# many rounds of one cell cost a fraction of all six. An ENGINE suffix _p replays with --processes
# (each traced process in a replay process of its own), _w with --think-work memory (the threads
# work on memory through their traced gaps; THINK_WORK=memory:SIZE sets another size), _wc with
# --think-work memory,code (code run as well: THINK_WORK_CODE sets another mode), _p_w and _p_wc
# with --processes as well: e.g. -e workers-fs,workers_p-fs puts threads and processes side by side
# on the same captures.
# PROGRAM: git rsync make tarpipe python sqlite fio mmap (default: all of these eight), or the extra
# programs sort cpa findgrep sedi fifo zip cmake perl procsub xz gccpipe gitclone vim node postgres
# ninja patch debpkg sparse (named only). Needs root for eBPF.
# Each capture follows a warm-up run of the program and a sync (cached code, clean inputs on disk).
# Inputs, captures and the roots of failed replays stay in DIR (default /tmp/rastro-corpus) so a
# failing replay can be studied (the others' roots and compiled replayers, a fio root is 300 MB,
# go to DIR/.trash, deleted when the run ends: see `discard` below).
set -euo pipefail
# The whole script is one block, read before it runs: bash reads a script as it goes, so editing
# this file during a 25-minute run would otherwise make it execute the edited file from the old
# offset (it did: a syntax error after the last round).
{

backend=ebpf
out=/tmp/rastro-corpus
rastro=$(cd "$(dirname "$0")/.." && pwd)/build/rastro
keep=0
thesis=0
user_timed=0
runs=1
rounds=1
cells="workers-fs,workers-temporal,coordinator-fs,coordinator-temporal,compiled-fs,compiled-temporal"
while getopts "b:o:r:n:c:e:ktuh" opt; do
  case $opt in
    b) backend=$OPTARG ;;
    o) out=$OPTARG ;;
    r) rastro=$OPTARG ;;
    k) keep=1 ;;
    t) thesis=1 ;;
    u) user_timed=1 ;;
    n) runs=$OPTARG ;;
    c) rounds=$OPTARG ;;
    e) cells=$OPTARG ;;
    *) sed -n '2,47p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "corpus: -n wants a count of runs >= 1, not '$runs'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "corpus: -c wants a count of rounds >= 1, not '$rounds'" >&2; exit 2; }
[ $keep = 0 ] || [ "$rounds" = 1 ] || { echo "corpus: -c takes new captures; it does not go with -k" >&2; exit 2; }
for cell in ${cells//,/ }; do
  [[ $cell =~ ^(workers|coordinator|compiled)(_p)?(_wc?)?-(fs|temporal)$ ]] ||
    { echo "corpus: -e wants ENGINE-ORDERING cells (workers, coordinator or compiled, with _p, _w, _wc, _p_w or _p_wc; fs or temporal), not '$cell'" >&2; exit 2; }
done
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(git rsync make tarpipe python sqlite fio mmap)
[ -x "$rastro" ] || { echo "corpus: no rastro at $rastro (build first, or -r)" >&2; exit 2; }
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
timer=""; if [ "$backend" = ebpf ] && [ $user_timed = 0 ]; then timer="--time-with ebpf"; fi

# Prepares the program's input under $1 and prints the shell command to capture (run in $1).
prepare() {
  local p=$1 d=$2
  mkdir -p "$d"
  case $p in
    git) cp -r /usr/share/doc/bash "$d/tree"
         echo "cd tree && git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm x && git gc -q" ;;
    rsync) cp -r /usr/share/doc/bash "$d/src"; mkdir -p "$d/dst"
           if command -v rsync >/dev/null; then echo "rsync -a src/ dst/"; else echo "cp -a src/. dst/"; fi ;;
    make) for i in 1 2 3 4 5 6; do printf 'int f%d(int x){return x*%d;}\n' "$i" "$i" > "$d/f$i.c"; done
          printf 'int main(void){return 0;}\n' > "$d/main.c"
          printf 'prog: f1.o f2.o f3.o f4.o f5.o f6.o main.o\n\tar rcs libf.a f1.o f2.o f3.o f4.o f5.o f6.o\n\tgcc -o prog main.o libf.a\n' > "$d/Makefile"
          echo "make -s -j2" ;;
    tarpipe) cp -r /usr/share/doc/bash "$d/src"; mkdir -p "$d/x"
             echo "tar cf - src | gzip -1 | gunzip | tar xf - -C x" ;;
    python) cp -r "$($python -c 'import json, os; print(os.path.dirname(json.__file__))')" "$d/json"
            echo "$python -m compileall -q json" ;;
    sqlite) { echo 'PRAGMA journal_mode=WAL; CREATE TABLE t(a,b);'
              for i in $(seq 1 300); do echo "INSERT INTO t VALUES($i,'row $i');"; done
              echo 'SELECT count(*) FROM t;'; } > "$d/in.sql"
            echo "sqlite3 db.sqlite < in.sql > /dev/null" ;;
    fio) echo "fio --name=c --directory=. --rw=randrw --bs=4k --size=2m --numjobs=2 --ioengine=psync --fsync=16 --output=/dev/null" ;;
    mmap) head -c 8388608 /dev/urandom > "$d/data"
          echo "$python -c 'import mmap; f=open(\"data\",\"rb\"); m=mmap.mmap(f.fileno(),0,access=mmap.ACCESS_READ); print(sum(m[i] for i in range(0,len(m),4096)))' > /dev/null" ;;
    # Extra programs (not in the default list): named with them on the command line.
    sort) seq 1 200000 | sed 's/^/line /' | shuf --random-source=/dev/zero > "$d/in.txt"
          echo "TMPDIR=. sort -S 512K in.txt -o sorted.txt" ;;
    cpa) cp -r /usr/share/doc/bash "$d/src"; echo "cp -a src dst" ;;
    findgrep) cp -r /usr/share/doc/bash "$d/src"; echo "find src -type f -print0 | xargs -0 -n 4 grep -l -s bash > list.txt; true" ;;  # (grep: 1 when a batch has no match)
    sedi) cp -rL /usr/share/common-licenses "$d/src"; echo "find src -type f -exec sed -i s/License/LICENSE/g {} +" ;;
    fifo) cp -r /usr/share/doc/bash "$d/src"
          echo "mkfifo p && { tar cf p src & gzip -1 < p > src.tar.gz; wait; }" ;;
    zip) cp -r /usr/share/doc/bash "$d/src"; echo "zip -qr a.zip src && unzip -q a.zip -d x" ;;
    cmake) mkdir -p "$d/p"; printf 'cmake_minimum_required(VERSION 3.13)\nproject(p C)\nadd_executable(p main.c)\n' > "$d/p/CMakeLists.txt"
           printf 'int main(void){return 0;}\n' > "$d/p/main.c"
           echo "cmake -S p -B b > /dev/null && cmake --build b > /dev/null" ;;
    perl) cp -r /usr/share/doc/bash "$d/src"
          echo "perl -MFile::Find -e 'find(sub { return unless -f; open my \$f, \"<\", \$_ or return; my \$n = () = <\$f>; print \"\$File::Find::name \$n\\n\" }, \"src\")' > counts.txt" ;;
    procsub) cp -r /usr/share/doc/bash "$d/src"
             echo "bash -c 'diff <(ls -l src) <(ls -l src) > same.txt && wc -c < <(cat src/*.gz) > n.txt'" ;;
    xz) head -c 16777216 /dev/urandom | base64 > "$d/in.txt"; echo "xz -T2 -1 -k in.txt && xz -d -c in.txt.xz > out.txt" ;;
    gccpipe) for i in 1 2 3; do printf '#include <stdio.h>\nint f%d(void){puts("x");return %d;}\n' "$i" "$i" > "$d/f$i.c"; done
             echo "gcc -pipe -O2 -c f1.c f2.c f3.c" ;;
    gitclone) cp -r /usr/share/doc/bash "$d/tree"
              (cd "$d/tree" && git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm x) > /dev/null 2>&1
              echo "git clone -q --no-hardlinks tree copy" ;;
    vim) cp -rL /usr/share/common-licenses "$d/src"  # (swap files, backups, write by rename)
         echo "vim -E -s -N -u NONE -i NONE -c 'set backup hidden' -c 'bufdo %s/License/LICENSE/ge | update' -c qa src/*" ;;
    node) cp -rL /usr/share/common-licenses "$d/src"  # (libuv's thread pool: the calls of one request on other threads)
          cat > "$d/copy.js" <<'JS'
const fs = require('fs/promises'), path = require('path'), crypto = require('crypto');
async function walk(s, d) {
  await fs.mkdir(d, { recursive: true });
  await Promise.all((await fs.readdir(s, { withFileTypes: true })).map(async e => {
    const a = path.join(s, e.name), b = path.join(d, e.name);
    if (e.isDirectory()) return walk(a, b);
    const buf = await fs.readFile(a);
    await fs.writeFile(b, buf);
    await fs.stat(b);
    return crypto.createHash('sha256').update(buf).digest('hex');
  }));
}
walk('src', 'dst').then(() => fs.rename('dst', 'done'));
JS
          echo "node copy.js" ;;
    postgres) mkdir -p "$d/pg"; chown postgres "$d/pg"  # (a database cluster made by its bootstrap backend, as user postgres)
              echo "runuser -u postgres -- $(ls -d /usr/lib/postgresql/*/bin | tail -1)/initdb -N -A trust -D pg/data > /dev/null" ;;
    ninja) for i in 1 2 3 4 5 6; do printf '#include "h.h"\nint f%d(int x){return x*%d+H;}\n' "$i" "$i" > "$d/f$i.c"; done
           echo '#define H 1' > "$d/h.h"; printf 'int main(void){return 0;}\n' > "$d/main.c"
           { printf 'rule cc\n  command = gcc -MD -MF $out.d -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n'
             printf 'rule link\n  command = gcc -o $out $in\n'
             for f in f1 f2 f3 f4 f5 f6 main; do printf 'build %s.o: cc %s.c\n' $f $f; done
             printf 'build prog: link main.o f1.o f2.o f3.o f4.o f5.o f6.o\n'; } > "$d/build.ninja"
           echo "ninja -j2 > /dev/null && touch h.h && ninja -j2 > /dev/null" ;;
    patch) cp -rL /usr/share/common-licenses "$d/a"; cp -r "$d/a" "$d/b"
           sed -i 's/License/LICENSE/g' "$d/b/GPL-3" "$d/b/BSD"; rm "$d/b/GPL-1"; echo new > "$d/b/NEW"
           echo "diff -ruN a b > p.diff; cd a && patch -s -p1 < ../p.diff" ;;
    debpkg) mkdir -p "$d/pkg/DEBIAN" "$d/pkg/usr/share/doc/p"; cp -rL /usr/share/common-licenses "$d/pkg/usr/share/doc/p/"
            printf 'Package: p\nVersion: 1.0\nArchitecture: all\nMaintainer: a <a@b>\nDescription: x\n' > "$d/pkg/DEBIAN/control"
            echo "dpkg-deb -b -Zxz pkg p.deb > /dev/null && dpkg-deb -x p.deb out && dpkg-deb -I p.deb > info.txt" ;;
    sparse) echo "truncate -s 64M s.img && fallocate -l 8M a.img && fallocate -p -o 1M -l 2M a.img && dd if=/dev/zero of=d.img bs=1M count=8 oflag=direct conv=fsync status=none && cp --sparse=always s.img s2.img && du -k *.img > du.txt" ;;
    *) echo "corpus: unknown program '$p'" >&2; return 1 ;;
  esac
}

# requests replayed skipped mismatched span_error of a replay ($2, summary $3) of the capture $1, from
# `rastro compare` (the fidelity report: docs/replay.md); its errors go to $4. Appends the replay's
# latency ratio per call class ("ROW class timed ratio_of_sums median_ratio ratio_of_sums_corrected
# median_ratio_corrected timer_bias_ns timed_with", corrected = the replayed durations minus the
# replayer's timer bias, floored at 0; a kernel-timed replay adds the same six fields of its
# user-space report, from the summary) to $out/classes.txt, and a kernel-timed replay's matching
# ("ROW executed matched no_kernel_call ambiguous lost") to $out/kernel_timing.txt.
fidelity() {
  "$rastro" compare --json "$1" "$2" --summary "$3" 2>> "$4" | "$python" -c '
import json, sys
j = json.load(sys.stdin); t = j["total"]
s = json.load(open(sys.argv[3]))
user = {c["key"]: c for c in s.get("fidelity_user_space", {}).get("by_class", [])}
def cols(c, bias):
    return ["%.2f" % c["latency_ratio_sum"], "%.2f" % c["latency_ratio_median"], "%.2f" % c["latency_ratio_sum_corrected"],
            "%.2f" % c["latency_ratio_median_corrected"], str(bias)]
with open(sys.argv[1], "a") as f:
    for c in j["by_class"]:
        if c.get("timed"):
            row = [sys.argv[2], c["key"], str(c["timed"])] + cols(c, j["timer_bias_ns"]) + [j.get("timed_with") or "user-space"]
            if c["key"] in user:
                row += cols(user[c["key"]], s["fidelity_user_space"]["timer_bias_ns"])
            print(" ".join(row), file=f)
if sys.argv[2].endswith("/workers/fs"):
    # The latency of the original itself per class (its mean over the timed calls), for its
    # run-to-run spread over the rounds (-c); one original per round, whatever -n is.
    with open(sys.argv[5], "a") as f:
        for c in j["by_class"]:
            if c.get("timed"):
                print(sys.argv[2].split("/")[0], sys.argv[6], c["key"], c["timed"], c["original_ns"], file=f)
        print(sys.argv[2].split("/")[0], sys.argv[6], "span", 1, j["original_span_ns"], file=f)
if "kernel_timing" in s:
    k = s["kernel_timing"]
    with open(sys.argv[4], "a") as f:
        print(sys.argv[2], k["executed"], k["matched"], k["unmatched"]["no_kernel_call"], k["unmatched"]["ambiguous"],
              k["lost"], file=f)
print(t["calls"], t["replayed"], t["skipped"], t["mismatched"], "%.1f%%" % j["span_error_pct"])' \
    "$out/classes.txt" "$5" "$3" "$out/kernel_timing.txt" "$out/originals.txt" "$round"
}

# Nothing is deleted while the run measures: what a run no longer needs is moved into $trash, and
# the trash is emptied at the end. On a file system without a journal (this VM's ext4), an inode
# freed in the last 60 s (360 s while its inode-table block is unwritten) is skipped by every new
# file's allocation, which reads past each one (ext4's recently_deleted): after `rm -rf` of a
# replay's root, the next replay's creates took 0.4 ms instead of 0.05 (docs/replay.md, "Files
# deleted before a run").
trash="$out/.trash"
discard() {
  local x t
  for x in "$@"; do
    [ -e "$x" ] || continue
    mkdir -p "$trash"
    # (never `mv X "$(mktemp …)/"`: with the disk full, mktemp prints nothing and X went to /)
    t=$(mktemp -d "$trash/XXXXXX") || { echo "corpus: cannot move $x into $trash (disk full?)" >&2; exit 1; }
    mv "$x" "$t/"
  done
}
# Waits out the window after deleting $1 (when it exists), the deletion synced first.
delete_and_settle() {
  [ -e "$1" ] || return 0
  rm -rf "$1"; sync
  echo "corpus: waiting 61 s after deleting $1 (ext4 without a journal skips recently freed inodes)"
  sleep 61
}
if [ $keep = 0 ]; then delete_and_settle "$out"; else delete_and_settle "$trash"; fi
mkdir -p "$out"; rm -f "$out/rows.txt" "$out/classes.txt" "$out/kernel_timing.txt" "$out/originals.txt"
printf '%-8s %-12s %-9s %8s %8s %8s %8s %9s\n' program engine ordering requests replayed skipped mismatch span_err
# The trash grows by each replay's root (fio's holds 300 MB of its libraries' copies: 1.8 GB a
# round), so between rounds, once it passes $trash_budget_kb, it is emptied and the window waited
# out; a round does not start with less than 3 GB free. The budget is what the disk can spare (all
# but 10 GB of the space free at the start, 3 GB at least): a round that starts after that minute
# of idling is not like the others (r19: the tar pipeline's rounds after it ran 0.82-0.94 of the
# ones before), so on a disk that holds a whole run no round waits.
free_at_start_kb=$(df -Pk "$out" | awk 'NR == 2 { print $4 }')
trash_budget_kb=$((free_at_start_kb - 10 * 1024 * 1024))
[ $trash_budget_kb -ge $((3 * 1024 * 1024)) ] || trash_budget_kb=$((3 * 1024 * 1024))
for round in $(seq 1 "$rounds"); do
[ "$rounds" = 1 ] || echo "round $round of $rounds"
if [ -d "$trash" ] && [ "$(du -sk "$trash" | cut -f1)" -gt $trash_budget_kb ]; then delete_and_settle "$trash"; fi
if [ "$(df -Pk "$out" | awk 'NR == 2 { print $4 }')" -lt $((3 * 1024 * 1024)) ]; then
  echo "corpus: less than 3 GB free on $out's file system: stopping before round $round" >&2
  break
fi
for p in "${programs[@]}"; do
  work="$out/$p"
  if [ $keep = 1 ]; then
    [ -s "$work/trace.rastro" ] || { echo "$p: no capture in $work (run without -k first)"; continue; }
  else
    # A warm-up run first, on its own copy of the input: the capture then sees the program, its
    # libraries and its toolchain in the page, dentry and inode caches, as the replay (whose root
    # init has just written) does — issue #15 compares latencies "for cached data".
    cmd=$(prepare "$p" "$work/warm")
    (cd "$work/warm" && sh -c "$cmd" > /dev/null 2>&1) || true
    discard "$work/warm"
    discard "$work/in"  # (an earlier round's: the program starts from its input, not from its output)
    cmd=$(prepare "$p" "$work/in")
    # The input on disk, as a real program's files are and as `rastro replay --init` leaves its
    # copies (it syncs them): a file written seconds before was still delayed-allocation, and
    # replacing it by rename cost python's compileall 0.06 ms against 2-3 ms for the replay's
    # allocated copy.
    sync
    (cd "$work/in" && "$rastro" capture -b "$backend" -o "$work/trace.rastro" -- sh -c "$cmd" > "$work/capture.log" 2>&1) ||
      { echo "$p: capture failed (see $work/capture.log)"; continue; }
    [ "$rounds" = 1 ] || cp "$work/trace.rastro" "$work/trace.round-$round.rastro"
  fi
  for engine in workers coordinator compiled workers_p coordinator_p compiled_p workers_w coordinator_w compiled_w \
                workers_p_w coordinator_p_w compiled_p_w workers_wc coordinator_wc compiled_wc workers_p_wc \
                coordinator_p_wc compiled_p_wc; do
    for ordering in fs temporal; do
     [[ ,$cells, == *,$engine-$ordering,* ]] || continue
     for _ in $(seq 1 "$runs"); do
      r="$work/$engine-$ordering"
      discard "$r.root" "$r.c"; rm -f "$r.json" "$r.rastro"  # (-k: an earlier run's replay)
      # Every replay starts as its capture did, after a sync: the previous replay's root, just
      # moved aside, is otherwise still being written back while this one runs.
      sync
      base=${engine%%_*}
      chain=""; if [ "$base" = coordinator ] && [ $thesis = 0 ]; then chain=--coordinator-chain; fi
      procs=""; if [[ $engine == *_p || $engine == *_p_w* ]]; then procs=--processes; fi
      if [[ $engine == *_w ]]; then procs="$procs --think-work ${THINK_WORK:-memory}"; fi
      if [[ $engine == *_wc ]]; then procs="$procs --think-work ${THINK_WORK_CODE:-memory,code}"; fi
      # shellcheck disable=SC2086  # $timer, $procs: the flag or nothing
      if [ "$base" = compiled ]; then
        "$rastro" compile -O $ordering -T think "$work/trace.rastro" -o "$r.c" --build > "$r.log" 2>&1 &&
          "$r.c/replay" --root "$r.root" --init $timer $procs -o "$r.rastro" --summary-json "$r.json" >> "$r.log" 2>&1 || true
      else
        # shellcheck disable=SC2086  # $chain, $timer, $procs: the flags or nothing
        "$rastro" replay -e "$base" $chain $timer $procs -O $ordering -T think "$work/trace.rastro" --root "$r.root" \
          --init -o "$r.rastro" --summary-json "$r.json" > "$r.log" 2>&1 || true
      fi
      if [ ! -s "$r.json" ]; then printf '%-8s %-12s %-9s replay failed (see %s)\n' "$p" $engine $ordering "$r.log"; continue; fi
      if ! row=$(fidelity "$work/trace.rastro" "$r.rastro" "$r.json" "$r.log" "$p/$engine/$ordering"); then
        printf '%-8s %-12s %-9s compare failed (see %s)\n' "$p" $engine $ordering "$r.log"; continue
      fi
      # shellcheck disable=SC2086  # the five fields of the row
      printf '%-8s %-12s %-9s %8s %8s %8s %8s %9s\n' "$p" $engine $ordering $row | tee -a "$out/rows.txt"
      # A replay off by more than 20 % or with a mismatch keeps its trace, summary and log under
      # its round's name: the next round's replay overwrites $r.* (r13's +204 % was lost so).
      # Every round's replay trace stays for the judgement over the rounds (below).
      read -r _ _ _ mism span <<< "$row"
      [ "$rounds" = 1 ] || cp "$r.rastro" "$r.round-$round.rastro"
      if [ "$rounds" != 1 ] && { [ "$mism" != 0 ] || awk -v s="${span%\%}" 'BEGIN { exit !(s > 20 || s < -20) }'; }; then
        for x in json log; do cp "$r.$x" "$r.round-$round.$x"; done
      fi
      discard "$r.root" "$r.c"  # (init's copy of the inputs, fio's 300 MB; a compiled replayer, 42 MB; a failed replay keeps them)
     done
    done
  done
done
done
# Issue #15's figures over every replay of the run: faithful share, mean |span error| and the worst.
if [ -s "$out/rows.txt" ]; then "$python" - "$out/rows.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
spans = [float(r[7].rstrip('%')) for r in rows]
faithful = [100.0 * (int(r[4]) - int(r[6])) / int(r[3]) for r in rows]
worst = max(rows, key=lambda r: abs(float(r[7].rstrip('%'))))
print("%d replays: faithful %.2f..%.2f %%, span error mean |%.1f| %%, worst %s (%s %s %s)" % (
    len(rows), min(faithful), max(faithful), sum(abs(x) for x in spans) / len(spans), worst[7], worst[0], worst[1], worst[2]))
# Several replays of a cell (-n, -c): its median span error, the estimate one draw of the machine's
# speed does not make (docs/replay.md "Rounds"), and the cells' mean and worst of those.
cells = {}
for r in rows:
    cells.setdefault((r[0], r[1], r[2]), []).append(float(r[7].rstrip('%')))
if max(len(v) for v in cells.values()) > 1:
    med = {k: statistics.median(v) for k, v in cells.items()}
    w = max(med, key=lambda k: abs(med[k]))
    print("%d cells, median over their %d..%d replays: span error mean |%.1f| %%, worst %.1f%% (%s %s %s); %d of %d "
          "cells within 20 %%" % (len(med), min(len(v) for v in cells.values()), max(len(v) for v in cells.values()),
                                 sum(abs(x) for x in med.values()) / len(med), med[w], w[0], w[1], w[2],
                                 sum(abs(x) <= 20 for x in med.values()), len(med)))
PY
fi
# Latency ratio replay/original per call class (ratio of the summed durations / median of the
# per-call ratios, over the calls replayed with the traced result and executed), workers engine,
# fs ordering; issue #15's target is within 15 % for cached data. As the replay was timed (in the
# kernel with --time-with ebpf), and timed in user space, raw and corrected for the replayer's
# timer bias (each replayed duration minus it, floored at 0: docs/replay.md).
if [ -s "$out/classes.txt" ]; then "$python" - "$out/classes.txt" "$((runs * rounds))" "$out/originals.txt" <<'PY'
import collections, os, statistics, sys
n_runs = int(sys.argv[2])
rows = [l.split() for l in open(sys.argv[1]) if l.startswith(tuple(p + "/workers/fs " for p in
        "git rsync make tarpipe python sqlite fio mmap".split()))]
# The originals' mean latency per class, one per round: {(program, class): {round: mean ns}}
originals = collections.defaultdict(dict)
if os.path.exists(sys.argv[3]):
    for prog, rnd, c, timed, ns in (l.split() for l in open(sys.argv[3]) if l.strip()):
        originals[(prog, c)][rnd] = int(ns) / max(1, int(timed))
classes = ["data", "sync", "metadata", "namespace", "open/close", "fd", "memory"]
progs = list(dict.fromkeys(r[0].split("/")[0] for r in rows))
kernel = any(r[8] == "ebpf" for r in rows)
tables = [(", timed in the kernel (--time-with ebpf)", 3, 4, None)] if kernel else []
# The user-space figures: the replay's own report, or the kernel-timed replay's user-space one.
u = 9 if kernel else 3
tables += [(", timed in user space", u, u + 1, None), (", timed in user space, corrected for the timer bias", u + 2, u + 3, u + 4)]
n_rounds = max((len(v) for v in originals.values()), default=1)
for title, s, m, b in tables:
    print("latency ratio%s, workers/fs (sum / median; calls%s%s):" % (title, "" if n_runs == 1 else
          " of the first run [runs: median over them of the class median", "" if n_runs == 1 else
          ("; the originals' spread over the %d rounds, cv]" % n_rounds if n_rounds > 1 else "]")))
    w = 20 if n_runs == 1 else (32 if n_rounds == 1 else 40)
    print("%-8s" % "program" + "".join("%*s" % (w, c) for c in classes) + ("  bias ns" if b else ""))
    within, cells_counted = 0, 0
    for prog in progs:
        mine = [r for r in rows if r[0].split("/")[0] == prog and len(r) > m]
        cells = {}
        for c in classes:
            runs = [r for r in mine if r[1] == c]  # one row per run, in run order
            if not runs:
                continue
            cells[c] = "%s / %s; %s" % (runs[0][s], runs[0][m], runs[0][2])
            median = statistics.median(float(r[m]) for r in runs)
            if n_runs > 1:
                cells[c] += " [%d: %.2f" % (len(runs), median)
                spread = list(originals[(prog, c)].values())
                if len(spread) > 1:
                    cells[c] += "; %.0f%%" % (100 * statistics.stdev(spread) / statistics.mean(spread))
                cells[c] += "]"
            # Issue #15's target: within 15 % for cached data (sync is the disk), cells of 5 calls or more.
            if c != "sync" and int(runs[0][2]) >= 5:
                cells_counted += 1
                within += abs(median - 1) <= 0.15
        print("%-8s" % prog + "".join("%*s" % (w, cells.get(c, "-")) for c in classes) +
              ("  %s" % mine[0][b] if b and mine else ""))
    print("  class medians within 15 %% of the original's%s: %d of %d cells (5 calls or more, sync apart)" % (
        "" if n_runs == 1 else " (the median over the runs)", within, cells_counted))
if n_rounds > 1:
    # Each original as if it were the replay of another round's: the span error two runs of the
    # program itself give, against which the replays' is to be read.
    print("the originals against each other (each round's span against every other's), span error:")
    pairs = []
    for p in progs:
        spans = list(originals[(p, "span")].values())
        errs = [100.0 * (a / b - 1) for i, a in enumerate(spans) for j, b in enumerate(spans) if i != j]
        if errs:
            pairs += errs
            print("  %-8s cv %4.1f %%, mean |%.1f| %%, worst %+.1f %%" % (
                p, 100 * statistics.stdev(spans) / statistics.mean(spans), sum(map(abs, errs)) / len(errs),
                max(errs, key=abs)))
    if pairs:
        print("  all: %d pairs, mean |%.1f| %%, worst %+.1f %%, %d above 20 %%" % (
            len(pairs), sum(map(abs, pairs)) / len(pairs), max(pairs, key=abs), sum(abs(x) > 20 for x in pairs)))
PY
fi
# Two rounds' captures of one program against each other per class (`rastro compare` of two
# captures: the ratio of their median durations, B/A), each round against the next: the per-class
# spread the program itself shows from run to run, against which the replays' class medians above
# are read (issue #15's 15 %).
if [ "$rounds" -gt 1 ]; then
  rm -f "$out/original_pairs.txt"
  for p in "${programs[@]}"; do
    for i in $(seq 1 $((rounds - 1))); do
      a="$out/$p/trace.round-$i.rastro"; b="$out/$p/trace.round-$((i + 1)).rastro"
      [ -s "$a" ] && [ -s "$b" ] || continue
      "$rastro" compare --json "$a" "$b" 2>> "$out/$p/capture.log" | "$python" -c '
import json, sys
j = json.load(sys.stdin)
for c in j["by_class"]:
    if min(c["timed"]) > 0:
        print(sys.argv[1], sys.argv[2], c["key"], c["latency_ratio_median"], min(c["timed"]))' "$p" "$i" >> "$out/original_pairs.txt"
    done
  done
  if [ -s "$out/original_pairs.txt" ]; then "$python" - "$out/original_pairs.txt" <<'PY'
import collections, statistics, sys
cells = collections.defaultdict(list)
for prog, pair, c, ratio, timed in (l.split() for l in open(sys.argv[1]) if l.strip()):
    cells[(prog, c)].append((float(ratio), int(timed)))
classes = ["data", "metadata", "namespace", "open/close", "fd", "memory"]
progs = list(dict.fromkeys(p for p, _ in cells))
print("the originals against each other per class (round N+1's median duration / round N's; median over the "
      "pairs [range]):")
print("%-8s" % "program" + "".join("%22s" % c for c in classes))
within = 0
for prog in progs:
    row = ""
    for c in classes:
        v = cells.get((prog, c))
        if not v:
            row += "%22s" % "-"; continue
        rs = [r for r, _ in v]
        med = statistics.median(rs)
        row += "%22s" % ("%.2f [%.2f-%.2f]" % (med, min(rs), max(rs)))
        if min(t for _, t in v) >= 5:
            within += sum(abs(r - 1) <= 0.15 for r in rs)
    print("%-8s" % prog + row)
pairs = sum(len(v) for (p, c), v in cells.items() if c in classes and min(t for _, t in v) >= 5)
print("  single pairs within 15 %%: %d of %d (cells of 5 calls or more)" % (within, pairs))
PY
  fi
fi
# --time-with ebpf: how many executed calls got their kernel times, over every replay.
if [ -s "$out/kernel_timing.txt" ]; then "$python" - "$out/kernel_timing.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ex, ma, no, am, lo = (sum(int(r[i]) for r in rows) for i in range(1, 6))
worst = min(rows, key=lambda r: int(r[2]) / max(1, int(r[1])))
print("kernel-timed: %d of %d executed calls (%.2f %%) over %d replays; %d with no kernel call in their span, %d "
      "ambiguous; %d probe records lost; lowest %s %.2f %%" % (ma, ex, 100.0 * ma / max(1, ex), len(rows), no, am, lo,
                                                                worst[0], 100.0 * int(worst[2]) / max(1, int(worst[1]))))
PY
fi
# Issue #15's per-class target judged over the rounds (`rastro compare` of the rounds' pairs): per
# program, cell and class the geometric mean of the rounds' latency ratios, its 90 % interval and
# the verdict against ±15 %; and the originals against each other, rounds 1-2, 3-4, ... (disjoint
# pairs, so independent), as the program's own reruns judge themselves.
if [ "$rounds" -gt 1 ]; then
  rm -f "$out/verdicts.txt"
  judge_rounds() {  # LABEL PROGRAM FILE... : appends "PROGRAM LABEL class rounds gm lo hi verdict" lines
    local label=$1 p=$2; shift 2
    [ $# -ge 4 ] || return 0
    "$rastro" compare --json "$@" 2>> "$out/$p/capture.log" | "$python" -c '
import json, sys
j = json.load(sys.stdin)
for c in j["by_class"] + [j["span"]]:
    if "ci" in c:
        print(sys.argv[1], sys.argv[2], c["key"], c["rounds"], "%.3f" % c["geometric_mean"], "%.3f" % c["ci"][0],
              "%.3f" % c["ci"][1], c["verdict"])' "$p" "$label" >> "$out/verdicts.txt" || true
  }
  for p in "${programs[@]}"; do
    for cell in ${cells//,/ }; do
      files=()
      for i in $(seq 1 "$rounds"); do
        a="$out/$p/trace.round-$i.rastro"; b="$out/$p/$cell.round-$i.rastro"
        if [ -s "$a" ] && [ -s "$b" ]; then files+=("$a" "$b"); fi
      done
      judge_rounds "$cell" "$p" "${files[@]}"
    done
    files=()
    for i in $(seq 1 2 $((rounds - 1))); do
      a="$out/$p/trace.round-$i.rastro"; b="$out/$p/trace.round-$((i + 1)).rastro"
      if [ -s "$a" ] && [ -s "$b" ]; then files+=("$a" "$b"); fi
    done
    judge_rounds originals "$p" "${files[@]}"
  done
  if [ -s "$out/verdicts.txt" ]; then "$python" - "$out/verdicts.txt" <<'PY'
import collections, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
classes = ["data", "metadata", "namespace", "open/close", "fd", "memory", "span"]
by_label = collections.defaultdict(list)
for r in rows:
    by_label[r[1]].append(r)
print("over the rounds, per class: geometric mean of the rounds' latency ratios [90 % interval] and the verdict against "
      "+-15 % (W within, B beyond, ? undecided); sync (the disk) apart:")
for label, rs in by_label.items():
    cells = {(r[0], r[2]): r for r in rs}
    progs = list(dict.fromkeys(r[0] for r in rs))
    print("%s:" % label)
    print("%-8s" % "program" + "".join("%20s" % c for c in classes))
    for p in progs:
        line = "%-8s" % p
        for c in classes:
            r = cells.get((p, c))
            line += "%20s" % ("-" if r is None else "%.2f [%.2f-%.2f] %s" % (
                float(r[4]), float(r[5]), min(99.99, float(r[6])), {"within": "W", "beyond": "B"}.get(r[7], "?")))
        print(line)
    counted = [r for r in rs if r[2] in classes[:-1]]
    n = collections.Counter(r[7] for r in counted)
    print("  %d class cells: %d within, %d beyond, %d undecided (%d to %d rounds)" % (
        len(counted), n["within"], n["beyond"], n["undecided"], min(int(r[3]) for r in rs), max(int(r[3]) for r in rs)))
PY
  fi
fi
rm -rf "$trash"  # (the measuring is over)
exit
}

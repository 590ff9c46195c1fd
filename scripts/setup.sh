#!/usr/bin/env bash
# Installs every Debian package rastro needs (idempotent). Run as root.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git
  libcli11-dev nlohmann-json3-dev libzstd-dev libfmt-dev libsqlite3-dev sqlite3
  libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev
  liburing-dev  # the replayers submit traced io_uring requests through io_uring (replay/runtime/exec_uring.h); the capture tests' io_uring workload
  libboost-dev libboost-graph-dev libboost-math-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  strace linux-perf bpftrace
  systemtap  # only `stap -p1` (script syntax check) runs on the project kernel: no modules, no headers
  r-base-core
  fio  # independent second reference of the capture campaigns (docs/campaign.md); replays iolog/job exports
  libarmadillo-dev  # characterize: k-means / GMM clustering
  openmpi-bin libopenmpi-dev mpich libmpich-dev  # MPI capture (mpi/): both ABIs, tests run real jobs
  iproute2 util-linux  # the multi-node tests' simulated hosts: ip netns, veth, unshare --time/--uts
  rsync  # one of the everyday programs of the replay corpus (bench/corpus.sh)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}"
fi
# tracefs is needed by the eBPF backend's tracepoints on some boots.
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/events ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
echo "setup: all packages present"

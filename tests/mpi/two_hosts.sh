#!/bin/bash
# Runs an MPI job on two simulated hosts of this machine and captures every rank with rastro:
# each host is its own network namespace (joined to the other by a veth pair; MPI runs over TCP
# between them), its own UTS namespace (hostname) and its own time namespace (host B's
# CLOCK_MONOTONIC is OFFSET_S seconds ahead of host A's). Open MPI starts host B's daemon through
# an rsh agent that enters host B's namespaces. Addresses exist only inside these namespaces.
#
# Usage: two_hosts.sh LAUNCHER RASTRO OUTDIR OFFSET_S BACKEND -- APP ARGS...
#   LAUNCHER: openmpi or mpich. Prints the job's output; exit status is mpirun's.
set -euo pipefail
launcher=$1 rastro=$2 out=$3 offset=$4 backend=$5
shift 5
[ "$1" = "--" ] && shift
tag=rt$$
a=${tag}a b=${tag}b
work=$(mktemp -d)
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip link add "${tag}x" type veth peer name "${tag}y"
ip link set "${tag}x" netns "$a"
ip link set "${tag}y" netns "$b"
ip -n "$a" addr add 10.213.0.1/24 dev "${tag}x"
ip -n "$b" addr add 10.213.0.2/24 dev "${tag}y"
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up

# "agent HOST CMD...": run CMD on HOST = inside its namespaces (host B: shifted clock, own name).
cat > "$work/agent" <<AGENT
#!/bin/sh
host=\$1; shift
case \$host in
  10.213.0.1) exec ip netns exec $a unshare --uts sh -c "hostname hostA; \$*" ;;
  10.213.0.2) exec ip netns exec $b unshare --uts --time --monotonic $offset sh -c "hostname hostB; \$*" ;;
esac
echo "agent: unknown host \$host" >&2; exit 1
AGENT
chmod +x "$work/agent"
printf '10.213.0.1 slots=2\n10.213.0.2 slots=2\n' > "$work/hosts"

cmd=("$rastro" capture --mpi -b "$backend" -q -o "$out" -- "$@")
case $launcher in
  openmpi)
    ip netns exec "$a" unshare --uts sh -c 'hostname hostA; exec "$@"' sh \
      mpirun.openmpi --allow-run-as-root --oversubscribe --hostfile "$work/hosts" -n 4 \
      --mca plm_rsh_agent "$work/agent" --mca btl self,tcp --mca btl_tcp_if_include 10.213.0.0/24 \
      --mca oob_tcp_if_include 10.213.0.0/24 "${cmd[@]}" ;;
  mpich)
    printf '10.213.0.1:2\n10.213.0.2:2\n' > "$work/hosts"
    ip netns exec "$a" unshare --uts sh -c 'hostname hostA; exec "$@"' sh \
      mpirun.mpich -f "$work/hosts" -n 4 -launcher rsh -launcher-exec "$work/agent" -iface "${tag}x" "${cmd[@]}" ;;
  *) echo "two_hosts.sh: launcher must be openmpi or mpich" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# A remote-shell agent for Open MPI (plm_rsh_agent) and MPICH's Hydra
# (-launcher ssh -launcher-exec) that "logs in" to a network namespace of
# this machine: called like ssh, as  netns_agent.sh [OPTIONS] HOST COMMAND...,
# it runs COMMAND through sh in the namespace that owns the IPv4 address
# HOST (bench/compare.sh --netns, tests/net/netns_cluster.sh).  Options
# before HOST (ssh flags the launchers add) are ignored.
set -euo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    shift
done
host=${1:?usage: netns_agent.sh [OPTIONS] HOST COMMAND...}
shift
for ns in $(ip netns list | awk '{print $1}'); do
    if ip -n "$ns" -4 -o addr show 2>/dev/null | grep -q "inet $host/"; then
        exec ip netns exec "$ns" sh -c "$*"
    fi
done
echo "netns_agent.sh: no namespace has address $host" >&2
exit 255

#!/usr/bin/env bash
# A test cluster on one machine: N "nodes" as network namespaces, joined by
# one or two bridged networks (rails) that live in a switch namespace.
#
#   netns_cluster.sh up PREFIX N [RAILS]   create PREFIX-sw, PREFIX-n0..n{N-1}
#   netns_cluster.sh down PREFIX           remove them
#   netns_cluster.sh nodes PREFIX          print "PREFIX-n0,PREFIX-n1,..."
#   netns_cluster.sh addr PREFIX I [RAIL]  print node I's address on RAIL (0)
#   netns_cluster.sh mtu PREFIX BYTES      set the MTU of every link (1500 at up)
#   netns_cluster.sh loss PREFIX PERCENT   every node drops PERCENT % of the UDP
#                                          packets it sends (nftables, random)
#   netns_cluster.sh noloss PREFIX         remove the loss rules
#
# Node i has address 10.<r>.<k>.<i+1>/24 on rail r (interface eth<r>), where
# k is derived from PREFIX so that parallel clusters do not collide.  All
# traffic stays inside these namespaces.  Needs root (CAP_NET_ADMIN).
set -euo pipefail

cmd=${1:?usage: netns_cluster.sh up|down|nodes PREFIX [N] [RAILS]}
prefix=${2:?PREFIX}
k=$(( $(printf '%s' "$prefix" | cksum | cut -d' ' -f1) % 200 + 20 ))

case $cmd in
up)
    n=${3:?N}
    rails=${4:-1}
    # a cluster of the same name left behind by a run that was killed
    # (its cleanup never ran) would make every "ip netns add" below fail
    "$0" down "$prefix" >/dev/null 2>&1 || true
    ip netns add "$prefix-sw"
    ip -n "$prefix-sw" link set lo up
    # A switch forwards frames without looking at their IP headers.  Where
    # br_netfilter is loaded (Docker loads it), a new namespace's bridges
    # pass every IPv4 frame through iptables and conntrack (0.6 us of each
    # one-way trip here); turn that off for this namespace only.  Without
    # br_netfilter these sysctls do not exist and bridges never call
    # iptables anyway.
    for t in iptables ip6tables arptables; do
        ip netns exec "$prefix-sw" sysctl -qw "net.bridge.bridge-nf-call-$t=0" 2>/dev/null || true
    done
    for ((r = 0; r < rails; r++)); do
        ip -n "$prefix-sw" link add "br$r" type bridge
        ip -n "$prefix-sw" link set "br$r" up
    done
    for ((i = 0; i < n; i++)); do
        node="$prefix-n$i"
        ip netns add "$node"
        ip -n "$node" link set lo up
        for ((r = 0; r < rails; r++)); do
            # veth pair: eth<r> in the node, s<i>r<r> on the switch's bridge
            ip link add "tnv$k-$i-$r" type veth peer name "tns$k-$i-$r"
            ip link set "tnv$k-$i-$r" netns "$node"
            ip link set "tns$k-$i-$r" netns "$prefix-sw"
            ip -n "$node" link set "tnv$k-$i-$r" name "eth$r"
            ip -n "$node" addr add "10.$((r + 1)).$k.$((i + 1))/24" dev "eth$r"
            ip -n "$node" link set "eth$r" up
            ip -n "$prefix-sw" link set "tns$k-$i-$r" master "br$r"
            ip -n "$prefix-sw" link set "tns$k-$i-$r" up
        done
    done
    ;;
down)
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-(sw|n[0-9]+)$" || true); do
        ip netns del "$ns"
    done
    ;;
loss)
    pct=${3:?PERCENT}
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-n[0-9]+$"); do
        ip netns exec "$ns" nft delete table inet tern_loss 2>/dev/null || true
        printf '%s\n' "table inet tern_loss {" \
            "  chain out {" \
            "    type filter hook output priority 0; policy accept;" \
            "    meta l4proto udp numgen random mod 100 < $pct drop" \
            "  }" "}" | ip netns exec "$ns" nft -f -
    done
    ;;
noloss)
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-n[0-9]+$"); do
        ip netns exec "$ns" nft delete table inet tern_loss 2>/dev/null || true
    done
    ;;
mtu)
    m=${3:?BYTES}
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-(sw|n[0-9]+)$"); do
        for dev in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 |
                     grep -E '^(eth[0-9]+|tns[0-9]+-[0-9]+-[0-9]+|br[0-9]+)$'); do
            ip -n "$ns" link set "$dev" mtu "$m"
        done
    done
    ;;
addr)
    i=${3:?NODE}
    echo "10.$(( ${4:-0} + 1 )).$k.$((i + 1))"
    ;;
nodes)
    ip netns list | awk '{print $1}' | grep -E "^$prefix-n[0-9]+$" | sort -t n -k2 -n | paste -sd, -
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac

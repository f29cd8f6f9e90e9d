#!/usr/bin/env bash
# A test cluster on one machine: N "nodes" as network namespaces, joined by
# one or two bridged networks (rails) that live in a switch namespace, or
# by a two-level tree of bridges.
#
#   netns_cluster.sh up PREFIX N [RAILS]   create PREFIX-sw, PREFIX-n0..n{N-1}
#   netns_cluster.sh tree PREFIX N LEAVES  the same nodes (one rail) on a
#                                          two-level tree: LEAVES leaf bridges
#                                          and a spine bridge (below)
#   netns_cluster.sh shape PREFIX RATE [DELAY]
#                                          (re)shape a tree's leaf-spine links
#   netns_cluster.sh leaf PREFIX I         print node I's leaf (0 off a tree)
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
#
# The tree is one rail, one /24, a layer-2 tree (loop-free as built): the
# switch namespace holds leaf bridges lf0..lf{LEAVES-1} and a spine bridge
# sp; leaf j reaches the spine through a veth pair, up<j> on the leaf and
# dn<j> on the spine.  Node i hangs off leaf i % LEAVES (round robin:
# neighbouring ranks sit on different leaves, so a ring, or a ping-pong
# between ranks 0 and 1, crosses the spine).  The leaf-spine links are the
# scarce resource: each direction (up<j>'s and dn<j>'s egress) is a token
# bucket (tc tbf) behind an optional fixed delay (tc netem), from
#   TN_TREE_RATE   bucket rate, tc units (default 400mbit; none: no limit)
#   TN_TREE_DELAY  one-way delay of each leaf-spine link, tc units (e.g.
#                  100us; default none; with tbf it needs the kernel's
#                  sch_netem, tern-wire (TN_TREE_LINK=wire) delays itself)
#   TN_TREE_BURST  bucket size in bytes (default 1600: one frame at MTU 1500,
#                  so each frame waits for its tokens, as on a link of that
#                  rate; a larger bucket passes a short burst at the host
#                  link's speed; at least one frame, so raise it with mtu)
#   TN_TREE_QUEUE  the longest a packet may wait in the bucket's queue
#                  (default 200ms: 10 MB at 400mbit, so that tern_bw's 64
#                  messages of 64 KiB queue rather than drop; later
#                  packets are dropped, as by a switch whose buffer is full)
#   TN_TREE_LINK   what a leaf-spine link is: tbf (default: a veth pair,
#                  each end's egress the token bucket above, behind netem
#                  for a delay), or wire: a pair of TAP devices joined by
#                  tern-wire (tools/tern-wire, run SCHED_FIFO in the switch
#                  namespace), which serialises every frame at RATE and
#                  delivers it DELAY after its last bit, dropping what
#                  waits longer than TN_TREE_QUEUE: a link, where the token
#                  bucket passes a lone frame at once (docs/benchmarks.md "Emulated links");
#                  BURST does not apply
#   TN_WIRE        the tern-wire binary (default: build/bin/tern-wire of
#                  this tree)
# Host links are plain veths, as with up.  `shape` sets RATE and DELAY
# (none for either) on an existing tree.
set -euo pipefail

cmd=${1:?usage: netns_cluster.sh up|tree|shape|leaf|down|nodes|addr|mtu|loss|noloss PREFIX ...}
prefix=${2:?PREFIX}
k=$(( $(printf '%s' "$prefix" | cksum | cut -d' ' -f1) % 200 + 20 ))

# switch_ns: the switch namespace, whose bridges act as switches
switch_ns() {
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
}

# bridge NAME: a bridge in the switch namespace
bridge() {
    ip -n "$prefix-sw" link add "$1" type bridge
    ip -n "$prefix-sw" link set "$1" up
}

# node_link I RAIL BRIDGE: node I's eth<RAIL>, its peer a port of BRIDGE
node_link() {
    local i=$1 r=$2 node="$prefix-n$1"
    # veth pair: eth<r> in the node, tns<k>-<i>-<r> on the switch's bridge
    ip link add "tnv$k-$i-$r" type veth peer name "tns$k-$i-$r"
    ip link set "tnv$k-$i-$r" netns "$node"
    ip link set "tns$k-$i-$r" netns "$prefix-sw"
    ip -n "$node" link set "tnv$k-$i-$r" name "eth$r"
    ip -n "$node" addr add "10.$((r + 1)).$k.$((i + 1))/24" dev "eth$r"
    ip -n "$node" link set "eth$r" up
    ip -n "$prefix-sw" link set "tns$k-$i-$r" master "$3"
    ip -n "$prefix-sw" link set "tns$k-$i-$r" up
}

# wire_bin: the tern-wire binary (TN_WIRE, or this tree's build)
wire_bin() {
    local w=${TN_WIRE:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin/tern-wire}
    [[ -x $w ]] || { echo "netns_cluster.sh: no tern-wire at $w (set TN_WIRE)" >&2; exit 1; }
    echo "$w"
}

# wire_shape RATE DELAY: (re)start tern-wire between every up<j> and dn<j>
# TAP pair (see the top); a forwarder runs in the switch namespace
wire_shape() {
    local rate=$1 delay=$2 queue=${TN_TREE_QUEUE:-200ms} w dev j
    w=$(wire_bin)
    wire_stop
    for dev in $(ip -n "$prefix-sw" -o link show type tun | awk -F': ' '{print $2}' | cut -d@ -f1 |
                 grep -E '^up[0-9]+$'); do
        j=${dev#up}
        ip netns exec "$prefix-sw" "$w" --daemon --rt --rate "$rate" --delay "$delay" \
            --queue "$queue" "up$j" "dn$j" </dev/null >/dev/null 2>>"${TN_WIRE_LOG:-/dev/null}"
    done
}

# wire_stop: end the switch namespace's forwarders (they print their
# counters to TN_WIRE_LOG)
wire_stop() {
    local p
    for p in $(ip netns pids "$prefix-sw" 2>/dev/null); do
        kill "$p" 2>/dev/null || true
    done
    for p in $(ip netns pids "$prefix-sw" 2>/dev/null); do
        while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
    done
}

# shape RATE DELAY: every leaf-spine link (see the top)
shape() {
    local rate=$1 delay=$2 dev parent
    local burst=${TN_TREE_BURST:-1600} queue=${TN_TREE_QUEUE:-200ms}
    # a tree built with TN_TREE_LINK=wire has TAP devices up<j>
    if ip -n "$prefix-sw" -o link show type tun | grep -qE ': up[0-9]+:'; then
        wire_shape "$rate" "$delay"
        return
    fi
    for dev in $(ip -n "$prefix-sw" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1 |
                 grep -E '^(up|dn)[0-9]+$'); do
        tc -n "$prefix-sw" qdisc del dev "$dev" root 2>/dev/null || true
        parent=root
        if [[ $delay != none ]]; then
            tc -n "$prefix-sw" qdisc add dev "$dev" root handle 1: netem delay "$delay" limit 100000 || {
                echo "shape: no netem delay on $dev (is sch_netem in this kernel?)" >&2
                exit 1
            }
            parent="parent 1:1"
        fi
        if [[ $rate != none ]]; then
            # shellcheck disable=SC2086  # $parent is one or two words
            tc -n "$prefix-sw" qdisc add dev "$dev" $parent handle 10: tbf rate "$rate" \
                burst "$burst" latency "$queue"
        fi
    done
}

# mkcluster N RAILS LEAVES: N nodes on RAILS bridges br<r> (LEAVES 0), or
# on one rail's tree of LEAVES leaves
mkcluster() {
    local n=$1 rails=$2 leaves=$3 i r j
    switch_ns
    if ((leaves == 0)); then
        for ((r = 0; r < rails; r++)); do
            bridge "br$r"
        done
    else
        bridge sp
        for ((j = 0; j < leaves; j++)); do
            bridge "lf$j"
            # both ends live in the switch namespace: no name to collide
            case ${TN_TREE_LINK:-tbf} in
            tbf) ip -n "$prefix-sw" link add "up$j" type veth peer name "dn$j" ;;
            wire)
                ip -n "$prefix-sw" tuntap add dev "up$j" mode tap
                ip -n "$prefix-sw" tuntap add dev "dn$j" mode tap
                ;;
            *) echo "TN_TREE_LINK=${TN_TREE_LINK}: want tbf or wire" >&2; exit 2 ;;
            esac
            ip -n "$prefix-sw" link set "up$j" master "lf$j"
            ip -n "$prefix-sw" link set "dn$j" master sp
            ip -n "$prefix-sw" link set "up$j" up
            ip -n "$prefix-sw" link set "dn$j" up
        done
        shape "${TN_TREE_RATE:-400mbit}" "${TN_TREE_DELAY:-none}"
    fi
    for ((i = 0; i < n; i++)); do
        ip netns add "$prefix-n$i"
        ip -n "$prefix-n$i" link set lo up
        if ((leaves == 0)); then
            for ((r = 0; r < rails; r++)); do
                node_link "$i" "$r" "br$r"
            done
        else
            node_link "$i" 0 "lf$((i % leaves))"
        fi
    done
}

case $cmd in
up)
    mkcluster "${3:?N}" "${4:-1}" 0
    ;;
tree)
    leaves=${4:?LEAVES}
    ((leaves >= 1)) || { echo "tree: LEAVES must be at least 1" >&2; exit 2; }
    mkcluster "${3:?N}" 1 "$leaves"
    ;;
shape)
    shape "${3:?RATE}" "${4:-none}"
    ;;
leaf)
    i=${3:?NODE}
    # lf<j>, the bridge that node I's switch port belongs to (br<r>: 0)
    m=$(ip -n "$prefix-sw" -o link show "tns$k-$i-0" | grep -oE 'master lf[0-9]+' || true)
    m=${m#master lf}
    echo "${m:-0}"
    ;;
down)
    wire_stop
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
                     grep -E '^(eth[0-9]+|tns[0-9]+-[0-9]+-[0-9]+|br[0-9]+|lf[0-9]+|sp|up[0-9]+|dn[0-9]+)$'); do
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

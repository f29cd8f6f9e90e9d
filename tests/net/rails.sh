#!/usr/bin/env bash
# Which rails a job uses across namespaces (udp_rails.h), and its ports.
# Root only.  Each mode builds its own small cluster (netns_cluster.sh).
#
#   rails.sh TERN_RUN LAUNCH_CHECK UNDER_ATTACK MODE
#
#   dup     2 nodes, 2 rails, and in every node a bridge "dock0" with the
#           SAME address 172.31.255.1/24 (docker0's situation).  Auto must
#           leave it out: every rank logs it as dropped (another node has
#           it), the per-rail statistics name only the 10.x rails, no UDP
#           datagram leaves any node for 172.31.255.1 (an nftables counter
#           in each node's output path), and the data is right.  Then the
#           same address pinned (TERN_UDP_RAILS=eth0,dock0) ends the job at
#           once with a message naming the address and the ranks.
#   routed  2 nodes on one link but in different subnets: no usable rail
#           (the job ends at once, naming both ranks' addresses); with a
#           route each way through eth0 the job runs over them.
#   ports   TERN_UDP_PORT_MIN..MAX of two ports, 2 ranks per node: while
#           the job runs, each node's unconnected UDP sockets (the rails)
#           are inside the range (ss); with 3 ranks per node the range is
#           full and the job ends with a message naming it.
set -u
RUN=$1 CHECK=$2 VICTIM=$3 MODE=$4
HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$HERE/netns_cluster.sh
P=tr${MODE:0:1}
OUT=$(mktemp)
cleanup() { "$CLUSTER" down "$P" >/dev/null 2>&1; rm -f "$OUT"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; cat "$OUT"; exit 1; }

case $MODE in
dup)
    "$CLUSTER" up "$P" 2 2 >/dev/null || fail "no cluster"
    for i in 0 1; do
        ip -n "$P-n$i" link add dock0 type bridge &&
        ip -n "$P-n$i" addr add 172.31.255.1/24 dev dock0 &&
        ip -n "$P-n$i" link set dock0 up || fail "no dock0 in node $i"
        printf '%s\n' "table inet tern_dup {" "  chain out {" \
            "    type filter hook output priority 0; policy accept;" \
            "    ip daddr 172.31.255.1 meta l4proto udp counter" "  }" "}" |
            ip netns exec "$P-n$i" nft -f - || fail "no nftables counter"
    done
    TERN_LOG_LEVEL=info TERN_LOG_SUBSYS=udp TERN_STATS=1 \
        timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 4 --timeout 50 "$CHECK" 4 > "$OUT" 2>&1 ||
        fail "the job failed"
    grep -q " No Errors" "$OUT" || fail "no clean end"
    n=$(grep -c "rails: .*dropped 172.31.255.1 (dock0): rank [0-9] on another node has it too" "$OUT")
    [ "$n" -eq 4 ] || fail "$n of 4 ranks logged the duplicated address as dropped"
    grep -q "kept 10.2.[0-9]*.[12]:[0-9]* (eth1) for 2 peers" "$OUT" || fail "eth1 not kept"
    rails=$(grep -c "udp peer [0-9] rail [01] 10\.[12]\.[0-9]*\.[12]->10\.[12]\.[0-9]*\.[12]: rail_sent=" "$OUT")
    [ "$rails" -ge 8 ] || fail "expected the two 10.x rails in the statistics, got $rails lines"
    grep "udp peer [0-9] rail" "$OUT" | grep -q 172.31 && fail "a rail to 172.31.255.1"
    for i in 0 1; do
        pk=$(ip netns exec "$P-n$i" nft list chain inet tern_dup out |
             sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
        [ "$pk" = 0 ] || fail "node $i sent $pk UDP datagrams to 172.31.255.1"
    done
    echo "dup: 172.31.255.1 dropped on every rank, no datagram sent to it"
    # pinned: refused, with the address and the ranks
    TERN_UDP_RAILS=eth0,dock0 timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 2 --timeout 50 \
        "$CHECK" 2 > "$OUT" 2>&1 && fail "a duplicated pinned rail was accepted"
    grep -q "TERN_UDP_RAILS: 172.31.255.1, a pinned rail of rank 0 (node 0), is also an address of rank 1 (node 1)" "$OUT" ||
        fail "no message naming the duplicated pinned address"
    echo "pinned: refused"
    ;;
routed)
    "$CLUSTER" up "$P" 2 1 >/dev/null || fail "no cluster"
    a0=$("$CLUSTER" addr "$P" 0)
    net1=${a0%.*}                          # 10.1.<k>
    net2=10.99.${net1#10.1.}               # 10.99.<k>
    ip -n "$P-n1" addr flush dev eth0
    ip -n "$P-n1" addr add "$net2.2/24" dev eth0
    timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 2 --timeout 50 "$CHECK" 2 > "$OUT" 2>&1 &&
        fail "a job without a usable rail ran"
    grep -q "no usable udp rail between rank [01] (10\.[0-9.]*/24) and rank [01] (10\.[0-9.]*/24)" "$OUT" ||
        fail "no message naming both ranks"
    echo "routed: no rail without routes"
    ip -n "$P-n0" route add "$net2.0/24" dev eth0
    ip -n "$P-n1" route add "$net1.0/24" dev eth0
    TERN_LOG_LEVEL=info TERN_LOG_SUBSYS=udp \
        timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 2 --timeout 50 "$CHECK" 2 > "$OUT" 2>&1 ||
        fail "the job failed with routes"
    grep -q " No Errors" "$OUT" || fail "no clean end"
    grep -q "rails: kept $net2.2:[0-9]* (eth0) for 1 peer" "$OUT" || fail "node 1's rail not kept"
    echo "routed: runs over the routes"
    ;;
ports)
    "$CLUSTER" up "$P" 2 1 >/dev/null || fail "no cluster"
    # above the kernel's ephemeral ports (32768-60999), which the connected
    # send sockets use
    lo=$((61000 + $$ % 4000)) hi=$((61000 + $$ % 4000 + 1))
    TERN_UDP_PORT_MIN=$lo TERN_UDP_PORT_MAX=$hi TERN_LOG_LEVEL=info TERN_LOG_SUBSYS=udp \
        timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 4 --timeout 50 "$VICTIM" 2 > "$OUT" 2>&1 &
    job=$!
    for i in 0 1; do
        addr=$("$CLUSTER" addr "$P" $i)
        ports=""
        for t in $(seq 1 200); do
            ports=$(ip netns exec "$P-n$i" ss -Huan 2>/dev/null |
                    awk -v a="$addr" '$4 ~ "^"a":" && ($5 == "0.0.0.0:*" || $5 == "*:*") {
                                       split($4, x, ":"); print x[2] }' | sort -n | paste -sd' ')
            [ "$(echo "$ports" | wc -w)" -ge 2 ] && break
            sleep 0.05
        done
        echo "node $i: rail sockets on ports $ports (range $lo-$hi)"
        [ "$(echo "$ports" | wc -w)" -eq 2 ] || { kill $job; fail "node $i: not 2 rail sockets"; }
        for p in $ports; do
            [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ] || { kill $job; fail "port $p outside"; }
        done
    done
    wait $job || fail "the job failed"
    grep -q " No Errors" "$OUT" || fail "no clean end"
    for p in $(grep -o "kept 10\.[0-9.]*:[0-9]*" "$OUT" | sed 's/.*://'); do
        [ "$p" -ge "$lo" ] && [ "$p" -le "$hi" ] || fail "logged port $p outside"
    done
    # three ranks per node, two ports: the third cannot bind
    TERN_UDP_PORT_MIN=$lo TERN_UDP_PORT_MAX=$hi \
        timeout 60 "$RUN" --netns "$P-n0,$P-n1" -n 6 --timeout 50 "$CHECK" 6 > "$OUT" 2>&1 &&
        fail "3 ranks per node bound in 2 ports"
    grep -q "no free UDP port on 10\.[0-9.]* (eth0) in TERN_UDP_PORT_MIN..TERN_UDP_PORT_MAX = $lo..$hi: all 2 are in use" "$OUT" ||
        fail "no message naming the full range"
    echo "ports: inside $lo-$hi; a full range refused"
    ;;
*)
    echo "unknown mode $MODE"; exit 2 ;;
esac
cat "$OUT"
echo RAILS_OK

#!/usr/bin/env bash
# A two-level tree whose leaf-spine links are tern-wire (netns_cluster.sh
# tree with TN_TREE_LINK=wire): 100 Mbit/s and 300 us each way, two nodes on
# two leaves, so every frame between them crosses two emulated links.
#
#   wire_tree.sh TERN_RUN TERN_LATENCY TERN_BW TERN_WIRE
#
# Checked, with Tern's own benchmarks across the spine:
#  - an 8-byte one-way trip takes at least the two links' delays (600 us),
#    and not absurdly more (under 5 ms);
#  - a 4 KiB one-way trip takes at least 4096 bytes' serialisation (328 us)
#    more than a one-frame one (the fastest of 8..64 bytes: the first size
#    measured can come out high on a busy machine, and noise only adds):
#    every frame waits for the link, where a token bucket would pass the
#    first frame of an idle link at once (about 210 us);
#  - 1 MiB messages stream at no more than the links' rate (12.5 MB/s, the
#    payload less than what the links carry) and at least half of it;
#  - each forwarder counted frames both ways when it was stopped.
# Prints WIRE_OK when every check holds.  Needs root.
set -euo pipefail
run=$1 lat=$2 bw=$3
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/netns_cluster.sh
log=$(mktemp /tmp/wire_tree.XXXXXX)
export TN_WIRE=$4 TN_TREE_LINK=wire TN_TREE_RATE=100mbit TN_TREE_DELAY=300us TN_TREE_QUEUE=1s
export TN_WIRE_LOG=$log TERN_WAIT=block
cleanup() { "$cluster" down tnw >/dev/null 2>&1 || true; rm -f "$log"; }
trap cleanup EXIT
"$cluster" tree tnw 2 2
nodes=tnw-n0,tnw-n1
fail=0
check() {   # check DESCRIPTION AWK-CONDITION
    if awk "BEGIN { exit !($2) }"; then
        echo "ok: $1"
    else
        echo "FAIL: $1"
        fail=1
    fi
}
out=$("$run" -n 2 --netns "$nodes" --timeout 120 "$lat" -m 8:4096 -t 0.3)
echo "$out"
l8=$(awk '$1 == 8 { print $2 }' <<<"$out")
l4k=$(awk '$1 == 4096 { print $2 }' <<<"$out")
l1f=$(awk '$1 >= 8 && $1 <= 64 && (m == "" || $2 < m) { m = $2 } END { print m }' <<<"$out")
check "8 B one-way $l8 us: at least 600 us, under 5000" "$l8 >= 600 && $l8 < 5000"
check "4 KiB one-way $l4k us: at least 328 us more than one frame's $l1f" "$l4k - $l1f >= 328"
out=$("$run" -n 2 --netns "$nodes" --timeout 120 "$bw" -m 1M:1M -t 1)
echo "$out"
b=$(awk '$1 == 1048576 { print $2 }' <<<"$out")
check "1 MiB at $b MB/s: at most 12.5, at least 6.25" "$b <= 12.5 && $b >= 6.25"
"$cluster" down tnw
cat "$log"
n=$(grep -cE 'tern-wire: (up|dn)[01] -> (up|dn)[01]: [1-9][0-9]* frames' "$log" || true)
check "the forwarders counted frames both ways ($n of 4 directions)" "$n == 4"
((fail == 0)) && echo WIRE_OK

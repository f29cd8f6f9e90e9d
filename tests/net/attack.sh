#!/usr/bin/env bash
# The adversarial udp test: a job of 2 ranks in namespaces n0 and n1
# exchanges verified messages (under_attack) while a third namespace that
# is not in the job sends forged traffic at their sockets (forge): junk,
# tiny datagrams, well-formed headers with guessed connection ids and
# packet numbers, oversized messages, acks of everything; with "spoof",
# from the peers' own addresses and ports through a raw socket.  The job
# must finish with every byte right, and the forged datagrams must show in
# the drop counters under the reason that fits.  Root only.
#
#   attack.sh TERN_RUN UNDER_ATTACK FORGE MODE(auth|aead|encrypt|off) plain|spoof|replay
set -u
RUN=$1 VICTIM=$2 FORGE=$3 MODE=$4 HOW=$5
HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$HERE/netns_cluster.sh
case $MODE in aead) m=d ;; *) m=${MODE:0:1} ;; esac
P=tk$m${HOW:0:1}
OUT=$(mktemp)
cleanup() { "$CLUSTER" down "$P" >/dev/null 2>&1; rm -f "$OUT"; }
trap cleanup EXIT
"$CLUSTER" down "$P" >/dev/null 2>&1
"$CLUSTER" up "$P" 3 1 >/dev/null || { echo "FAIL: no cluster"; exit 1; }

TERN_UDP_AUTH=$MODE TERN_STATS=1 "$RUN" --netns "$P-n0,$P-n1" -n 2 -x TERN_XPORT=udp \
  --timeout 120 "$VICTIM" 5 > "$OUT" 2>&1 &
job=$!

# each rank's rail: its unconnected udp socket on the namespace's address
targets=()
for i in 0 1; do
  addr=$("$CLUSTER" addr "$P" $i)
  port=""
  for t in $(seq 1 200); do
    port=$(ip netns exec "$P-n$i" ss -Huan 2>/dev/null |
           awk -v a="$addr" '$4 ~ "^"a":" && ($5 == "0.0.0.0:*" || $5 == "*:*") {
                              split($4, x, ":"); print x[2]; exit }')
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || { echo "FAIL: no udp socket of rank $i"; kill $job; exit 1; }
  targets+=("$addr:$port")
done
if [ "$HOW" = replay ]; then
  # node 0's port on the switch's bridge (netns_cluster.sh names it tns<k>-0-0)
  port=$(ip -n "$P-sw" -o link show master br0 | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
         grep -- '-0-0$' | head -1)
  ip netns exec "$P-sw" "$FORGE" --replay "$port" br0 3
else
  extra=()
  [ "$HOW" = spoof ] && extra=(--spoof)
  ip netns exec "$P-n2" "$FORGE" "${extra[@]}" 3 2 "${targets[@]}"
fi
wait $job
rc=$?
cat "$OUT"
[ $rc -eq 0 ] || { echo "FAIL: the job ended with $rc"; exit 1; }
grep -q " No Errors" "$OUT" || { echo "FAIL: no clean end"; exit 1; }
# drops by reason, summed over the ranks
foreign=$(grep "dropped:" "$OUT" | grep -o "foreign=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }')
src=$(grep "dropped:" "$OUT" | grep -o "bad_source=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }')
conn=$(grep "dropped:" "$OUT" | grep -o "bad_conn=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }')
auth=$(grep "dropped:" "$OUT" | grep -o "bad_auth=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }')
echo "forged datagrams dropped: foreign=$foreign bad_source=$src bad_conn=$conn bad_auth=$auth"
if [ "$HOW" = replay ]; then
  [ "$auth" -gt 0 ] || { echo "FAIL: altered datagrams not counted as bad_auth"; exit 1; }
elif [ "$HOW" = plain ]; then
  [ "$src" -gt 0 ] && [ "$foreign" -gt 0 ] || { echo "FAIL: forged traffic not counted"; exit 1; }
else
  [ "$conn" -gt 0 ] || { echo "FAIL: spoofed traffic not counted as another connection's"; exit 1; }
fi
echo ATTACK_OK

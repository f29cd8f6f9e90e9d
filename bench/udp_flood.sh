#!/usr/bin/env bash
# What a flood of junk costs a job (issue: bounded work per datagram): the
# bandwidth benchmark (1 and 4 MiB) between two namespaces of a cluster
# (tests/net/netns_cluster.sh), alone and while a third namespace that is
# not in the job floods both ranks' udp ports back to back with forged
# datagrams (tests/net/forge --flood: junk, empty and tiny datagrams,
# well-formed headers with guessed ids, acks of everything).  The forger
# shares the machine's cores with the job, so the figure bounds what the
# receive path loses plus what the forger's CPU takes.  Interleaved, REPS
# runs each, ranks bound to cores; prints medians, the ratio, and the
# forged datagrams sent per second.  Root only.
#
#   bench/udp_flood.sh [BUILD_DIR] [REPS] [MODE]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
MODE=${3:-auth}
CLUSTER=tests/net/netns_cluster.sh
NS=tbf
RUN="$BUILD/bin/tern-run"
FORGE="$BUILD/bin/net_forge"
[ -x "$RUN" ] && [ -x "$FORGE" ] || { echo "no $RUN or $FORGE: build first"; exit 1; }
OUT=$(mktemp -d)
trap '$CLUSTER down $NS >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
$CLUSTER down $NS >/dev/null 2>&1 || true
$CLUSTER up $NS 3 1 >/dev/null

# the job's udp ports, found while it runs (see tests/net/attack.sh)
ports() {
  local i addr port
  for i in 0 1; do
    addr=$($CLUSTER addr $NS $i)
    port=""
    for _ in $(seq 1 200); do
      port=$(ip netns exec $NS-n$i ss -Huan 2>/dev/null |
             awk -v a="$addr" '$4 ~ "^"a":" && ($5 == "0.0.0.0:*" || $5 == "*:*") {
                                split($4, x, ":"); print x[2]; exit }')
      [ -n "$port" ] && break
      sleep 0.02
    done
    [ -n "$port" ] || return 1
    echo "$addr:$port"
  done
}

run() {   # flood(0|1)
  TERN_UDP_AUTH=$MODE "$RUN" --netns $NS-n0,$NS-n1 --bind-to core -n 2 -x TERN_XPORT=udp \
    "$BUILD/bin/tern_bw" -m 1048576:4194304 -t 1 > "$OUT/cur" &
  local job=$!
  if [ "$1" = 1 ]; then
    mapfile -t tg < <(ports)
    ip netns exec $NS-n2 "$FORGE" --flood 30 2 "${tg[@]}" > "$OUT/forge" &
    local f=$!
    wait $job
    kill $f 2>/dev/null || true
    wait $f 2>/dev/null || true
  else
    wait $job
  fi
  awk '!/^#/ && NF == 2 { print $1, $2 }' "$OUT/cur" >> "$OUT/bw.$1"
}

for rep in $(seq 1 "$REPS"); do
  run 0
  run 1
done
# the forger's rate: a separate 2-second flood at an idle port pair
mapfile -t tg < <(printf '%s\n' "$($CLUSTER addr $NS 0):9" "$($CLUSTER addr $NS 1):9")
rate=$(ip netns exec $NS-n2 "$FORGE" --flood 2 2 "${tg[@]}" | awk '{ print $3 / 2 }')

python3 - "$OUT" "$REPS" "$MODE" "$rate" <<'PY'
import statistics, sys
out, reps, mode, rate = sys.argv[1:5]
def load(name):
    d = {}
    for line in open(f"{out}/{name}"):
        s, v = line.split()
        d.setdefault(int(s), []).append(float(v))
    return {k: statistics.median(v) for k, v in d.items()}
quiet, flood = load("bw.0"), load("bw.1")
print(f"# udp bandwidth under a junk flood, TERN_UDP_AUTH={mode}, medians of {reps} interleaved runs")
print(f"# the forger sends about {float(rate):.0f} datagrams/s (back to back, one core's worth at most)")
print("# size    quiet (MB/s)   flood (MB/s)   flood / quiet")
for s in sorted(quiet):
    print(f"{s:<8} {quiet[s]:>13.0f} {flood[s]:>14.0f} {flood[s] / quiet[s]:>15.3f}")
PY

#!/usr/bin/env bash
# What datagram authentication costs the udp transport, across two network
# namespaces (tests/net/netns_cluster.sh, MTU 1500 unless given): the
# latency (8 B .. 1 KiB) and bandwidth (64 KiB .. 4 MiB) benchmarks with
# TERN_UDP_AUTH=auth and TERN_UDP_AUTH=off, interleaved, REPS runs each,
# ranks bound to cores; prints the medians and auth/off (bandwidth ratio,
# latency difference in us).  Root only (namespaces).
#
#   bench/udp_auth.sh [BUILD_DIR] [REPS] [MTU]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
MTU=${3:-1500}
CLUSTER=tests/net/netns_cluster.sh
NS=tba
RUN="$BUILD/bin/tern-run"
[ -x "$RUN" ] || { echo "no $RUN: build first"; exit 1; }
OUT=$(mktemp -d)
trap '$CLUSTER down $NS >/dev/null 2>&1 || true; rm -rf "$OUT"' EXIT
$CLUSTER down $NS >/dev/null 2>&1 || true
$CLUSTER up $NS 2 1 >/dev/null
[ "$MTU" = 1500 ] || $CLUSTER mtu $NS "$MTU" >/dev/null

run() {   # mode bench args...
  local mode=$1 bench=$2; shift 2
  TERN_UDP_AUTH=$mode "$RUN" --netns $NS-n0,$NS-n1 --bind-to core -n 2 -x TERN_XPORT=udp \
    "$BUILD/bin/$bench" "$@" | awk '!/^#/ && NF == 2 { print $1, $2 }'
}

for rep in $(seq 1 "$REPS"); do
  for mode in auth off; do
    run $mode tern_latency -m 8:1024 -t 0.3 >> "$OUT/lat.$mode"
    run $mode tern_bw -m 65536:4194304 -t 0.3 >> "$OUT/bw.$mode"
  done
done

python3 - "$OUT" "$REPS" "$MTU" <<'EOF'
import statistics, sys
out, reps, mtu = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    d = {}
    for line in open(f"{out}/{name}"):
        s, v = line.split()
        d.setdefault(int(s), []).append(float(v))
    return {k: statistics.median(v) for k, v in d.items()}
print(f"# udp authentication across two namespaces, MTU {mtu}, medians of {reps} interleaved runs")
la, lo = load("lat.auth"), load("lat.off")
print("# size   latency auth (us)   off (us)   auth - off (us)")
for s in sorted(la):
    print(f"{s:<8} {la[s]:>17.2f} {lo[s]:>10.2f} {la[s] - lo[s]:>17.2f}")
ba, bo = load("bw.auth"), load("bw.off")
print("# size   bandwidth auth (MB/s)   off (MB/s)   auth / off")
for s in sorted(ba):
    print(f"{s:<8} {ba[s]:>21.0f} {bo[s]:>12.0f} {ba[s] / bo[s]:>12.3f}")
EOF

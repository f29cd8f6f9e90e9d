#!/usr/bin/env bash
# What datagram authentication costs the udp transport, across two network
# namespaces (tests/net/netns_cluster.sh, MTU 1500 unless given): the
# latency (8 B .. 1 KiB) and bandwidth (64 KiB .. 4 MiB) benchmarks with
# TERN_UDP_AUTH=off and each of MODES (default: auth aead encrypt),
# interleaved, REPS runs each, ranks bound to cores; prints the medians and
# mode/off (bandwidth ratio, latency difference in us).  Root only
# (namespaces).
#
#   bench/udp_auth.sh [BUILD_DIR] [REPS] [MTU] [MODES]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
MTU=${3:-1500}
MODES=${4:-auth aead encrypt}
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
  for mode in $MODES off; do
    run $mode tern_latency -m 8:1024 -t 0.3 >> "$OUT/lat.$mode"
    run $mode tern_bw -m 65536:4194304 -t 0.3 >> "$OUT/bw.$mode"
  done
done

python3 - "$OUT" "$REPS" "$MTU" $MODES <<'EOF'
import statistics, sys
out, reps, mtu, modes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def load(name):
    d = {}
    for line in open(f"{out}/{name}"):
        s, v = line.split()
        d.setdefault(int(s), []).append(float(v))
    return {k: statistics.median(v) for k, v in d.items()}
print(f"# udp authentication across two namespaces, MTU {mtu}, medians of {reps} interleaved runs")
lat = {m: load(f"lat.{m}") for m in modes + ["off"]}
bw = {m: load(f"bw.{m}") for m in modes + ["off"]}
print("# size   latency (us): off " + " ".join(f"{m:>8}" for m in modes) + "   "
      + " ".join(f"{m + '-off':>11}" for m in modes))
for s in sorted(lat["off"]):
    print(f"{s:<8} {lat['off'][s]:>18.2f} " + " ".join(f"{lat[m][s]:>8.2f}" for m in modes)
          + "   " + " ".join(f"{lat[m][s] - lat['off'][s]:>11.2f}" for m in modes))
print("# size   bandwidth (MB/s): off " + " ".join(f"{m:>8}" for m in modes) + "   "
      + " ".join(f"{m + '/off':>11}" for m in modes))
for s in sorted(bw["off"]):
    print(f"{s:<8} {bw['off'][s]:>22.0f} " + " ".join(f"{bw[m][s]:>8.0f}" for m in modes)
          + "   " + " ".join(f"{bw[m][s] / bw['off'][s]:>11.3f}" for m in modes))
EOF

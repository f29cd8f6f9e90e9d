#!/usr/bin/env bash
# tern-sim's honesty check (docs/sim.md, "Trace replay: honesty"): how
# close does a replay come to the run it was traced from?
#
#   bench/sim_honesty.sh [BUILD_DIR] [OUT_DIR]     (root: it makes namespaces)
#   env: TERN_WAIT (block), HONESTY_RANKS (4)
#
#  1. a test cluster of 4 network namespaces on one bridge
#     (tests/net/netns_cluster.sh: one switch, no two-level tree);
#  2. calibration with Tern's own benchmarks between two of them:
#     tern_latency (8 bytes, one-way) and tern_bw (4 MiB);
#  3. 4-rank jobs traced (TERN_TRACE) across the 4 namespaces, one rank
#     each, 1 KiB..64 KiB: tern_latency and tern_bw (ranks 0 and 1
#     exchange point-to-point messages, the others take part in the
#     control collectives), tern_allreduce, tern_alltoall (collectives
#     only: no point-to-point messages to time);
#  4. each trace replayed on the same fabric in tern-sim, a one-switch
#     fat-tree (k = 4, n = 1: every path two links), each link half the
#     measured one-way latency and the measured bandwidth;
#  5. a table of job time and message-time median, trace against replay.
# Nothing here is a test: the figures depend on the machine.  The cluster
# is removed on exit.
set -euo pipefail
# two cores shared by four ranks: a rank that waits sleeps (docs/tuning:
# TERN_WAIT); calibration and traced runs alike
export TERN_WAIT=${TERN_WAIT:-block}
ranks=${HONESTY_RANKS:-4}   # ranks of the traced jobs, one per namespace (2..4)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=${2:-$(mktemp -d /tmp/sim_honesty.XXXXXX)}
mkdir -p "$out"
prefix=tnh$$
cluster=$top/tests/net/netns_cluster.sh
bin=$build/bin
sim=$(find "$build" -name tern-sim -type f -perm -u+x | head -n 1)

cleanup() { "$cluster" down "$prefix" >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$cluster" up "$prefix" 4 1 >/dev/null
nodes=$("$cluster" nodes "$prefix")
two=$(echo "$nodes" | cut -d, -f1,2)
job_nodes=$(echo "$nodes" | cut -d, -f1-"$ranks")

# 1-2: calibration (rank 0's lines: "size value")
"$bin/tern-run" -n 2 --netns "$two" "$bin/tern_latency" -m 8:8 -t 0.5 >"$out/latency.txt"
"$bin/tern-run" -n 2 --netns "$two" "$bin/tern_bw" -m 4194304:4194304 -t 0.5 >"$out/bw.txt"
lat_us=$(awk '$1 == 8 { print $2 }' "$out/latency.txt")
bw_mbs=$(awk '$1 == 4194304 { print $2 }' "$out/bw.txt")
link_lat=$(awk -v l="$lat_us" 'BEGIN { printf "%.1f", l * 1000 / 2 }')
link_bw=$(awk -v b="$bw_mbs" 'BEGIN { printf "%.4f", b * 8 / 1000 }')
echo "TERN_WAIT=$TERN_WAIT, $ranks ranks; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "calibration: one-way latency $lat_us us (8 B), bandwidth $bw_mbs MB/s (4 MiB)"
echo "  -> each of a path's 2 links: lat = $link_lat ns, bw = $link_bw Gbit/s"

printf '\n| job | trace job time (us) | replay (us) | error | trace msg p50 (us) | replay (us) | error |\n' \
    | tee "$out/table.md"
printf '|---|---|---|---|---|---|---|\n' | tee -a "$out/table.md"
for prog in tern_latency tern_bw tern_allreduce tern_alltoall; do
    t=$out/$prog.trace
    rm -rf "$t" && mkdir -p "$t"
    TERN_TRACE=$t "$bin/tern-run" -n "$ranks" --netns "$job_nodes" "$bin/$prog" -m 1024:65536 -t 0.05 \
        >"$out/$prog.out"
    "$sim" --replay "$t" --topo fattree --k 4 --n 1 --lat "$link_lat" --bw "$link_bw" \
        --eager 65536 --out "$out/$prog.sim" >"$out/$prog.sim.log"
    awk -v job="$prog" '
        /job time:/    { js = $4; jt = $7; je = $10 }
        /message p50:/ { ms = $4; mt = $7; me = $10 }
        END { printf "| %s | %s | %s | %s %% | %s | %s | %s %% |\n", job, jt, js, je, mt, ms, me }' \
        "$out/$prog.sim/replay.txt" | tee -a "$out/table.md"
done
echo
echo "targets: job time within +-15 %, message-time median within +-20 %"
echo "files in $out"

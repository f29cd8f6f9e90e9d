#!/usr/bin/env bash
# tern-sim's honesty check (docs/sim.md, "Honesty: a replay against the run
# it came from"): how close does a replay come to the run it was traced
# from?
#
#   bench/sim_honesty.sh [BUILD_DIR] [OUT_DIR]     (root: it makes namespaces)
#   env: TERN_WAIT       (block) how a waiting rank waits, in every run
#        HONESTY_LEAVES  (2) leaves of the two-level tree; 0: one bridge
#        HONESTY_NODES   (8) namespaces
#        HONESTY_RANKS   ("2 4 8") the traced jobs' sizes, one rank a
#                        namespace, a calibration and a table each
#        HONESTY_PROGS   (tern_latency tern_bw tern_halo tern_allreduce
#                        tern_alltoall)
#        HONESTY_LINK    (wire) the leaf-spine links: wire, tern-wire
#                        (every frame serialised, then delayed; here
#                        100mbit, 100us, a queue of 1s); tbf, tc's token
#                        bucket (400mbit, a bucket of 1600 B, 200ms)
#        TN_TREE_RATE, TN_TREE_DELAY, TN_TREE_QUEUE, TN_TREE_BURST  the
#                        leaf-spine links (tests/net/netns_cluster.sh)
#
#  1. a test cluster of HONESTY_NODES network namespaces on a two-level
#     tree (tests/net/netns_cluster.sh tree: node i on leaf i % LEAVES,
#     the leaf-spine links emulated by tern-wire or rate-limited by tc),
#     or on one bridge;
#  2. for each job size R, calibration with Tern's own benchmarks on R
#     ranks in R namespaces (ranks 0 and 1 measure while the others wait
#     in the benchmark's collectives, as in the traced tern_latency and
#     tern_bw): tern_latency (one-way, the median of 3 runs of 8..64
#     bytes) and tern_bw (the median of 1, 2, 4 MiB), ranks 0 and 1 on one
#     leaf (n0, n<LEAVES>, then the job's others) and on two (the job's
#     own n0..n<R-1>);
#     And a busy latency: tern_halo's time per exchange (the median of
#     8..64 bytes) on the job's R ranks, while every rank sends and
#     receives at once, as in a collective;
#  3. the simulated fabric, a graph file of the same tree (tree.R.graph):
#     a path inside a leaf is two host links, so each is half the leaf's
#     one-way latency at its bandwidth; a path across is two host links
#     and two leaf-spine links, so each leaf-spine link is half the extra
#     latency (not below 0) at the measured cross-leaf bandwidth; with
#     tern-wire's links, switches that store a frame (store_forward 1514:
#     a 1500-byte MTU's frame and its Ethernet header); links that serve
#     messages first come, first served (share fifo), as a FIFO queue
#     does messages that arrive as bursts of frames;
#  4. R-rank jobs traced (TERN_TRACE) on n0..n<R-1>, one rank each, 1 KiB
#     .. 64 KiB, 0.05 s a size: tern_latency and tern_bw (ranks 0 and 1,
#     on two leaves, exchange point-to-point messages; the others join the
#     control collectives), tern_halo (every rank exchanges with both ring
#     neighbours, all across the spine on 2 leaves), tern_allreduce,
#     tern_alltoall (collectives only: their calls are timed instead);
#  5. each trace replayed in tern-sim on tree.R.graph, its collectives
#     expanded by Tern's own code (tern-coll-plan), their reductions and
#     local copies at the speeds tern_local measures on one rank (the
#     median over 1..64 KiB, the jobs' sizes: coll_op_bw, coll_copy_bw),
#     and again with the
#     host model (docs/sim.md "Hosts", cpu_charge wait): every message
#     holds a core O us at each end, and with tern-wire every frame of a
#     message (1472 bytes) costs its receiver the forwarders' core time
#     per frame on each leaf-spine link it crosses (cpu_fwd: their CPU
#     time over the frames they forwarded during the busy latency's run),
#     the R ranks share the machine's C
#     cores (nproc), and a message waits when its end finds no core free
#     (the graph's latencies, measured by ping-pongs, hold the work of an
#     uncontended one).  O is fitted (bisection, up to the busy latency) so
#     that the replay of the busy latency's tern_halo run, traced, takes
#     as long as that run did;
#  6. a table per size of job time and message-time median (for a job of
#     collectives only, the median of its collective calls, "calls"),
#     trace against replay (error = (replay - trace) / trace), the host
#     model's errors in two more columns, and the message medians per
#     size (sizes.R.txt).
# Nothing here is a test: the figures depend on the machine and its load
# (printed before and after).  The cluster is removed on exit.
set -euo pipefail
# two cores shared by the ranks: a rank that waits sleeps (docs/tuning:
# TERN_WAIT); calibration and traced runs alike
export TERN_WAIT=${TERN_WAIT:-block}
leaves=${HONESTY_LEAVES:-2}
nodes_n=${HONESTY_NODES:-8}
sizes=${HONESTY_RANKS:-2 4 8}
progs=${HONESTY_PROGS:-tern_latency tern_bw tern_halo tern_allreduce tern_alltoall}
export TN_TREE_LINK=${HONESTY_LINK:-wire}
if [[ $TN_TREE_LINK == wire ]]; then
    export TN_TREE_RATE=${TN_TREE_RATE:-100mbit} TN_TREE_DELAY=${TN_TREE_DELAY:-100us}
    export TN_TREE_QUEUE=${TN_TREE_QUEUE:-1s}
fi

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=${2:-$(mktemp -d /tmp/sim_honesty.XXXXXX)}
mkdir -p "$out"
prefix=tnh$$
cluster=$top/tests/net/netns_cluster.sh
bin=$build/bin
export TN_WIRE=$bin/tern-wire TN_WIRE_LOG=$out/wire.log
rm -f "$TN_WIRE_LOG"
sim=$bin/tern-sim
for s in $sizes; do
    if ((s < 2 || s > nodes_n)); then
        echo "HONESTY_RANKS: $s ranks on $nodes_n nodes (2..$nodes_n)" >&2
        exit 2
    fi
done
if ((leaves == 1 || leaves >= nodes_n)); then
    echo "HONESTY_LEAVES=$leaves: want 0 (one bridge) or 2 .. HONESTY_NODES - 1" >&2
    exit 2
fi

cleanup() { "$cluster" down "$prefix" >/dev/null 2>&1 || true; }
trap cleanup EXIT
if ((leaves > 0)); then
    "$cluster" tree "$prefix" "$nodes_n" "$leaves" >/dev/null
else
    "$cluster" up "$prefix" "$nodes_n" 1 >/dev/null
fi
IFS=, read -r -a ns <<<"$("$cluster" nodes "$prefix")"
mid=$((leaves > 0 ? leaves : 1))    # n<mid>: on n0's leaf, the nearest other node
cores=$(nproc)
# tern-wire's switches store a whole frame before sending it on (a
# 1500-byte MTU's, with its Ethernet header); tc's bucket passes a lone
# frame at once
sf=0
if [[ $TN_TREE_LINK == wire ]]; then sf=1514; fi

# fwd_sample: "ns frames": the CPU time the switch namespace's forwarders
# (tern-wire) have used so far (schedstat), and the frames they have
# written into their TAP devices (rx_packets); "0 0" without tern-wire
fwd_sample() {
    if [[ $TN_TREE_LINK != wire ]]; then
        echo "0 0"
        return
    fi
    local ns=0 frames p
    for p in $(ip netns pids "$prefix-sw"); do
        ns=$((ns + $(cut -d' ' -f1 "/proc/$p/schedstat" 2>/dev/null || echo 0)))
    done
    frames=$(ip netns exec "$prefix-sw" sh -c 'cat /sys/class/net/up*/statistics/rx_packets \
             /sys/class/net/dn*/statistics/rx_packets' | awk '{ s += $1 } END { print s + 0 }')
    echo "$ns $frames"
}

# 2: calibration on the job's own namespaces and rank count (ranks 0 and 1
# measure, the others wait in the benchmark's collectives, as in the traced
# tern_latency and tern_bw); prints "one-way-us MB/s", the medians of
# 3 runs of 8..64 bytes and of 1..4 MiB
calibrate() {
    local list=$1 name=$2 r k
    r=$(tr ',' '\n' <<<"$list" | wc -l)
    for k in 1 2 3; do
        "$bin/tern-run" -n "$r" --netns "$list" "$bin/tern_latency" -m 8:64 -t 0.1
    done >"$out/latency.$name.txt"
    "$bin/tern-run" -n "$r" --netns "$list" "$bin/tern_bw" -m 1M:4M -t 0.3 >"$out/bw.$name.txt"
    echo "$(median "$out/latency.$name.txt")" "$(median "$out/bw.$name.txt")"
}
# median FILE: the median of the second column of a benchmark's lines
median() {
    awk '!/^#/ { print $2 }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'
}

# 3: the simulated fabric for the calibration figures $1..$4 (near us,
# near MB/s, far us, far MB/s), written to $5; sets host_* and spine_*
fabric() {
    host_lat=$(awk -v l="$1" 'BEGIN { printf "%.1f", l * 1000 / 2 }')
    host_bw=$(awk -v b="$2" 'BEGIN { printf "%.4f", b * 8 / 1000 }')
    spine_lat=$(awk -v n="$1" -v f="$3" 'BEGIN { d = (f - n) * 1000 / 2; printf "%.1f", (d > 0 ? d : 0) }')
    spine_bw=$(awk -v b="$4" 'BEGIN { printf "%.4f", b * 8 / 1000 }')
    local i j
    {
        echo "graph 1"
        echo "# bench/sim_honesty.sh: $nodes_n nodes, $leaves leaves (0: one switch), node i on leaf i % leaves"
        echo "switch spine"
        for ((j = 0; j < mid; j++)); do echo "switch leaf$j"; done
        for ((i = 0; i < nodes_n; i++)); do echo "endpoint h$i"; done
        for ((i = 0; i < nodes_n; i++)); do echo "link h$i leaf$((i % mid)) $host_bw $host_lat"; done
        for ((j = 0; j < leaves; j++)); do echo "link leaf$j spine $spine_bw $spine_lat"; done
        # one bridge: a spine that no path uses (a graph is connected)
        if ((leaves == 0)); then echo "link leaf0 spine $host_bw 0"; fi
    } >"$5"
}

# hosts O: the host model's keys for O us of a core a message end, and
# the forwarders' core time per frame on each leaf-spine link (cpu_fwd)
hosts() {
    echo --cpu_o "$(awk -v o="$1" 'BEGIN { print o * 1000 }')" --cpu_cores "$cores" --cpu_share all \
        --cpu_charge wait --cpu_fwd "$cpu_fwd" --cpu_frame 1472
}

# fit_o TRACE DIR GRAPH: the O (us) whose replay of TRACE on GRAPH with
# the host model takes the traced job time, by bisection (12 steps)
fit_o() {
    local lo=0 hi=$lat_busy om k line
    for ((k = 0; k < 12; k++)); do
        om=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.4f", (a + b) / 2 }')
        # shellcheck disable=SC2046  # hosts prints separate words
        "$sim" --replay "$1" --topo graph --graph "$3" --eager 65536 --store_forward "$sf" --share fifo \
            "${work[@]}" $(hosts "$om") --out "$2.sim" >/dev/null
        line=$(grep 'job time:' "$2.sim/replay.txt")
        if echo "$line" | awk '{ exit !($4 < $7) }'; then     # "job time: sim S us trace T us ..." 
            lo=$om
        else
            hi=$om
        fi
    done
    awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.3f", (a + b) / 2 }'
}

if [[ $TN_TREE_LINK == wire ]]; then
    links="tern-wire ${TN_TREE_RATE}, delay ${TN_TREE_DELAY}, queue ${TN_TREE_QUEUE}"
else
    links="tbf ${TN_TREE_RATE:-400mbit}, delay ${TN_TREE_DELAY:-none}, bucket ${TN_TREE_BURST:-1600} B, queue ${TN_TREE_QUEUE:-200ms}"
fi
echo "TERN_WAIT=$TERN_WAIT; $nodes_n nodes, $leaves leaves (0: one bridge); leaf-spine: $links"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# a first job on the new cluster, discarded
"$bin/tern-run" -n 2 --netns "${ns[0]},${ns[1]}" "$bin/tern_latency" -m 8:64 -t 0.1 >/dev/null
# the collectives' own work: reduction and copy speed (Gbit/s), one rank,
# the median over the jobs' sizes
"$bin/tern-run" -n 1 "$bin/tern_local" -m 1024:65536 -t 0.1 >"$out/local.txt"
op_bw=$(awk '!/^#/ { print $2 }' "$out/local.txt" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
copy_bw=$(awk '!/^#/ { print $4 }' "$out/local.txt" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "collectives' own work (tern_local, 1..64 KiB): reductions $op_bw Gbit/s, copies $copy_bw Gbit/s"
work=(--coll_op_bw "$op_bw" --coll_copy_bw "$copy_bw")
for ranks in $sizes; do
    job=("${ns[@]:0:ranks}")
    far=$(IFS=,; echo "${job[*]}")
    # n0, n<mid> (ranks 0 and 1 on one leaf), then the job's others
    near=$(printf '%s\n' "${ns[0]}" "${ns[mid]}" "${job[@]:1}" |
        awk -v n="$ranks" '!seen[$0]++ && c++ < n' | paste -sd,)
    read -r lat_near bw_near < <(calibrate "$near" "near.$ranks")
    if ((leaves > 0)); then
        read -r lat_far bw_far < <(calibrate "$far" "far.$ranks")
    else
        lat_far=$lat_near bw_far=$bw_near
    fi
    # the busy latency: an exchange's time while every rank sends and
    # receives at once (tern_halo, 8..64 bytes, median; on R ranks)
    # (traced: the host model's core time is fitted to this run, below)
    # (and the forwarders' core time per frame, over the same run)
    rm -rf "$out/halo.busy.$ranks.trace" && mkdir -p "$out/halo.busy.$ranks.trace"
    read -r fwd_ns0 fwd_fr0 < <(fwd_sample)
    TERN_TRACE=$out/halo.busy.$ranks.trace "$bin/tern-run" -n "$ranks" --netns "$far" \
        "$bin/tern_halo" -m 8:64 -t 0.2 >"$out/halo.busy.$ranks.txt"
    read -r fwd_ns1 fwd_fr1 < <(fwd_sample)
    cpu_fwd=$(awk -v c=$((fwd_ns1 - fwd_ns0)) -v f=$((fwd_fr1 - fwd_fr0)) \
        'BEGIN { printf "%.0f", (f > 0 ? c / f : 0) }')
    lat_busy=$(median "$out/halo.busy.$ranks.txt")
    graph=$out/tree.$ranks.graph
    fabric "$lat_near" "$bw_near" "$lat_far" "$bw_far" "$graph"
    # the host model: O us of a core per message end, fitted by bisection
    # so that the replay of the traced busy run takes as long as the run
    # (the replay's time grows with O: an uncontended ping-pong keeps its
    # latency, while ranks that send at once queue for the cores); between
    # 0 and the busy latency
    cpu_o=$(fit_o "$out/halo.busy.$ranks.trace" "$out/fit.$ranks" "$graph")
    table=$out/table.$ranks.md
    {
        echo
        echo "$ranks ranks; calibration ($ranks ranks): inside a leaf $lat_near us one-way, $bw_near MB/s;" \
             "across leaves $lat_far us, $bw_far MB/s; busy (tern_halo) $lat_busy us"
        echo "  -> host links $host_lat ns, $host_bw Gbit/s; leaf-spine links $spine_lat ns, $spine_bw Gbit/s;" \
             "store_forward $sf; hosts: $cpu_o us a message end on $cores cores," \
             "forwarding $cpu_fwd ns a frame a leaf-spine link"
        echo
        echo "| job | trace job time (us) | replay (us) | error | trace p50 (us) | replay (us) | error |" \
             "hosts: job error | p50 error |"
        echo "|---|---|---|---|---|---|---|---|---|"
    } | tee "$table"
    for prog in $progs; do
        t=$out/$prog.$ranks.trace
        rm -rf "$t" && mkdir -p "$t"
        TERN_TRACE=$t "$bin/tern-run" -n "$ranks" --netns "$far" "$bin/$prog" -m 1024:65536 -t 0.05 \
            >"$out/$prog.$ranks.out"
        "$sim" --replay "$t" --topo graph --graph "$graph" --eager 65536 --store_forward "$sf" --share fifo \
            "${work[@]}" --out "$out/$prog.$ranks.tree.sim" >"$out/$prog.$ranks.tree.sim.log"
        # shellcheck disable=SC2046  # hosts prints separate words
        "$sim" --replay "$t" --topo graph --graph "$graph" --eager 65536 --store_forward "$sf" --share fifo \
            "${work[@]}" $(hosts "$cpu_o") --out "$out/$prog.$ranks.hosts.sim" >"$out/$prog.$ranks.hosts.sim.log"
        # the message median, or for a job of collectives only the
        # collective calls' median (marked "calls")
        # (for tern_allreduce and tern_alltoall: the median of their own
        # kind's calls, not of the benchmark's control barriers and reductions)
        kind=${prog#tern_}
        awk -v job="$prog" -v kind="calls $kind p50:" '
            FNR == 1                       { f++ }
            /job time:/                    { js[f] = $4; jt = $7; je[f] = $10 " %" }
            /message p50:/ && NF >= 10     { ms[f] = $4; mt = $7; me[f] = $10 " %" }
            index($0, kind) && NF >= 11    { cs[f] = $5; ct = $8; ce[f] = $11 " %" }
            END {
                if (mt == "" && ct != "") {
                    job = job " (calls)"; mt = ct; ms[1] = cs[1]; me[1] = ce[1]; me[2] = ce[2]
                }
                printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", job, jt, js[1], je[1],
                       mt == "" ? "-" : mt, ms[1] == "" ? "-" : ms[1], me[1] == "" ? "-" : me[1],
                       je[2], me[2] == "" ? "-" : me[2]
            }' \
            "$out/$prog.$ranks.tree.sim/replay.txt" "$out/$prog.$ranks.hosts.sim/replay.txt" | tee -a "$table"
    done
    # where the medians come from: per message size, trace against replay
    for prog in $progs; do
        python3 - "$out/$prog.$ranks.tree.sim/replay_msgs.csv" "$prog" <<'EOF'
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault(int(r["bytes"]), []).append((float(r["trace_ns"]), float(r["sim_ns"])))
if by:
    print("  %s message p50 by size (us, trace/replay):" % sys.argv[2], " ".join(
        "%d:%.4g/%.4g" % (b, statistics.median(t for t, _ in v) / 1e3, statistics.median(s for _, s in v) / 1e3)
        for b, v in sorted(by.items()) if len(v) >= 10))
EOF
    done | tee "$out/sizes.$ranks.txt"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "targets: job time within +-15 %, message-time median within +-20 %"
echo "files in $out"

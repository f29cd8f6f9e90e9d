#!/usr/bin/env bash
# What tern-sim's heatmaps (docs/sim.md, "Heatmaps") cost the engines:
# runs each workload with heatmap = off and on, alternating, REPS times,
# and prints the engine's seconds of each run (wall, and CPU: the flow
# engine's own; at packet level the whole command's), the medians and
# the ratio on / off.
#   - flow: bench/sim_flow_scale.sh's all-to-all (114 582-endpoint
#     dragonfly, a=26 p=13 h=13, minimal, 64 KiB, PHASES pairwise phases);
#   - flow-open: the open loop of the sweep in docs/sim.md at 0.2 (4-ary
#     3-tree, 64 endpoints, uniform, 64 KiB), 200 ms: many small rate
#     updates, the heatmaps' worst case relative to the engine's work;
#   - packet: test_sim_packet's pkt-fattree-uniform (8-ary 3-tree, 512
#     endpoints, uniform random one-MTU messages at offered 1.0, 250 us).
#
#   bench/sim_heat_cost.sh [TERN_SIM [BASE_TERN_SIM]]   (default build/bin/tern-sim)
#   REPS=3 PHASES=16 bench/sim_heat_cost.sh
#
# BASE_TERN_SIM, a build without the heatmaps, runs as a third column
# (what "off" costs against no code at all).  One core per run; on a
# shared machine the figures move with the load: compare medians.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/tern-sim}
base=${2:-}
reps=${REPS:-3}
phases=${PHASES:-16}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flow=(--topo dragonfly --a 26 --p 13 --h 13 --route minimal --pattern alltoall --phases "$phases"
      --size 65536)
open=(--topo fattree --k 4 --n 3 --mode open --pattern uniform --load 0.2 --size 65536
      --warmup 500000 --time 200000000)
pkt=(--topo fattree --k 8 --n 3 --mode open --pattern uniform --load 1.0 --size 4096 --warmup 50000
     --time 250000 --seed 1 --fidelity packet)

# seconds of one run: "W C", the engine's wall time and CPU time (flow:
# tern-sim's own figures; packet: it prints wall time only, so C is the
# whole command's user + system time, set-up and output included)
secs() {
    local bin=$1
    shift
    /usr/bin/time -f "cmd %U %S" -o "$out/time" "$bin" "$@" --out "$out/r" > "$out/stdout"
    cat "$out/stdout" "$out/time" | awk '
        /^events:/ { for (i = 1; i <= NF; i++) { if ($i == "wall," && w == "") w = $(i-2); if ($i == "CPU:") c = $(i-2) } }
        /^packets:/ { for (i = 1; i <= NF; i++) if ($i == "wall:") w = $(i-2) }
        /^cmd / { cmd = $2 + $3 }
        END { print w, (c != "" ? c : cmd) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

measure() {
    local name=$1
    shift
    local cols="off on" runs=""
    if [ -n "$base" ]; then
        cols="base off on"
    fi
    : > "$out/$name.txt"
    for ((i = 1; i <= reps; i++)); do
        for c in $cols; do
            local s
            case $c in
            base) s=$(secs "$base" "$@") ;;
            off) s=$(secs "$sim" "$@" --heatmap off) ;;
            on) s=$(secs "$sim" "$@" --heatmap on) ;;
            esac
            echo "$c $s" >> "$out/$name.txt"
            runs="$runs $c=${s// //}"
        done
    done
    echo "$name runs (engine s, wall/CPU):$runs"
    local line="$name medians:"
    for c in $cols; do
        local w cpu
        w=$(awk -v c="$c" '$1 == c { print $2 }' "$out/$name.txt" | median)
        cpu=$(awk -v c="$c" '$1 == c { print $3 }' "$out/$name.txt" | median)
        line="$line $c $w s wall, $cpu s CPU;"
        eval "w_$c=$w; c_$c=$cpu"
    done
    echo "$line on/off $(awk -v a="$w_on" -v b="$w_off" 'BEGIN { printf "%.3f", a / b }') wall," \
         "$(awk -v a="$c_on" -v b="$c_off" 'BEGIN { printf "%.3f", a / b }') CPU"
}

echo "tern-sim heatmap cost, $reps runs each, alternating"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) on $(nproc) cores"
measure flow "${flow[@]}"
measure flow-open "${open[@]}"
measure packet "${pkt[@]}"

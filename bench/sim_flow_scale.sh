#!/usr/bin/env bash
# tern-sim's flow-level engine at scale (docs/sim.md, "Performance"): a
# 114 582-endpoint balanced dragonfly (a = 26 routers per group, p = 13
# endpoints per router, h = 13 global links per router, 339 groups), one
# job on every endpoint, replaying
#   - an all-to-all as pairwise-exchange phases (phase k: rank r sends to
#     r + k once its phase k-1 send is done and its phase k-1 message has
#     arrived), PHASES of them;
#   - a 3-D halo exchange (6 neighbours on a 113x39x26 periodic rank grid),
#     ITERS iterations, each waiting for the previous one's messages;
# with 64 KiB messages, and prints for each the flow events (a flow start
# or a flow end) per second of wall-clock and of CPU time, as tern-sim
# reports them (the engine's run only: building the fabric and writing
# the results are not counted), and the wall time of the whole command.
#
#   bench/sim_flow_scale.sh [TERN_SIM]      (default build/bin/tern-sim)
#   ROUTE=ugal PHASES=16 ITERS=2 SIZE=65536 bench/sim_flow_scale.sh
#
# One core; a few seconds per run.  On a machine shared with other work
# the figures drop with the load: say what else ran when you quote them.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/tern-sim}
route=${ROUTE:-minimal}
phases=${PHASES:-16}
iters=${ITERS:-2}
size=${SIZE:-65536}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fabric=(--topo dragonfly --a 26 --p 13 --h 13 --route "$route")

run() {
    local name=$1
    shift
    local t0 t1 line
    t0=$(date +%s.%N)
    line=$("$sim" "${fabric[@]}" "$@" --out "$out/$name" | grep '^events:')
    t1=$(date +%s.%N)
    # "events: A flow starts + B flow ends in W s wall, C s CPU: X events/s wall, Y per CPU second (...)"
    echo "$name: $(echo "$line" | sed -E 's/ \(queue.*//'); command $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
}

echo "tern-sim flow-level scale: dragonfly a=26 p=13 h=13 (114582 endpoints), routing $route," \
     "$size-byte messages"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) on $(nproc) cores"
run alltoall --pattern alltoall --phases "$phases" --size "$size"
run halo3d --pattern halo --grid 3d --iters "$iters" --size "$size"

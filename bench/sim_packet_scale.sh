#!/usr/bin/env bash
# tern-sim's packet-level engine at scale (docs/sim.md, "Packet-level
# performance"): a 16 384-endpoint three-level fat-tree of 32-port
# switches (--k 32 --n 3 --down 16 --up 16: 1024 leaves with 16
# endpoints and 16 up-links, 2048 switches), D-mod-k routing, one job on
# every endpoint sending uniform random messages open loop at LOAD of the
# line rate for TIME ns of simulated time (a short run: the fabric is not
# in steady state, the accepted load it prints is not a figure of merit).
# Prints the hop events (a packet reaching a switch or its destination
# endpoint) per second of wall-clock time as tern-sim reports them (the
# engine's run only), and the wall time of the whole command.
#
#   bench/sim_packet_scale.sh [TERN_SIM]     (default build/bin/tern-sim)
#   LOAD=0.5 TIME=50000 SIZE=4096 CC=dcqcn bench/sim_packet_scale.sh
#
# One core; a few seconds.  On a machine shared with other work the
# figures drop with the load: say what else ran when you quote them.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${1:-build/bin/tern-sim}
load=${LOAD:-0.8}
time_ns=${TIME:-20000}
size=${SIZE:-65536}
cc=${CC:-none}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "tern-sim packet-level scale: fat-tree k=32 n=3 down=16 up=16 (16384 endpoints), dmodk," \
     "uniform random, $size-byte messages, load $load, $time_ns ns simulated, cc $cc"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) on $(nproc) cores"
t0=$(date +%s.%N)
line=$("$sim" --topo fattree --k 32 --n 3 --down 16 --up 16 --mode open --pattern uniform \
    --load "$load" --size "$size" --time "$time_ns" --warmup $((time_ns / 4)) --fidelity packet \
    --cc "$cc" --out "$out/run" | grep 'packets:')
t1=$(date +%s.%N)
echo "uniform: $line; command $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"

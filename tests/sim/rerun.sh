#!/bin/sh
# A tern-sim run repeated from the config.txt it wrote gives the same
# files, byte for byte: a batch run of two jobs (random mapping, Valiant's
# random groups, seeded), an open-loop sweep and a packet-level run, the
# heatmaps (heatmap = on: config.txt carries it) included.
#   rerun.sh TERN_SIM WORKDIR
set -eu
sim=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
"$sim" --topo dragonfly --a 4 --p 2 --h 2 --route valiant --seed 7 \
       --pattern uniform --ranks 40 --map random --count 20 --window 4 --size 100000 \
       --job --pattern halo --grid 4x8 --iters 3 --map alt-switch --delay 500 \
       --heatmap on --out "$dir/a" > "$dir/a.log"
"$sim" --config "$dir/a/config.txt" --out "$dir/b" > "$dir/b.log"
diff -r "$dir/a" "$dir/b"
"$sim" --topo fattree --k 4 --n 2 --route ecmp --mode open --pattern uniform --time 300000 \
       --warmup 50000 --sweep 0.2,0.6,0.9 --out "$dir/c" > "$dir/c.log"
"$sim" --config "$dir/c/config.txt" --out "$dir/d" > "$dir/d.log"
diff -r "$dir/c" "$dir/d"
# the packet engine under DCQCN (ECN marks are random) on a torus (2 VCs)
"$sim" --topo torus --dims 4x4 --mode open --pattern uniform --load 0.9 --time 100000 \
       --warmup 20000 --fidelity packet --cc dcqcn --ecn_kmin 2000 --ecn_kmax 20000 --heatmap on \
       --out "$dir/p" > "$dir/p.log"
"$sim" --config "$dir/p/config.txt" --out "$dir/q" > "$dir/q.log"
diff -r "$dir/p" "$dir/q"
# the heatmaps are among the files compared
for f in a/link_util.csv a/link_util_heatmap.svg p/link_util.csv p/queue.csv p/queue_heatmap.svg; do
    if [ ! -s "$dir/$f" ]; then
        echo "rerun.sh: no $f" >&2
        exit 1
    fi
done
# and a different seed gives a different run
"$sim" --config "$dir/a/config.txt" --seed 8 --out "$dir/e" > "$dir/e.log"
if cmp -s "$dir/a/fct.csv" "$dir/e/fct.csv"; then
    echo "rerun.sh: seed 8 gave seed 7's results" >&2
    exit 1
fi
echo "rerun.sh: identical outputs"

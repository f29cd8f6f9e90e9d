#!/bin/sh
# bench/sim_sweep.sh and bench/sim_sweep.sbatch: three offered loads as
# separate processes merged into sweep.csv (one row per load, accepted at
# most the measured offered load plus noise, in load order), and the Slurm
# array script's task 1 (SLURM_ARRAY_TASK_ID set by hand, as Slurm would)
# writing the same point byte for byte.
set -eu
SRC=$1 BUILD=$2 OUT=$3
rm -rf "$OUT"
ARGS="--topo fattree --k 4 --n 2 --pattern uniform --time 200000 --warmup 50000"
# shellcheck disable=SC2086
"$SRC/bench/sim_sweep.sh" -b "$BUILD" -j 2 "$OUT/a" "0.9 0.2 0.5" $ARGS
rows=$(tail -n +2 "$OUT/a/sweep.csv" | wc -l)
[ "$rows" -eq 3 ] || { echo "sweep: $rows rows"; exit 1; }
tail -n +2 "$OUT/a/sweep.csv" | awk -F, '
  NR == 1 && $1 != 0.2 { bad = 1 } NR == 3 && $1 != 0.9 { bad = 1 }
  $3 <= 0 || $3 > $2 * 1.05 { bad = 1 }
  END { exit bad }' || { echo "sweep: bad rows"; cat "$OUT/a/sweep.csv"; exit 1; }
# shellcheck disable=SC2086
SLURM_ARRAY_TASK_ID=1 LOADS="0.2 0.5 0.9" OUT="$OUT/b" B="$BUILD" \
  "$SRC/bench/sim_sweep.sbatch" $ARGS > /dev/null
cmp "$OUT/a/load_0.5/summary.txt" "$OUT/b/load_0.5/summary.txt" ||
  { echo "sweep: the array task's point differs"; exit 1; }
echo "sim sweep: ok"

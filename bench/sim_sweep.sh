#!/usr/bin/env bash
# An open-loop load sweep of tern-sim as separate processes: one run per
# offered load, as many at once as there are cores (docs/sim.md "Sweeps").
#   bench/sim_sweep.sh [-b BUILD] [-j N] OUTDIR "0.1 0.5 0.9" TERN-SIM-ARGS...
#   bench/sim_sweep.sh --merge OUTDIR
# Each point runs `tern-sim ARGS --mode open --load L --out OUTDIR/load_L`
# (its config.txt repeats it alone); the merge reads every point's
# summary.txt into OUTDIR/sweep.csv (job 0: offered, measured offered,
# accepted, completion time p50 and p99 in ns).  Under Slurm,
# bench/sim_sweep.sbatch runs the points as a job array and merges at the
# end.
set -euo pipefail
B=build
J=$(nproc)
merge() {
  local out=$1
  echo "offered,offered_measured,accepted,fct_p50_ns,fct_p99_ns" > "$out/sweep.csv"
  for d in "$out"/load_*; do
    [ -f "$d/summary.txt" ] || { echo "sim_sweep: $d has no summary.txt" >&2; return 1; }
    awk '
      /^job 0:/ { j = 1; next } /^job [1-9]/ { j = 0 }
      j && /offered load/ { off = $3; meas = $5; sub(/\)?,$/, "", meas); acc = $NF }
      j && /completion time/ { for (i = 1; i <= NF; i++) { if ($i == "p50") p50 = $(i+1); if ($i == "p99") p99 = $(i+1) } }
      END { if (off == "") exit 1; printf "%s,%s,%s,%s,%s\n", off, meas, acc, p50, p99 }
    ' "$d/summary.txt"
  done | sort -t, -k1,1g >> "$out/sweep.csv"
  echo "sim_sweep: $out/sweep.csv"
}
if [ "${1:-}" = "--merge" ]; then
  merge "$2"
  exit
fi
while [ $# -gt 0 ]; do
  case $1 in
    -b) B=$2; shift 2 ;;
    -j) J=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { sed -n 2,12p "$0"; exit 2; }
OUT=$1 LOADS=$2
shift 2
mkdir -p "$OUT"
for l in $LOADS; do
  echo "$l"
done | xargs -P "$J" -I{} "$B/bin/tern-sim" "$@" --mode open --load {} --out "$OUT/load_{}" >/dev/null
merge "$OUT"

#!/usr/bin/env bash
# Run one command (srun, sbatch) on a cluster made by slurm_cluster.sh and
# check how it ended:
#
#   slurm_check.sh PREFIX RC SECONDS [--mpi NAME] [--want REGEX]... -- CMD...
#
# RC is 0, nonzero (any exit status but 0 and the timeout's 124), or a
# number.  SECONDS bounds the command (a hang fails the test).  Every
# --want is an extended regular expression that the output (stdout and
# stderr together) must match.  --mpi NAME: skip (77) unless srun lists
# that MPI plugin.  Prints the output, then "slurm_check: ok" or why not;
# exits 0 when ok, 77 to skip (not root, no Slurm, no such plugin), else 1.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:?PREFIX}
want_rc=${2:?RC}
limit=${3:?SECONDS}
shift 3
wants=()
mpi=""
while [ $# -gt 0 ]; do
    case $1 in
    --want) wants+=("$2"); shift 2 ;;
    --mpi) mpi=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "slurm_check: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" -ne 0 ] || ! command -v srun >/dev/null; then
    echo "slurm_check: needs root and Slurm: skipped"
    exit 77
fi
cluster="$here/slurm_cluster.sh"
if [ -n "$mpi" ] && ! "$cluster" exec "$prefix" srun --mpi=list 2>&1 | grep -qw "$mpi"; then
    echo "slurm_check: srun has no --mpi=$mpi plugin: skipped"
    exit 77
fi
t0=$(date +%s%N)
out=$("$cluster" exec "$prefix" timeout "$limit" "$@" 2>&1)
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
printf '%s\n' "$out"
echo "slurm_check: exit status $rc after $ms ms"
if [ "$rc" -eq 124 ]; then
    echo "slurm_check: FAILED: still running after $limit s"
    exit 1
fi
case $want_rc in
0) [ "$rc" -eq 0 ] || { echo "slurm_check: FAILED: exit status $rc, wanted 0"; exit 1; } ;;
nonzero) [ "$rc" -ne 0 ] || { echo "slurm_check: FAILED: exit status 0, wanted nonzero"; exit 1; } ;;
*) [ "$rc" -eq "$want_rc" ] || { echo "slurm_check: FAILED: exit status $rc, wanted $want_rc"; exit 1; } ;;
esac
for re in "${wants[@]}"; do
    if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
        echo "slurm_check: FAILED: no line matches /$re/"
        exit 1
    fi
done
echo "slurm_check: ok"

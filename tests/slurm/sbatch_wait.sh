#!/bin/sh
# sbatch_wait.sh SCRIPT [ARGS...]: submit SCRIPT with sbatch and the
# options in TN_SBATCH_OPTS, its output into a file of the cluster's shared
# directory (TN_SLURM_SHARE, set by slurm_cluster.sh exec), wait for the
# job to end, print its output; the exit status is the job's.
#
# It polls scontrol every 50 ms rather than using sbatch --wait, which
# sleeps 2 s, then 8 s more, between its looks (a job of one second took
# ten).  The caller bounds the wait (slurm_check.sh's timeout).
set -u
out=$(mktemp -p "${TN_SLURM_SHARE:?run me through slurm_cluster.sh exec}" sbatch.XXXXXX) || exit 1
# shellcheck disable=SC2086
id=$(sbatch --parsable ${TN_SBATCH_OPTS:-} -o "$out" "$@") || exit 1
id=${id%%;*}
echo "sbatch_wait: job $id"
while :; do
    info=$(scontrol -o show job "$id") || exit 1
    case $info in
    *" JobState=PENDING "*|*" JobState=RUNNING "*|*" JobState=CONFIGURING "*|*" JobState=COMPLETING "*)
        sleep 0.05 ;;
    *) break ;;
    esac
done
cat "$out"
state=$(printf '%s\n' "$info" | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')
code=$(printf '%s\n' "$info" | sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\) .*/\1 \2/p')
echo "sbatch_wait: job $id ended $state, exit code ${code% *}, signal ${code#* }"
[ "$state" = COMPLETED ] && [ "${code% *}" = 0 ] && exit 0
rc=${code% *}
[ "${rc:-0}" -ne 0 ] && exit "$rc"
exit 1

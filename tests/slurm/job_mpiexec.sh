#!/bin/sh
# A batch script (or a command for salloc) for the tests of tern-run inside
# an allocation: says where it runs, runs its arguments (mpiexec ...), then
# checks that nothing of the job is left on any node (job_left.py beside
# this script; sbatch runs a copy of the script, so TN_JOB_LEFT names it
# there) before Slurm's own clean-up at the job's end could hide it.
# Exit status: that of the command, or 99 when something was left.
left=${TN_JOB_LEFT:-$(dirname "$0")/job_left.py}
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST ($SLURM_NTASKS tasks, ${SLURM_TASKS_PER_NODE} per node)"
"$@"
rc=$?
echo "job_mpiexec: exit status $rc"
python3 "$left" || exit 99
exit $rc

#!/bin/sh
# A batch script that times starting one program both ways inside its
# allocation: tern-run (mpiexec, proxies started by srun) and srun with
# Slurm's PMI-2, each REPS times (default 7) in turn, and prints the median
# and the range of each in milliseconds.
#   TN_SBATCH_OPTS="-N2 -n4" slurm_cluster.sh exec PREFIX sbatch_wait.sh \
#       job_launch_time.sh MPIEXEC N PROG [ARGS...]
# Every run must succeed (the job fails otherwise).  REPS from TN_REPS.
mpiexec=${1:?MPIEXEC}
n=${2:?N}
shift 2
reps=${TN_REPS:-7}
now() { date +%s%N; }
run() {
    t0=$(now)
    "$@" >/dev/null 2>&1 || { echo "failed: $*"; exit 1; }
    echo $(( ($(now) - t0) / 1000000 ))
}
a="" b=""
i=0
while [ "$i" -lt "$reps" ]; do
    a="$a $(run "$mpiexec" -n "$n" "$@")" || exit 1
    b="$b $(run srun -n "$n" --mpi=pmi2 "$@")" || exit 1
    i=$((i + 1))
done
stats() {
    # median, min, max of the words of $1
    echo $1 | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END {
        printf "median %d ms (min %d, max %d, %d runs)\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST, $n ranks: $*"
echo "mpiexec -n $n:            $(stats "$a")"
echo "srun -n $n --mpi=pmi2:    $(stats "$b")"

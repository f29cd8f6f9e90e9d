#!/bin/sh
# A batch script for the sbatch test: the allocation's nodes, then its
# arguments started by srun --mpi=pmi2 across the whole allocation.
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST ($SLURM_NTASKS tasks)"
exec srun --mpi=pmi2 "$@"

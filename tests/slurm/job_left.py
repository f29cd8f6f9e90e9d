#!/usr/bin/env python3
"""job_left.py: what is left of this Slurm job besides the caller.

Prints every live process whose environment has this job's SLURM_JOB_ID
(tern-run, its proxies and ranks, srun: all inherit it) on any node of a
slurm_cluster.sh cluster (one machine: /proc shows every node), other than
this process's ancestors (the batch script, salloc), zombies (waiting for
their parent to reap them: they run nothing) and Slurm's own slurmstepd.
Exit 0 and "job_left: nothing of job N left" when there is none, else 1.
"""
import os
import sys


def stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    comm = s[s.index("(") + 1:s.rindex(")")]
    rest = s[s.rindex(")") + 2:].split()
    return comm, rest[0], int(rest[1])      # name, state, parent


def main():
    job = os.environ.get("SLURM_JOB_ID")
    if not job:
        print("job_left: SLURM_JOB_ID is not set", file=sys.stderr)
        return 2
    mark = ("SLURM_JOB_ID=" + job).encode()
    mine = set()
    pid = os.getpid()
    while pid > 1:
        mine.add(pid)
        try:
            pid = stat(pid)[2]
        except OSError:
            break
    left = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in mine:
            continue
        pid = int(d)
        try:
            comm, state, _ = stat(pid)
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue                        # gone meanwhile, or a kernel thread
        if state == "Z" or comm == "slurmstepd" or mark not in env:
            continue
        left.append("%d %s %s" % (pid, state, cmd.strip()))
    for line in left:
        print("job_left: still there: " + line)
    if left:
        return 1
    print("job_left: nothing of job %s left" % job)
    return 0


if __name__ == "__main__":
    sys.exit(main())

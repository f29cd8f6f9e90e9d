#!/usr/bin/env bash
# A real Slurm cluster on one machine, for the tests: munged, slurmctld and
# one slurmd per node, each node a network namespace (tests/net/
# netns_cluster.sh).  Everything lives in a private directory; nothing of
# the system's own Slurm or munge (/etc/slurm, /run/munge) is used.
#
#   slurm_cluster.sh up PREFIX N       start a cluster of N nodes h0..h{N-1}
#   slurm_cluster.sh down PREFIX       stop it and remove everything it made
#   slurm_cluster.sh exec PREFIX CMD.. run CMD in the controller's namespace
#                                      with SLURM_CONF set (srun, sbatch, sinfo)
#                                      and TN_SLURM_SHARE (the shared scratch
#                                      directory)
#   slurm_cluster.sh dir PREFIX        print the private directory
#
# Layout: namespace PREFIX-n0 holds munged and slurmctld (10.1.k.1),
# PREFIX-n<i+1> holds slurmd of node h<i> (10.1.k.<i+2>), all on one bridge.
# The private directory (${TMPDIR:-/tmp}/tern-slurm-PREFIX, mode 0700)
# holds a munge key made for this cluster, munged's socket, pid, log and
# seed, slurm.conf, the controller's state, each slurmd's spool and log,
# and a scratch directory that jobs can share.  A batch job:
#   TN_SBATCH_OPTS="-N2 -n4" slurm_cluster.sh exec PREFIX sbatch_wait.sh JOB ARGS
# (sbatch_wait.sh beside this script: sbatch --wait, output into the
# shared directory, printed at the end; JOB is any script the nodes can
# read, job_srun.sh starts its arguments with srun --mpi=pmi2).
#
# slurm.conf: SlurmUser root, proctrack/linuxproc, task/none, no cgroups,
# no accounting, MpiDefault=none (a test says --mpi=pmi2 or pmix),
# KillOnBadExit=1 (a task that dies ends its step), 2 CPUs per node
# whatever the machine has (SlurmdParameters=config_overrides).
#
# "up" returns when every node is idle in sinfo (it polls, bounded by
# TN_SLURM_UP_TIMEOUT seconds, 60 by default) and says how long it took;
# it first removes a cluster of the same PREFIX that a killed run left.
# "down" ends the processes inside the cluster's namespaces and nothing
# else.  Needs root, ip(8), munged, slurmctld, slurmd, srun (exits 77,
# "skip", when something is missing).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../net/netns_cluster.sh
cmd=${1:?usage: slurm_cluster.sh up|down|exec|dir PREFIX ...}
prefix=${2:?PREFIX}
dir=${TMPDIR:-/tmp}/tern-slurm-$prefix
ctl=$prefix-n0

need() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "slurm_cluster: needs root (network namespaces, daemons)" >&2
        exit 77
    fi
    for p in ip munged mungekey munge slurmctld slurmd srun sinfo scontrol; do
        if ! PATH=$PATH:/usr/sbin:/sbin command -v "$p" >/dev/null; then
            echo "slurm_cluster: $p not found (scripts/deps.sh installs Slurm and munge)" >&2
            exit 77
        fi
    done
}

# poll until "$@" succeeds, at most $1 seconds; 0 when it did
wait_for() {
    local limit=$1 t0
    shift
    t0=$(date +%s%N)
    until "$@" >/dev/null 2>&1; do
        if [ $(( ($(date +%s%N) - t0) / 1000000000 )) -ge "$limit" ]; then
            return 1
        fi
        sleep 0.05
    done
}

in_ctl() {
    ip netns exec "$ctl" env SLURM_CONF="$dir/slurm.conf" TN_SLURM_SHARE="$dir/share" "$@"
}

# the pids of every process in the cluster's namespaces
cluster_pids() {
    local ns
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-n[0-9]+$" || true); do
        ip netns pids "$ns" 2>/dev/null || true
    done
}

down() {
    local pids p i
    pids=$(cluster_pids)
    if [ -n "$pids" ]; then
        for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
        # a second for them to go on SIGTERM; the state is thrown away anyway
        for ((i = 0; i < 20; i++)); do
            pids=$(cluster_pids)
            [ -z "$pids" ] && break
            sleep 0.05
        done
        for p in $(cluster_pids); do kill -KILL "$p" 2>/dev/null || true; done
    fi
    "$netns" down "$prefix"
    rm -rf "$dir"
}

# 0 when all n nodes are idle; 0 too, with dead=1, when a daemon we
# started has died (no use waiting for it)
dead=0
nodes_idle() {
    local n=$1 idle p
    for p in $daemons; do
        # gone, or a zombie (where pid 1 does not reap, a container's)
        if ! kill -0 "$p" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ]; then
            dead=1
            return 0
        fi
    done
    idle=$(in_ctl sinfo -h -N -o '%N %t' | awk '$2 == "idle"' | sort -u | wc -l)
    [ "$idle" -eq "$n" ]
}

write_conf() {
    local n=$1 host i last
    host=$(hostname -s)
    last=$((n - 1))
    cat > "$dir/slurm.conf" <<EOF
# written by tests/slurm/slurm_cluster.sh for cluster $prefix
ClusterName=tern${prefix//[^a-z0-9]/}
SlurmctldHost=$host($("$netns" addr "$prefix" 0))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/ctld/slurmctld.pid
SlurmdPidFile=$dir/spool/%n/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillOnBadExit=1
TmpFS=$dir/spool/%n/tmp
PartitionName=test Nodes=h[0-$last] Default=YES MaxTime=INFINITE State=UP
EOF
    # 22.05's slurmd loads a cgroup plugin whatever else is configured; v1's
    # does nothing until asked to (nothing here asks), where autodetection
    # fails on a machine without a cgroup mount
    echo "CgroupPlugin=cgroup/v1" > "$dir/cgroup.conf"
    for ((i = 0; i < n; i++)); do
        echo "NodeName=h$i NodeAddr=$("$netns" addr "$prefix" $((i + 1))) CPUs=2 State=UNKNOWN" \
            >> "$dir/slurm.conf"
    done
}

up() {
    local n=$1 t0 i
    t0=$(date +%s%N)
    down >/dev/null 2>&1 || true          # what a killed run left behind
    "$netns" up "$prefix" $((n + 1)) 1
    mkdir -m 0700 -p "$dir"
    mkdir -m 0700 -p "$dir/munge" "$dir/ctld" "$dir/log" "$dir/share"
    for ((i = 0; i < n; i++)); do mkdir -m 0700 -p "$dir/spool/h$i/tmp"; done
    mungekey --create --keyfile="$dir/munge/munge.key" --force
    chmod 0400 "$dir/munge/munge.key"
    # munged checks that nobody else can write where its files live
    ip netns exec "$ctl" munged --force --key-file="$dir/munge/munge.key" \
        --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
        </dev/null >>"$dir/log/munged.out" 2>&1
    if ! wait_for 20 sh -c "munge -n -S '$dir/munge/munge.socket' | unmunge -S '$dir/munge/munge.socket'"; then
        echo "slurm_cluster: munged did not come up:" >&2
        tail -5 "$dir/log/munged.log" "$dir/log/munged.out" >&2 || true
        return 1
    fi
    write_conf "$n"
    # foreground daemons, started detached with their output in files so
    # that nothing (ctest) waits on an inherited pipe
    setsid ip netns exec "$ctl" slurmctld -D -c -f "$dir/slurm.conf" \
        </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
    daemons=$!
    for ((i = 0; i < n; i++)); do
        setsid ip netns exec "$prefix-n$((i + 1))" slurmd -D -N "h$i" -f "$dir/slurm.conf" \
            </dev/null >>"$dir/log/slurmd.h$i.out" 2>&1 &
        daemons="$daemons $!"
    done
    if ! wait_for "${TN_SLURM_UP_TIMEOUT:-60}" nodes_idle "$n" || [ "$dead" -eq 1 ]; then
        echo "slurm_cluster: the nodes did not all become idle:" >&2
        in_ctl sinfo -N >&2 || true
        tail -n 5 "$dir"/log/*.log "$dir"/log/*.out >&2 || true
        return 1
    fi
    echo "slurm_cluster: $n nodes idle after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

case $cmd in
up)
    need
    up "${3:?N}"
    ;;
down)
    need
    down
    ;;
exec)
    shift 2
    in_ctl "$@"
    ;;
dir)
    echo "$dir"
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac

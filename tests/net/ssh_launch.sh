#!/usr/bin/env bash
# tern-run across ssh "hosts" (ssh_cluster.sh: network namespaces, each with
# its own sshd), through ssh only: no --netns shortcut.  Root only; exits 77
# (skipped) without root, sshd, ssh or ip.
#
#   ssh_launch.sh TERN_RUN NODE_MAP PROBE HANG_PROG [PREFIX]
#
# From inside node 0, with TERN_RUN_RSH set to the cluster's ssh:
#   - 4 hosts x 2 ranks of an MPI program that checks the node map (shared
#     memory within a host, udp between hosts), with the default tree and
#     as a chain of proxies (TERN_RUN_TREE_WIDTH=1), and by node;
#   - a rank killed on a remote host: exit 137, one line naming rank and host;
#   - a host whose sshd is stopped: exit 1 within seconds, one line naming
#     the host, its ranks and ssh's message;
#   - a deadlock ended by --timeout: the hang report names each rank's call
#     and host;
# and after each job, nothing of it runs on any host (only the sshds).
set -u
TR=$1 NODE_MAP=$2 PROBE=$3 HANG=$4
P=${5:-tsl}
HERE=$(cd "$(dirname "$0")" && pwd)
CL=$HERE/ssh_cluster.sh
OUT=$(mktemp -d)
cleanup() { "$CL" down "$P" >/dev/null 2>&1; rm -rf "$OUT"; }
fail() { echo "FAIL: $*"; [ -f "$OUT/err" ] && sed 's/^/  stderr: /' "$OUT/err"; exit 1; }

[ "$(id -u)" = 0 ] || { echo "ssh_launch: not root: SKIP"; exit 77; }
for t in /usr/sbin/sshd ssh ssh-keygen ip; do
    command -v "$t" >/dev/null || { echo "ssh_launch: no $t: SKIP"; exit 77; }
done
trap cleanup EXIT
"$CL" up "$P" 4 >/dev/null || fail "cluster up"
RSH=$("$CL" rsh "$P")
HOSTS=$("$CL" hosts "$P")

# run tern-run from node 0 (the "login node"); stdout in $OUT/out
job() {
    ip netns exec "$P-n0" env TERN_RUN_RSH="$RSH" "$@" "$TR" -q -host "$HOSTS" \
        "${ARGS[@]}" >"$OUT/out" 2>"$OUT/err" </dev/null
}
# nothing of the job left on any host: only sshd in every node
nothing_left() {
    local i pid comm deadline=$(( $(date +%s) + 10 ))
    while :; do
        local left=""
        for i in 0 1 2 3; do
            for pid in $(ip netns pids "$P-n$i"); do
                comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
                case $comm in sshd) ;; *) left="$left $i:$comm($pid)" ;; esac
            done
        done
        [ -z "$left" ] && return 0
        [ "$(date +%s)" -ge "$deadline" ] && fail "left running after '$1':$left"
        sleep 0.1
    done
}

for width in 32 1; do
    ARGS=(-ppn 2 "$NODE_MAP" 0,0,1,1,2,2,3,3)
    s=$(date +%s%N)
    job env TERN_RUN_TREE_WIDTH=$width || fail "4 hosts x 2, tree width $width: rc $?"
    echo "4 hosts x 2 ranks (node map, tree width $width): $(( ($(date +%s%N) - s) / 1000000 )) ms"
    nothing_left "4x2 width $width"
done
ARGS=(--map-by node -n 8 "$NODE_MAP" 0,1,2,3,0,1,2,3)
job || fail "by node: rc $?"
nothing_left "by node"
echo "by node: ok"

ARGS=(-ppn 2 "$PROBE" signal KILL 5)
job; rc=$?
[ $rc = 137 ] || fail "rank killed on h2: rc $rc, not 137"
grep -Eq '^tern-run: rank 5 \(pid [0-9]+ on h2\) killed by signal 9 \(SIGKILL\)$' "$OUT/err" ||
    fail "rank killed on h2: message"
[ "$(grep -c '^tern-run:' "$OUT/err")" = 1 ] || fail "rank killed on h2: one line"
nothing_left "rank killed"
echo "rank 5 killed on h2: ok"

ARGS=(-n 3 --timeout 3 "$HANG" three)
job; rc=$?
[ $rc = 124 ] || fail "deadlock: rc $rc, not 124"
for want in 'rank 0 \(pid [0-9]+ on h0\): in MPI_Recv\(comm=MPI_COMM_WORLD, source=2, tag=7' \
            'rank 1 \(pid [0-9]+ on h1\): in MPI_Barrier\(comm=MPI_COMM_WORLD\)' \
            'rank 2 \(pid [0-9]+ on h2\): not in an MPI call'; do
    grep -Eq "^tern-run:   $want" "$OUT/err" || fail "hang report lacks /$want/"
done
nothing_left "deadlock"
echo "deadlock across 3 hosts reported: ok"

"$CL" stop "$P" 3 >/dev/null || fail "stop h3's sshd"
ARGS=(-ppn 2 "$PROBE" exchange)
s=$(date +%s)
job; rc=$?
[ $rc = 1 ] || fail "h3 refuses: rc $rc, not 1"
[ $(( $(date +%s) - s )) -le 10 ] || fail "h3 refuses: took more than 10 s"
grep -Eq '^tern-run: cannot start on host h3 \(ranks 6-7\): ssh: connect to host [0-9.]+ port 22: Connection refused' "$OUT/err" ||
    fail "h3 refuses: message"
[ "$(grep -c '^tern-run:' "$OUT/err")" = 1 ] || fail "h3 refuses: one line"
nothing_left "refused host"
echo "h3 refuses: ok"
echo SSH_LAUNCH_OK

#!/usr/bin/env bash
# Self-test of ssh_cluster.sh (ssh "hosts" made of network namespaces).
# Root only; exits 77 (skipped) without root, sshd, ssh, ssh-keygen or ip.
#
#   ssh_harness.sh [PREFIX]     (tsh by default)
#
# Brings up 3 hosts, then from inside node 0: a command on h1 and on h2
# runs in that node's namespace (its address, its namespace's inode), a
# command on h2 started from h1 (a launcher's tree), TERN_* and PMI_*
# pass with SendEnv and nothing else does; 8 parallel "ssh hX true",
# each timed, and their median printed; with node 2's sshd stopped,
# "ssh h2 true" fails within 3 s with "Connection refused"; after down,
# no namespace, no sshd or other process of the cluster and no directory
# is left.  Prints SSH_HARNESS_OK at the end.
set -u
P=${1:-tsh}
HERE=$(cd "$(dirname "$0")" && pwd)
CL=$HERE/ssh_cluster.sh
DIR=/tmp/tern-ssh-$P
OUT=$(mktemp -d)
cleanup() { "$CL" down "$P" >/dev/null 2>&1; rm -rf "$OUT"; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { echo "ssh_harness: not root: SKIP"; exit 77; }
for t in /usr/sbin/sshd ssh ssh-keygen ip; do
    command -v "$t" >/dev/null || { echo "ssh_harness: no $t: SKIP"; exit 77; }
done
trap cleanup EXIT

s=$(date +%s%N)
"$CL" up "$P" 3 || fail "up"
echo "up 3 hosts: $(( ($(date +%s%N) - s) / 1000000 )) ms"
RSH=$("$CL" rsh "$P") || fail "rsh"
[ "$("$CL" hosts "$P")" = "h0,h1,h2" ] || fail "hosts: $("$CL" hosts "$P")"
in0() { ip netns exec "$P-n0" "$@"; }

# the command really ran on the other host: its address, its namespace
for i in 1 2; do
    a=$("$HERE/netns_cluster.sh" addr "$P" "$i")
    got=$(in0 $RSH "h$i" "ip -o -4 addr show dev eth0; readlink /proc/self/ns/net" </dev/null) ||
        fail "ssh h$i from n0"
    echo "$got" | grep -q "inet $a/24" || fail "h$i: $a not in: $got"
    want=$(ip netns exec "$P-n$i" readlink /proc/self/ns/net)
    [ "$(echo "$got" | tail -1)" = "$want" ] || fail "h$i ran in $(echo "$got" | tail -1), not $want"
    echo "h$i: ran in $P-n$i ($a, $want)"
done
# a tree: n0 -> h1 -> h2
a2=$("$HERE/netns_cluster.sh" addr "$P" 2)
got=$(in0 $RSH h1 "$RSH h2 ip -o -4 addr show dev eth0" </dev/null) || fail "ssh h1 ssh h2"
echo "$got" | grep -q "inet $a2/24" || fail "h1 -> h2: $a2 not in: $got"
echo "h1 -> h2: ran in $P-n2"
# the environment: TERN_* and PMI_* when asked for, nothing else
got=$(TERN_HARNESS=t1 PMI_HARNESS=p1 OTHER_HARNESS=o1 \
      in0 $RSH -o "SendEnv=TERN_* PMI_* OTHER_*" h1 \
      'echo "t=$TERN_HARNESS p=$PMI_HARNESS o=$OTHER_HARNESS"' </dev/null) || fail "SendEnv"
[ "$got" = "t=t1 p=p1 o=" ] || fail "SendEnv passed: $got"
echo "SendEnv: $got; remote PATH: $(in0 $RSH h1 'echo $PATH' </dev/null)"

# 8 connections at once from n0, spread over the hosts, each timed
in0 bash -c '
    for j in 0 1 2 3 4 5 6 7; do
        ( s=$(date +%s%N)
          if '"$RSH"' h$((j % 3)) true </dev/null; then
              echo $(( ($(date +%s%N) - s) / 1000000 )) > '"$OUT"'/t.$j
          fi ) &
    done
    wait'
ts=$(cat "$OUT"/t.* 2>/dev/null | sort -n)
[ "$(echo "$ts" | grep -c .)" = 8 ] || fail "only $(echo "$ts" | grep -c .) of 8 parallel connections worked"
med=$(echo "$ts" | sed -n '4p;5p' | awk '{ s += $1 } END { print s / 2 }')
s=$(date +%s%N)
in0 $RSH h1 true </dev/null || fail "ssh h1 true"
one=$(( ($(date +%s%N) - s) / 1000000 ))
echo "ssh hX true, 8 in parallel: median $med ms (min $(echo "$ts" | head -1), max $(echo "$ts" | tail -1)); alone: $one ms"

# a stopped sshd: refused at once
"$CL" stop "$P" 2 || fail "stop 2"
s=$(date +%s%N)
in0 $RSH h2 true </dev/null 2> "$OUT/err" && fail "ssh h2 true worked with its sshd stopped"
ms=$(( ($(date +%s%N) - s) / 1000000 ))
grep -q "Connection refused" "$OUT/err" || fail "no 'Connection refused': $(cat "$OUT/err")"
[ "$ms" -lt 3000 ] || fail "ssh to a stopped sshd took $ms ms"
echo "h2 stopped: refused in $ms ms"
in0 $RSH h1 true </dev/null || fail "h1 gone with h2"

# down leaves nothing: a remote command still running must go too
in0 $RSH h1 "sleep 600" </dev/null >/dev/null 2>&1 &
left="" t=0
while [ -z "$left" ] && [ $((t++)) -lt 50 ]; do
    sleep 0.1
    left=$(ip netns pids "$P-n1" | xargs -r ps -o pid=,args= -p | awk '$2 == "sleep" { print $1 }')
done
[ -n "$left" ] || fail "the remote sleep never started"
"$CL" down "$P" || fail "down"
ip netns list | grep -E "^$P-" && fail "namespaces left"
pgrep -af -- "$DIR/" && fail "sshd or ssh processes left"
[ -e "$DIR" ] && fail "$DIR left"
# (a zombie is gone, only not yet reaped by the container's init)
case $(ps -o stat= -p "$left") in ""|Z*) ;; *) fail "the remote sleep $left left" ;; esac
wait
echo "down: nothing left"
echo SSH_HARNESS_OK

#!/usr/bin/env bash
# ssh "hosts" on one machine: netns_cluster.sh's nodes, each with its own
# sshd listening on the node's address, and an ssh_config that names them
# h0..h{N-1}.  For testing tern-run's multi-host start (proxies started
# on other hosts through ssh).
#
#   ssh_cluster.sh up PREFIX N      netns_cluster.sh up PREFIX N, fresh keys
#                                   and configs in DIR, one sshd per node
#   ssh_cluster.sh rsh PREFIX       print the ssh command line to use
#   ssh_cluster.sh hosts PREFIX     print "h0,h1,...,h{N-1}"
#   ssh_cluster.sh stop PREFIX I    stop node I's sshd: hI refuses connections
#   ssh_cluster.sh start PREFIX I   start it again
#   ssh_cluster.sh down PREFIX      end every process in the nodes (sshds,
#                                   what ssh started), remove them and DIR
#
# DIR is /tmp/tern-ssh-PREFIX (mode 700): one ed25519 host key shared by
# every node and one ed25519 user key, both made at "up" (no passphrase),
# authorized_keys, known_hosts (the host key under every node address),
# ssh_config, and per node sshd_config.I, sshd.I.pid and sshd.I.log.
#
# For the launcher:
#
#   tests/net/ssh_cluster.sh up tsx 4
#   RSH=$(tests/net/ssh_cluster.sh rsh tsx)     # ssh -F /tmp/tern-ssh-tsx/ssh_config
#   ip netns exec tsx-n0 $RSH h3 /abs/path/prog args
#
# hI is node I (PREFIX-nI, address netns_cluster.sh addr PREFIX I).  The
# addresses exist only inside the nodes: run ssh from inside one (ip netns
# exec PREFIX-nJ ...), never from the machine's own namespace.  Any node
# can reach any hI, itself included, so a launcher may fan out as a tree.
# Every namespace sees the same filesystem: run programs from the build
# tree by absolute path.  The remote command runs in the current user's
# (root's) shell, with sshd's default PATH plus whatever ~/.bashrc adds
# (bash reads it for ssh commands), no PAM, no /etc/environment; of the
# caller's environment only TERN_* and PMI_* pass, and only when asked
# (ssh -o 'SendEnv=TERN_* PMI_*' or -o SetEnv=TERN_X=V).  ssh joins its arguments with
# spaces and the remote shell splits them again: quote accordingly.  A
# remote command outlives its ssh client (no tty, no SIGHUP).  Needs root
# and /usr/sbin/sshd (scripts/deps.sh).
set -euo pipefail

cmd=${1:?usage: ssh_cluster.sh up|rsh|hosts|stop|start|down PREFIX [N|I]}
prefix=${2:?PREFIX}
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/netns_cluster.sh
dir=/tmp/tern-ssh-$prefix
sshd=/usr/sbin/sshd

# whether PID is an sshd (listener or session): pid files may be stale
is_sshd() {
    case $(readlink "/proc/$1/exe" 2>/dev/null) in
    */sshd | */sshd-session | */sshd-auth) return 0 ;;
    esac
    return 1
}

# whether PID runs: a zombie has let go of its sockets already, and the
# init of a container may take a second to reap it
alive() {
    local st
    st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)
    [ -n "$st" ] && [ "$st" != Z ]
}

# end the PIDs and wait (bounded) until they are gone
end_pids() {
    local t p left
    [ $# -gt 0 ] || return 0
    kill "$@" 2>/dev/null || true
    for ((t = 0; t < 50; t++)); do
        left=()
        for p in "$@"; do
            if alive "$p"; then left+=("$p"); fi
        done
        [ ${#left[@]} -gt 0 ] || return 0
        sleep 0.1
    done
    kill -9 "${left[@]}" 2>/dev/null || true
}

stop_node() {
    local pidfile=$dir/sshd.$1.pid pid
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    if is_sshd "$pid"; then
        end_pids "$pid"
    fi
    rm -f "$pidfile"
}

# start node I's sshd and wait until it lets us in: "ssh hI true" from
# inside the node, at most 50 tries 0.1 s apart (refused returns at once;
# sshd goes to background before it is sure to listen)
start_node() {
    local i=$1 t
    [ -f "$dir/sshd_config.$i" ] || { echo "ssh_cluster: no node $i in $dir" >&2; return 1; }
    stop_node "$i"
    ip netns exec "$prefix-n$i" "$sshd" -f "$dir/sshd_config.$i" -E "$dir/sshd.$i.log"
    for ((t = 0; t < 50; t++)); do
        if ip netns exec "$prefix-n$i" ssh -F "$dir/ssh_config" "h$i" true </dev/null 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    echo "ssh_cluster: sshd of node $i does not answer; its log:" >&2
    tail -20 "$dir/sshd.$i.log" >&2 || true
    return 1
}

case $cmd in
up)
    n=${3:?N}
    [ -x "$sshd" ] || { echo "ssh_cluster: no $sshd (scripts/deps.sh installs it)" >&2; exit 1; }
    # what a killed run left: sshds, namespaces, DIR
    "$0" down "$prefix" >/dev/null 2>&1 || true
    "$cluster" up "$prefix" "$n"
    mkdir -m 700 "$dir"
    ssh-keygen -q -t ed25519 -N '' -C "tern-ssh-$prefix host" -f "$dir/host_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C "tern-ssh-$prefix user" -f "$dir/id_ed25519"
    cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
    user=$(id -un)
    addrs=()
    for ((i = 0; i < n; i++)); do
        addrs+=("$("$cluster" addr "$prefix" "$i")")
    done
    echo "$(IFS=,; echo "${addrs[*]}") $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" > "$dir/known_hosts"
    {
        for ((i = 0; i < n; i++)); do
            printf 'Host h%d\n    HostName %s\n' "$i" "${addrs[i]}"
        done
        # the first value found wins in ssh_config: the common part last
        printf '%s\n' "Host *" \
            "    User $user" \
            "    Port 22" \
            "    IdentityFile $dir/id_ed25519" \
            "    IdentitiesOnly yes" \
            "    IdentityAgent none" \
            "    UserKnownHostsFile $dir/known_hosts" \
            "    GlobalKnownHostsFile /dev/null" \
            "    StrictHostKeyChecking yes" \
            "    UpdateHostKeys no" \
            "    CheckHostIP no" \
            "    BatchMode yes" \
            "    PreferredAuthentications publickey" \
            "    ConnectTimeout 3" \
            "    ConnectionAttempts 1" \
            "    LogLevel ERROR" \
            "    ForwardAgent no" \
            "    ForwardX11 no" \
            "    ControlMaster no" \
            "    ControlPath none"
    } > "$dir/ssh_config"
    # newer sshds (9.8 on) slow down addresses whose connections misbehave;
    # the tests make many short connections, some on purpose refused
    penalties=""
    # sshd's privilege separation needs this empty directory, /run is shared
    mkdir -p /run/sshd
    for ((i = 0; i < n; i++)); do
        printf '%s\n' "ListenAddress ${addrs[i]}:22" \
            "PidFile $dir/sshd.$i.pid" \
            "HostKey $dir/host_ed25519" \
            "AuthorizedKeysFile $dir/authorized_keys" \
            "PubkeyAuthentication yes" \
            "PermitRootLogin prohibit-password" \
            "PasswordAuthentication no" \
            "KbdInteractiveAuthentication no" \
            "UsePAM no" \
            "StrictModes no" \
            "UseDNS no" \
            "MaxStartups 256" \
            "MaxSessions 128" \
            "LoginGraceTime 30" \
            "AllowAgentForwarding no" \
            "X11Forwarding no" \
            "PrintMotd no" \
            "PrintLastLog no" \
            "AcceptEnv TERN_* PMI_*" > "$dir/sshd_config.$i"
        if [ "$i" = 0 ] &&
           "$sshd" -t -f "$dir/sshd_config.0" -o PerSourcePenalties=no >/dev/null 2>&1; then
            penalties="PerSourcePenalties no"
        fi
        [ -z "$penalties" ] || echo "$penalties" >> "$dir/sshd_config.$i"
        "$sshd" -t -f "$dir/sshd_config.$i"
    done
    for ((i = 0; i < n; i++)); do
        start_node "$i"
    done
    ;;
rsh)
    [ -f "$dir/ssh_config" ] || { echo "ssh_cluster: no cluster $prefix" >&2; exit 1; }
    echo "ssh -F $dir/ssh_config"
    ;;
hosts)
    [ -f "$dir/ssh_config" ] || { echo "ssh_cluster: no cluster $prefix" >&2; exit 1; }
    sed -n 's/^Host \(h[0-9]*\)$/\1/p' "$dir/ssh_config" | paste -sd, -
    ;;
stop)
    stop_node "${3:?I}"
    ;;
start)
    start_node "${3:?I}"
    ;;
down)
    if [ -d "$dir" ]; then
        for f in "$dir"/sshd.*.pid; do
            [ -e "$f" ] || continue
            i=${f#"$dir"/sshd.}
            stop_node "${i%.pid}"
        done
    fi
    # power the nodes off: every process still in them (sessions, what
    # they started, which outlives its ssh connection, listeners of a run
    # whose pid files are gone), but not whoever runs this script
    keep=" " p=$$
    while [ "$p" -gt 1 ]; do
        keep+="$p "
        p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
        p=${p:-0}
    done
    pids=()
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-n[0-9]+$" || true); do
        for pid in $(ip netns pids "$ns" 2>/dev/null || true); do
            [[ $keep == *" $pid "* ]] || pids+=("$pid")
        done
    done
    end_pids "${pids[@]}"
    "$cluster" down "$prefix"
    rm -rf "$dir"
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Install the system packages Tern's build and tests need (Debian/Ubuntu),
# only those missing.  Usage: scripts/deps.sh [extra packages...]
set -euo pipefail
# slurmctld, slurmd, slurm-client, munge: tests/slurm's cluster (its
# slurm-wlm-basic-plugins brings the pmi2 and pmix_v4 MPI plugins);
# libpmix-dev: the PMIx client (optional in the build); openssh-server:
# the sshds of tests/net/ssh_cluster.sh; prometheus: its promtool checks
# tern-monitor's /metrics and alert rules (its daemon is not started);
# chromium: tests/monitor read tern-monitor's page in a real headless browser;
# libsqlite3-dev: tern-monitor's history database (tools/tern-monitor/mon_store.*);
# libotf2-trace-dev, otf2-tools: tern-trace export --otf2 and its test (otf2-print)
pkgs=(cmake ninja-build gcc g++ python3 pkg-config libsodium-dev libssl-dev mpich iproute2 nftables
      libpmix-dev munge slurmctld slurmd slurm-client openssh-server prometheus chromium
      libsqlite3-dev libotf2-trace-dev otf2-tools "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # openssh-server is here for tests/net/ssh_cluster.sh, which starts its
  # own sshds inside network namespaces.  Its postinst would start a system
  # sshd listening on the machine's real interfaces: the flag file below
  # makes Debian's init script and systemd unit refuse to start one.
  if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
    $SUDO mkdir -p /etc/ssh
    $SUDO touch /etc/ssh/sshd_not_to_be_run
  fi
  $SUDO apt-get update -qq
  # munge and Slurm's packages start their system daemons when installed;
  # the tests start their own (tests/slurm/slurm_cluster.sh), so a
  # policy-rc.d that refuses every start is in place during the install
  # (Docker images have one already; invoke-rc.d and deb-systemd-invoke
  # both obey it)
  policy=/usr/sbin/policy-rc.d
  made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    made_policy=1
  fi
  rc=0
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null || rc=$?
  if [ "$made_policy" -eq 1 ]; then
    $SUDO rm -f "$policy"
  fi
  [ "$rc" -eq 0 ] || exit "$rc"
  if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
    # and in case one started anyway (socket activation, a policy that
    # ignores the flag): stop it and keep it from coming back
    if [ -d /run/systemd/system ]; then
      $SUDO systemctl disable --now ssh.socket ssh.service >/dev/null 2>&1 || true
    fi
    if [ -s /run/sshd.pid ]; then
      $SUDO kill "$(cat /run/sshd.pid)" 2>/dev/null || true
    fi
  fi
fi

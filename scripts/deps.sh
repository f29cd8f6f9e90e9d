#!/usr/bin/env bash
# Install the system packages Tern's build and tests need (Debian/Ubuntu),
# only those missing.  Usage: scripts/deps.sh [extra packages...]
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ python3 pkg-config libsodium-dev libssl-dev mpich iproute2 nftables
      openssh-server "$@")
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
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
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

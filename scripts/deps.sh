#!/usr/bin/env bash
# Install the system packages Tern's build and tests need (Debian/Ubuntu),
# only those missing.  Usage: scripts/deps.sh [extra packages...]
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ python3 pkg-config libsodium-dev libssl-dev mpich iproute2 nftables "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

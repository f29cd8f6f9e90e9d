#!/usr/bin/env bash
# What tracing costs (docs/trace.md): the OSU-style latency and bandwidth
# benchmarks with TERN_TRACE off and on, alternating, RUNS times each;
# prints the medians and their ratio per size.
#   bench/trace_overhead.sh [BUILD_DIR] [RUNS] [XPORT]
# XPORT: shm (default) or udp (TERN_XPORT=udp on loopback).
set -euo pipefail
B=${1:-build}
RUNS=${2:-7}
XPORT=${3:-shm}
RUN="$B/bin/tern-run -n 2 --bind-to core"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env_x=()
[ "$XPORT" = udp ] && env_x=(TERN_XPORT=udp)

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# one value: bench SIZE MODE(off|on)
one() {
  local prog=$1 size=$2 mode=$3 tdir=""
  if [ "$mode" = on ]; then tdir=$tmp/t.$RANDOM$RANDOM; fi
  env "${env_x[@]}" TERN_TRACE="$tdir" $RUN "$B/bin/$prog" -m "$size:$size" -t 0.5 \
    | awk -v s="$size" '$1 == s {print $2}'
  rm -rf "$tmp"/t.*
}

printf "%-12s %-8s %12s %12s %8s\n" benchmark size off on on/off
for bench in "tern_latency 8" "tern_latency 4096" "tern_bw 8" "tern_bw 65536" "tern_bw 1048576"; do
  set -- $bench
  : > "$tmp/off"; : > "$tmp/on"
  for _ in $(seq "$RUNS"); do
    one "$1" "$2" off >> "$tmp/off"
    one "$1" "$2" on >> "$tmp/on"
  done
  off=$(median < "$tmp/off"); on=$(median < "$tmp/on")
  printf "%-12s %-8s %12s %12s %8.3f\n" "$1" "$2" "$off" "$on" "$(echo "$on / $off" | bc -l)"
done

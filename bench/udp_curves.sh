#!/usr/bin/env bash
# Tuning curves of the udp transport on loopback, the kind interconnect teams
# publish: bandwidth (tern_bw, MB/s, median of REPS runs) against the packet
# size and against the eager/rendezvous threshold, as two markdown tables.
#
#   bench/udp_curves.sh [BUILD_DIR] [REPS]      (defaults: build, 3)
#
# Every run: 2 ranks bound to cores, TERN_XPORT=udp, 0.3 s per size.
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-3}
RUN="$BUILD/bin/tern-run --bind-to core -x TERN_XPORT=udp -n 2"
BW="$BUILD/bin/tern_bw -t 0.3"
[ -x "$BUILD/bin/tern_bw" ] || { echo "no $BUILD/bin/tern_bw" >&2; exit 1; }

# median MB/s of REPS runs of one message size under extra env settings
median_bw() {
  local size=$1; shift
  local vals=()
  for _ in $(seq "$REPS"); do
    vals+=("$(env "$@" $RUN $BW -m "$size:$size" | awk -v s="$size" '$1 == s { print $2 }')")
  done
  printf '%s\n' "${vals[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "Bandwidth (MB/s) against TERN_UDP_PACKET_SIZE (default eager threshold, GSO on):"
echo
echo "| packet size | 64 KiB | 1 MiB | 4 MiB |"
echo "|---:|---:|---:|---:|"
for ps in 1k 2k 4k 8k 16k 24k 32k; do
  row="| $ps"
  for m in 65536 1048576 4194304; do
    row="$row | $(median_bw $m TERN_UDP_PACKET_SIZE=$ps)"
  done
  echo "$row |"
done
echo
echo "Bandwidth (MB/s) against TERN_UDP_EAGER_THRESHOLD (default packet size); rows: threshold, columns: message size:"
echo
echo "| eager threshold | 4 KiB | 16 KiB | 64 KiB | 256 KiB | 1 MiB |"
echo "|---:|---:|---:|---:|---:|---:|"
for et in 4k 32k 256k; do
  row="| $et"
  for m in 4096 16384 65536 262144 1048576; do
    row="$row | $(median_bw $m TERN_UDP_EAGER_THRESHOLD=$et)"
  done
  echo "$row |"
done

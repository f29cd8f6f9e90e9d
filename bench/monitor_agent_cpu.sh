#!/usr/bin/env bash
# The node agent's CPU cost (docs/monitor.md): a job of N ranks (default 64)
# that exchanges 1 KiB around a ring every 100 ms publishes its counters;
# tern-monitor agent samples them every second and sends them to a server
# on this machine; the agent's user+system time over S seconds (default 30)
# is printed as a share of one core.
#   bench/monitor_agent_cpu.sh [BUILD_DIR] [N] [S]
set -euo pipefail
build=${1:-build}
n=${2:-64}
secs=${3:-30}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
cat > "$tmp/ring.c" <<'C'
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
int main(int c, char **v)
{
    int r, n;
    char b[1024] = { 0 };
    MPI_Init(&c, &v);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double end = MPI_Wtime() + atof(v[1]);
    while (MPI_Wtime() < end) {
        MPI_Sendrecv_replace(b, 1024, MPI_CHAR, (r + 1) % n, 0, (r + n - 1) % n, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        usleep(100000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
"$build/bin/mpicc" -O2 -o "$tmp/ring" "$tmp/ring.c"
mkdir "$tmp/segs"
"$build/bin/tern-monitor" serve --listen 127.0.0.1:0 --port-file "$tmp/port" 2>/dev/null &
while [ ! -s "$tmp/port" ]; do sleep 0.1; done
TERN_MONITOR=1 TERN_MONITOR_DIR="$tmp/segs" "$build/bin/tern-run" --oversubscribe -n "$n" \
    "$tmp/ring" $((secs + 20)) >/dev/null &
while [ "$(ls "$tmp/segs" | wc -l)" -lt "$n" ]; do sleep 0.2; done
"$build/bin/tern-monitor" agent --server "127.0.0.1:$(cat "$tmp/port")" --dir "$tmp/segs" \
    --node bench &
agent=$!
sleep 3
t0=$(awk '{print $14 + $15}' "/proc/$agent/stat")
sleep "$secs"
t1=$(awk '{print $14 + $15}' "/proc/$agent/stat")
hz=$(getconf CLK_TCK)
awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$secs" -v n="$n" \
    'BEGIN { printf "agent CPU at %d ranks: %.2f %% of a core (%d ticks in %d s)\n", n, 100 * d / hz / s, d, s }'

#!/usr/bin/env bash
# The launch tree simulated on one machine: tern-run --launcher fork starts
# one proxy per "host" here, each proxy forks one rank (pmi_probe fence:
# PMI init, put, fence across every host, get, finalize), for H hosts and
# several tree widths (TERN_RUN_TREE_WIDTH; "flat" = the head starts every
# proxy itself).  Prints, per run, the median wall time of REPS jobs, the
# tree's depth and the most proxies one agent starts.
#
#   bench/launch_tree.sh [BUILD] [REPS] [HOSTS...]     (build, 3, 8 64 256 1000)
#
# On a machine with C cores the H proxies and H ranks cost H x (fork, exec,
# PMI) of CPU whatever the tree: once H x that exceeds what C cores do in
# parallel, wall time grows with H for every width.  What the tree changes
# is the critical path of a real cluster, where each host brings its own
# CPU: depth rounds, each of at most width launches by one agent (ssh
# clients, whose handshake costs CPU on the launching host).  docs/
# performance.md turns the measured per-launch cost into that model.
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
HOSTS=${*:-8 64 256 1000}
TR=$BUILD/bin/tern-run
PROBE=$BUILD/tests/launcher/pmi_probe
[ -x "$TR" ] && [ -x "$PROBE" ] || { echo "build Tern first ($TR, $PROBE)" >&2; exit 1; }

depth() {   # rounds of launches for h hosts at width w
    python3 -c "
h, w = $1, $2
d, reach, level = 0, 0, 1
while reach < h:
    level = level * w
    reach += level
    d += 1
print(d)"
}

echo "| hosts | width | depth | most launches by one agent | wall (s), median of $REPS |"
echo "|---|---|---|---|---|"
for h in $HOSTS; do
    list=$(python3 -c "print(','.join('h%d' % i for i in range($h)))")
    for w in 2 8 32 flat; do
        ww=$w; [ "$w" = flat ] && ww=4096
        times=()
        for ((r = 0; r < REPS; r++)); do
            s=$(date +%s%N)
            TERN_RUN_TREE_WIDTH=$ww "$TR" --launcher fork -host "$list" "$PROBE" fence
            times+=( $(( ($(date +%s%N) - s) / 1000000 )) )
        done
        med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
        most=$(( ww < h ? ww : h ))
        printf '| %d | %s | %d | %d | %d.%03d |\n' "$h" "$w" "$(depth "$h" "$ww")" "$most" \
            $((med / 1000)) $((med % 1000))
    done
done

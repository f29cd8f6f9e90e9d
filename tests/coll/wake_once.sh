#!/bin/sh
# A sleeping rank is rung at most once per nap: the first waker takes its
# flag down, so the writers after it make no futex call until it has run.
# Broadcasts of 1 MiB stream 128 cells per hop; with every waiter blocking
# at once (TERN_WAIT=block) and 8 ranks, a receiver woken but not yet
# running used to be rung once per cell.  Checks the data too (tern_bcast
# verifies every byte) and that the run slept at all.
# usage: wake_once.sh TERN_RUN TERN_BCAST
run=$1
bcast=$2
out=$(TERN_STATS=1 TERN_WAIT=block "$run" -n 8 --timeout 120 "$bcast" -m 1M:1M -i 0.05 2>&1)
status=$?
echo "$out"
if [ $status -ne 0 ]; then
    echo "FAIL: tern_bcast exited with $status"
    exit 1
fi
echo "$out" | awk '
    /\[tern stats\] rank [0-9]+ shm:/ {
        for (i = 1; i <= NF; i++) {
            split($i, kv, "=")
            if (kv[1] == "wakes") wakes += kv[2]
            if (kv[1] == "naps") naps += kv[2]
        }
        ranks++
    }
    END {
        printf "ranks %d, wakes %d, naps %d\n", ranks, wakes, naps
        if (ranks != 8) { print "FAIL: stats of " ranks " ranks"; exit 1 }
        if (naps == 0) { print "FAIL: nobody slept; the test checks nothing"; exit 1 }
        if (wakes > naps) { print "FAIL: more wake-ups than naps"; exit 1 }
        print "WAKE_ONCE_OK"
    }'

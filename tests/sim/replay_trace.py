#!/usr/bin/env python3
"""tern-sim's trace replay on a real traced job: trace_traffic on 3 ranks
with TERN_TRACE (9 messages of known sizes and 7 collectives), replayed
with the ranks on one node (shared memory) and with every rank on an
endpoint of its own (the fabric); then the same traces exported with
`tern-trace export --vef` and that file replayed.  Every replay must
finish with every message and join completed (tern-sim refuses a run
that does not), the 9 messages measured with none left unmatched, every
simulated message time positive, and each rank's end no earlier than
its last message's delivery.  The traced replays expand the blocking
collectives with Tern's own algorithm code (tern-coll-plan, found beside
tern-sim), the alltoallv with its recorded blocks; with --coll_plan off,
and from VEF, the models do."""
import argparse
import csv
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trace"))
from tracetest import check, run, verdict  # noqa: E402


def replay(sim, src, out, extra, traced):
    p = run([sim, "--replay", src, "--out", out] + extra)
    check(p.returncode == 0, "replay of %s %s: rc %d %s" % (src, extra, p.returncode, p.stderr))
    if p.returncode != 0:
        return
    text = open(os.path.join(out, "replay.txt")).read()
    check(" 9 messages measured" in text, "9 messages measured: " + text)
    check(" 0 unmatched messages" in text, "none unmatched: " + text)
    m = re.search(r"job time: +sim ([0-9.e+]+) us", text)
    check(m is not None and float(m.group(1)) > 0, "a job time: " + text)
    if traced:
        check(re.search(r"job time: +sim \S+ us +trace \S+ us +error", text) is not None,
              "the trace's job time next to it: " + text)
    # the allreduce, bcast, reduce, the 2-rank barrier, the ibarrier (its
    # coll/nbc schedule) and the alltoallv (with the blocks its trace
    # recorded) come from Tern's own code; all of a VEF file (no Tern
    # algorithms in it) and all with coll_plan off from the models
    planned = 6 if traced and "off" not in extra else 0
    check(re.search(r"collectives: %d expanded by Tern's own code \(tern-coll-plan\), %d by the models"
                    % (planned, 6 - planned), text) is not None and "planner failed" not in text,
          "%d collectives planned: %s" % (planned, text))
    with open(os.path.join(out, "replay_msgs.csv")) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 9, "9 rows in replay_msgs.csv, not %d" % len(rows))
    check(all(float(r["sim_ns"]) > 0 for r in rows), "every message takes time")
    sizes = sorted(int(r["bytes"]) for r in rows)
    check(sizes == sorted([100, 1000, 10, 33, 40, 33, 40, 33, 40]), "the sizes sent: %s" % sizes)
    with open(os.path.join(out, "replay_ranks.csv")) as f:
        ranks = list(csv.DictReader(f))
    check(len(ranks) == 3, "3 ranks")
    if traced:
        check(all(float(r["trace_end_ns"]) > 0 for r in ranks), "every rank's traced end")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--sim", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tdir = os.path.join(tmp, "t")
        os.mkdir(tdir)
        p = run([os.path.join(a.bin, "tern-run"), "-n", "3", a.prog], {"TERN_TRACE": tdir})
        check(p.returncode == 0, "traced run: rc %d %s" % (p.returncode, p.stderr))
        if p.returncode == 0:
            replay(a.sim, tdir, os.path.join(tmp, "o1"), [], True)
            replay(a.sim, tdir, os.path.join(tmp, "o2"),
                   ["--replay_slots", "rank", "--topo", "fattree", "--k", "4", "--n", "2"], True)
            replay(a.sim, tdir, os.path.join(tmp, "o4"), ["--coll_plan", "off"], True)
            vef = os.path.join(tmp, "job.vef")
            p = run([os.path.join(a.bin, "tern-trace"), "export", "--vef", "-o", vef, tdir])
            check(p.returncode == 0, "export --vef: rc %d %s" % (p.returncode, p.stderr))
            if p.returncode == 0:
                replay(a.sim, vef, os.path.join(tmp, "o3"), [], False)
    return verdict("replay")


if __name__ == "__main__":
    sys.exit(main())

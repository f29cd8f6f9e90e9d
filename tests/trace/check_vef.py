#!/usr/bin/env python3
"""The VEF round trip: run trace_traffic on 3 ranks with TERN_TRACE, export
its traces with `tern-trace export --vef`, check the file against the known
traffic (the 9 messages with their sizes and peers, the communicators, the
7 collectives with their ops and per-task sizes, each rank's chain of
dependencies), import it back with `tern-trace import --vef` and check the
counts agree; then broken files are refused."""
import os
import re
import sys
import tempfile

from tracetest import args, check, run, traced_job, verdict  # noqa: E402


# trace_vef.h's op table (an assumption, kept in one place there)
OPS = {"broadcast": 0, "reduce": 1, "allreduce": 2, "gather": 3, "scatter": 4,
       "allgather": 5, "barrier": 6, "alltoall": 7}
INDEP, COLL, SEND, RECV = 0, 1, 2, 3
P2P = {(0, 1): [100, 1000, 10, 33, 40], (1, 2): [33, 40], (2, 0): [33, 40]}




def parse(text):
    lines = [ln.split() for ln in text.splitlines() if ln.strip()]
    hdr = lines[0]
    ncomms = int(hdr[3])
    comms = [[int(x) for x in ln[1:]] for ln in lines[1:1 + ncomms]]
    msgs, colls, order = [], {}, []
    for ln in lines[1 + ncomms:]:
        if ln[0].startswith("G"):
            g = int(ln[0][1:])
            colls.setdefault(g, []).append(ln)
            order.append(("G", g, int(ln[4])))
        else:
            msgs.append([int(x) for x in ln[:6]] + [ln[6]])
            order.append(("M", int(ln[0]), int(ln[1])))
    return hdr, comms, msgs, colls, order


def main():
    a = args()
    tern_trace = os.path.join(a.bin, "tern-trace")
    with tempfile.TemporaryDirectory() as d:
        tdir = os.path.join(d, "t")
        if not traced_job(a.bin, a.prog, tdir):
            return verdict("vef")
        vef = os.path.join(d, "job.vef")
        p = run([tern_trace, "export", "--vef", "-o", vef, tdir])
        check(p.returncode == 0, "export: rc %d %s" % (p.returncode, p.stderr))
        if p.returncode != 0:
            return 1
        check("0 unmatched sends" in p.stderr and "dependencies dropped" in p.stderr,
              "export's summary: " + p.stderr)
        text = open(vef).read()
        hdr, comms, msgs, colls, order = parse(text)
        check(hdr == ["VEF", "3", "9", "3", "5", "2", "TRUE"], "header %s" % hdr)
        check(comms == [[0, 1, 2], [0, 2], [1]], "communicators %s" % comms)
        # messages: IDs in order, the known sizes per pair
        check([m[0] for m in msgs] == list(range(9)), "message IDs")
        pairs = {}
        for m in msgs:
            pairs.setdefault((m[1], m[2]), []).append(m[3])
        check(pairs == P2P, "messages per pair %s" % pairs)
        check(sorted(m[3] for m in msgs) == [10, 33, 33, 33, 40, 40, 40, 100, 1000], "sizes")
        # dependencies name earlier lines of the same task
        seen_m, seen_g = set(), set()
        for kind, i, task in order:
            if kind == "M":
                m = msgs[i]
                dt, dep = m[4], m[6]
                if dt in (SEND, RECV):
                    dm = msgs[int(dep)]
                    check(int(dep) in seen_m and dm[1 if dt == SEND else 2] == task,
                          "message %d depends on message %s of its task" % (i, dep))
                elif dt == COLL:
                    check(int(dep[1:]) in seen_g, "message %d after G%s" % (i, dep))
                seen_m.add(i)
            else:
                seen_g.add(i)
        by_size = {(m[1], m[2], m[3]): m for m in msgs}
        first = by_size[(0, 1, 100)]
        check(first[4] == INDEP and first[6] == "-1", "rank 0's first send independent")
        check(by_size[(0, 1, 1000)][4] == SEND and by_size[(0, 1, 1000)][6] == str(first[0]),
              "the Isend follows the Send")
        ssend = by_size[(0, 1, 10)]
        ring1 = by_size[(1, 2, 33)]
        check(ring1[4] == RECV and ring1[6] == str(ssend[0]),
              "rank 1's ring send waits for the Ssend's message: %s" % ring1)
        # collectives: G0..G6, their ops, one line per member, per-task sizes
        check(sorted(colls) == list(range(7)), "G ids %s" % sorted(colls))
        ops = [int(colls[g][0][2]) for g in sorted(colls)]
        check(ops == [OPS[k] for k in ("allreduce", "broadcast", "reduce", "alltoall", "barrier",
                                       "barrier", "barrier")], "ops %s" % ops)
        for g, ls in colls.items():
            comm = comms[int(ls[0][1])]
            check(sorted(int(x[3]) for x in ls) == sorted(comm), "G%d has its members" % g)
        red = {int(x[3]): (int(x[4]), int(x[5])) for x in colls[2]}
        check(red == {0: (16, 16), 1: (16, 0), 2: (16, 0)}, "reduce to 0: %s" % red)
        bc = {int(x[3]): (int(x[4]), int(x[5])) for x in colls[1]}
        check(bc == {0: (0, 64), 1: (0, 64), 2: (64, 0)}, "bcast from 2: %s" % bc)
        a2a = {int(x[3]): (int(x[4]), int(x[5])) for x in colls[3]}
        check(a2a == {r: (4 * (3 * r + 6), 1) for r in range(3)}, "alltoallv totals: %s" % a2a)
        check(all(x[6] == str(COLL) and x[8] == "G%d" % (g - 1) for g in (1, 2, 3, 4)
                  for x in colls[g]), "world collectives chained G0 -> G4")

        # import: the counts agree
        p = run([tern_trace, "import", "--vef", vef])
        check(p.returncode == 0, "import: rc %d %s" % (p.returncode, p.stderr))
        check(re.search(r"^vef: 3 ranks, 3 communicators, 9 messages \(1329 bytes\), 7 collectives "
                        r"\(5 global, 2 local; 18 lines", p.stdout, re.M) is not None,
              "import summary: " + p.stdout)
        check("check: ok" in p.stdout, "import check")

        # broken files are refused, naming the line
        for name, body, what in [
                ("cut", text[:len(text) // 2], "messages|lines|line"),
                ("dup", text.replace("\nG0 0 2 1 ", "\nG0 0 2 0 ", 1), "two lines|line"),
                ("world", text.replace("C0 0 1 2", "C0 0 1", 1), "C0"),
                ("count", text.replace("VEF 3 9", "VEF 3 10", 1), "messages")]:
            path = os.path.join(d, name + ".vef")
            open(path, "w").write(body)
            p = run([tern_trace, "import", "--vef", path])
            check(p.returncode == 1 and re.search(what, p.stderr) is not None,
                  "%s refused: rc %d %s" % (name, p.returncode, p.stderr))
    return verdict("vef")


if __name__ == "__main__":
    sys.exit(main())

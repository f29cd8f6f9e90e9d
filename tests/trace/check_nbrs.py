#!/usr/bin/env python3
"""Neighbourhood collectives and alltoallw in the trace, and in tern-sim's
replay (trace_nbrs.c says what the 4 ranks do).

Each rank's trace must hold, for each neighbourhood collective, its
neighbours in its topology's order (MPI_PROC_NULL as null; a Cartesian
grid marked cart) and the bytes to each destination and from each
source; for the alltoallw the bytes to and from each rank, whatever
their types.  All of them computed here from the program's rules, not
read from a run.  `tern-trace report` must put every neighbourhood
edge's bytes in its communication matrix (and nothing else: the program
sends no point-to-point message).  Then the traces are replayed: every collective must
come from Tern's own code (the neighbourhood ones through coll/nbc's
schedule with the recorded lists, the alltoallw as an alltoallv of its
byte blocks), and with --coll_plan off from the models without their
fallback (a neighbourhood collective with known lists is its one round)."""
import os
import re
import sys
import tempfile

from tracetest import args, check, run, traced_job, verdict

N = 4


def expected(r):
    """{call: (cart, sources, destinations, sent bytes, received bytes)}
    for rank r; sources/destinations None for the alltoallw."""
    def cart_grid(rank):
        c0, c1 = rank // 2, rank % 2
        other = ((c0 + 1) % 2) * 2 + c1                 # periodic, size 2: both sides
        lo = c0 * 2 + c1 - 1 if c1 > 0 else "null"      # not periodic
        hi = c0 * 2 + c1 + 1 if c1 < 1 else "null"
        return [other, other, lo, hi]
    src = [(r + 3) % N, (r + 2) % N]
    dst = [(r + 1) % N, (r + 2) % N]
    ring = [(r + 3) % N, (r + 1) % N]
    grid = cart_grid(r)
    c = N - 1 - r                                       # rank in the reversed communicator
    rring = [(c + 3) % N, (c + 1) % N]
    return {
        "MPI_Neighbor_alltoall": (True, ring, ring, [64, 64], [64, 64]),
        "MPI_Neighbor_allgather": (True, grid, grid, [24] * 4, [24] * 4),
        "MPI_Neighbor_alltoallv": (False, src, dst, [(r + 1) * 4, (r + 1) * 8],
                                   [(src[0] + 1) * 4, (src[1] + 1) * 8]),
        "MPI_Ineighbor_alltoallw": (False, src, dst, [(r + 1) * 8, (r + 2) * 4],
                                    [(src[0] + 1) * 8, (src[1] + 2) * 4]),
        "MPI_Alltoallw": (False, None, None, [(r + p + 1) * (8 if p % 2 == 0 else 4) for p in range(N)],
                          [(p + r + 1) * (8 if r % 2 == 0 else 4) for p in range(N)]),
        "MPI_Ineighbor_alltoall": (True, rring, rring, [32, 32], [32, 32]),
    }


LINE = re.compile(r"^\S+ \S+ (MPI_\w+) coll\(.*?\)"
                  r"(?: neighbours\(comm=\d+( cart)? in=(\S*) out=([^)]*)\))?"
                  r" sbytes\[\d+\]=([\d,]*) rbytes\[\d+\]=([\d,]*)")


def ranks_of(text):
    return [x if x == "null" else int(x) for x in text.split(",")] if text else []


def nums(text):
    return [int(x) for x in text.split(",")] if text else []


def check_rank(tern_trace, path, r):
    p = run([tern_trace, "cat", path])
    check(p.returncode == 0, "cat %s: rc %d %s" % (path, p.returncode, p.stderr))
    got = {}
    for line in p.stdout.split("\n"):
        m = LINE.match(line)
        if m:
            got[m.group(1)] = (m.group(2) is not None,
                               ranks_of(m.group(3)) if m.group(3) is not None else None,
                               ranks_of(m.group(4)) if m.group(4) is not None else None,
                               nums(m.group(5)), nums(m.group(6)))
    for call, want in expected(r).items():
        check(got.get(call) == want, "rank %d %s: %s, want %s" % (r, call, got.get(call), want))


def check_matrix(tern_trace, tdir):
    """The report's byte matrix: each rank's neighbourhood sends, mapped to
    world ranks (the reversed communicator's rank c is world N - 1 - c)."""
    want = [[0] * N for _ in range(N)]
    for r in range(N):
        for call, (_, _, dst, sent, _) in expected(r).items():
            if dst is None:
                continue
            for d, b in zip(dst, sent):
                if d != "null":
                    want[r][N - 1 - d if call == "MPI_Ineighbor_alltoall" else d] += b
    p = run([tern_trace, "report", tdir])
    check(p.returncode == 0, "report: rc %d %s" % (p.returncode, p.stderr))
    lines = p.stdout.split("\n")
    got = None
    for i, line in enumerate(lines):
        if line.startswith("matrix bytes"):
            got = [[int(x) for x in lines[i + 2 + r].split()[1:]] for r in range(N)]
    check(got == want, "report matrix %s, want %s" % (got, want))


def replay(sim, src, out, extra, planned, fallback):
    p = run([sim, "--replay", src, "--out", out] + extra)
    check(p.returncode == 0, "replay %s: rc %d %s" % (extra, p.returncode, p.stderr))
    if p.returncode != 0:
        return
    text = open(os.path.join(out, "replay.txt")).read()
    # the reversed communicator's allreduce and neighbour alltoall too:
    # its members are found by communicator rank, not kept as traced time
    want = "collectives: %d expanded by Tern's own code (tern-coll-plan), %d by the models (%d of them by " \
           "the fallback)" % (planned, 7 - planned, fallback)
    check(want in text and "planner failed" not in text and "0 collectives kept as traced time" in text,
          "replay %s: want %r in %s" % (extra, want, text))
    for kind, calls in (("neighbor_alltoall", 16), ("neighbor_allgather", 4), ("alltoall", 4), ("allreduce", 4)):
        check(re.search(r"calls %s p50: .*\(%d calls\)" % (kind, calls), text) is not None,
              "replay %s: %d %s calls timed: %s" % (extra, calls, kind, text))


def main():
    a = args()
    tern_trace = os.path.join(a.bin, "tern-trace")
    sim = os.path.join(a.bin, "tern-sim")
    with tempfile.TemporaryDirectory() as tmp:
        tdir = os.path.join(tmp, "t")
        os.mkdir(tdir)
        files = traced_job(a.bin, a.prog, tdir, N, "trace_nbrs: done")
        for f in files:
            m = re.search(r"\.(\d+)\.ttr$", f)
            check_rank(tern_trace, f, int(m.group(1)))
        if files:
            check_matrix(tern_trace, tdir)
            replay(sim, tdir, os.path.join(tmp, "o1"), [], 7, 0)
            replay(sim, tdir, os.path.join(tmp, "o2"),
                   ["--replay_slots", "rank", "--topo", "fattree", "--k", "4", "--n", "2"], 7, 0)
            replay(sim, tdir, os.path.join(tmp, "o3"), ["--coll_plan", "off"], 0, 0)
    return verdict("nbrs")


if __name__ == "__main__":
    sys.exit(main())

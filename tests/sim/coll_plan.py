#!/usr/bin/env python3
"""tern-coll-plan against what Tern's collective algorithms must do: every
algorithm (tern-coll-plan --list) on several communicator sizes, message
sizes and node layouts, planned, read by a parser of its own here, and
checked:
  - every message has one send and one receive, with the same ranks and
    bytes; every post is waited for exactly once, after it was made;
    every shared-memory step has all its members;
  - the plan runs to its end when every send waits for its receive (a
    rendezvous everywhere: the strictest order), so it cannot deadlock;
  - a forced algorithm whose restrictions hold is the one that ran;
  - the nonblocking forms (--algo nbc: the coll/nbc schedule builders)
    pass the same checks;
  - what the algorithm moves: every non-root of a binomial or pipelined
    bcast receives the vector exactly once (scatter_allgather: at least
    once, less than twice); every rank of a flat allgather receives n-1
    blocks; pairwise alltoall sends one block to each other rank; ring
    allreduce takes 2 (n-1) exchanges of a piece; dissemination barrier
    ceil(log2 n) messages; linear gather n-1 blocks into the root."""
import argparse
import random
import math
import subprocess
import sys

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
    return cond


def parse(text):
    lines = text.split("\n")
    assert lines[0] == "tern-coll-plan 1", lines[0]
    h = lines[1].split()
    hd = dict(zip(h[0::2], h[1::2]))
    n = int(hd["ranks"])
    ranks, k = [], 2
    for i in range(n):
        w = lines[k].split()
        assert w[:2] == ["rank", str(i)] and w[2] == "ops", lines[k]
        cnt = int(w[3])
        ranks.append([ln.split() for ln in lines[k + 1:k + 1 + cnt]])
        k += 1 + cnt
    assert lines[k] == "end" and lines[k + 1:] == [""], lines[k:]
    return hd, ranks


def consistent(hd, ranks, tag):
    n, nmsg, ngr = int(hd["ranks"]), int(hd["messages"]), int(hd["groups"])
    send, recv, groups = {}, {}, {}
    for i, ops in enumerate(ranks):
        posted, waited = set(), set()
        for o in ops:
            if o[0] in "sr":
                mid, peer, b = int(o[1]), int(o[2]), int(o[3])
                table = send if o[0] == "s" else recv
                if not check(mid not in table and 0 <= mid < nmsg and 0 <= peer < n,
                             "%s: message %d twice or out of range" % (tag, mid)):
                    return False
                table[mid] = (i, peer, b)
                posted.add(mid)
            elif o[0] == "w":
                for x in map(int, o[1:]):
                    if not check(x in posted and x not in waited,
                                 "%s: rank %d waits for %d, not a post of its own or twice" % (tag, i, x)):
                        return False
                    waited.add(x)
            elif o[0] == "y":
                groups.setdefault(int(o[1]), []).append(i)
            elif o[0] in "cm":
                if not check(len(o) == 2 and int(o[1]) >= (o[0] == "m"), "%s: rank %d: %s" % (tag, i, " ".join(o))):
                    return False
            else:
                check(False, "%s: rank %d: unknown op %s" % (tag, i, " ".join(o)))
                return False
        check(posted == waited, "%s: rank %d leaves posts unwaited" % (tag, i))
    check(len(send) == nmsg and len(recv) == nmsg, "%s: %d messages announced, %d/%d found"
          % (tag, nmsg, len(send), len(recv)))
    for mid, (src, dst, b) in send.items():
        r = recv.get(mid)
        check(r is not None and r == (dst, src, b), "%s: message %d: send %s, receive %s" % (tag, mid, (src, dst, b), r))
    check(sorted(groups) == list(range(ngr)) and all(len(m) >= 2 for m in groups.values()),
          "%s: groups %s" % (tag, groups))
    return True


def runs_to_end(ranks, tag):
    """Every rank advances while it can; a send completes once its
    receive is posted, a receive once its send is; steps join all."""
    n = len(ranks)
    pc = [0] * n
    sposted, rposted, done_sends, done_recvs = set(), set(), set(), set()
    at_group = {}
    members = {}
    for i, ops in enumerate(ranks):
        for o in ops:
            if o[0] == "y":
                members.setdefault(int(o[1]), set()).add(i)
    progress = True
    while progress:
        progress = False
        for i in range(n):
            while pc[i] < len(ranks[i]):
                o = ranks[i][pc[i]]
                if o[0] == "s":
                    sposted.add(int(o[1]))
                elif o[0] == "r":
                    rposted.add(int(o[1]))
                elif o[0] == "w":
                    ok = all((x in rposted and x in sposted) for x in map(int, o[1:]))
                    if not ok:
                        break
                elif o[0] == "y":
                    g = int(o[1])
                    at_group.setdefault(g, set()).add(i)
                    if at_group[g] != members[g]:
                        break
                pc[i] += 1
                progress = True
    stuck = [i for i in range(n) if pc[i] < len(ranks[i])]
    return check(not stuck, "%s: deadlocks (ranks %s stop at %s)" % (tag, stuck, [pc[i] for i in stuck]))


def plan(tool, kind, algo, n, b, extra=(), stdin=None):
    args = [tool, "--kind", kind, "--algo", algo, "--ranks", str(n), "--bytes", str(b)] + list(extra)
    p = subprocess.run(args, capture_output=True, text=True, input=stdin)
    tag = " ".join(args[1:])
    if not check(p.returncode == 0, "%s: rc %d %s" % (tag, p.returncode, p.stderr.strip())):
        return None, None, tag
    hd, ranks = parse(p.stdout)
    return hd, ranks, tag


def received(ranks, i):
    return sum(int(o[3]) for o in ranks[i] if o[0] == "r")


def specific(kind, algo, n, b, hd, ranks, tag):
    ran = hd["algo"]
    if kind == "bcast" and ran in ("binomial", "pipeline") and b > 0:
        for i in range(1, n):
            check(received(ranks, i) == b, "%s: rank %d receives %d, not %d" % (tag, i, received(ranks, i), b))
    if kind == "bcast" and ran == "scatter_allgather" and b > 0:
        # the ring brings a rank the pieces of its scatter subtree again
        for i in range(1, n):
            check(b <= received(ranks, i) < 2 * b, "%s: rank %d receives %d" % (tag, i, received(ranks, i)))
    if kind == "allgather" and ran in ("ring", "recdbl", "bruck"):
        for i in range(n):
            check(received(ranks, i) == (n - 1) * b, "%s: rank %d receives %d" % (tag, i, received(ranks, i)))
    if kind == "alltoall" and ran == "pairwise" and b > 0:
        for i in range(n):
            s = [o for o in ranks[i] if o[0] == "s"]
            check(len(s) == n - 1 and sorted(int(o[2]) for o in s) == [j for j in range(n) if j != i] and
                  all(int(o[3]) == b for o in s), "%s: rank %d sends %s" % (tag, i, s))
    if kind == "allreduce" and ran == "ring" and b >= 8 * n:
        for i in range(n):
            s = [o for o in ranks[i] if o[0] == "s"]
            check(len(s) == 2 * (n - 1), "%s: rank %d: %d sends" % (tag, i, len(s)))
    if kind == "barrier" and ran == "dissemination":
        for i in range(n):
            s = [o for o in ranks[i] if o[0] == "s"]
            check(len(s) == math.ceil(math.log2(n)), "%s: rank %d: %d sends" % (tag, i, len(s)))
    if kind in ("allgather", "alltoall") and ran in ("ring", "pairwise") and b > 0:
        # the rank's own block, copied locally (and nothing else)
        for i in range(n):
            m = sum(int(o[1]) for o in ranks[i] if o[0] == "m")
            check(m == b, "%s: rank %d copies %d bytes, not %d" % (tag, i, m, b))
    if kind == "gather" and ran == "linear" and b > 0:
        r = [o for o in ranks[0] if o[0] == "r"]
        check(len(r) == n - 1 and all(int(o[3]) == b for o in r), "%s: root receives %s" % (tag, r))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    a = ap.parse_args()
    algos = []
    for line in subprocess.run([a.tool, "--list"], capture_output=True, text=True, check=True).stdout.split("\n"):
        if line:
            w = line.split()
            algos.append((w[0], w[1], set(w[2:])))
    check(len(algos) >= 40, "--list names %d algorithms" % len(algos))
    count = 0
    kinds = sorted(set(k for k, _, _ in algos)) + ["exscan"]
    for kind, algo, restr in algos + [(k, "auto", set()) for k in
                                      ("bcast", "allreduce", "alltoall", "reduce_scatter", "exscan")] + \
            [(k, "nbc", set()) for k in kinds]:
        for n in (2, 3, 5, 8, 16):
            for b in (0, 24, 65544):
                for layout in ((), ("--ppn", "3")):
                    hd, ranks, tag = plan(a.tool, kind, algo, n, b, layout)
                    if hd is None:
                        continue
                    count += 1
                    if not consistent(hd, ranks, tag):
                        continue
                    runs_to_end(ranks, tag)
                    fits = (algo != "auto" and not ("pow2" in restr and n & (n - 1)) and
                            not ("multinode" in restr and not layout) and "shm" not in restr and not layout)
                    if fits and b > 0:
                        check(hd["algo"] == algo, "%s: forced %s, ran %s" % (tag, algo, hd["algo"]))
                    if not layout:
                        specific(kind, algo, n, b, hd, ranks, tag)
    # vector forms (--counts): uneven blocks, some empty; whatever the
    # algorithm, the blocks must reach where they go
    rng = random.Random(7)
    for kind, algo, restr in algos + [(k, "nbc", set()) for k in ("gather", "scatter", "allgather",
                                                                   "alltoall", "reduce_scatter")]:
        if kind not in ("gather", "scatter", "allgather", "alltoall", "reduce_scatter") or "uniform" in restr:
            continue
        for n in (2, 5, 8):
            rows = n if kind == "alltoall" else 1
            cv = [[rng.choice((0, 1, 24, 4096, 70000)) for _ in range(n)] for _ in range(rows)]
            text = "\n".join(" ".join(str(x) for x in r) for r in cv) + "\n"
            for layout in ((), ("--ppn", "3")):
                hd, ranks, tag = plan(a.tool, kind, algo, n, 0, ("--counts", "-", "--root", "1") + layout
                                      if kind in ("gather", "scatter") else ("--counts", "-") + layout, text)
                if hd is None:
                    continue
                count += 1
                tag += " counts " + text.replace("\n", "/")
                if not consistent(hd, ranks, tag):
                    continue
                runs_to_end(ranks, tag)
                if layout:
                    continue    # shared-memory steps move some of it
                sent = [sum(int(o[3]) for o in ranks[i] if o[0] == "s") for i in range(n)]
                got = [received(ranks, i) for i in range(n)]
                if kind == "alltoall":
                    for i in range(n):
                        check(got[i] >= sum(cv[j][i] for j in range(n) if j != i) and
                              sent[i] >= sum(cv[i][j] for j in range(n) if j != i),
                              "%s: rank %d sends %d, receives %d" % (tag, i, sent[i], got[i]))
                elif kind == "gather":
                    check(got[1] >= sum(cv[0]) - cv[0][1], "%s: the root receives %d" % (tag, got[1]))
                elif kind == "scatter":
                    check(sent[1] >= sum(cv[0]) - cv[0][1], "%s: the root sends %d" % (tag, sent[1]))
                elif kind == "allgather":
                    for i in range(n):
                        check(got[i] >= sum(cv[0]) - cv[0][i], "%s: rank %d receives %d" % (tag, i, got[i]))
                else:
                    for i in range(n):
                        check(cv[0][i] == 0 or got[i] >= cv[0][i], "%s: rank %d receives %d" % (tag, i, got[i]))
    # neighbourhood collectives (--neighbors): random distributed graphs
    # (repeated edges, empty lists; no self edges, which are refused), every
    # rank's sends and receives exactly its lists' edges and blocks
    for kind in ("neighbor_alltoall", "neighbor_allgather"):
        for n in (1, 2, 5, 8):
            outs = []
            for i in range(n):
                deg = rng.choice((0, 1, 2, 3, 5))
                blk = rng.choice((0, 24, 70000))
                outs.append([((i + rng.randrange(1, n)) % n, blk if kind == "neighbor_allgather" else
                              rng.choice((0, 1, 24, 4096, 70000))) for _ in range(deg if n > 1 else 0)])
            ins = [[] for _ in range(n)]
            for i in range(n):
                for d, b in outs[i]:
                    ins[d].append((i, b))
            for i in range(n):
                # another order across sources, the same order per source
                keyed = sorted(enumerate(ins[i]), key=lambda e: (rng.random(), 0))
                per = {}
                for k, (src, b) in enumerate(ins[i]):
                    per.setdefault(src, []).append(b)
                order = [src for _, (src, _) in keyed]
                ins[i] = [(src, per[src].pop(0)) for src in order]
            text = "".join("%d %d %s %s %s %s\n" % (len(ins[i]), len(outs[i]),
                                                     " ".join(str(s) for s, _ in ins[i]),
                                                     " ".join(str(d) for d, _ in outs[i]),
                                                     " ".join(str(b) for _, b in outs[i]),
                                                     " ".join(str(b) for _, b in ins[i])) for i in range(n))
            for algo in ("auto", "nbc"):
                hd, ranks, tag = plan(a.tool, kind, algo, n, 0, ("--neighbors", "-"), text)
                if hd is None:
                    continue
                count += 1
                tag += " neighbors " + text.replace("\n", "/")
                check(hd["algo"] == "nbc", "%s: ran %s" % (tag, hd["algo"]))
                if not consistent(hd, ranks, tag):
                    continue
                runs_to_end(ranks, tag)
                for i in range(n):
                    sends = sorted((int(o[2]), int(o[3])) for o in ranks[i] if o[0] == "s")
                    recvs = sorted((int(o[2]), int(o[3])) for o in ranks[i] if o[0] == "r")
                    check(sends == sorted(outs[i]) and recvs == sorted(ins[i]),
                          "%s: rank %d sends %s, receives %s" % (tag, i, sends, recvs))
    for bad, stdin in ((["--kind", "neighbor_alltoall", "--ranks", "2", "--neighbors", "-"], "1 1 1 1 5 5\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "1 1 1 0 5 5\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "1 1 0 0 5\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "1 1 0 0 5 5\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "0 0 7\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "2000000 0\n"),
                       (["--kind", "neighbor_alltoall", "--ranks", "1", "--neighbors", "-"], "1 1 0 0 -5 5\n"),
                       (["--kind", "neighbor_allgather", "--ranks", "2", "--neighbors", "-"],
                        "2 2 1 1 1 1 5 6 5 6\n2 2 0 0 0 0 5 6 5 6\n")):
        p = subprocess.run([a.tool] + bad, capture_output=True, text=True, input=stdin)
        check(p.returncode == 1 and p.stderr.startswith("tern-coll-plan: --neighbors") and p.stdout == "",
              "%s %r: rc %d, %r" % (bad, stdin, p.returncode, p.stderr))
    for bad in (["--kind", "neighbor_alltoall", "--ranks", "2"],
                ["--kind", "bcast", "--ranks", "2", "--neighbors", "-"],
                ["--kind", "neighbor_alltoall", "--ranks", "2", "--algo", "ring", "--neighbors", "-"]):
        p = subprocess.run([a.tool] + bad, capture_output=True, text=True, input="0 0\n0 0\n")
        check(p.returncode == 1 and p.stderr.startswith("tern-coll-plan: ") and p.stdout == "",
              "%s: rc %d, %r" % (bad, p.returncode, p.stderr))
    for bad, stdin in ((["--kind", "bcast", "--ranks", "2", "--counts", "-"], "1 2\n"),
                       (["--kind", "gather", "--ranks", "3", "--counts", "-"], "1 2\n"),
                       (["--kind", "gather", "--ranks", "2", "--counts", "-"], "1 2 3\n"),
                       (["--kind", "alltoall", "--ranks", "2", "--counts", "-"], "1 2 3 -4\n"),
                       (["--kind", "scatter", "--ranks", "2", "--counts", "-"], "1 99999999999999\n")):
        p = subprocess.run([a.tool] + bad, capture_output=True, text=True, input=stdin)
        check(p.returncode == 1 and p.stderr.startswith("tern-coll-plan: --counts") and p.stdout == "",
              "%s %r: rc %d, %r" % (bad, stdin, p.returncode, p.stderr))
    # a user op keeps to the algorithms that respect rank order
    hd, ranks, tag = plan(a.tool, "allreduce", "ring", 8, 65536, ["--noncommutative"])
    check(hd is not None and hd["algo"] != "ring", "%s: a non-commutative op ran the ring" % tag)
    # bad requests are refused with a message, not planned
    for bad in (["--kind", "nosuch", "--ranks", "4"], ["--kind", "bcast", "--ranks", "0"],
                ["--kind", "bcast", "--ranks", "4", "--algo", "nosuch"],
                ["--kind", "bcast", "--ranks", "4", "--root", "4"],
                ["--kind", "bcast", "--ranks", "4", "--nodes", "0,1"],
                ["--kind", "allreduce", "--ranks", "4", "--bytes", "10", "--elem", "4"]):
        p = subprocess.run([a.tool] + bad, capture_output=True, text=True)
        check(p.returncode == 1 and p.stderr.startswith("tern-coll-plan: ") and p.stdout == "",
              "%s: rc %d, %r" % (bad, p.returncode, p.stderr))
    for f in FAILS[:30]:
        print("FAIL:", f)
    if FAILS:
        print("coll plan: %d failures in %d plans" % (len(FAILS), count))
        return 1
    print("coll plan: ok (%d plans)" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The trace test: run trace_traffic on 3 ranks with TERN_TRACE, read every
rank's file with `tern-trace cat`, and check the records against what the
program did (peers, tags, bytes, matched sources of wildcard receives,
requests made and completed, collectives with their sequence numbers and
algorithms, the communicator a split made, an error flagged).  Also checks
that a directory that cannot be made leaves the job running untraced."""
import os
import re
import sys
import tempfile

from tracetest import args, check, run, traced_job, verdict  # noqa: E402





LINE = re.compile(r"^(\d+\.\d+) (\d+\.\d+) +(MPI_\w+)(.*)$")
ITEM = re.compile(r" (\w+)\(([^)]*)\)| (req|start|free)=(0x[0-9a-f]+|0)| newcomm=(\d+)"
                  r"| (sbytes|rbytes)\[\d+\]=([\d,]+)")


def parse(text):
    """[(t, dur, call, [(kind, {k: v})], error)] and {comm id: line}"""
    recs, comms = [], {}
    for ln in text.splitlines():
        if ln.startswith("#"):
            continue
        m = re.match(r"^(\d+\.\d+) comm (\d+) (.*)$", ln)
        if m:
            comms[int(m.group(2))] = m.group(3)
            continue
        m = LINE.match(ln)
        if not m:
            check(False, "unparsed line: " + ln)
            continue
        items = []
        rest = m.group(4)
        for it in ITEM.finditer(rest):
            if it.group(1):
                kv = {}
                for tok in it.group(2).split():
                    if "=" in tok:
                        k, v = tok.split("=", 1)
                        kv[k] = v
                    else:
                        kv.setdefault("_", []).append(tok)
                items.append((it.group(1), kv))
            elif it.group(3):
                items.append((it.group(3), {"id": it.group(4)}))
            elif it.group(5):
                items.append(("newcomm", {"id": it.group(5)}))
            else:
                items.append((it.group(6), {"list": it.group(7)}))
        recs.append((float(m.group(1)), float(m.group(2)), m.group(3), items,
                     rest.endswith(" ERROR")))
    return recs, comms


def calls(recs, name):
    return [r for r in recs if r[2] == name]


def item(rec, kind):
    for k, kv in rec[3]:
        if k == kind:
            return kv
    return None


def main():
    a = args()
    tern_run = os.path.join(a.bin, "tern-run")
    tern_trace = os.path.join(a.bin, "tern-trace")
    with tempfile.TemporaryDirectory() as d:
        tdir = os.path.join(d, "t")
        files = traced_job(a.bin, a.prog, tdir)
        if not files:
            return verdict("trace")
        check(oct(os.stat(tdir).st_mode & 0o777) == "0o700", "trace dir is 0700")
        for f in files:
            check(oct(os.stat(f).st_mode & 0o777) == "0o600", "trace file is 0600")
        by_rank = {}
        for f in files:
            r = int(re.search(r"\.(\d+)\.ttr$", f).group(1))
            c = run([tern_trace, "cat", f], {})
            check(c.returncode == 0, "cat %s: %s" % (f, c.stderr))
            by_rank[r] = parse(c.stdout)
        for r, (recs, comms) in by_rank.items():
            names = [x[2] for x in recs]
            check(names[0] == "MPI_Init", "rank %d: first record MPI_Init, got %s" % (r, names[0]))
            check(names[-1] == "MPI_Finalize", "rank %d: last record MPI_Finalize" % r)
            last = -1.0
            for rec in recs:
                if rec[2] in ("MPI_Init",) or rec[0] < last:
                    pass
                check(rec[1] >= 0, "rank %d: negative duration" % r)
                check(rec[0] + 1e-9 >= last, "rank %d: %s starts before the previous record"
                      % (r, rec[2]))
                last = rec[0]
            check(1 in comms and "size=3" in comms[1], "rank %d: world defined first" % r)
            # collectives on the world, in order, with algorithms
            colls = [item(x, "coll") for x in recs if item(x, "coll") is not None]
            world = [c for c in colls if c["comm"] == "1"]
            kinds = [c["_"][0] for c in world]
            check(kinds == ["allreduce", "bcast", "reduce", "alltoall", "barrier"],
                  "rank %d: world collectives %s" % (r, kinds))
            check([int(c["seq"]) for c in world] == list(range(len(world))),
                  "rank %d: sequence numbers %s" % (r, [c["seq"] for c in world]))
            for c in world:
                if "blocking" in c["_"]:
                    check(c["algo"] != "?" and c["algo"].startswith(c["_"][0] + ":"),
                          "rank %d: %s ran algorithm %s" % (r, c["_"][0], c["algo"]))
            ar = world[0]
            check(ar["sbytes"] == "64" and ar["rbytes"] == "64" and ar["op"] == "sum",
                  "rank %d: allreduce %s" % (r, ar))
            bc = world[1]
            check(bc["root"] == "2" and bc["sbytes"] == ("64" if r == 2 else "0"),
                  "rank %d: bcast %s" % (r, bc))
            rd = world[2]
            check(rd["op"] == "max" and rd["rbytes"] == ("16" if r == 0 else "0"),
                  "rank %d: reduce %s" % (r, rd))
            a2a = [x for x in recs if x[2] == "MPI_Alltoallv"][0]
            sb = item(a2a, "sbytes")
            want = ",".join(str(4 * (r + p + 1)) for p in range(3))
            check(sb is not None and sb["list"] == want,
                  "rank %d: alltoallv sends %s, expected %s" % (r, sb, want))
            ib = calls(recs, "MPI_Ibarrier")[0]
            req = item(ib, "req")
            check(req is not None and "nonblocking" in item(ib, "coll")["_"],
                  "rank %d: Ibarrier made a request" % r)
            w = [x for x in calls(recs, "MPI_Wait") if item(x, "done") and
                 item(x, "done")["req"] == req["id"]]
            check(len(w) == 1, "rank %d: the Ibarrier's request completed in a Wait" % r)
            # the split's communicator, defined and used
            sp = calls(recs, "MPI_Comm_split")[0]
            nc = item(sp, "newcomm")
            check(nc is not None and int(nc["id"]) in comms, "rank %d: split defined its "
                  "communicator" % r)
            if nc is not None and int(nc["id"]) in comms:
                size = 2 if r % 2 == 0 else 1
                check("size=%d" % size in comms[int(nc["id"])], "rank %d: split size" % r)
                bars = [item(x, "coll") for x in calls(recs, "MPI_Barrier")]
                check(any(b["comm"] == nc["id"] for b in bars),
                      "rank %d: barrier on the split communicator" % r)
            # the ring: Isend to the right, Irecv from the left, both completed
            isend = [x for x in calls(recs, "MPI_Isend") if item(x, "send")["tag"] == "11"][0]
            irecv = [x for x in calls(recs, "MPI_Irecv") if item(x, "recv")["tag"] == "11"][0]
            check(item(isend, "send")["peer"] == str((r + 1) % 3) and
                  item(isend, "send")["bytes"] == "33", "rank %d: ring send" % r)
            wa = calls(recs, "MPI_Waitall")[0]
            done = [kv for k, kv in wa[3] if k == "done"]
            ids = {d["req"] for d in done}
            check(ids == {item(isend, "req")["id"], item(irecv, "req")["id"]},
                  "rank %d: Waitall completed the ring's two requests" % r)
            src = [d for d in done if d["req"] == item(irecv, "req")["id"]]
            check(src and src[0].get("source") == str((r + 2) % 3) and
                  src[0].get("bytes") == "33", "rank %d: ring receive's status" % r)
            sr = calls(recs, "MPI_Sendrecv")[0]
            check(item(sr, "send")["bytes"] == "40" and item(sr, "status")["source"] ==
                  str((r + 2) % 3), "rank %d: sendrecv" % r)
            bad = [x for x in calls(recs, "MPI_Send") if x[4]]
            check(len(bad) == 1, "rank %d: the send to rank 99 is flagged ERROR" % r)
        recs0, _ = by_rank[0]
        recs1, _ = by_rank[1]
        s = [item(x, "send") for x in calls(recs0, "MPI_Send") if not x[4]]
        check(s and s[0]["peer"] == "1" and s[0]["tag"] == "7" and s[0]["bytes"] == "100" and
              s[0]["mode"] == "std", "rank 0: Send %s" % s)
        iss = [item(x, "send") for x in calls(recs0, "MPI_Isend") if item(x, "send")["tag"] == "8"]
        check(iss and iss[0]["bytes"] == "1000", "rank 0: Isend of 250 ints")
        ss = calls(recs0, "MPI_Ssend")
        check(ss and item(ss[0], "send")["mode"] == "sync", "rank 0: Ssend")
        rv = calls(recs1, "MPI_Recv")
        check(len(rv) == 2 and item(rv[0], "recv")["peer"] == "any" and
              item(rv[0], "status")["source"] == "0" and item(rv[0], "status")["bytes"] == "100",
              "rank 1: wildcard receive matched rank 0's 100 bytes")
        check(item(rv[1], "recv")["tag"] == "any" and item(rv[1], "status")["tag"] == "9",
              "rank 1: any-tag receive matched tag 9")

        # a directory that cannot be made: the ranks warn and run untraced
        blocker = os.path.join(d, "file")
        open(blocker, "w").close()
        p = run([tern_run, "-n", "3", a.prog], {"TERN_TRACE": os.path.join(blocker, "t")})
        check(p.returncode == 0 and "not tracing" in p.stderr,
              "an impossible trace directory is warned about: rc %d %s" %
              (p.returncode, p.stderr[-300:]))

        # off: nothing written
        odir = os.path.join(d, "off")
        p = run([tern_run, "-n", "3", a.prog], {"TERN_TRACE": ""})
        check(p.returncode == 0 and not os.path.exists(odir), "untraced job")
    return verdict("trace")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tern-trace export --otf2: trace trace_traffic on 3 ranks, export it, and
read the archive back with the OTF2 project's own otf2-print: every
message of the program must be there once on each side with its size,
the blocking collectives with their kinds and roots, the ibarrier as a
nonblocking collective, the communicators with their members, and each
location's events in time order.  Then trace_persist (persistent send
and receive started 3 times, an iallreduce, a persistent allreduce
started twice, an ibcast): every start is a message or a nonblocking
collective, each completed once, with its size and root."""
import collections
import os
import re
import sys
import tempfile

from tracetest import args, check, run, traced_job, verdict  # noqa: E402




def events(text):
    """otf2-print's event lines: (name, location, time, the line)."""
    for ln in text.splitlines():
        f = ln.split()
        if len(f) >= 3 and f[0].isupper() and f[1].isdigit():
            yield f[0], int(f[1]), int(f[2]), ln


def persistent(a, d):
    tdir, odir = os.path.join(d, "pt"), os.path.join(d, "po")
    if not traced_job(a.bin, a.persist, tdir, done="trace_persist: done"):
        return
    p = run([os.path.join(a.bin, "tern-trace"), "export", "--otf2", odir, tdir])
    check(p.returncode == 0, "export of trace_persist: %s %s" % (p.stdout, p.stderr))
    ev = run([a.otf2_print, os.path.join(odir, "traces.otf2")])
    check(ev.returncode == 0, "otf2-print reads it: %s" % ev.stderr[-300:])
    got = collections.Counter()
    for name, loc, _, ln in events(ev.stdout):
        if name == "MPI_ISEND":
            got[("isend", loc, re.search(r"Receiver: (\d+)", ln).group(1),
                 re.search(r"Length: (\d+)", ln).group(1))] += 1
        elif name == "MPI_IRECV":
            got[("irecv", loc, re.search(r"Sender: (\d+)", ln).group(1),
                 re.search(r"Length: (\d+)", ln).group(1))] += 1
        elif name in ("MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "NON_BLOCKING_COLLECTIVE_REQUEST"):
            got[(name, loc)] += 1
        elif name == "NON_BLOCKING_COLLECTIVE_COMPLETE":
            got[(re.search(r"Operation: (\w+)", ln).group(1), loc,
                 re.search(r"Root: (\w+)", ln).group(1),
                 max(int(re.search(r"Sent: (\d+)", ln).group(1)),
                     int(re.search(r"Received: (\d+)", ln).group(1))))] += 1
    want = collections.Counter({("isend", 0, "1", "64"): 3, ("MPI_ISEND_COMPLETE", 0): 3,
                                ("irecv", 1, "0", "64"): 3, ("MPI_IRECV_REQUEST", 1): 3})
    for loc in range(3):
        want[("NON_BLOCKING_COLLECTIVE_REQUEST", loc)] = 4
        want[("ALLREDUCE", loc, "NONE", 64)] = 1
        want[("ALLREDUCE", loc, "NONE", 32)] = 2
        want[("BCAST", loc, "1", 100)] = 1
    check(got == want, "persistent and nonblocking events: %s" % sorted(got.items()))


def main():
    a = args("--persist", "--otf2-print")
    with tempfile.TemporaryDirectory() as d:
        tdir, odir = os.path.join(d, "t"), os.path.join(d, "o")
        if not traced_job(a.bin, a.prog, tdir):
            return verdict("otf2")
        p = run([os.path.join(a.bin, "tern-trace"), "export", "--otf2", odir, tdir])
        check(p.returncode == 0 and "3 ranks" in p.stdout, "export: %s %s" % (p.stdout, p.stderr))
        arch = os.path.join(odir, "traces.otf2")
        ev = run([a.otf2_print, arch])
        check(ev.returncode == 0, "otf2-print reads the archive: %s" % ev.stderr[-300:])
        defs = run([a.otf2_print, "-G", arch])
        sends, recvs = collections.Counter(), collections.Counter()
        colls = collections.Counter()
        last = {}
        for ln in ev.stdout.splitlines():
            f = ln.split()
            if len(f) < 3 or not f[0].isupper() or not f[1].isdigit():
                continue
            loc, t = int(f[1]), int(f[2])
            check(t >= last.get(loc, 0), "location %d: %s at %d before the previous event" %
                  (loc, f[0], t))
            last[loc] = t
            length = re.search(r"Length: (\d+)", ln)
            if f[0] in ("MPI_SEND", "MPI_ISEND"):
                dst = int(re.search(r"Receiver: (\d+)", ln).group(1))
                sends[(loc, dst, int(length.group(1)))] += 1
            elif f[0] in ("MPI_RECV", "MPI_IRECV"):
                src = int(re.search(r"Sender: (\d+)", ln).group(1))
                recvs[(src, loc, int(length.group(1)))] += 1
            elif f[0] == "MPI_COLLECTIVE_END":
                op = re.search(r"Operation: (\w+)", ln).group(1)
                root = re.search(r"Root: (\w+)", ln).group(1)
                colls[(op, root)] += 1
        want = collections.Counter({(0, 1, 100): 1, (0, 1, 1000): 1, (0, 1, 10): 1,
                                    (0, 1, 33): 1, (1, 2, 33): 1, (2, 0, 33): 1,
                                    (0, 1, 40): 1, (1, 2, 40): 1, (2, 0, 40): 1})
        check(sends == want, "sends %s" % sorted(sends.items()))
        check(recvs == want, "receives %s" % sorted(recvs.items()))
        check(colls[("ALLREDUCE", "NONE")] == 3 and colls[("BCAST", "2")] == 3 and
              colls[("REDUCE", "0")] == 3 and colls[("ALLTOALL", "NONE")] == 3 and
              colls[("BARRIER", "NONE")] == 3, "collectives %s" % dict(colls))
        check(re.search(r"^COMM +0 .*\n?", defs.stdout, re.M) is not None and
              re.search(r"GROUP +1 .*3 Members", defs.stdout) is not None,
              "the world's communicator and its 3 members are defined")
        check(len(re.findall(r"^LOCATION ", defs.stdout, re.M)) == 3, "3 locations")
        nbc = [ln for name, _, _, ln in events(ev.stdout) if name == "NON_BLOCKING_COLLECTIVE_COMPLETE"]
        check(len(nbc) == 3 and all("Operation: BARRIER" in ln for ln in nbc),
              "the ibarrier, once per rank: %s" % nbc)
        persistent(a, d)
    return verdict("otf2")


if __name__ == "__main__":
    sys.exit(main())

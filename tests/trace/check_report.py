#!/usr/bin/env python3
"""The report test: run trace_traffic on 3 ranks with TERN_TRACE, run
`tern-trace report` on its traces, and check the numbers against what the
program did: the communication matrix (bytes and messages of every pair),
every message matched, the calls and their counts, the collectives by kind,
each rank's collective bytes, the critical path's parts adding up; the HTML
page parses, holds the SVG charts inline and nothing from outside, and
escapes what the traces say; --svg-dir writes each chart as a file that
parses as XML.  Then the failures: a rank's trace missing is an error
naming it, a cut trace is reported with its unmatched sends, a trace whose
host and job hold markup comes out escaped."""
import glob
import html.parser
import os
import re
import shutil
import struct
import sys
import tempfile
import xml.etree.ElementTree as ET

from tracetest import args, check, run, traced_job, verdict  # noqa: E402





# trace_traffic.c's point-to-point traffic, bytes per (sender, receiver)
P2P = {
    (0, 1): [100, 1000, 10, 33, 40],    # Send, Isend of 250 ints, Ssend, ring, Sendrecv
    (1, 2): [33, 40],
    (2, 0): [33, 40],
}
# its collective calls' bytes per rank: allreduce 64/64; bcast from rank 2
# (64); reduce of 4 ints to rank 0; alltoallv with rank+p+1 ints to p
COLL_SENT = {r: 64 + (64 if r == 2 else 0) + 16 + 4 * (3 * r + 6) for r in range(3)}
COLL_RECVD = {r: 64 + (0 if r == 2 else 64) + (16 if r == 0 else 0) + 4 * (3 * r + 6)
              for r in range(3)}


def parse_matrix(text, what):
    """{(row, col): value} of the 'matrix <what>' block"""
    lines = text.splitlines()
    out = {}
    for i, ln in enumerate(lines):
        if ln.startswith("matrix %s " % what):
            cols = [int(x) for x in lines[i + 1].split()]
            for row in lines[i + 2:i + 2 + len(cols)]:
                v = [int(x) for x in row.split()]
                for c, x in zip(cols, v[1:]):
                    out[(v[0], c)] = x
            break
    return out


class Page(html.parser.HTMLParser):
    """Tags, the per-rank table's rows, anything that would load from outside."""

    def __init__(self):
        super().__init__()
        self.tags = {}
        self.outside = []
        self.tables = []
        self.row = None
        self.cell = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.outside.append((tag, k, v))
            if k == "style" or (v and "url(" in v):
                self.outside.append((tag, k, v))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell += data


def check_text(out):
    m = re.search(r"^job (\S+): 3 ranks on 1 nodes, (\d+) records", out, re.M)
    check(m is not None, "the header line names 3 ranks")
    check("point-to-point: 9 messages matched, 0 sends unmatched, 0 receives unmatched" in out,
          "every message matched: " + "".join(l for l in out.splitlines()
                                              if l.startswith("point-to-point")))
    mb = parse_matrix(out, "bytes")
    mm = parse_matrix(out, "messages")
    check(len(mb) == 9 and len(mm) == 9, "two 3x3 matrices, got %d and %d" % (len(mb), len(mm)))
    for a in range(3):
        for b in range(3):
            want = P2P.get((a, b), [])
            check(mb.get((a, b)) == sum(want), "matrix bytes %d->%d = %s, want %d"
                  % (a, b, mb.get((a, b)), sum(want)))
            check(mm.get((a, b)) == len(want), "matrix messages %d->%d = %s, want %d"
                  % (a, b, mm.get((a, b)), len(want)))
    # calls and counts over the 3 ranks
    calls = dict(re.findall(r"^  (MPI_\w+) +(\d+) ", out, re.M))
    for name, n in (("MPI_Init", 3), ("MPI_Finalize", 3), ("MPI_Send", 4), ("MPI_Isend", 4),
                    ("MPI_Ssend", 1), ("MPI_Recv", 2), ("MPI_Sendrecv", 3),
                    ("MPI_Allreduce", 3), ("MPI_Alltoallv", 3), ("MPI_Barrier", 3)):
        check(calls.get(name) == str(n), "%s called %s times, want %d" % (name, calls.get(name), n))
    # per rank: one error each (the send to rank 99)
    rows = re.findall(r"^ +(\d) +\S+ \S+ +\S+ \S+ +\S+ \S+ +[\d.]+% +(\d+) +(\d+) ", out, re.M)
    check(len(rows) == 3 and all(r[2] == "1" for r in rows),
          "each rank made one erroneous call: %s" % rows)
    # collectives by kind: one each on the world, three barriers (the
    # world's Ibarrier, and the split's two communicators)
    check("collectives: 7 (0 with members missing from the traces)" in out,
          "7 collectives, all whole")
    kinds = {}
    for k, algo, cnt, ncalls in re.findall(r"^  (barrier|bcast|reduce|allreduce|alltoall) +(\S+) +"
                                           r"(\d+) +(\d+) ", out, re.M):
        kinds.setdefault(k, [0, 0])
        kinds[k][0] += int(cnt)
        kinds[k][1] += int(ncalls)
    check(kinds == {"barrier": [3, 6], "bcast": [1, 3], "reduce": [1, 3], "allreduce": [1, 3],
                    "alltoall": [1, 3]}, "collectives by kind: %s" % kinds)
    # the critical path: its three parts add up to it
    m = re.search(r"^critical path: .* to rank (\d) at .*MPI_Finalize", out, re.M)
    check(m is not None, "the critical path ends in MPI_Finalize")
    m = re.search(r"compute .* \(([\d.]+)%\), MPI .* \(([\d.]+)%\), transfer .* \(([\d.]+)%\)", out)
    check(m is not None and abs(sum(float(x) for x in m.groups()) - 100) < 0.5,
          "critical path parts add up to 100%%: %s" % str(m.groups() if m else None))


def check_html(path, job):
    with open(path) as f:
        doc = f.read()
    p = Page()
    p.feed(doc)
    p.close()
    check(doc.startswith("<!DOCTYPE html>") and p.tags.get("html") == 1, "an HTML page")
    check(p.tags.get("svg") == 9, "9 inline SVG charts, got %s" % p.tags.get("svg"))
    check(p.tags.get("script") is None and p.tags.get("img") is None and
          p.tags.get("link") is None, "no script, image or link")
    check(not p.outside, "nothing from outside: %s" % p.outside[:3])
    check(job in "".join(p.text), "the job's name is on the page")
    # the per-rank table's exact bytes
    ranks = [t for t in p.tables if t and t[0][:2] == ["rank", "host"]]
    check(len(ranks) == 1, "a per-rank table")
    if ranks:
        head = ranks[0][0]
        for row in ranks[0][1:]:
            v = dict(zip(head, row))
            r = int(v["rank"])
            sent = sum(sum(b) for (a, _), b in P2P.items() if a == r)
            recvd = sum(sum(b) for (_, d), b in P2P.items() if d == r)
            check(int(v["p2p bytes sent"]) == sent and int(v["p2p bytes received"]) == recvd,
                  "rank %d p2p bytes %s/%s, want %d/%d" % (r, v["p2p bytes sent"],
                                                          v["p2p bytes received"], sent, recvd))
            check(int(v["coll bytes sent"]) == COLL_SENT[r] and
                  int(v["coll bytes received"]) == COLL_RECVD[r],
                  "rank %d collective bytes %s/%s, want %d/%d" % (
                      r, v["coll bytes sent"], v["coll bytes received"], COLL_SENT[r],
                      COLL_RECVD[r]))
    return doc


def patch_header(path, host, job):
    """Rewrite a trace's host and job fields (the header's bytes 80..208)."""
    with open(path, "r+b") as f:
        f.seek(80)
        f.write(host.encode().ljust(64, b"\0")[:64])
        f.write(job.encode().ljust(64, b"\0")[:64])


def main():
    a = args()
    tern_trace = os.path.join(a.bin, "tern-trace")
    with tempfile.TemporaryDirectory() as d:
        tdir = os.path.join(d, "t")
        files = traced_job(a.bin, a.prog, tdir)
        if not files:
            return verdict("report")
        job = re.sub(r"\.\d+\.ttr$", "", os.path.basename(files[0]))
        out_html = os.path.join(d, "report.html")
        svg = os.path.join(d, "svg")
        r = run([tern_trace, "report", tdir, "-o", out_html, "--svg-dir", svg])
        check(r.returncode == 0, "report ran (rc %d): %s" % (r.returncode, r.stderr[-500:]))
        print(r.stdout)
        check_text(r.stdout)
        check_html(out_html, job)
        svgs = sorted(glob.glob(os.path.join(svg, "*.svg")))
        check(len(svgs) == 9, "9 SVG files, got %d" % len(svgs))
        for s in svgs:
            try:
                root = ET.parse(s).getroot()
                check(root.tag == "{http://www.w3.org/2000/svg}svg", "%s is an SVG" % s)
            except ET.ParseError as e:
                check(False, "%s parses: %s" % (s, e))
        # the same report from the files named one by one
        r2 = run([tern_trace, "report"] + files)
        check(r2.returncode == 0 and parse_matrix(r2.stdout, "bytes") ==
              parse_matrix(r.stdout, "bytes"), "files given one by one: the same matrix")

        # a missing rank: an error that names it
        miss = os.path.join(d, "miss")
        os.mkdir(miss)
        for f in files:
            if not f.endswith(".1.ttr"):
                shutil.copy(f, miss)
        r = run([tern_trace, "report", miss])
        check(r.returncode == 1 and "rank 1's trace is missing" in r.stderr,
              "a missing rank is an error: rc %d %s" % (r.returncode, r.stderr))

        # a cut trace: rank 1's file loses the second half of its records
        cut = os.path.join(d, "cut")
        os.mkdir(cut)
        for f in files:
            shutil.copy(f, cut)
        c1 = [f for f in glob.glob(os.path.join(cut, "*.ttr")) if f.endswith(".1.ttr")][0]
        with open(c1, "r+b") as f:
            names = struct.unpack_from("<I", f.read(256), 52)[0]    # names_bytes
            start = 256 + names
            f.truncate(start + (os.path.getsize(c1) - start) // 2 + 3)
        r = run([tern_trace, "report", cut])
        m = re.search(r"point-to-point: (\d+) messages matched, (\d+) sends unmatched", r.stdout)
        check(r.returncode == 0 and "warning: rank 1's trace stops early" in r.stdout and
              m is not None and int(m.group(2)) > 0 and int(m.group(1)) < 9,
              "a cut trace is reported with unmatched sends: rc %d %s" %
              (r.returncode, m.group(0) if m else r.stdout[:300]))

        # markup in a trace's strings comes out escaped
        esc = os.path.join(d, "esc")
        os.mkdir(esc)
        for f in files:
            shutil.copy(f, esc)
            patch_header(os.path.join(esc, os.path.basename(f)), "<b>host&co</b>",
                         "<i>job\"x'</i>")
        eh = os.path.join(d, "esc.html")
        r = run([tern_trace, "report", esc, "-o", eh])
        check(r.returncode == 0, "report on patched traces: %s" % r.stderr)
        with open(eh) as f:
            doc = f.read()
        check("<b>" not in doc and "<i>" not in doc and "&lt;b&gt;host&amp;co&lt;/b&gt;" in doc
              and "&lt;i&gt;job&quot;x&#39;&lt;/i&gt;" in doc, "trace strings escaped in HTML")
        pg = Page()
        pg.feed(doc)
        check(pg.tags.get("b") is None and pg.tags.get("i") is None, "no markup from a trace")
    return verdict("report")


if __name__ == "__main__":
    sys.exit(main())

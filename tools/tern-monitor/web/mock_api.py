#!/usr/bin/env python3
"""A stand-in for `tern-monitor serve` while working on its page.

Serves the page's files from this directory exactly as the binary embeds
them (the same list and content types as embed.py) and canned JSON for
every endpoint of the API, so the page can be looked at and changed
without a cluster:

    python3 tools/tern-monitor/web/mock_api.py --port 8089
    chromium http://127.0.0.1:8089/#/job/tern-4242-a1b2c3

The data: a 4-rank job on two nodes whose link n0 -> n1 loses packets on
rail 1 and whose rank 3 has been stuck in MPI_Recv for 95 s (with the
firing alerts to match); a 256-rank job on eight nodes, whose matrix comes
by node; a finished job whose program name is HTML (it must show as text);
a failed job with a dead rank.  Values move a little on every request, so
the page's refresh can be seen.  --fail PATH answers 500 for that endpoint
(the page must show its banner, not go blank).

Listens on 127.0.0.1 only.  Python's standard library only.
"""
import argparse
import json
import math
import os
import random
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import embed  # noqa: E402  (the content types the binary uses)

PAGE_FILES = ["index.html", "app.js", "style.css", "favicon.svg"]

# What the real server should send with the page too: the page works under
# a policy that allows nothing but its own origin.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

MIN = 60 * 1000


def now_ms():
    return int(time.time() * 1000)


def wobble(x, frac=0.05):
    """x moved by up to frac either way: the page's refresh shows."""
    return x * (1 + random.uniform(-frac, frac))


def spark(base, n=30, frac=0.3):
    return [round(max(0.0, wobble(base, frac)), 6) for _ in range(n)]


# ---------------------------------------------------------------- jobs

def job_list(now):
    return [
        dict(id="tern-4242-a1b2c3", program="lulesh2.0", uid=1000, ranks=4, nodes=2,
             state="running", start=now - 12 * MIN, end=None, bytes=int(wobble(3.2e9)),
             msgs=int(wobble(1.8e6)), stuck=1, dead=0),
        dict(id="tern-777-big", program="cp2k.psmp", uid=1001, ranks=256, nodes=8,
             state="running", start=now - 95 * MIN, end=None, bytes=int(wobble(8.4e12)),
             msgs=int(wobble(2.2e9)), stuck=0, dead=0),
        dict(id="tern-31337-wide", program="halo3d", uid=1003, ranks=512, nodes=16,
             state="running", start=now - 40 * MIN, end=None, bytes=int(wobble(2.1e12)),
             msgs=int(wobble(9.0e8)), stuck=0, dead=0),
        dict(id="tern-100-html", program="<img src=x onerror=alert(1)>", uid=1002, ranks=2,
             nodes=1, state="finished", start=now - 300 * MIN, end=now - 290 * MIN,
             bytes=52_000_000, msgs=12_000, stuck=0, dead=0),
        dict(id="tern-99-fail", program="xhpl", uid=1000, ranks=8, nodes=2, state="failed",
             start=now - 30 * 60 * MIN, end=now - 29 * 60 * MIN, bytes=9.1e9, msgs=4.4e5,
             stuck=0, dead=1),
    ]


def hist(scale):
    """Buckets of message sizes: 0, 1, 2, 4, ... 4 MiB, then larger."""
    out = [{"le": "0", "count": int(40 * scale)}]
    for k in range(0, 23):
        le = 1 << k
        # a bump of small messages and one of large ones
        c = 5000 * math.exp(-((k - 4) ** 2) / 6) + 900 * math.exp(-((k - 17) ** 2) / 4)
        out.append({"le": str(le), "count": int(wobble(c) * scale)})
    out.append({"le": "+Inf", "count": int(12 * scale)})
    return out


CALLS = [("MPI_Isend", 812_000), ("MPI_Irecv", 812_000), ("MPI_Waitall", 406_000),
         ("MPI_Allreduce", 52_000), ("MPI_Recv", 31_000), ("MPI_Send", 31_000),
         ("MPI_Barrier", 1_200), ("MPI_Bcast", 640), ("MPI_Comm_split", 4)]

CLASS_SCALE = {"all": 1.0, "p2p": 0.8, "coll": 0.2, "rma": 0.0}


def matrix(level, labels, base, q):
    """Cells that depend on the query, so changing a selector shows."""
    cls = q.get("class", "all")
    what = q.get("what", "bytes")
    window = int(q.get("window", "0") or 0)
    scale = CLASS_SCALE.get(cls, 1.0) * ({0: 1.0, 10: 0.02, 60: 0.1}.get(window, 1.0))
    n = len(labels)
    cells = []
    for i in range(n):
        row = []
        for j in range(n):
            b = base(i, j) * scale
            msgs = b / (8192 if (i + j) % 3 else 512)
            v = {"bytes": b, "msgs": msgs, "avg": (b / msgs if msgs else 0)}.get(what, b)
            row.append(round(wobble(v), 1) if v else 0)
        cells.append(row)
    return {"level": level, "labels": labels, "class": cls, "what": what, "window": window,
            "cells": cells}


def transport_entries(pairs):
    out = []
    for src, dst, rail, rate, rtt in pairs:
        sent = int(wobble(4.0e6))
        out.append({"src": src, "dst": dst, "rail": rail, "sent": sent,
                    "retrans": int(sent * rate), "retrans_rate": round(wobble(rate, 0.1), 6),
                    "rtt_us": round(wobble(rtt), 1), "errors": 3 if rate > 0.01 else 0,
                    "spark": spark(rate)})
    return out


def job_detail(jid, q, now):
    jobs = {j["id"]: j for j in job_list(now)}
    if jid not in jobs:
        return None
    j = jobs[jid]
    d = {k: j[k] for k in ("id", "program", "uid", "state", "start", "end")}
    d["now"] = now
    d["calls"] = [{"fn": f, "count": int(wobble(c))} for f, c in CALLS]
    if jid == "tern-4242-a1b2c3":
        d["nodes"] = ["n0", "n1"]
        d["ranks"] = [
            dict(rank=0, node="n0", pid=31001, state="running", call="MPI_Waitall", in_call=True,
                 call_s=0.004, msgs=int(wobble(450e3)), bytes=int(wobble(8e8))),
            dict(rank=1, node="n0", pid=31002, state="running", call="MPI_Allreduce", in_call=True,
                 call_s=1.7, msgs=int(wobble(450e3)), bytes=int(wobble(8e8))),
            dict(rank=2, node="n1", pid=8811, state="running", call="MPI_Isend", in_call=False,
                 call_s=None, msgs=int(wobble(450e3)), bytes=int(wobble(8e8))),
            dict(rank=3, node="n1", pid=8812, state="running", call="MPI_Recv", in_call=True,
                 call_s=95.2 + (now / 1000) % 2, msgs=int(wobble(450e3)), bytes=int(wobble(8e8))),
        ]
        # neighbours talk a lot, rank 0 gathers a little from everyone
        d["matrix"] = matrix("rank", ["0", "1", "2", "3"],
                             lambda i, j: 0 if i == j else (6e8 if abs(i - j) == 1 else 2e6 if j == 0 else 4e4), q)
        d["hist"] = hist(40)
        d["transport"] = transport_entries([
            ("n0", "n1", 0, 0.0002, 11.8), ("n0", "n1", 1, 0.021, 48.5),
            ("n1", "n0", 0, 0.0, 12.1), ("n1", "n0", 1, 0.0031, 13.0)])
    elif jid == "tern-777-big":
        nodes = ["node%03d" % k for k in range(8)]
        d["nodes"] = nodes
        d["ranks"] = [dict(rank=r, node=nodes[r // 32], pid=20000 + r, state="running",
                           call="MPI_Allreduce" if r % 7 else "MPI_Waitall", in_call=r % 3 == 0,
                           call_s=round(random.uniform(0, 2), 3), msgs=int(wobble(8.6e6)),
                           bytes=int(wobble(3.3e10))) for r in range(256)]
        d["matrix"] = matrix("node", nodes,
                             lambda i, j: 0 if i == j else 5e11 / (1 + min((i - j) % 8, (j - i) % 8) ** 3), q)
        d["hist"] = hist(4000)
        d["transport"] = transport_entries([
            (a, b, rail, 0.0004 if (a, rail) == ("node005", 1) else 0.00001, 9.5)
            for a in nodes for b in nodes if a != b and abs(nodes.index(a) - nodes.index(b)) == 1
            for rail in (0, 1)])
    elif jid == "tern-31337-wide":
        # a rank-level matrix too large to label every rank: a 8 x 8 x 8
        # halo exchange (six neighbours each), the rest zero
        nodes = ["wide%02d" % k for k in range(16)]
        d["nodes"] = nodes
        d["ranks"] = [dict(rank=r, node=nodes[r // 32], pid=40000 + r, state="running",
                           call="MPI_Waitall", in_call=True, call_s=0.01, msgs=int(wobble(1.7e6)),
                           bytes=int(wobble(4.1e9))) for r in range(512)]

        def halo(i, j):
            xi, yi, zi = i % 8, (i // 8) % 8, i // 64
            xj, yj, zj = j % 8, (j // 8) % 8, j // 64
            dist = abs(xi - xj) + abs(yi - yj) + abs(zi - zj)
            return (4e9 if zi == zj else 1e9) if dist == 1 else 0
        d["matrix"] = matrix("rank", [str(r) for r in range(512)], halo, q)
        d["hist"] = hist(100)
        # every pair of 16 nodes: too many to show, so the page keeps the two in trouble
        d["transport"] = transport_entries([
            (a, b, 0, 0.015 if (a, b) == ("wide03", "wide04") else 0.002 if (a, b) == ("wide09", "wide02")
             else 0.00002, 9.0) for a in nodes for b in nodes if a != b])
    elif jid == "tern-100-html":
        d["nodes"] = ["n2"]
        d["ranks"] = [dict(rank=r, node="n2", pid=100 + r, state="finalized", call=None, in_call=False,
                           call_s=None, msgs=6000, bytes=26_000_000) for r in range(2)]
        d["matrix"] = matrix("rank", ["0", "1"], lambda i, j: 0 if i == j else 2.6e7, q)
        d["hist"] = hist(1)
        d["transport"] = []
    else:
        d["nodes"] = ["n3", "n4"]
        d["ranks"] = [dict(rank=r, node="n3" if r < 4 else "n4", pid=500 + r,
                           state="dead" if r == 5 else "exited", call="MPI_Bcast" if r == 5 else None,
                           in_call=r == 5, call_s=12.0 if r == 5 else None, msgs=55000,
                           bytes=1.1e9) for r in range(8)]
        d["matrix"] = matrix("rank", [str(r) for r in range(8)], lambda i, j: 0 if i == j else 1.4e8, q)
        d["hist"] = hist(10)
        d["transport"] = transport_entries([("n3", "n4", 0, 0.0, 10.0), ("n4", "n3", 0, 0.0, 10.0)])
    return d


# ---------------------------------------------------------------- nodes

ALL_NODES = ["n%d" % k for k in range(9)] + ["node%03d" % k for k in range(8)]


def node_entry(name, now, detail=False):
    lossy = name == "n0"
    nics = [
        {"name": "eth0", "rx_Bps": wobble(4.1e8), "tx_Bps": wobble(9.3e8), "speed_mbps": 10000,
         "util": None, "errors": 0, "oper": "up"},
        {"name": "eth1", "rx_Bps": wobble(1.1e9), "tx_Bps": wobble(1.05e9), "speed_mbps": 10000,
         "util": None, "errors": 17 if lossy else 0, "oper": "up"},
        {"name": "ib0", "rx_Bps": wobble(2.0e6), "tx_Bps": wobble(1.5e6), "speed_mbps": None,
         "util": None, "errors": 0, "oper": "up"},
        {"name": "eth2", "rx_Bps": 0.0, "tx_Bps": 0.0, "speed_mbps": 0, "util": None, "errors": 0,
         "oper": "down"},
    ]
    for n in nics:
        if n["speed_mbps"]:
            n["util"] = max(n["rx_Bps"], n["tx_Bps"]) * 8 / (n["speed_mbps"] * 1e6)
        if detail:
            n["spark_rx"] = spark(n["rx_Bps"])
            n["spark_tx"] = spark(n["tx_Bps"])
    jobs = []
    if name in ("n0", "n1"):
        jobs.append("tern-4242-a1b2c3")
    if name.startswith("node"):
        jobs.append("tern-777-big")
    e = {"name": name, "last": now - random.randint(200, 1800), "agent_up": name != "n5",
         "ranks": 2 if name in ("n0", "n1") else 32 if name.startswith("node") else 0,
         "nics": nics,
         "udp": {"rcvbuf_errors_rate": 3.2 if lossy else 0.0, "in_errors_rate": 3.2 if lossy else 0.0}}
    if detail:
        e["jobs"] = jobs
    return e


def network():
    links = [
        ("n0", "n1", 1.1e9, 0.021, "bad"), ("n1", "n2", 3.0e8, 0.0, "ok"),
        ("n0", "n4", 5.0e7, 0.004, "warn"), ("n2", "n5", 2.0e6, 0.0, "ok"),
        ("n3", "n7", 8.0e8, 0.0, "ok"), ("n6", "n7", 1.2e5, 0.0, "ok"),
        ("n4", "n5", 4.4e8, 0.0002, "ok"), ("n8", "n0", 1.0e3, 0.0, "ok"),
    ] + [("node%03d" % k, "node%03d" % ((k + 1) % 8), 2.0e9, 0.00001, "ok") for k in range(8)]
    return {
        "switches": [{"name": "sw-a1", "nodes": ["n0", "n1", "n2", "n3"]},
                     {"name": "sw-a2", "nodes": ["n4", "n5", "n6", "n7"]},
                     {"name": "sw-b1", "nodes": ["node%03d" % k for k in range(8)]}],
        "nodes": ALL_NODES,
        # one entry per direction, rail and job, as the server sends them:
        # the page merges them per pair of nodes (worst state, summed traffic)
        "links": [{"a": a, "b": b, "rail": 0, "jobid": "tern-4242-a1b2c3", "bytes_rate": wobble(r),
                   "retrans_rate": rr, "state": s} for a, b, r, rr, s in links]
        + [{"a": "n1", "b": "n0", "rail": 1, "jobid": "tern-4242-a1b2c3", "bytes_rate": 2.0e8,
            "retrans_rate": 0.0, "state": "ok"},
           {"a": "n4", "b": "n0", "rail": 1, "jobid": "tern-4242-a1b2c3", "bytes_rate": 1.0e6,
            "retrans_rate": 0.0, "state": "ok"}],
    }


def alerts(now):
    return {"alerts": [
        {"id": 4, "rule": "udp_retransmissions", "severity": "critical", "target": "n0->n1 rail 1",
         "state": "firing", "since": now - 7 * MIN, "resolved": None, "value": 0.021,
         "message": "2.1 % of packets from n0 to n1 on rail 1 are retransmitted (threshold 1 %)"},
        {"id": 5, "rule": "rank_stuck", "severity": "warning", "target": "tern-4242-a1b2c3 rank 3",
         "state": "firing", "since": now - 35 * 1000, "resolved": None, "value": 95.2,
         "message": "rank 3 has been in MPI_Recv for 95 s"},
        {"id": 2, "rule": "udp_rcvbuf_errors", "severity": "warning", "target": "n2",
         "state": "resolved", "since": now - 200 * MIN, "resolved": now - 190 * MIN, "value": 12.0,
         "message": "UDP receive-buffer errors on n2: 12 /s"},
        {"id": 1, "rule": "agent_down", "severity": "critical", "target": "n5",
         "state": "resolved", "since": now - 600 * MIN, "resolved": now - 580 * MIN, "value": 1,
         "message": "<b>no report from n5</b> for 60 s"},
    ]}


# ---------------------------------------------------------------- server

class Handler(BaseHTTPRequestHandler):
    server_version = "tern-monitor-mock"
    fail = set()
    no_alerts = False

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("mock: " + fmt % args + "\n")

    def send(self, status, ctype, body):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        if not getattr(self, "head_only", False):
            self.wfile.write(body)

    def send_json(self, obj):
        self.send(200, "application/json", json.dumps(obj).encode())

    def do_HEAD(self):
        self.head_only = True
        self.do_GET()

    def do_GET(self):
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        path = u.path
        now = now_ms()
        if path in self.fail:
            return self.send(500, "text/plain; charset=utf-8", b"mock failure (--fail)\n")
        if path == "/api/jobs":
            return self.send_json({"now": now, "jobs": job_list(now)})
        if path == "/api/job":
            d = job_detail(q.get("id", ""), q, now)
            if d is None:
                return self.send(404, "text/plain; charset=utf-8", b"no such job\n")
            return self.send_json(d)
        if path == "/api/nodes":
            return self.send_json({"nodes": [node_entry(n, now) for n in ALL_NODES]})
        if path == "/api/node":
            name = q.get("name", "")
            if name not in ALL_NODES:
                return self.send(404, "text/plain; charset=utf-8", b"no such node\n")
            return self.send_json(node_entry(name, now, detail=True))
        if path == "/api/network":
            return self.send_json(network())
        if path == "/api/alerts":
            if self.no_alerts:
                return self.send(501, "text/plain; charset=utf-8", b"alert rules are not built yet\n")
            return self.send_json(alerts(now))
        name = "index.html" if path == "/" else path.lstrip("/")
        if name in PAGE_FILES:
            with open(os.path.join(HERE, name), "rb") as f:
                return self.send(200, embed.content_type(name), f.read())
        return self.send(404, "text/plain; charset=utf-8", b"404 Not Found\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8089, help="0: any free port")
    ap.add_argument("--fail", action="append", default=[],
                    help="answer 500 for this path (e.g. /api/alerts); may repeat")
    ap.add_argument("--no-alerts", action="store_true",
                    help="answer /api/alerts 501, as a server without alert rules does")
    ap.add_argument("-v", "--verbose", action="store_true", help="log each request")
    a = ap.parse_args()
    Handler.fail = set(a.fail)
    Handler.no_alerts = a.no_alerts
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.verbose = a.verbose
    # check_page.py reads the port from this line (--port 0: the kernel picks)
    print("mock tern-monitor on http://127.0.0.1:%d/" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The heatmap files tern-sim writes (docs/sim.md, "Heatmaps"): a flow-level
and a packet-level run write link_util.csv and link_util_heatmap.svg (and,
packet level, queue.csv and queue_heatmap.svg) with the documented
columns, one line per row and bin, utilisation within [0, 1], the SVGs
well-formed XML with one cell per row and bin, a title, row names and a
colour scale; the endpoint up-links carry every byte; config.txt records
heatmap = on; off (the default) writes none of them.  Prints "heat files: ok"."""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("check failed:", what, file=sys.stderr)


def run(sim, out, *args):
    subprocess.run([sim, "--out", out, *args], check=True, stdout=subprocess.DEVNULL)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_svg(path, nrows, nbins, title):
    root = ET.parse(path).getroot()  # raises on malformed XML
    check(root.tag == SVG + "svg", f"{path}: root is <svg>")
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    check(title in texts, f"{path}: title {title!r}")
    # the cells are the rects of the one <g>; the scale's steps are 14 wide
    ncell = sum(1 for g in root.iter(SVG + "g") for _ in g.iter(SVG + "rect"))
    check(nrows * (nbins - 1) <= ncell <= nrows * nbins,
          f"{path}: {ncell} cells for {nrows} rows x {nbins} bins")
    scale = [r for r in root.findall(SVG + "rect") if r.get("width") == "14"]
    check(len(scale) == 21, f"{path}: a colour scale of 20 steps and a frame")
    return texts


def check_links(d, want_bytes, hdr_bytes=0):
    rows = read_csv(os.path.join(d, "link_util.csv"))
    check(list(rows[0].keys()) == ["row", "name", "links", "capacity_Bpns", "bin", "t0_ns", "t1_ns",
                                   "bytes", "util"], f"{d}: link_util.csv columns")
    nrows = len({r["row"] for r in rows})
    nbins = len({r["bin"] for r in rows})
    check(len(rows) == nrows * nbins, f"{d}: one line per row and bin")
    check(all(-1e-9 <= float(r["util"]) <= 1 + 1e-6 for r in rows), f"{d}: utilisation in [0, 1]")
    up = sum(float(r["bytes"]) for r in rows if r["name"] == "endpoint up")
    check(abs(up - want_bytes - hdr_bytes) <= 1e-6 * want_bytes,
          f"{d}: endpoint up-links carried {up}, want {want_bytes + hdr_bytes}")
    texts = check_svg(os.path.join(d, "link_util_heatmap.svg"), nrows, nbins, "Link utilisation over time")
    names = {r["name"] for r in rows}
    check(names <= set(texts), f"{d}: every row named in the picture")
    check(any("one row per switch" in t for t in texts), f"{d}: the picture says how rows were grouped")
    return nrows, nbins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    common = ["--topo", "fattree", "--k", "4", "--n", "3", "--pattern", "alltoall", "--ranks", "16",
              "--size", "65536", "--heatmap", "on"]
    total = 16 * 15 * 65536
    # flow level: links only
    fl = os.path.join(a.dir, "flow")
    run(a.sim, fl, *common)
    check_links(fl, total)
    check(not os.path.exists(os.path.join(fl, "queue.csv")), "flow level: no queue.csv")
    conf = open(os.path.join(fl, "config.txt")).read()
    check("heatmap = on" in conf, "config.txt records heatmap = on")
    # packet level: links and queues
    pk = os.path.join(a.dir, "packet")
    run(a.sim, pk, *common, "--fidelity", "packet")
    nrows, nbins = check_links(pk, total, 16 * 15 * 16 * 64)
    q = read_csv(os.path.join(pk, "queue.csv"))
    check(list(q[0].keys()) == ["row", "name", "switches", "bin", "t0_ns", "t1_ns", "max_bytes"],
          "queue.csv columns")
    qrows = len({r["row"] for r in q})
    check(qrows == 48 and len(q) == qrows * nbins, "queue.csv: 48 switches x the link bins")
    check(all(float(r["max_bytes"]) >= 0 for r in q), "queue.csv: no negative queue")
    check_svg(os.path.join(pk, "queue_heatmap.svg"), qrows, nbins, "Switch input queues over time")
    # off: none of the files, and config.txt says so
    off = os.path.join(a.dir, "off")
    run(a.sim, off, *common[:-2], "--fidelity", "packet")
    for n in ("link_util.csv", "link_util_heatmap.svg", "queue.csv", "queue_heatmap.svg"):
        check(not os.path.exists(os.path.join(off, n)), f"heatmap off: no {n}")
    check("heatmap = off" in open(os.path.join(off, "config.txt")).read(), "config.txt records off")
    if failures:
        print(f"heat files: {len(failures)} failures")
        return 1
    print("heat files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The transport's events in the trace (TERN_TRACE_EVENTS, docs/trace.md):
trace_traffic on 3 ranks over udp with Tern's fault injector dropping 10 %
of the datagrams.  The retransmissions it forces must be in the trace as
event items of the calls they happened in, naming another rank as the
peer and a known cause, and tern-trace report must count the same bursts
and packets; with TERN_TRACE_EVENTS=0 the same lossy job records none."""
import os
import re
import sys
import tempfile

from tracetest import args, check, run, traced_job, verdict  # noqa: E402

EVENT = re.compile(r"event\(retransmit peer=(\d+) packets=(\d+) cause=(\w+)\)")


def job(a, tdir, extra):
    env = {"TERN_XPORT": "udp", "TERN_UDP_FAULT_DROP": "10"}
    env.update(extra)
    events = []
    for f in traced_job(a.bin, a.prog, tdir, env=env):
        c = run([os.path.join(a.bin, "tern-trace"), "cat", f])
        check(c.returncode == 0, "cat %s: %s" % (f, c.stderr))
        rank = int(re.search(r"\.(\d+)\.ttr$", f).group(1))
        for m in EVENT.finditer(c.stdout):
            events.append((rank, int(m.group(1)), int(m.group(2)), m.group(3)))
    return events


def main():
    a = args()
    with tempfile.TemporaryDirectory() as d:
        on, off = os.path.join(d, "on"), os.path.join(d, "off")
        os.mkdir(on)
        os.mkdir(off)
        ev = job(a, on, {})
        check(len(ev) > 0, "a 10 % loss forces retransmissions, and they are in the trace")
        check(all(r != p and 0 <= p < 3 and n > 0 and c in ("fast", "timeout", "probe")
                  for r, p, n, c in ev), "every event names another rank, packets and a cause: %s" % ev)
        rep = run([os.path.join(a.bin, "tern-trace"), "report", on])
        m = re.search(r"transport events: (\d+) retransmission bursts \(packets resent: (\d+) fast, "
                      r"(\d+) after timeouts, (\d+) probes\)", rep.stdout)
        check(m is not None, "the report has the transport events: %s" % rep.stdout[-800:])
        if m is not None:
            by = {c: sum(n for _, _, n, cc in ev if cc == c) for c in ("fast", "timeout", "probe")}
            check(int(m.group(1)) == len(ev) and
                  (int(m.group(2)), int(m.group(3)), int(m.group(4))) ==
                  (by["fast"], by["timeout"], by["probe"]),
                  "the report counts what the trace holds: %s against %s" % (m.group(0), by))
        ev = job(a, off, {"TERN_TRACE_EVENTS": "0"})
        check(ev == [], "TERN_TRACE_EVENTS=0 records none: %s" % ev[:5])
    return verdict("events")


if __name__ == "__main__":
    sys.exit(main())

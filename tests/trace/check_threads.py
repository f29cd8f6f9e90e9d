#!/usr/bin/env python3
"""Tracing under MPI_THREAD_MULTIPLE: comm_threads (threads per rank
creating communicators and running collectives and probes at once) traced
on 2 ranks; every rank's file decodes whole, holds every thread's calls
(each thread splits its communicator once a round), and the job's
messages all match.  In the ThreadSanitizer stage this also runs the
recorder's shared buffer under TSan."""
import os
import re
import sys
import tempfile

from tracetest import args, check, run, verdict  # noqa: E402

THREADS, ROUNDS = 3, 2


def main():
    a = args()
    with tempfile.TemporaryDirectory() as d:
        tdir = os.path.join(d, "t")
        p = run([os.path.join(a.bin, "tern-run"), "-n", "2", a.prog, str(THREADS), str(ROUNDS)],
                {"TERN_TRACE": tdir}, timeout=240)
        check(p.returncode == 0, "traced comm_threads (rc %d): %s" % (p.returncode,
                                                                     p.stderr[-500:]))
        files = sorted(os.path.join(tdir, f) for f in os.listdir(tdir)) if os.path.isdir(tdir) \
            else []
        check(len(files) == 2, "2 trace files, got %d" % len(files))
        for f in files:
            c = run([os.path.join(a.bin, "tern-trace"), "cat", f])
            check(c.returncode == 0, "cat %s: %s" % (f, c.stderr))
            splits = len(re.findall(r" MPI_Comm_split\b", c.stdout))
            check(splits == THREADS * ROUNDS, "%s: %d MPI_Comm_split records, want %d" %
                  (f, splits, THREADS * ROUNDS))
        r = run([os.path.join(a.bin, "tern-trace"), "report", tdir])
        check(r.returncode == 0, "report: %s" % r.stderr[-300:])
        check(re.search(r"[1-9]\d* messages matched, 0 sends unmatched, 0 receives unmatched",
                        r.stdout) is not None, "every message matched: %s" % r.stdout[:300])
    return verdict("threads")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Records off the recorder's fast path: trace_nested on 2 ranks with a
4 KiB trace buffer.  A user reduction calls MPI_Comm_rank inside
MPI_Allreduce: its record (depth 1) comes right before the allreduce's,
which keeps its collective item; MPI_Comm_dup defines the communicator it
makes inside its own record; a 300-request MPI_Waitall makes a record
larger than the buffer, written whole with every request it completed.
Every file decodes to the end, and holds no more disk than its size (the
space reserved ahead of the writes is released)."""
import glob
import os
import re
import tempfile

from tracetest import args, check, run, verdict  # noqa: E402

NMSG = 300
LINE = re.compile(r"^\d+\.\d+ \d+\.\d+ ( *)(MPI_\w+)(.*)$")


def main():
    a = args()
    with tempfile.TemporaryDirectory() as d:
        tdir = os.path.join(d, "t")
        p = run([os.path.join(a.bin, "tern-run"), "-n", "2", a.prog],
                {"TERN_TRACE": tdir, "TERN_TRACE_BUFFER": "4k"})
        check(p.returncode == 0 and "trace_nested: sum 3 bad 0 done" in p.stdout,
              "traced trace_nested (rc %d): %s %s" % (p.returncode, p.stdout, p.stderr[-500:]))
        files = sorted(glob.glob(os.path.join(tdir, "*.ttr")))
        check(len(files) == 2, "2 trace files, got %d" % len(files))
        nested = 0
        for f in files:
            rank = int(re.search(r"\.(\d+)\.ttr$", f).group(1))
            st = os.stat(f)
            # the 16 MiB the recorder reserved ahead of its writes is released
            check(st.st_blocks * 512 <= st.st_size + (1 << 20),
                  "rank %d: %d bytes allocated for a %d-byte file" % (rank, st.st_blocks * 512,
                                                                    st.st_size))
            c = run([os.path.join(a.bin, "tern-trace"), "cat", f])
            check(c.returncode == 0, "cat %s decodes whole: %s" % (f, c.stderr))
            recs, comms = [], {}
            for ln in c.stdout.splitlines():
                m = re.match(r"^\d+\.\d+ comm (\d+) ", ln)
                if m:
                    comms[m.group(1)] = len(recs)
                    continue
                m = LINE.match(ln)
                if m:
                    recs.append((len(m.group(1)) // 2, m.group(2), m.group(3)))
            names = [r[1] for r in recs]
            check(names[:1] == ["MPI_Init"] and names[-1:] == ["MPI_Finalize"],
                  "rank %d: MPI_Init first, MPI_Finalize last: %s" % (rank, names))
            for i, (depth, name, rest) in enumerate(recs):
                if depth == 1:
                    check(name == "MPI_Comm_rank", "rank %d: nested %s" % (rank, name))
                    after = recs[i + 1] if i + 1 < len(recs) else (None, None, "")
                    check(after[0] == 0 and after[1] == "MPI_Allreduce" and
                          "coll(allreduce" in after[2],
                          "rank %d: the nested record precedes its allreduce: %s" % (rank, after))
                    nested += 1
            ar = [r for r in recs if r[1] == "MPI_Allreduce"]
            check(len(ar) == 1 and "coll(allreduce" in ar[0][2],
                  "rank %d: one allreduce with its item: %s" % (rank, ar))
            dup = [(i, r) for i, r in enumerate(recs) if r[1] == "MPI_Comm_dup"]
            m = re.search(r"newcomm=(\d+)", dup[0][1][2]) if len(dup) == 1 else None
            check(m is not None and m.group(1) in comms and comms[m.group(1)] <= dup[0][0],
                  "rank %d: MPI_Comm_dup's communicator defined by its record: %s" % (rank, dup))
            wa = [r for r in recs if r[1] == "MPI_Waitall"]
            done = re.findall(r"done\(req=\S+( source=0 tag=(\d+) bytes=4)?", wa[0][2]) \
                if len(wa) == 1 else []
            check(len(done) == NMSG, "rank %d: waitall completed %d of %d" % (rank, len(done),
                                                                                NMSG))
            if rank == 1:
                check(sorted(int(t[1] or -1) for t in done) == list(range(NMSG)),
                      "rank 1: every tag received once")
        check(nested >= 1, "a nested MPI_Comm_rank record in some rank's trace")
    return verdict("nested")


if __name__ == "__main__":
    raise SystemExit(main())

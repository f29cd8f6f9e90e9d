#!/usr/bin/env python3
"""Seeds of fuzz_tracejob from a real job's traces: gen_tracejob_corpus.py
OUTDIR TRACEDIR, TRACEDIR holding one job's <job>.<rank>.ttr (trace_traffic's
3 ranks: TERN_TRACE=TRACEDIR tern-run -n 3 build/tests/trace/trace_traffic).
Writes the whole job, the job with a rank missing, with a rank twice, with
rank 1's records cut in half, and the whole job with the other flags.  The
synthetic seeds come from test_trace_match --corpus OUTDIR."""
import glob
import os
import struct
import sys

from corpus_files import write_seeds


def pack(flags, files):
    out = bytes([flags])
    for f in files:
        out += struct.pack("<I", len(f)) + f
    return out


def main():
    files = []
    for p in sorted(glob.glob(os.path.join(sys.argv[2], "*.ttr"))):
        with open(p, "rb") as f:
            files.append(f.read())
    names = struct.unpack_from("<I", files[1], 52)[0]
    start = 256 + names
    cut = files[1][:start + (len(files[1]) - start) // 2 + 3]
    write_seeds({
        "traffic_whole": pack(0, files),
        "traffic_model": pack(2, files[::-1]),
        "traffic_missing": pack(0, [files[0], files[2]]),
        "traffic_twice": pack(0, files + [files[1]]),
        "traffic_cut": pack(0, [files[0], cut, files[2]]),
    })


if __name__ == "__main__":
    main()

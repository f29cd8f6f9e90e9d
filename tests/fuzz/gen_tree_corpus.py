#!/usr/bin/env python3
"""Seeds of fuzz_tree: frames of the launch tree (tools/tern-run/run_proto.h),
one stream per file.  Usage: gen_tree_corpus.py DIR"""
import os
import struct
import sys


def u32(*vals):
    return b"".join(struct.pack("<I", v & 0xffffffff) for v in vals)


def s(text):
    b = text.encode() + b"\0"
    return u32(len(b)) + b


def frame(ftype, payload):
    return u32(len(payload) + 1) + bytes([ftype]) + payload


SETUP, FENCE_DONE, SIGNAL, END, REPORT_ASK, STDIN = 1, 2, 3, 4, 5, 6
HELLO, OUT, FENCE_ENTER, FENCE, EXIT, ABORT, PMIERR, LOG, REPORT, STDIN_ACK = range(16, 26)


def setup(host=1):
    hosts = [b"h0", b"h1", b"h2"]
    p = u32(1, host) + s("tern-1-0123") + u32(5)
    p += u32(len(hosts)) + b"".join(s(h.decode()) for h in hosts)
    p += u32(0, 0, 1, 2, 2) + u32(0)          # host_of, head_host + 1
    p += u32(2)                               # blocks
    p += u32(2) + u32(2) + s("./a") + s("x") + u32(2) + s("A=1") + s("PATH=/bin")
    p += u32(3) + u32(1) + s("./b") + u32(0)
    p += s("/tmp") + s("ssh -F cfg") + s("/usr/bin/tern-run")
    p += u32(32, 1, 1, 0, 10) + u32(65536, 0, 1 << 26, 0, 1 << 20, 0)
    return frame(SETUP, p)


def pairs(kv):
    return b"".join(s(k) + s(v) for k, v in kv)


seeds = {
    "setup": setup(),
    "down": setup(2) + frame(FENCE_DONE, u32(2) + pairs([("node-0", "h0:1"), ("k", "")]))
            + frame(SIGNAL, u32(10)) + frame(REPORT_ASK, b"") + frame(STDIN, b"input\n")
            + frame(STDIN, b"") + frame(END, u32(15, 1000)),
    "up": frame(HELLO, u32(1) + s("vm")) + frame(OUT, u32(3, 1) + b"hello\n")
          + frame(FENCE_ENTER, b"") + frame(FENCE, u32(2, 1) + pairs([("node-3", "h1:0")]))
          + frame(EXIT, u32(3, 1234, 1, 0, 6)) + frame(ABORT, u32(2, 99, 7, 0))
          + frame(PMIERR, u32(4, 5, 0)[:8] + s("bad PMI request")) + frame(LOG, s("tern-run: x"))
          + frame(REPORT, s("tern-run:   rank 3 ...\n")) + frame(STDIN_ACK, u32(6)),
    "cut": setup()[:40],
}
os.makedirs(sys.argv[1], exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write(data)

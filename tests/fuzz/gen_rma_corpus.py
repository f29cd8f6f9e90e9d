#!/usr/bin/env python3
"""Seeds of fuzz_rma: one-sided requests (src/rma/rma_proto.h) against a
window memory description, one per file (the input format is in
tests/fuzz/fuzz_rma.c's header).  Usage: gen_rma_corpus.py DIR"""
import struct
from corpus_files import write_seeds

PUT, GET, ACC, GACC, CAS, FLUSH, LOCK, UNLOCK, COMPLETE = range(1, 10)
F_DATA, F_EXCL, F_ELEMS = 1, 2, 4
# ABI handles (include/mpi.h)
MPI_INT, MPI_DOUBLE, MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_BYTE = 0x209, 0x214, 0x229, 0x22c, 0x247
MPI_SUM, MPI_MAX, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP = 0x21, 0x23, 0x39, 0x3c, 0x3d


def req(rtype, segs=(), disp=0, flags=0, op=0, basic=0, cookie=7, data=b"", nbytes=None):
    if nbytes is None:
        nbytes = sum(length for _, length in segs)
    h = struct.pack("<BBBBIQQQQQ", 1, rtype, flags, 0, len(segs), disp & (2**64 - 1),
                    nbytes, op, basic, cookie)
    r = h + b"".join(struct.pack("<qQ", off, length) for off, length in segs) + data
    return r + bytes(-len(r) % 16)          # zero padding to TN_RMA_ALIGN


def static(size, msg):
    return bytes([0]) + struct.pack("<H", size) + msg


def dynamic(regions, reloc, msg):
    """regions: (gap / 8, size); reloc: region whose base disp is taken from."""
    out = bytes([1 | (len(regions) - 1) << 1])
    for gap, size in regions:
        out += bytes([gap]) + struct.pack("<H", size)
    return out + bytes([reloc]) + msg


def seeds():
    s = {}
    s["put-inline"] = static(256, req(PUT, [(0, 8), (16, 8)], disp=32, data=bytes(range(16))))
    s["put-apart"] = static(4000, req(PUT, [(0, 3000)], disp=8, flags=F_DATA))
    s["get-strided"] = static(512, req(GET, [(0, 4), (8, 4), (16, 4), (24, 4)], disp=100))
    s["get-negative-off"] = static(512, req(GET, [(-16, 8)], disp=64))
    s["acc-int-sum"] = static(256, req(ACC, [(0, 8)], disp=16, op=MPI_SUM, basic=MPI_INT,
                                       data=struct.pack("<ii", 1, 2)))
    s["acc-double-replace"] = static(256, req(ACC, [(0, 16)], op=MPI_REPLACE, basic=MPI_DOUBLE,
                                              data=struct.pack("<dd", 1.5, 2.5)))
    s["acc-double-int-elems"] = static(256, req(ACC, [(0, 12), (16, 12)], disp=32,
                                                flags=F_ELEMS, op=MPI_MAXLOC,
                                                basic=MPI_DOUBLE_INT,
                                                data=struct.pack("<di", 3.0, 1) * 2))
    s["acc-short-int-elems-apart"] = static(
        256, req(ACC, [(0, 6)], flags=F_ELEMS | F_DATA, op=MPI_MAXLOC, basic=MPI_SHORT_INT))
    s["gacc-sum"] = static(64, req(GACC, [(0, 4)], disp=4, op=MPI_SUM, basic=MPI_INT,
                                   data=struct.pack("<i", 5)))
    s["gacc-no-op"] = static(64, req(GACC, [(0, 8)], op=MPI_NO_OP, basic=MPI_DOUBLE))
    s["cas-int"] = static(64, req(CAS, [(0, 4)], disp=12, basic=MPI_INT,
                                  data=struct.pack("<ii", 0, 9)))
    for name, t, fl in (("flush", FLUSH, 0), ("lock-excl", LOCK, F_EXCL),
                        ("lock-shared", LOCK, 0), ("unlock", UNLOCK, 0),
                        ("complete", COMPLETE, 0)):
        s[name] = static(64, req(t, flags=fl))
    s["dyn-put"] = dynamic([(0, 128), (2, 256)], 1,
                           req(PUT, [(0, 8), (100, 8)], disp=16, data=bytes(16)))
    s["dyn-acc"] = dynamic([(1, 64), (0, 64), (4, 512), (0, 32)], 2,
                           req(ACC, [(0, 16), (64, 16)], disp=0, op=MPI_SUM,
                               basic=MPI_DOUBLE, data=struct.pack("<4d", 1, 2, 3, 4)))
    s["dyn-get-across"] = dynamic([(0, 64), (0, 64)], 0, req(GET, [(56, 16)]))
    s["dyn-cas"] = dynamic([(0, 8)], 0, req(CAS, [(0, 8)], basic=MPI_DOUBLE,
                                            data=struct.pack("<dd", 0.0, 1.0)))
    # regression: disp beyond a static window, negative offsets back inside
    # (a legal target datatype with a negative lower bound); the decode
    # left r.at NULL and the server wrote through NULL + off
    s["regress-disp-beyond-window"] = static(
        64, req(PUT, [(-64, 8)], disp=100, data=bytes(8)))
    s["regress-disp-beyond-window-get"] = static(
        64, req(GET, [(-40, 4), (-36, 4)], disp=96))
    # regression: accumulates at addresses not aligned for the element type
    # (byte displacements) ran the op kernels on misaligned pointers; a pair
    # element ending the window must not have its padding touched
    s["regress-acc-unaligned-int"] = static(64, req(ACC, [(1, 8)], op=MPI_SUM, basic=MPI_INT,
                                                    data=struct.pack("<ii", 1, 2)))
    s["regress-acc-unaligned-pair-at-end"] = static(
        64, req(ACC, [(51, 12)], flags=F_ELEMS, op=MPI_MAXLOC, basic=MPI_DOUBLE_INT,
                data=struct.pack("<di", 3.0, 1)))
    # batches: several requests in one message, as an origin sends small
    # puts and accumulates with the flush behind them
    s["batch-put-acc-flush"] = static(
        256, req(PUT, [(0, 3)], disp=5, data=b"abc")
        + req(ACC, [(0, 8)], disp=64, op=MPI_SUM, basic=MPI_INT, data=struct.pack("<ii", 1, 2))
        + req(PUT, [(0, 8), (16, 8)], disp=100, data=bytes(range(16)))
        + req(FLUSH))
    s["batch-acc-elems-unlock"] = static(
        256, req(ACC, [(0, 12)], disp=16, flags=F_ELEMS, op=MPI_MAXLOC, basic=MPI_DOUBLE_INT,
                 data=struct.pack("<di", 3.0, 1))
        + req(GET, [(0, 8)], disp=16) + req(UNLOCK))
    s["batch-dyn-puts-complete"] = dynamic(
        [(0, 128), (2, 256)], 1,
        req(PUT, [(0, 8)], disp=16, data=bytes(8)) + req(COMPLETE))
    # control answers: { type, cookie } after u32 sent, u32 seen
    def ctl(sent, seen, rtype, cookie):
        return bytes([0xff]) + struct.pack("<IIQQ", sent, seen, rtype, cookie)
    s["ctl-flush-next"] = ctl(3, 2, FLUSH, 3)
    s["ctl-lock-wrapped"] = ctl(1, 0xffffffff, LOCK, 0)
    s["ctl-unasked"] = ctl(2, 2, UNLOCK, 3)
    return s


if __name__ == "__main__":
    write_seeds(seeds())

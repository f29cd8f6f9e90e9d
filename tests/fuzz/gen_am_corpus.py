#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_am (tests/fuzz/corpus/am/): valid message
sequences of every protocol, each file one scenario, in the input format
that tests/fuzz/fuzz_am.c describes.  Run from anywhere:

    python3 tests/fuzz/gen_am_corpus.py

It rewrites the seeds (seed-*) and the regression inputs it knows
(regress-*: each a bug that was fixed), and leaves other files alone."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "am")

EAGER, FRAG, RTS, CTS, DATA, FIN, PCTS, PDATA, HELP, CANCEL, CANCEL_ACK = range(1, 12)
F_SYNC, F_INLINE, F_PACK, F_WITHDRAWN = 1, 2, 4, 8
SIZE, SREQ, RREQ, ADDR, CTX, TAG, SRC, FLAGS = range(8)
CAP_GET, CAP_FILL, CAP_REF, CAP_COOP = 1, 2, 4, 8
ANY = "any"
NULL = "null"
PART_CTX = 0x80000000


def config(eager=4096, payload=1024, tiny=24, direct=False, over=False, caps=0, cma=0,
           coop=False, scatter=False):
    c0 = ([256, 1024, 4096, 8192].index(eager) | [32, 256, 1024, 8192].index(payload) << 2 |
          (tiny // 8) << 4 | direct << 6 | over << 7)
    c1 = caps | [0, 256, 4096, 1 << 30].index(cma) << 4 | coop << 6 | scatter << 7
    return bytes([c0, c1])


# values (V in fuzz_am.c)
def v(x):
    """A literal: small ones in one byte, others raw."""
    if 0 <= x < 64:
        return bytes([x])
    return bytes([0xe0]) + struct.pack("<Q", x & (2**64 - 1))


def peer_addr(off):
    """An address in the simulated peer's memory (off a multiple of 16)."""
    assert off % 16 == 0 and off // 16 < 256
    return bytes([0x40 | 32 | 1, off // 16])


def sent(mtype, field, back=0, xf=0):
    """Field of the back-th latest message the core sent of type mtype;
    xf: 0 as is, 1 >> 32, 2 low 32 bits, 3 + 1."""
    return bytes([0x80 | xf << 4 | back, mtype | field << 4])


def slot_id(k):
    return bytes([0xc0 | k])


def deliver(mtype, flags=0, src=1, ctx=0, tag=0, size=0, sreq=0, rreq=0, addr=0, length=0,
            world=1, fix=False, direct=False, null=False, payload=None):
    def val(x):
        return x if isinstance(x, bytes) else v(x)
    d = (world == 2) | fix << 1 | direct << 2 | null << 3 | (payload is not None) << 4
    if payload is not None:
        length = len(payload)
    out = bytes([0, d, mtype, flags])
    for x in (src, ctx, tag, size, sreq, rreq, addr):
        out += val(x)
    out += struct.pack("<H", length)
    return out + (payload or b"")


RECV_PEER = {ANY: 0, 1: 1, 2: 2, 0: 3, NULL: 4}
SEND_PEER = {1: 0, 2: 1, 0: 2, NULL: 3}


def flags(vector=False, coll=False, pull=False, mode=0, self_comm=False):
    return vector | coll << 1 | pull << 2 | mode << 3 | self_comm << 5


def recv(peer, tag, count, **f):
    return bytes([3, RECV_PEER[peer], 255 if tag == ANY else tag]) + struct.pack("<H", count) + \
        bytes([flags(**f)])


def send(peer, tag, count, **f):
    return bytes([4, SEND_PEER[peer], tag]) + struct.pack("<H", count) + bytes([flags(**f)])


def pinit(is_send, peer, tag, count, **f):
    sel = SEND_PEER[peer] if is_send else RECV_PEER[peer]
    t = 255 if tag == ANY else tag
    return bytes([5, is_send, sel, t]) + struct.pack("<H", count) + bytes([flags(**f)])


def start(k):
    return bytes([6, k])


def part(is_send, peer, tag, parts, count, vector=False):
    return bytes([7, is_send, SEND_PEER[peer], tag, parts, count, vector])


def pready(k, first, n):
    return bytes([8, k, first, n - 1])


def cancel(k):
    return bytes([9, k])


def free(k):
    return bytes([10, k])


def wait(k):
    return bytes([11, k])


def progress(full=False, get_fail=False, coop=0):
    return bytes([12, full | get_fail << 1 | coop << 2])


def ref_done(i):
    return bytes([13, i])


def probe(src, tag, take):
    return bytes([14, RECV_PEER[src], 255 if tag == ANY else tag, take])


def imrecv(i, count, vector=False):
    return bytes([15, i]) + struct.pack("<H", count) + bytes([vector])


SEEDS = {
    # eager: expected, in one piece and in FRAG pieces; unexpected, then matched
    "eager_expected": config() + recv(1, 5, 100) + deliver(EAGER, tag=5, size=100, length=100),
    "eager_frags": config(payload=32) + recv(1, 5, 100) +
    deliver(EAGER, tag=5, size=100, length=32) + deliver(FRAG, length=32, fix=True) +
    deliver(FRAG, length=32, fix=True) + deliver(FRAG, length=4, fix=True) + wait(0),
    "eager_unexpected": config(payload=32) + deliver(EAGER, tag=7, size=70, length=32) +
    recv(ANY, ANY, 80) + deliver(FRAG, length=32, fix=True) + deliver(FRAG, length=6, fix=True),
    "eager_truncated": config() + recv(2, 1, 10) +
    deliver(EAGER, src=2, world=2, tag=1, size=50, length=50),
    "eager_inline_vector": config() + recv(1, 3, 4, vector=True) +
    deliver(EAGER, flags=F_INLINE, tag=3, size=24, sreq=v(0x1122334455667788),
            rreq=v(0x99aabbccddeeff00), addr=v(0x0102030405060708)),
    "eager_sync": config() + recv(1, 9, 64) +
    deliver(EAGER, flags=F_SYNC, tag=9, size=64, sreq=v(0x100000007), length=64) + progress(),
    "eager_sync_unexpected": config(payload=32) +
    deliver(EAGER, flags=F_SYNC, tag=9, size=40, sreq=v(0x100000007), length=32) +
    deliver(FRAG, length=8, fix=True) + recv(1, 9, 64),
    "eager_coll": config() + recv(ANY, 4, 16, coll=True) +
    deliver(EAGER, world=2, src=2, ctx=1, tag=4, size=16, length=16),
    # rendezvous receive: read in place, CTS + DATA, in place by the transport
    "rndv_get": config(caps=CAP_GET) + recv(1, 2, 6000) +
    deliver(RTS, tag=2, size=6000, sreq=v(0x100000003), addr=peer_addr(0)),
    "rndv_get_vector": config(caps=CAP_GET, scatter=True) + recv(1, 2, 600, vector=True) +
    deliver(RTS, tag=2, size=3000, sreq=v(0x100000003), addr=peer_addr(16)),
    "rndv_get_fails": config(caps=CAP_GET) + progress(get_fail=True) + recv(1, 2, 6000) +
    deliver(RTS, tag=2, size=5000, sreq=v(0x100000003), addr=peer_addr(0)) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(1024), length=3976, fix=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=0, length=1024, fix=True),
    "rndv_cts_data": config() + recv(1, 2, 3000) +
    deliver(RTS, tag=2, size=3000, sreq=v(0x100000003), addr=peer_addr(0)) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=0, length=1024, fix=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(1024), length=1024, fix=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(2048), length=952, fix=True) + wait(0),
    "rndv_direct": config(direct=True) + recv(1, 2, 5000) +
    deliver(RTS, flags=F_PACK, tag=2, size=5000, sreq=v(0x100000003)) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=0, length=1024, fix=True, direct=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(2048), length=1024, fix=True, direct=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(1024), length=1024, fix=True, direct=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(3072), length=1928, fix=True, direct=True),
    "rndv_unexpected_pack": config() +
    deliver(RTS, flags=F_PACK, tag=6, size=500, sreq=v(0x100000004)) +
    recv(1, 6, 100, vector=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=0, length=300, fix=True) +
    deliver(DATA, rreq=sent(CTS, RREQ), addr=v(300), length=200, fix=True),
    "rndv_coop": config(caps=CAP_GET | CAP_COOP, coop=True) + recv(1, 2, 6000) +
    deliver(RTS, tag=2, size=6000, sreq=v(0x100000003), addr=peer_addr(0)) +
    progress(coop=2) + recv(1, 2, 6000) +
    deliver(RTS, tag=2, size=6000, sreq=v(0x100000005), addr=peer_addr(0)),
    # sends: rendezvous answered by CTS (pieces by reference) or FIN,
    # synchronous eager, help, cancellation
    "send_rndv_cts": config(eager=1024, caps=CAP_REF) + send(1, 8, 3000) +
    deliver(CTS, sreq=sent(RTS, SREQ), rreq=v(0x200000009), size=sent(RTS, SIZE)) +
    ref_done(0) + ref_done(0) + ref_done(0) + wait(0),
    "send_rndv_cts_pack": config(eager=1024, payload=256, caps=CAP_FILL) +
    send(2, 8, 400, vector=True) + progress(full=True) + progress() +
    deliver(CTS, world=2, sreq=sent(RTS, SREQ), rreq=v(0x200000009), size=v(2000)) + wait(0),
    "send_rndv_fin": config(eager=256) + send(1, 8, 1000) + send(1, 9, 300) +
    deliver(FIN, sreq=sent(RTS, SREQ, back=1)) + deliver(FIN, sreq=sent(RTS, SREQ)) +
    wait(0) + wait(1),
    "send_sync_fin": config(payload=32) + send(1, 1, 100, mode=1) + send(1, 1, 8) +
    deliver(FIN, sreq=sent(EAGER, SREQ, back=1)) + wait(0) + wait(1),
    "send_help": config(eager=256, caps=CAP_COOP) + send(1, 3, 4000) +
    deliver(HELP, sreq=sent(RTS, SREQ), rreq=v(77)) + deliver(FIN, sreq=sent(RTS, SREQ)),
    "send_cancel_withdrawn": config(eager=256) + send(1, 3, 4000) + cancel(0) +
    deliver(CANCEL_ACK, flags=F_WITHDRAWN, sreq=sent(CANCEL, SREQ)) + wait(0),
    "send_cancel_matched": config(eager=256) + send(1, 3, 4000) + cancel(0) +
    deliver(FIN, sreq=sent(RTS, SREQ)) + deliver(CANCEL_ACK, sreq=sent(CANCEL, SREQ)) +
    wait(0),
    "peer_cancels": config() +
    deliver(RTS, tag=4, size=9000, sreq=v(0x100000011), addr=peer_addr(0)) +
    deliver(EAGER, flags=F_SYNC, tag=4, size=10, sreq=v(0x100000012), length=10) +
    deliver(CANCEL, tag=4, sreq=v(0x100000011)) + deliver(CANCEL, tag=4, sreq=v(0x100000099)) +
    recv(1, 4, 100) + progress(),
    # persistent, probes
    "persistent_recv": config() + pinit(0, 1, 5, 64) + start(0) +
    deliver(EAGER, tag=5, size=64, length=64) + wait(0) + start(0) +
    deliver(EAGER, tag=5, size=32, length=32) + wait(0) + free(0),
    "persistent_send": config(eager=256) + pinit(1, 2, 5, 1000, mode=1) + start(0) +
    deliver(FIN, world=2, sreq=sent(RTS, SREQ)) + wait(0) + start(0) + free(0),
    "mprobe": config(payload=32) + deliver(EAGER, tag=3, size=50, length=32) +
    probe(ANY, ANY, 1) + imrecv(0, 60) + deliver(FRAG, length=18, fix=True) +
    deliver(RTS, tag=3, size=20000, sreq=v(0x100000013), addr=peer_addr(0)) +
    probe(1, 3, 1) + imrecv(0, 200, vector=True),
    # partitioned: receive (hello in, PCTS out, PDATA in), send (hello out,
    # PCTS in, PDATA out), an empty message
    "part_recv": config() + part(0, 1, 3, 4, 16) + start(0) +
    deliver(EAGER, flags=F_INLINE, ctx=PART_CTX, tag=3, size=24, sreq=v(0x100000021),
            rreq=v(64), addr=v(5 << 32 | 4)) +
    deliver(PDATA, rreq=sent(PCTS, RREQ), sreq=sent(PCTS, SIZE), addr=0, tag=0, ctx=2,
            length=32, fix=True) +
    deliver(PDATA, rreq=sent(PCTS, RREQ), sreq=sent(PCTS, SIZE), addr=v(32), tag=2, ctx=2,
            length=32, fix=True) + wait(0) + start(0),
    "part_recv_empty": config() + part(0, 2, 3, 2, 0) +
    deliver(EAGER, world=2, src=2, flags=F_INLINE, ctx=PART_CTX, tag=3, size=24,
            sreq=v(0x100000021), rreq=0, addr=v(5 << 32 | 2)) + start(0) +
    deliver(PDATA, world=2, rreq=sent(PCTS, RREQ), sreq=sent(PCTS, SIZE), tag=0, ctx=2),
    "part_send": config() + part(1, 1, 3, 2, 8, vector=True) + start(0) + pready(0, 1, 1) +
    deliver(PCTS, sreq=sent(EAGER, SREQ), addr=sent(EAGER, ADDR, xf=1), rreq=v(0x100000031),
            size=v(7)) + pready(0, 0, 1) + wait(0) + start(0),
    # what unit.am_forged sends: ends the job (a violation)
    "forged_cts": config() + deliver(CTS, sreq=v(0x7ffd12345678), rreq=1, size=8),
    "forged_frag": config() + deliver(EAGER, tag=v(12345), size=100, length=10) +
    deliver(FRAG, size=v(4096), length=4096),
    "forged_ctx": config() + deliver(EAGER, flags=F_INLINE, ctx=v(1000), size=8),
    # ids 4..11 are agreed on for communicators not made yet (fuzz_am.c):
    # the messages wait there
    "early_ctx": config() + deliver(EAGER, ctx=4, tag=1, size=100, length=100) +
    deliver(RTS, flags=F_PACK, ctx=6, tag=3, size=24) +
    deliver(EAGER, ctx=PART_CTX | 8, flags=F_INLINE, tag=3, size=24),
}

# Bugs found with this harness.  All but the empty payload are now a
# protocol violation at their first message (am_decode.c); the input after
# it is what used to fail.
REGRESS = {
    # a non-inline partitioned hello, half in when the application frees the
    # partitioned receive, which released the hello's receive: the next
    # FRAG wrote into freed memory (heap-use-after-free)
    "part-hello-frag-after-free": config() + part(0, 1, 3, 2, 8) +
    deliver(EAGER, ctx=PART_CTX, tag=3, size=24, length=8) + free(0) +
    deliver(FRAG, length=16, fix=True),
    # the same with the hello unexpected, matched while incomplete
    "part-hello-unexp-frag-after-free": config() +
    deliver(EAGER, ctx=PART_CTX, tag=3, size=24, length=8) + part(0, 1, 3, 2, 8) + free(0) +
    deliver(FRAG, length=16, fix=True),
    # an RTS as the hello, streamed into the buffer in place (recv_direct):
    # the transport kept writing into the freed hello buffer
    "part-hello-rts-direct-after-free": config(direct=True) + part(0, 1, 3, 2, 8) +
    deliver(RTS, flags=F_PACK, ctx=PART_CTX, tag=3, size=24) + free(0) +
    deliver(DATA, rreq=sent(CTS, RREQ), length=24, fix=True, direct=True),
    # an EAGER that declares bytes but brings none, with no payload pointer
    # (as a transport may pass for an empty payload), matched by a posted
    # receive: memmove from NULL (undefined behaviour, UBSan)
    "eager-empty-null-payload": config() + recv(1, 5, 100) +
    deliver(EAGER, tag=5, size=100, length=0, null=True),
    # src was only checked to be below the world size: world rank 1 naming
    # rank 1 on MPI_COMM_SELF's collective context completed a receive
    # there with a source that is no rank of MPI_COMM_SELF ...
    "src-not-in-comm": config() + recv(ANY, 0, 10, coll=True, self_comm=True) +
    deliver(RTS, src=1, ctx=3),
    # ... and passing itself off as rank 2 of MPI_COMM_WORLD, it completed a
    # receive from rank 2
    "src-of-another-rank": config() + recv(2, 4, 16) +
    deliver(EAGER, world=1, src=2, tag=4, size=16, length=16),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.startswith("seed-"):
            os.remove(os.path.join(OUT, name))
    for prefix, inputs in (("seed-", SEEDS), ("regress-", REGRESS)):
        for name, data in inputs.items():
            with open(os.path.join(OUT, prefix + name), "wb") as f:
                f.write(data)
    print("%d seeds, %d regression inputs in %s" % (len(SEEDS), len(REGRESS), OUT))


if __name__ == "__main__":
    main()

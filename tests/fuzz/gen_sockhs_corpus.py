#!/usr/bin/env python3
"""Seeds of fuzz_sockhs: handshakes of the sock transport
(src/xport/sock/sock_hs.h); the input format is in tests/fuzz/fuzz_sockhs.c's
header.  Usage: gen_sockhs_corpus.py DIR"""
import struct
from corpus_files import write_seeds

STREAM, PORT = 1, 2
WHOLE = 7 << 1


def hello(kind, key, port=0, nonce=bytes(range(16)), version=1):
    k = key.encode()
    return b"TNDY" + bytes([version, kind]) + struct.pack("<H", len(k)) + nonce + \
        struct.pack("<Q", port) + k


def acceptor(stream, chunk=WHOLE, forge=0):
    return bytes([chunk | forge << 4]) + stream


def connector(kind, key, port, reply, forge=0):
    k = key.encode()
    return bytes([1 | kind << 1 | forge << 4, len(k)]) + k + struct.pack("<Q", port) + reply


def seeds():
    s = {}
    h = hello(STREAM, "tern-1-42#3")
    hp = hello(PORT, "tern-7-1#0", port=0x1234)
    confirm = bytes(32)
    for f in range(6):
        s[f"acc-stream-forge{f}"] = acceptor(h + confirm, forge=f)
        s[f"conn-stream-forge{f}"] = connector(STREAM, "tern-1-42#3", 0,
                                               b"TNDY" + bytes(16) + bytes(32), forge=f)
    s["acc-port-right"] = acceptor(hp + confirm + b"frame", forge=1)
    s["acc-bytewise-right"] = acceptor(h + confirm, chunk=0, forge=1)
    s["acc-chunk3-wrong"] = acceptor(h + confirm, chunk=2 << 1, forge=2)
    s["acc-short-hello"] = acceptor(h[:20])
    s["acc-bad-version"] = acceptor(hello(STREAM, "k", version=2) + confirm)
    s["acc-bad-kind"] = acceptor(hello(3, "k") + confirm)
    s["acc-key-space"] = acceptor(hello(STREAM, "a b") + confirm)
    s["acc-key-max"] = acceptor(hello(STREAM, "k" * 255) + confirm, forge=1)
    s["acc-key-empty"] = acceptor(h[:6] + b"\0\0" + h[8:32] + confirm)
    s["acc-not-tndy"] = acceptor(b"GET / HTTP/1.0\r\n\r\n")
    s["conn-port-right"] = connector(PORT, "tern-7-1#0", 77, b"TNDY" + bytes(48), forge=1)
    s["conn-bad-magic"] = connector(STREAM, "x", 0, b"TNDZ" + bytes(48), forge=1)
    s["conn-kind0"] = connector(0, "x", 0, b"TNDY" + bytes(48), forge=1)
    return s


if __name__ == "__main__":
    write_seeds(seeds())

#!/usr/bin/env python3
"""Seeds of fuzz_http: requests as browsers, curl and scripts send them to
tern-monitor's web server, and refused ones; the input format is in
tests/fuzz/fuzz_http.c's header (a byte: body bound in its low 3 bits, a cut
point in the high 5; then the bytes).  Usage: gen_http_corpus.py DIR"""
from corpus_files import write_seeds

BOUND_1000 = 4          # bounds[4] in fuzz_http.c: a 1000-byte body bound
HALF = 16 << 3          # cut half-way


def seed(req, bound=BOUND_1000, cut=HALF):
    return bytes([bound | cut]) + req


def seeds():
    browser = (b"GET /api/jobs?state=running&limit=50 HTTP/1.1\r\n"
               b"Host: localhost:8080\r\n"
               b"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
               b"Accept: application/json, text/plain, */*\r\n"
               b"Accept-Language: en-US,en;q=0.5\r\n"
               b"Accept-Encoding: gzip, deflate, br\r\n"
               b"Connection: keep-alive\r\n"
               b"Sec-Fetch-Dest: empty\r\n\r\n")
    curl = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"
    post = (b"POST /api/agent/report HTTP/1.1\r\nHost: [::1]:8080\r\n"
            b"Content-Type: application/json\r\nContent-Length: 27\r\n\r\n"
            b'{"node":"n1","load":[1,2]}\n')
    return {
        "get-browser": seed(browser),
        "get-curl": seed(curl),
        "get-query-escapes": seed(b"GET /files/a%20b/c+d?q=J%C3%B6rg+M%C3%BCller&x=%2F&&flag&e= HTTP/1.1\r\n"
                                  b"Host: h\r\n\r\n"),
        "head-http10": seed(b"HEAD /index.html HTTP/1.0\r\n\r\n"),
        "http10-keepalive": seed(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: h\r\n\r\n"),
        "post-body": seed(post),
        "post-body-cut": seed(post[:-5], cut=31 << 3),
        "post-too-large": seed(post, bound=3),
        "pipelined-three": seed(curl + post + b"HEAD / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
                                cut=8 << 3),
        "leading-crlf": seed(b"\r\n\r\n" + curl),
        "bare-lf": seed(b"GET / HTTP/1.1\nHost: h\n\n"),
        "dotdot-encoded": seed(b"GET /a/%2e%2E%2fetc HTTP/1.1\r\nHost: h\r\n\r\n"),
        "backslash-encoded": seed(b"GET /a%5c..%5cb HTTP/1.1\r\nHost: h\r\n\r\n"),
        "nul-escape": seed(b"GET /?a=%00 HTTP/1.1\r\nHost: h\r\n\r\n"),
        "chunked": seed(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
        "cl-conflict": seed(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
        "cl-signed": seed(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc"),
        "folded": seed(b"GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n  b\r\n\r\n"),
        "method-put": seed(b"PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx"),
        "method-unknown": seed(b"PROPFIND / HTTP/1.1\r\nHost: h\r\n\r\n"),
        "version-2": seed(b"GET / HTTP/2.0\r\nHost: h\r\n\r\n"),
        "absolute-form": seed(b"GET http://h/x HTTP/1.1\r\nHost: h\r\n\r\n"),
        "no-host": seed(b"GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
        "many-headers": seed(b"GET / HTTP/1.1\r\nHost: h\r\n" + b"X: y\r\n" * 64 + b"\r\n"),
        "long-target": seed(b"GET /" + b"a" * 8200 + b" HTTP/1.1\r\nHost: h\r\n\r\n"),
        "listen-v6": seed(b"[::1]:8080"),
        "listen-port": seed(b":0"),
    }


if __name__ == "__main__":
    write_seeds(seeds())

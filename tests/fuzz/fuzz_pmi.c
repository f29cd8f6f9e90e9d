/* Fuzz harness of the PMI-1 line protocol, both sides:
 *   - the server, tern-run's pmi_srv.c / pmi_kvs.c (tn_pmi_srv_input):
 *     request lines from the ranks, hostile;
 *   - the client, the library's reply parser (tn_pmi1_field in
 *     src/runtime/pmi1_wire.c): reply lines from the launcher, as the client
 *     reads them (tn_pmi1_call: cmd, then rc, value, kvsname, appnum, size).
 *
 * Input: a byte b giving the number of ranks ((b & 3) + 1), how the bytes
 * are cut (b >> 2 & 15) and whether rank 0 reads its replies (b & 64: it
 * does not, until the end), then text.  The text is fed to the server as
 * the ranks' input: line i (with its '\n') comes from rank i % ranks, in
 * chunks of (b >> 2 & 15) + 1 bytes, whole lines when that is 15.  After
 * every chunk each rank's replies are taken and parsed by the client's
 * parser, and so is every input line (the client parser on arbitrary
 * lines).  At the end every connection reaches end of file and the
 * processes exit.  The server runs with small limits (16 keys, 512 bytes
 * of key-value space, 1 KiB of replies queued per rank) so that the fuzzer
 * reaches them.
 *
 * Checked: replies are whole lines that start with "cmd=", at most
 * backlog_max bytes wait per rank; the client parser writes a NUL-ended
 * value of at most len - 1 bytes (ASan catches a byte more: the buffers
 * are allocated at their exact size). */
#include "pmi_srv.h"
#include "runtime/pmi_wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_pmi: %s\n", what);
    abort();
}

/* The client's parser on one line (NUL-ended), with buffers of exact size. */
static void fz_client(const char *line)
{
    static const char *const keys[] = { "cmd", "rc", "value", "kvsname", "appnum", "size",
                                        "msg", "" };
    static const size_t lens[] = { 1, 2, 8, 64, 256 };
    static char *outs[sizeof(lens) / sizeof(lens[0])];    /* allocated once */
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
        if (outs[l] == NULL && (outs[l] = malloc(lens[l])) == NULL) {
            fz_fail("out of memory");
        }
    }
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            if (tn_pmi1_field(line, keys[k], outs[l], lens[l])) {
                if (strlen(outs[l]) >= lens[l]) {
                    fz_fail("client parser: value longer than its buffer");
                }
                (void)atoi(outs[l]);            /* what the client does with rc= */
            }
        }
    }
}

/* Take rank r's replies: check them and run them through the client. */
static void fz_replies(tn_pmi_srv_t *srv, int r)
{
    tn_run_buf_t *out = &srv->conns[r].out;
    if (out->len > srv->backlog_max) {
        fz_fail("more replies queued than backlog_max");
    }
    size_t off = 0;
    while (off < out->len) {
        const char *s = out->data + off;
        const char *nl = memchr(s, '\n', out->len - off);
        if (nl == NULL) {
            fz_fail("a reply that is not a whole line");
        }
        size_t n = (size_t)(nl - s);
        if (n < 4 || memcmp(s, "cmd=", 4) != 0) {
            fz_fail("a reply that does not start with cmd=");
        }
        char *line = malloc(n + 1);
        if (line == NULL) {
            fz_fail("out of memory");
        }
        memcpy(line, s, n);
        line[n] = '\0';
        fz_client(line);
        free(line);
        off += n + 1;
    }
    tn_run_buf_consume(out, out->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    int ranks = (data[0] & 3) + 1;
    size_t chunk = (size_t)(data[0] >> 2 & 15) + 1;
    if (chunk == 16) {
        chunk = SIZE_MAX;
    }
    int deaf = data[0] & 64;                /* rank 0 does not read replies */
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    tn_pmi_srv_t srv;
    tn_pmi_srv_init(&srv, ranks, "tern-fuzz-kvs");
    srv.kvs_max_keys = 16;
    srv.kvs_max_bytes = 512;
    srv.backlog_max = 1024;

    size_t off = 0;
    for (int i = 0; off < len; i++) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (text + off)) + 1 : len - off;
        int r = i % ranks;
        /* the client parser on the line itself (without its newline) */
        char *line = malloc(n + 1);
        if (line == NULL) {
            fz_fail("out of memory");
        }
        memcpy(line, text + off, n);
        line[nl != NULL ? n - 1 : n] = '\0';
        fz_client(line);
        free(line);
        /* the server on it, in chunks */
        for (size_t done = 0; done < n;) {
            size_t c = n - done < chunk ? n - done : chunk;
            if (!srv.conns[r].closed &&
                tn_pmi_srv_input(&srv, r, text + off + done, c) != 0) {
                fz_replies(&srv, r);
                tn_pmi_srv_closed(&srv, r);
            }
            done += c;
            for (int q = deaf ? 1 : 0; q < ranks; q++) {
                fz_replies(&srv, q);
            }
            if (srv.conns[0].out.len > srv.backlog_max) {
                fz_fail("more replies queued than backlog_max");
            }
        }
        off += n;
    }
    for (int r = 0; r < ranks; r++) {
        if (!srv.conns[r].closed) {
            tn_pmi_srv_eof(&srv, r);
        }
        fz_replies(&srv, r);
        tn_pmi_srv_gone(&srv, r);
        (void)tn_pmi_srv_stuck(&srv);
    }
    tn_pmi_srv_fini(&srv);
    return 0;
}

/* Fuzz harness of the launch tree's frames (tools/tern-run/run_proto.c),
 * what a proxy on another host, or a parent, sends: hostile until decoded.
 *
 * Input: a stream of frames, decoded one after the other as tern-run reads
 * a link (tn_run_proto_decode) until one asks for more bytes or fails.  A
 * SETUP frame is decoded further (tn_run_proto_setup_decode) and every
 * rank's block looked up; the pairs of FENCE and FENCE_DONE are walked and
 * stored in a key-value space, as a fence does.
 *
 * Checked: a decoded frame's size is within the input; decoded strings are
 * NUL-terminated inside the frame (ASan: the input is copied to a buffer
 * of its exact size); a decoded SETUP's arrays hold what they claim. */
#include "pmi_kvs.h"
#include "run_proto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fz_setup(const tn_run_frame_t *f)
{
    tn_run_setup_t s;
    const char    *why = NULL;
    int            host;

    if (tn_run_proto_setup_decode(f, &s, &host, &why) != 0) {
        return;
    }
    if (host < 0 || host >= s.nhosts) {
        abort();
    }
    for (int r = 0; r < s.nranks; r++) {
        int b = tn_run_setup_block_of(&s, r);

        if (b < 0 || b >= s.nblocks || s.host_of[r] < 0 ||
            s.host_of[r] >= s.nhosts) {
            abort();
        }
    }
    for (int b = 0; b < s.nblocks; b++) {
        if (s.blocks[b].argv[s.blocks[b].argc] != NULL ||
            strlen(s.blocks[b].argv[0]) > f->len) {
            abort();
        }
        for (int i = 0; i < s.blocks[b].nenv; i++) {
            (void)strlen(s.blocks[b].env[i]);
        }
    }
    (void)strlen(s.rsh);
    (void)strlen(s.proxy);
    (void)strlen(s.cwd);
    tn_run_proto_setup_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char          *buf = malloc(size > 0 ? size : 1);
    tn_pmi_kvs_t  *kvs = tn_pmi_kvs_create();
    size_t         off = 0;

    memcpy(buf, data, size);
    while (off < size) {
        tn_run_frame_t f;
        const char    *why = NULL;
        long           got = tn_run_proto_decode(buf + off, size - off, &f, &why);

        if (got <= 0) {
            break;
        }
        if ((size_t)got > size - off) {
            abort();
        }
        if (f.type == TN_RUN_F_SETUP) {
            fz_setup(&f);
        } else if (f.type == TN_RUN_F_FENCE || f.type == TN_RUN_F_FENCE_DONE) {
            size_t      p = 0;
            const char *k, *v;
            uint32_t    n = 0;

            while (tn_run_proto_next_pair(f.data, f.len, &p, &k, &v)) {
                tn_pmi_kvs_put(kvs, k, v);
                n++;
            }
            if (n != f.npairs) {
                abort();
            }
        } else if (f.str != NULL) {
            (void)strlen(f.str);
        }
        off += (size_t)got;
    }
    tn_pmi_kvs_destroy(kvs);
    free(buf);
    return 0;
}

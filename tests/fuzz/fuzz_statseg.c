/* tern-monitor's decoder of a rank's stats segment (tools/tern-monitor/
 * mon_seg.c, include/tern/stats.h): the segment's owner may write anything
 * into it, and a root agent reads every user's.  Whatever decodes must be
 * safe to use without further checks: every counter's every element of
 * every record readable, names and strings terminated and printable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mon_seg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_printable(const char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a private copy of exactly the input, as tn_mon_seg_read gives */
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, data, size);
    tn_mon_seg_t seg;
    char why[128];
    if (tn_mon_seg_decode(buf, size, &seg, why, sizeof(why)) == 0) {
        uint64_t sum = 0;
        fz_printable(seg.hdr.job);
        fz_printable(seg.hdr.host);
        fz_printable(seg.hdr.program);
        for (int i = 0; i < seg.nctr; i++) {
            const tn_mon_ctr_t *c = &seg.ctr[i];
            fz_printable(c->name);
            fz_printable(c->help);
            fz_printable(c->unit);
            if (c->axis >= seg.naxis || (c->axis >= 0 && c->count > seg.axis[c->axis].count)) {
                abort();
            }
            for (uint32_t e = 0; c->axis >= 0 && e < c->count; e++) {
                fz_printable(seg.axis[c->axis].names[e]);
            }
            int recs = c->region == TERN_STATS_PEER ? (int)tn_mon_seg_nrecs(&seg) : 0;
            /* every record of a big segment costs time: the first few and the last */
            for (int r = c->region == TERN_STATS_PEER ? 0 : -1; r < recs; r++) {
                if (r > 8 && r < recs - 1) {
                    r = recs - 1;
                }
                for (uint32_t e = 0; e < c->count; e++) {
                    sum += tn_mon_seg_value(&seg, i, r, (int)e);
                }
            }
        }
        (void)tn_mon_seg_find(&seg, "peer_bytes");
        tn_mon_seg_free(&seg);
        if (sum == 1) {
            buf[0] ^= 1;                /* keep the reads */
        }
    }
    free(buf);
    return 0;
}

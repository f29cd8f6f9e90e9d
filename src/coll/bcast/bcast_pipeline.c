/* Broadcast down a chain in segments: root -> root+1 -> ... -> root+n-1.
 *
 * The packed byte stream is cut into segments of TN_BCAST_PIPELINE_SEG
 * bytes (the same cuts on every rank, whatever (count, datatype) each
 * passed: tn_coll_stream_get); each rank forwards segment s as soon as it has
 * it, while segment s+1 is arriving.  With k segments the time is about
 * (n - 1 + k) segment transfers: for large messages every link carries the
 * buffer once and the chain's latency is hidden.  Up to
 * TN_BCAST_PIPELINE_WINDOW receives and sends are in flight per rank. */
#include "coll/coll_util.h"

#define TN_BCAST_PIPELINE_SEG    (64 * 1024)
#define TN_BCAST_PIPELINE_WINDOW 4

tn_status_t tn_coll_bcast_pipeline(void *buf, size_t count, const tn_dt_t *dt, int root,
                                   tn_comm_t *comm)
{
    int n = comm->size, vr = (comm->rank - root + n) % n;
    int prev = (comm->rank - 1 + n) % n, next = (comm->rank + 1) % n;
    int has_prev = vr > 0, has_next = vr < n - 1;
    size_t bytes = tn_dt_bytes(dt, count), seg = TN_BCAST_PIPELINE_SEG;
    size_t nseg, s, posted = 0;
    tn_req_t *rreq[TN_BCAST_PIPELINE_WINDOW] = { NULL }, *sreq[TN_BCAST_PIPELINE_WINDOW] = { NULL };
    const tn_dt_t *byte = tn_dt_byte();
    tn_coll_tmp_t t;
    char *b = tn_coll_stream_get(buf, count, dt, vr == 0, &t);
    tn_status_t st = TN_OK;
    int w;

    if (b == NULL) {
        return TN_ERR_NOMEM;
    }
    nseg = (bytes + seg - 1) / seg;

#define SEG_PTR(s) (b + (s) * seg)
#define SEG_CNT(s) ((s) == nseg - 1 ? bytes - (s) * seg : seg)
    for (s = 0; s < nseg && st == TN_OK; s++) {
        w = (int)(s % TN_BCAST_PIPELINE_WINDOW);
        if (has_prev) {
            /* keep the window of receives full, then wait for segment s */
            while (posted < nseg && posted < s + TN_BCAST_PIPELINE_WINDOW && st == TN_OK) {
                int pw = (int)(posted % TN_BCAST_PIPELINE_WINDOW);

                st = tn_p2p_irecv(SEG_PTR(posted), SEG_CNT(posted), byte, prev,
                                  TN_COLL_TAG_BCAST, comm, 1, &rreq[pw]);
                if (st == TN_OK) {
                    posted++;
                }
            }
            if (st != TN_OK) {
                break;
            }
            st = tn_req_waitall_free(1, &rreq[w]);
            rreq[w] = NULL;
            if (st != TN_OK) {
                break;
            }
        }
        if (has_next) {
            if (sreq[w] != NULL) {
                st = tn_req_waitall_free(1, &sreq[w]);
                sreq[w] = NULL;
                if (st != TN_OK) {
                    break;
                }
            }
            st = tn_p2p_isend(SEG_PTR(s), SEG_CNT(s), byte, next, TN_COLL_TAG_BCAST, comm, 1,
                              TN_SEND_STD, &sreq[w]);
        }
    }
#undef SEG_PTR
#undef SEG_CNT
    tn_coll_waitall(TN_BCAST_PIPELINE_WINDOW, rreq, &st);
    tn_coll_waitall(TN_BCAST_PIPELINE_WINDOW, sreq, &st);
    tn_coll_stream_put(b, buf, count, dt, vr != 0 && st == TN_OK, &t);
    return st;
}

/* Alltoall with every exchange posted at once: receives from rank - i and
 * sends to rank + i for all i, TN_ALLTOALL_SCATTERED_BATCH peers at a time,
 * then wait.  The transport overlaps the messages: the choice for medium
 * blocks.  Works on any block layout (alltoallv, alltoallw); in place, the
 * outgoing blocks are copied aside first. */
#include "coll/coll_util.h"
#include "runtime/rt.h"

#define TN_ALLTOALL_SCATTERED_BATCH 32

tn_status_t tn_coll_alltoall_scattered(const void *sbuf, const tn_coll_blocks_t *sb,
                                       void *rbuf, const tn_coll_blocks_t *rb,
                                       tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, first, i;
    tn_req_t *reqs[2 * TN_ALLTOALL_SCATTERED_BATCH];
    ptrdiff_t shift = 0;
    tn_coll_tmp_t t;
    const char *s = sbuf;
    tn_status_t st = TN_OK;

    /* more than two ranks per core: a peer is rarely running when this rank
     * is, so streaming a block (which needs both) waits on the scheduler;
     * read the blocks in place instead (measured, 8 ranks on 2 cores:
     * 128 KiB 412-505 us read against 697-908 streamed, 512 KiB 2.6-2.8
     * against 3.1-3.3 ms; on 4 ranks streaming wins) */
    int rflags = tn_rt.cores > 0 && tn_rt.local_size > 2 * tn_rt.cores ? 1 | TN_P2P_PULL : 1;

    t.p = NULL;
    if (sbuf == TN_IN_PLACE) {
        s = tn_coll_inplace_save(rb, rbuf, n, &t, &shift);
        if (s == NULL) {
            return TN_ERR_NOMEM;
        }
        sb = rb;
    } else {
        st = tn_coll_copy(tn_coll_blk_ptr(sb, s, rank), tn_coll_blk_count(sb, rank),
                          tn_coll_blk_dt(sb, rank), tn_coll_blk_ptr(rb, rbuf, rank),
                          tn_coll_blk_count(rb, rank), tn_coll_blk_dt(rb, rank), comm);
    }
    for (first = 1; first < n && st == TN_OK; first += TN_ALLTOALL_SCATTERED_BATCH) {
        int last = first + TN_ALLTOALL_SCATTERED_BATCH < n ? first + TN_ALLTOALL_SCATTERED_BATCH
                                                          : n;
        int nreq = 0;

        for (i = first; i < last && st == TN_OK; i++) {
            int src = (rank - i + n) % n;

            st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, src), tn_coll_blk_count(rb, src),
                              tn_coll_blk_dt(rb, src), src, TN_COLL_TAG_ALLTOALL, comm, rflags,
                              &reqs[nreq]);
            if (st == TN_OK) {
                nreq++;
            }
        }
        for (i = first; i < last && st == TN_OK; i++) {
            int dst = (rank + i) % n;

            st = tn_p2p_isend(tn_coll_src_ptr(sb, s, shift, dst), tn_coll_blk_count(sb, dst),
                              tn_coll_blk_dt(sb, dst), dst, TN_COLL_TAG_ALLTOALL, comm, 1,
                              TN_SEND_STD, &reqs[nreq]);
            if (st == TN_OK) {
                nreq++;
            }
        }
        tn_coll_waitall(nreq, reqs, &st);
    }
    tn_coll_tmp_put(&t);
    return st;
}

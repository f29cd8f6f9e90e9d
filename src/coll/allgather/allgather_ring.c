/* Allgather around a ring: in step i every rank passes the block it got in
 * step i - 1 (its own at first) to rank + 1 and receives the next one from
 * rank - 1.  n - 1 steps, each link carries every block once: bandwidth
 * optimal, latency linear in n.  Blocks travel in recvbuf's layout, so the
 * blocks may differ in size (allgatherv). */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_ring(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                   void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    tn_status_t st;
    int i;

    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, rank),
                          tn_coll_blk_count(rb, rank), rb->dt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    for (i = 0; i < n - 1; i++) {
        int sblock = (rank - i + n) % n;
        int rblock = (rank - i - 1 + n) % n;

        st = tn_p2p_sendrecv(tn_coll_blk_ptr(rb, rbuf, sblock), tn_coll_blk_count(rb, sblock),
                             rb->dt, right, TN_COLL_TAG_ALLGATHER,
                             tn_coll_blk_ptr(rb, rbuf, rblock), tn_coll_blk_count(rb, rblock),
                             rb->dt, left, TN_COLL_TAG_ALLGATHER, comm, 1, NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

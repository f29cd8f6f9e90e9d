/* Allgather around a ring: in step i every rank passes the block it got in
 * step i - 1 (its own at first) to rank + 1 and receives the next one from
 * rank - 1.  n - 1 steps, each link carries every block once: bandwidth
 * optimal, latency linear in n.  Blocks travel in recvbuf's layout. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_ring(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                   void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                   tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    size_t blk = tn_coll_span(rdt, rcount);
    char *r = rbuf;
    tn_status_t st;
    int i;

    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, r + (size_t)rank * blk, rcount, rdt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    for (i = 0; i < n - 1; i++) {
        int sblock = (rank - i + n) % n;
        int rblock = (rank - i - 1 + n) % n;

        st = tn_p2p_sendrecv(r + (size_t)sblock * blk, rcount, rdt, right,
                             TN_COLL_TAG_ALLGATHER,
                             r + (size_t)rblock * blk, rcount, rdt, left,
                             TN_COLL_TAG_ALLGATHER, comm, 1, NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

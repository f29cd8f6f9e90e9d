/* Gather straight to the root: the root posts a receive per rank, straight
 * into its block of recvbuf, and every other rank sends its block.  One
 * step, and no block is copied on the way: the choice for long blocks, and
 * the algorithm of gatherv (blocks of any size). */
#include "coll/coll_util.h"

/* Receives in flight at once at the root. */
#define TN_GATHER_LINEAR_BATCH 64

tn_status_t tn_coll_gather_linear(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                  void *rbuf, const tn_coll_blocks_t *rb, int root,
                                  tn_comm_t *comm)
{
    tn_req_t *reqs[TN_GATHER_LINEAR_BATCH];
    int n = comm->size, r, nreq = 0;
    tn_status_t st = TN_OK;

    if (comm->rank != root) {
        return tn_p2p_send(sbuf, scount, sdt, root, TN_COLL_TAG_GATHER, comm, 1);
    }
    for (r = 0; r < n && st == TN_OK; r++) {
        if (r == root) {
            if (sbuf != TN_IN_PLACE) {
                st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, r),
                                  tn_coll_blk_count(rb, r), rb->dt, comm);
            }
            continue;
        }
        st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, r), tn_coll_blk_count(rb, r), rb->dt, r,
                          TN_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
        if (st == TN_OK && ++nreq == TN_GATHER_LINEAR_BATCH) {
            tn_coll_waitall(nreq, reqs, &st);
            nreq = 0;
        }
    }
    tn_coll_waitall(nreq, reqs, &st);
    return st;
}

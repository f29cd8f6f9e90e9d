/* Scatter straight from the root: the root sends every rank its block of
 * sendbuf, every other rank receives.  One step, no block is copied on the
 * way: the choice for long blocks, and the algorithm of scatterv (blocks of
 * any size). */
#include "coll/coll_util.h"

/* Sends in flight at once at the root. */
#define TN_SCATTER_LINEAR_BATCH 64

tn_status_t tn_coll_scatter_linear(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                   size_t rcount, const tn_dt_t *rdt, int root,
                                   tn_comm_t *comm)
{
    tn_req_t *reqs[TN_SCATTER_LINEAR_BATCH];
    int n = comm->size, r, nreq = 0;
    tn_status_t st = TN_OK;

    if (comm->rank != root) {
        return tn_p2p_recv(rbuf, rcount, rdt, root, TN_COLL_TAG_SCATTER, comm, 1, NULL);
    }
    for (r = 0; r < n && st == TN_OK; r++) {
        if (r == root) {
            if (rbuf != TN_IN_PLACE) {
                st = tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, r), tn_coll_blk_count(sb, r), sb->dt,
                                  rbuf, rcount, rdt, comm);
            }
            continue;
        }
        st = tn_p2p_isend(tn_coll_blk_ptr(sb, sbuf, r), tn_coll_blk_count(sb, r), sb->dt, r,
                          TN_COLL_TAG_SCATTER, comm, 1, TN_SEND_STD, &reqs[nreq]);
        if (st == TN_OK && ++nreq == TN_SCATTER_LINEAR_BATCH) {
            tn_coll_waitall(nreq, reqs, &st);
            nreq = 0;
        }
    }
    tn_coll_waitall(nreq, reqs, &st);
    return st;
}

/* Allgather by recursive doubling, power-of-two communicators.  Before the
 * step of mask each rank holds the aligned run of mask blocks around its own
 * and swaps it with rank ^ mask, which holds the neighbouring run: log2 n
 * steps, n - 1 blocks received in all.  Runs of blocks are contiguous in
 * recvbuf, so every step is one message each way, straight into recvbuf. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_recdbl(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                     void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, mask;
    size_t rcount = rb->count;
    char *r = rbuf;
    tn_status_t st;

    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, rank), rcount, rb->dt,
                          comm);
        if (st != TN_OK) {
            return st;
        }
    }
    for (mask = 1; mask < n; mask <<= 1) {
        int partner = rank ^ mask;
        int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);

        st = tn_p2p_sendrecv(r + tn_coll_blk_off(rb, mine), (size_t)mask * rcount, rb->dt,
                             partner, TN_COLL_TAG_ALLGATHER,
                             r + tn_coll_blk_off(rb, theirs), (size_t)mask * rcount, rb->dt,
                             partner, TN_COLL_TAG_ALLGATHER, comm, 1, NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

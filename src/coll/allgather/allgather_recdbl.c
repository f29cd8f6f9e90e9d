/* Allgather by recursive doubling, power-of-two communicators.  Before the
 * step of mask each rank holds the aligned run of mask blocks around its own
 * and swaps it with rank ^ mask, which holds the neighbouring run: log2 n
 * steps, n - 1 blocks received in all.  Runs of blocks are contiguous in
 * recvbuf, so every step is one message each way, straight into recvbuf.
 * Without MPI_IN_PLACE the first step sends straight from sendbuf while my
 * block is copied into recvbuf. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_recdbl(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                     void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, mask;
    size_t rcount = rb->count;
    char *r = rbuf;
    tn_status_t st;

    mask = 1;
    if (sbuf != TN_IN_PLACE) {
        /* The first step sends my block from sbuf, so my copy into rbuf
         * overlaps the exchange (a long block's copy costs as much as its
         * transfer). */
        int partner = rank ^ 1;
        tn_req_t *reqs[2];
        int nreq = 0;

        st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, partner), rcount, rb->dt, partner,
                          TN_COLL_TAG_ALLGATHER, comm, 1, &reqs[nreq]);
        nreq += st == TN_OK;
        if (st == TN_OK) {
            st = tn_p2p_isend(sbuf, scount, sdt, partner, TN_COLL_TAG_ALLGATHER, comm, 1,
                              TN_SEND_STD, &reqs[nreq]);
            nreq += st == TN_OK;
        }
        if (st == TN_OK) {
            st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, rank), rcount,
                              rb->dt, comm);
        }
        tn_coll_waitall(nreq, reqs, &st);
        if (st != TN_OK) {
            return st;
        }
        mask = 2;
    }
    for (; mask < n; mask <<= 1) {
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

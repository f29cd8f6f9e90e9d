/* Allgather by Bruck's algorithm, any communicator size.
 *
 * Blocks travel packed (the type signature's bytes) in a temporary where
 * slot i holds the block of rank + i.  In the step of distance d = 1, 2, 4,
 * ... every rank sends its first min(d, n - d) slots to rank - d and
 * appends as many from rank + d; after ceil(log2 n) steps all n slots are
 * filled, and a final pass unpacks slot i into block rank + i of recvbuf.
 * Fewest steps for any n: the choice for short blocks when n is not a power
 * of two. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_bruck(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, d, i;
    const tn_dt_t *rdt = rb->dt, *byte = tn_dt_byte();
    size_t rcount = rb->count, blk = tn_dt_bytes(rdt, rcount);
    tn_coll_tmp_t t;
    char *tmp;
    tn_status_t st = TN_OK;

    tmp = tn_coll_tmp_get(&t, (size_t)n * blk);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    if (sbuf == TN_IN_PLACE) {
        tn_dt_pack(rdt, tn_coll_blk_ptr(rb, rbuf, rank), rcount, tmp);
    } else if (tn_dt_bytes(sdt, scount) != blk) {
        st = TN_ERR_TRUNCATE;
        goto out;
    } else {
        tn_dt_pack(sdt, sbuf, scount, tmp);
    }
    for (d = 1; d < n && st == TN_OK; d <<= 1) {
        size_t cnt = (size_t)(n - d < d ? n - d : d);

        st = tn_p2p_sendrecv(tmp, cnt * blk, byte, (rank - d + n) % n, TN_COLL_TAG_ALLGATHER,
                             tmp + (size_t)d * blk, cnt * blk, byte, (rank + d) % n,
                             TN_COLL_TAG_ALLGATHER, comm, 1, NULL);
    }
    if (st == TN_OK) {
        for (i = sbuf == TN_IN_PLACE ? 1 : 0; i < n; i++) {
            tn_dt_unpack(rdt, tmp + (size_t)i * blk, rcount,
                         tn_coll_blk_ptr(rb, rbuf, (rank + i) % n));
        }
    }
out:
    tn_coll_tmp_put(&t);
    return st;
}

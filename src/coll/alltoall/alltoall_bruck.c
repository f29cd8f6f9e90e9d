/* Alltoall by Bruck's algorithm, equal blocks only.
 *
 * Blocks travel packed (the type signature's bytes) in a temporary A where
 * slot i first holds my block for rank + i.  In the step of distance
 * d = 1, 2, 4, ... every rank sends the slots whose index has bit d set to
 * rank + d, in one message, and puts what rank - d sent into the same
 * slots.  A block in slot i thus moves i ranks forward in all and ends at
 * its destination, where slot i holds the block of rank - i.  ceil(log2 n)
 * steps of about n/2 blocks each, instead of n - 1 messages: the choice for
 * short blocks, where per-message costs dominate. */
#include "coll/coll_util.h"

tn_status_t tn_coll_alltoall_bruck(const void *sbuf, const tn_coll_blocks_t *sb,
                                   void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, half = (n + 1) / 2, d, i, k;
    const tn_dt_t *byte = tn_dt_byte();
    size_t blk = tn_dt_bytes(rb->dt, rb->count);
    tn_coll_tmp_t ta, tp;
    char *a, *p, *q;
    tn_status_t st = TN_OK;

    tp.p = NULL;
    a = tn_coll_tmp_get(&ta, (size_t)n * blk);
    if (a == NULL) {
        return TN_ERR_NOMEM;
    }
    p = tn_coll_tmp_get(&tp, 2 * (size_t)half * blk);
    if (p == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    q = p + (size_t)half * blk;
    if (sbuf == TN_IN_PLACE) {
        sbuf = rbuf;
        sb = rb;
    } else if (tn_dt_bytes(sb->dt, sb->count) != blk) {
        st = TN_ERR_TRUNCATE;
        goto out;
    }
    for (i = 0; i < n; i++) {
        tn_dt_pack(sb->dt, tn_coll_blk_ptr(sb, sbuf, (rank + i) % n), sb->count,
                   a + (size_t)i * blk);
    }
    for (d = 1; d < n && st == TN_OK; d <<= 1) {
        for (i = d, k = 0; i < n; i++) {
            if (i & d) {
                memcpy(p + (size_t)k++ * blk, a + (size_t)i * blk, blk);
            }
        }
        st = tn_p2p_sendrecv(p, (size_t)k * blk, byte, (rank + d) % n, TN_COLL_TAG_ALLTOALL,
                             q, (size_t)k * blk, byte, (rank - d + n) % n,
                             TN_COLL_TAG_ALLTOALL, comm, 1, NULL);
        for (i = d, k = 0; i < n && st == TN_OK; i++) {
            if (i & d) {
                memcpy(a + (size_t)i * blk, q + (size_t)k++ * blk, blk);
            }
        }
    }
    if (st == TN_OK) {
        for (i = 0; i < n; i++) {
            tn_dt_unpack(rb->dt, a + (size_t)i * blk, rb->count,
                         tn_coll_blk_ptr(rb, rbuf, (rank - i + n) % n));
        }
    }
out:
    tn_coll_tmp_put(&tp);
    tn_coll_tmp_put(&ta);
    return st;
}

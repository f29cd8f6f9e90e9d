/* Alltoall by pairwise exchange: in step i (1 <= i < n) every rank sends its
 * block for rank + i and receives the block of rank - i.  n - 1 steps, one
 * message in flight per direction, so no rank is flooded: the choice for
 * large blocks.  Works on any block layout (alltoallv, alltoallw).  In
 * place, the outgoing blocks are first copied aside, since incoming blocks
 * overwrite them. */
#include "coll/coll_util.h"

tn_status_t tn_coll_alltoall_pairwise(const void *sbuf, const tn_coll_blocks_t *sb,
                                      void *rbuf, const tn_coll_blocks_t *rb,
                                      tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank, i;
    ptrdiff_t shift = 0;
    tn_coll_tmp_t t;
    const char *s = sbuf;
    tn_status_t st = TN_OK;

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
    for (i = 1; i < n && st == TN_OK; i++) {
        int dst = (rank + i) % n;
        int src = (rank - i + n) % n;

        st = tn_p2p_sendrecv(tn_coll_src_ptr(sb, s, shift, dst), tn_coll_blk_count(sb, dst),
                             tn_coll_blk_dt(sb, dst), dst, TN_COLL_TAG_ALLTOALL,
                             tn_coll_blk_ptr(rb, rbuf, src), tn_coll_blk_count(rb, src),
                             tn_coll_blk_dt(rb, src), src, TN_COLL_TAG_ALLTOALL,
                             comm, 1, NULL);
    }
    tn_coll_tmp_put(&t);
    return st;
}

/* Reduce_scatter by recursive halving, commutative ops on power-of-two
 * communicators.  The vector is the blocks of every rank one after the
 * other; in the step of mask = n/2, n/4, ..., 1 every rank keeps the half of
 * its current range that holds its own block, sends the other half to
 * rank ^ mask and combines that rank's copy of the kept half into its own.
 * log2 n steps moving half, a quarter, ... of the vector: about one vector
 * per rank in all. */
#include "coll/coll_util.h"

tn_status_t tn_coll_reduce_scatter_rechalving(const void *sbuf, void *rbuf,
                                              const tn_coll_blocks_t *rc, const tn_op_t *op,
                                              tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    const tn_dt_t *dt = rc->dt;
    size_t total = tn_coll_blk_prefix(rc, n), mine = tn_coll_blk_prefix(rc, rank);
    tn_coll_fold_t f;
    tn_coll_pieces_t pc;
    tn_coll_tmp_t t[2];
    char *acc, *tmp;
    tn_status_t st;

    tn_coll_fold_init(&f, n, 0);
    pc.count = total;
    pc.p = n;
    pc.blocks = rc;
    t[1].p = NULL;
    acc = tn_coll_tmp_dt(&t[0], dt, total);
    if (acc == NULL) {
        return TN_ERR_NOMEM;
    }
    tmp = tn_coll_tmp_dt(&t[1], dt, total);
    if (tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    tn_coll_dup(acc, sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf, dt, total);
    st = tn_coll_pieces_halving(acc, tmp, dt, op, &pc, rank, &f, TN_COLL_TAG_REDUCE_SCATTER,
                                comm);
    if (st == TN_OK) {
        size_t cnt = tn_coll_blk_count(rc, rank);

        st = tn_coll_copy(acc + (ptrdiff_t)mine * dt->extent, cnt, dt, rbuf, cnt, dt, comm);
    }
out:
    tn_coll_tmp_put(&t[1]);
    tn_coll_tmp_put(&t[0]);
    return st;
}

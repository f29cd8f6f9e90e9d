/* Reduce as a reduce-scatter followed by a gather (Rabenseifner), for
 * commutative ops.
 *
 * Ranks are taken relative to the root and folded onto p = 2^k new ranks
 * (tn_coll_fold_t: the odd one of each of the first n - p pairs hands its
 * vector to its even neighbour).  The vector is split into p pieces; by
 * recursive halving each new rank ends with its piece reduced over everyone
 * (log2 p steps moving half, a quarter, ... of the vector), then a binomial
 * gather brings the pieces to new rank 0, the root.  Every rank moves about
 * 2 vectors' worth instead of log2 n vectors: the choice for long vectors. */
#include "coll/coll_util.h"

tn_status_t tn_coll_reduce_rabenseifner(const void *sbuf, void *rbuf, size_t count,
                                        const tn_dt_t *dt, const tn_op_t *op, int root,
                                        tn_comm_t *comm)
{
    int n = comm->size, vr = (comm->rank - root + n) % n, nr;
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    tn_coll_fold_t f;
    tn_coll_pieces_t pc;
    tn_coll_tmp_t t[2];
    char *acc, *tmp;
    tn_status_t st = TN_OK;

    tn_coll_fold_init(&f, n, root);
    pc.count = count;
    pc.p = f.p;
    pc.blocks = NULL;
    t[1].p = NULL;
    acc = tn_coll_tmp_dt(&t[0], dt, count);
    if (acc == NULL) {
        return TN_ERR_NOMEM;
    }
    tmp = tn_coll_tmp_dt(&t[1], dt, count);
    if (tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    tn_coll_dup(acc, mine, dt, count);

    if (vr < 2 * f.rem) {
        if (vr % 2 == 1) {
            st = tn_p2p_send(acc, count, dt, (comm->rank - 1 + n) % n, TN_COLL_TAG_REDUCE,
                             comm, 1);
            goto out;
        }
        st = tn_p2p_recv(tmp, count, dt, (comm->rank + 1) % n, TN_COLL_TAG_REDUCE, comm, 1,
                         NULL);
        if (st == TN_OK) {
            st = tn_op_apply(op, dt, tn_coll_dt_handle(dt), tmp, acc, count);
        }
        if (st != TN_OK) {
            goto out;
        }
    }
    nr = tn_coll_fold_newrank(&f, vr);
    st = tn_coll_pieces_halving(acc, tmp, dt, op, &pc, nr, &f, TN_COLL_TAG_REDUCE, comm);
    if (st == TN_OK) {
        st = tn_coll_pieces_gather(acc, dt, &pc, nr, &f, TN_COLL_TAG_REDUCE, comm);
    }
    if (st == TN_OK && nr == 0) {
        st = tn_coll_copy(acc, count, dt, rbuf, count, dt, comm);
    }
out:
    tn_coll_tmp_put(&t[1]);
    tn_coll_tmp_put(&t[0]);
    return st;
}

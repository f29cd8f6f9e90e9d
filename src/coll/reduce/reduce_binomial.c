/* Reduce along a binomial tree.
 *
 * A rank with relative rank vr holds the reduction of the contiguous block
 * [vr, vr + mask) of relative ranks; in round mask it either sends that to
 * vr - mask (when bit mask of vr is set) or receives the block
 * [vr + mask, vr + 2 mask) from vr + mask and computes mine op theirs.  So
 * the tree evaluates the op in relative-rank order.  For a commutative op the
 * tree is rooted at root; otherwise it is rooted at rank 0 (relative order =
 * rank order) and rank 0 forwards the result to root.
 *
 * Buffers: the accumulated value starts as my own contribution, read in
 * place; results alternate between two temporaries (tn_op_apply writes its
 * second operand, which must be the higher ranks' block), so sbuf is never
 * written and rbuf only at the root.  log2 n steps of whole vectors: the
 * choice for short vectors, and for long ones with non-commutative ops. */
#include "coll/coll_util.h"

tn_status_t tn_coll_reduce_binomial(const void *sbuf, void *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, int root,
                                    tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int tree_root = op->commutative ? root : 0;
    int vr = (rank - tree_root + n) % n;
    uintptr_t dth = tn_coll_dt_handle(dt);
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    const void *acc = mine;
    tn_coll_tmp_t t[2];
    char *tb[2] = { NULL, NULL };
    int which = 0, mask;
    tn_status_t st = TN_OK;

    t[0].p = t[1].p = NULL;
    for (mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            int dst = (vr - mask + tree_root) % n;

            st = tn_p2p_send(acc, count, dt, dst, TN_COLL_TAG_REDUCE, comm, 1);
            goto out;
        }
        if (vr + mask < n) {
            int src = (vr + mask + tree_root) % n;

            if (tb[which] == NULL) {
                tb[which] = tn_coll_tmp_dt(&t[which], dt, count);
                if (tb[which] == NULL) {
                    st = TN_ERR_NOMEM;
                    goto out;
                }
            }
            st = tn_p2p_recv(tb[which], count, dt, src, TN_COLL_TAG_REDUCE, comm, 1, NULL);
            if (st != TN_OK) {
                goto out;
            }
            st = tn_op_apply(op, dt, dth, acc, tb[which], count);
            if (st != TN_OK) {
                goto out;
            }
            acc = tb[which];
            which ^= 1;
        }
    }
    /* I am tree_root and acc holds the whole reduction. */
    if (rank == root) {
        st = tn_coll_copy(acc, count, dt, rbuf, count, dt, comm);
    } else {
        st = tn_p2p_send(acc, count, dt, root, TN_COLL_TAG_REDUCE, comm, 1);
    }
out:
    /* the root of a non-commutative reduce gets the result from rank 0 */
    if (st == TN_OK && rank == root && tree_root != root) {
        st = tn_p2p_recv(rbuf, count, dt, tree_root, TN_COLL_TAG_REDUCE, comm, 1, NULL);
    }
    tn_coll_tmp_put(&t[0]);
    tn_coll_tmp_put(&t[1]);
    return st;
}

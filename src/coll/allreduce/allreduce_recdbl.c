/* Allreduce by recursive doubling, any communicator size.
 *
 * Let p be the largest power of two <= n and r = n - p.  Fold: among the
 * first 2r ranks, each even rank sends its vector to the odd rank above it
 * and sits out; the odd rank keeps (even op odd).  The p remaining ranks
 * (new rank = rank / 2 below 2r, rank - r above) exchange vectors with
 * new rank ^ mask for mask = 1, 2, .., p/2, the lower new rank's vector
 * always on the left of the op.  New ranks preserve rank order and every
 * step joins two adjacent blocks, so the op is applied in rank order, and
 * both partners compute the same expression: every rank ends with the same
 * bits.  Unfold: odd ranks send the result back to their even neighbour.
 * log2 p + 2 steps, each moving the whole vector: the choice for small and
 * medium vectors. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allreduce_recdbl(const void *sbuf, void *rbuf, size_t count,
                                     const tn_dt_t *dt, const tn_op_t *op,
                                     tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    uintptr_t dth = tn_coll_dt_handle(dt);
    tn_coll_tmp_t t;
    char *cur = rbuf, *other;
    int pof2, rem, newrank, mask;
    tn_status_t st = TN_OK;

    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
        if (st != TN_OK) {
            return st;
        }
    }
    if (n == 1) {
        return TN_OK;
    }
    other = tn_coll_tmp_dt(&t, dt, count);
    if (other == NULL) {
        return TN_ERR_NOMEM;
    }
    for (pof2 = 1; pof2 * 2 <= n; pof2 *= 2) {
    }
    rem = n - pof2;

    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            st = tn_p2p_send(cur, count, dt, rank + 1, TN_COLL_TAG_ALLREDUCE, comm, 1);
            newrank = -1;
        } else {
            st = tn_p2p_recv(other, count, dt, rank - 1, TN_COLL_TAG_ALLREDUCE, comm, 1,
                             NULL);
            if (st == TN_OK) {
                st = tn_op_apply(op, dt, dth, other, cur, count);
            }
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (st != TN_OK) {
        goto out;
    }

    if (newrank >= 0) {
        for (mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            char *swap;

            st = tn_p2p_sendrecv(cur, count, dt, dst, TN_COLL_TAG_ALLREDUCE,
                                 other, count, dt, dst, TN_COLL_TAG_ALLREDUCE,
                                 comm, 1, NULL);
            if (st != TN_OK) {
                goto out;
            }
            if (dst < rank) {
                st = tn_op_apply(op, dt, dth, other, cur, count);
            } else {
                st = tn_op_apply(op, dt, dth, cur, other, count);
                swap = cur;
                cur = other;
                other = swap;
            }
            if (st != TN_OK) {
                goto out;
            }
        }
        if (cur != (char *)rbuf) {
            st = tn_coll_copy(cur, count, dt, rbuf, count, dt, comm);
            if (st != TN_OK) {
                goto out;
            }
        }
    }

    if (rank < 2 * rem) {
        if (rank % 2 == 1) {
            st = tn_p2p_send(rbuf, count, dt, rank - 1, TN_COLL_TAG_ALLREDUCE, comm, 1);
        } else {
            st = tn_p2p_recv(rbuf, count, dt, rank + 1, TN_COLL_TAG_ALLREDUCE, comm, 1,
                             NULL);
        }
    }
out:
    tn_coll_tmp_put(&t);
    return st;
}

/* Scan and exscan along the chain 0 -> 1 -> ... -> n-1: rank r receives the
 * prefix of ranks [0, r) from r - 1, combines its own contribution after it
 * and passes the prefix of [0, r] on.  n - 1 steps in sequence, but every
 * rank moves the vector only twice and applies the op once: for long
 * vectors on few ranks.  Any op (rank order by construction). */
#include "coll/coll_util.h"

tn_status_t tn_coll_scan_linear(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                                const tn_op_t *op, int exclusive, tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    tn_coll_tmp_t t[2];
    char *prefix, *next;
    tn_status_t st = TN_OK;

    t[1].p = NULL;
    prefix = tn_coll_tmp_dt(&t[0], dt, count);          /* [0, rank) */
    next = prefix == NULL ? NULL : tn_coll_tmp_dt(&t[1], dt, count);   /* [0, rank] */
    if (next == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    tn_coll_dup(next, mine, dt, count);
    if (rank > 0) {
        st = tn_p2p_recv(prefix, count, dt, rank - 1, TN_COLL_TAG_SCAN, comm, 1, NULL);
        if (st == TN_OK) {
            st = tn_op_apply(op, dt, tn_coll_dt_handle(dt), prefix, next, count);
        }
    }
    if (st == TN_OK && rank < n - 1) {
        st = tn_p2p_send(next, count, dt, rank + 1, TN_COLL_TAG_SCAN, comm, 1);
    }
    if (st == TN_OK && !(exclusive && rank == 0)) {
        st = tn_coll_copy(exclusive ? prefix : next, count, dt, rbuf, count, dt, comm);
    }
out:
    tn_coll_tmp_put(&t[1]);
    tn_coll_tmp_put(&t[0]);
    return st;
}

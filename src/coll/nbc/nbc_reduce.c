/* Nonblocking reduce and allreduce.  Reduce: every rank sends its
 * contribution to the root, which folds them in rank order (correct for
 * non-commutative ops: acc = x(n-1), then acc = x(i) op acc downwards).
 * Allreduce: reduce to rank 0, then the binomial broadcast. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_reduce_to(tn_sched_t *s, const void *mine, void *result, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;

    if (count == 0) {
        return;
    }
    if (r != root) {
        tn_sched_send(s, mine, count, dt, root);
        tn_sched_barrier(s);
        return;
    }
    const char **in = calloc((size_t)n, sizeof(*in));
    char *acc = tn_sched_tmp(s, dt, count);
    if (in == NULL || acc == NULL) {
        free(in);
        tn_sched_fail(s, TN_ERR_NOMEM);
        return;
    }
    for (int i = 0; i < n; i++) {
        if (i == r) {
            in[i] = mine;
            continue;
        }
        char *t = tn_sched_tmp(s, dt, count);
        if (t == NULL) {
            free(in);
            return;
        }
        tn_sched_recv(s, t, count, dt, i);
        in[i] = t;
    }
    tn_sched_barrier(s);
    tn_sched_copy(s, in[n - 1], count, dt, acc, count, dt);
    for (int i = n - 2; i >= 0; i--) {
        tn_sched_reduce(s, in[i], acc, count, dt, op);
    }
    tn_sched_copy(s, acc, count, dt, result, count, dt);
    tn_sched_barrier(s);
    free(in);
}

void tn_nbc_reduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                   const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_nbc_reduce_to(s, sbuf == TN_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, root, comm);
}

void tn_nbc_allreduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                      const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    tn_nbc_reduce_to(s, sbuf == TN_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, 0, comm);
    tn_nbc_bcast(s, rbuf, count, dt, 0, comm);
}

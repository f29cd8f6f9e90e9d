/* Nonblocking scan and exscan: a chain.  Rank r receives the inclusive
 * prefix of ranks 0..r-1, combines it with its own contribution (prefix op
 * mine, rank order kept) and passes the result on to r + 1. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_scan(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                 const tn_dt_t *dt, const tn_op_t *op, int exclusive, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    const void *mine = sbuf == TN_IN_PLACE ? rbuf : sbuf;

    if (count == 0) {
        return;
    }
    if (r == 0) {
        if (n > 1) {
            tn_sched_send(s, mine, count, dt, 1);
        }
        if (!exclusive && sbuf != TN_IN_PLACE) {
            tn_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
        }
        return;
    }
    char *x = tn_sched_tmp(s, dt, count);
    char *prefix = tn_sched_tmp(s, dt, count);
    if (x == NULL || prefix == NULL) {
        return;
    }
    tn_sched_copy(s, mine, count, dt, x, count, dt);
    tn_sched_recv(s, prefix, count, dt, r - 1);
    tn_sched_barrier(s);
    tn_sched_reduce(s, prefix, x, count, dt, op);          /* x = prefix op mine */
    if (r + 1 < n) {
        tn_sched_send(s, x, count, dt, r + 1);
    }
    tn_sched_copy(s, exclusive ? prefix : x, count, dt, rbuf, count, dt);
}

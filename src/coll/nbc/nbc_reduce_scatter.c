/* Nonblocking reduce_scatter(_block): reduce the whole vector to rank 0
 * (in rank order), then rank 0 sends every rank its block. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_reduce_scatter(tn_sched_t *s, const void *sbuf, void *rbuf,
                           const tn_coll_blocks_t *rc, const tn_op_t *op, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    const tn_dt_t *dt = rc->dt;
    size_t total = tn_coll_blk_prefix(rc, n);
    const void *mine = sbuf == TN_IN_PLACE ? rbuf : sbuf;
    char *acc = NULL;

    if (total == 0) {
        return;
    }
    if (r == 0) {
        acc = tn_sched_tmp(s, dt, total);
        if (acc == NULL) {
            return;
        }
    }
    tn_nbc_reduce_to(s, mine, acc, total, dt, op, 0, comm);
    tn_sched_barrier(s);
    if (r != 0) {
        tn_sched_recv(s, rbuf, tn_coll_blk_count(rc, r), dt, 0);
        return;
    }
    for (int i = 0; i < n; i++) {
        char *blk = acc + (ptrdiff_t)tn_coll_blk_prefix(rc, i) * dt->extent;
        if (i == 0) {
            tn_sched_copy(s, blk, tn_coll_blk_count(rc, 0), dt, rbuf,
                          tn_coll_blk_count(rc, 0), dt);
        } else {
            tn_sched_send(s, blk, tn_coll_blk_count(rc, i), dt, i);
        }
    }
}

/* Nonblocking intercommunicator reductions, the schedules of
 * coll/inter/inter_reduce.c: each group reduces its contributions to its
 * leader with tn_nbc_reduce_to on comm->local (rank order holds inside
 * the group, so non-commutative ops are right), the leaders exchange, and
 * the result is spread inside the group that receives it. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "coll/inter/coll_inter.h"

/* My group's reduction of count elements into a temporary at its leader;
 * returns it there (NULL elsewhere, and after a failure, which s keeps). */
static char *local_reduce(tn_sched_t *s, const void *sbuf, size_t count, const tn_dt_t *dt,
                          const tn_op_t *op, tn_comm_t *comm)
{
    char *acc = NULL;

    if (comm->rank == 0 && (acc = tn_sched_tmp(s, dt, count)) == NULL) {
        return NULL;
    }
    tn_sched_use_local(s, 1);
    tn_nbc_reduce_to(s, sbuf, acc, count, dt, op, 0, comm->local);
    tn_sched_barrier(s);
    tn_sched_use_local(s, 0);
    return acc;
}

void tn_nbc_inter_reduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                         const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    if (root == TN_PROC_NULL || count == 0) {
        return;
    }
    if (root == TN_COLL_ROOT) {
        tn_sched_recv(s, rbuf, count, dt, 0);
        tn_sched_barrier(s);
        return;
    }
    char *acc = local_reduce(s, sbuf, count, dt, op, comm);
    if (acc != NULL) {
        tn_sched_send(s, acc, count, dt, root);
        tn_sched_barrier(s);
    }
}

void tn_nbc_inter_allreduce(tn_sched_t *s, const void *sbuf, void *rbuf, size_t count,
                            const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    if (count == 0) {
        return;
    }
    char *acc = local_reduce(s, sbuf, count, dt, op, comm);
    if (acc != NULL) {
        tn_sched_recv(s, rbuf, count, dt, 0);
        tn_sched_send(s, acc, count, dt, 0);
        tn_sched_barrier(s);
    }
    tn_sched_use_local(s, 1);
    tn_nbc_bcast(s, rbuf, count, dt, 0, comm->local);
    tn_sched_use_local(s, 0);
}

void tn_nbc_inter_reduce_scatter(tn_sched_t *s, const void *sbuf, void *rbuf,
                                 const tn_coll_blocks_t *rc, const tn_op_t *op,
                                 tn_comm_t *comm)
{
    const tn_dt_t *dt = rc->dt;
    int n = comm->size;
    size_t total = tn_coll_blk_prefix(rc, n);

    if (total == 0) {
        return;
    }
    char *acc = local_reduce(s, sbuf, total, dt, op, comm);
    tn_sched_use_local(s, 1);
    if (comm->rank != 0) {
        tn_sched_recv(s, rbuf, tn_coll_blk_count(rc, comm->rank), dt, 0);
        tn_sched_barrier(s);
        tn_sched_use_local(s, 0);
        return;
    }
    /* the remote group reduced the same number of elements */
    char *res = tn_sched_tmp(s, dt, total);
    if (acc == NULL || res == NULL) {
        tn_sched_use_local(s, 0);
        return;
    }
    tn_sched_use_local(s, 0);
    tn_sched_recv(s, res, total, dt, 0);
    tn_sched_send(s, acc, total, dt, 0);
    tn_sched_barrier(s);
    tn_sched_use_local(s, 1);
    for (int i = 1; i < n; i++) {
        tn_sched_send(s, res + (ptrdiff_t)tn_coll_blk_prefix(rc, i) * dt->extent,
                      tn_coll_blk_count(rc, i), dt, i);
    }
    tn_sched_copy(s, res, tn_coll_blk_count(rc, 0), dt, rbuf, tn_coll_blk_count(rc, 0), dt);
    tn_sched_barrier(s);
    tn_sched_use_local(s, 0);
}

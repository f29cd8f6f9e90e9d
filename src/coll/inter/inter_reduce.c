/* Intercommunicator reductions: each group reduces its contributions to its
 * leader (the intracommunicator reduce, so rank order holds inside the
 * group), the leaders exchange, and the result is spread inside the group
 * that receives it. */
#include "coll/inter/coll_inter.h"
#include "coll/coll_util.h"

/* My group's reduction of count elements at its leader: *acc_p points at a
 * temporary (in t) on the leader, NULL elsewhere. */
static tn_status_t local_reduce(const void *sbuf, size_t count, const tn_dt_t *dt,
                                const tn_op_t *op, tn_comm_t *comm, tn_coll_tmp_t *t,
                                char **acc_p)
{
    char *acc = NULL;

    *acc_p = NULL;
    if (comm->rank == 0 && (acc = tn_coll_tmp_dt(t, dt, count)) == NULL) {
        return TN_ERR_NOMEM;
    }
    *acc_p = acc;
    return tn_coll_reduce(sbuf, acc, count, dt, op, 0, comm->local);
}

tn_status_t tn_coll_inter_reduce(const void *sbuf, void *rbuf, size_t count,
                                 const tn_dt_t *dt, const tn_op_t *op, int root,
                                 tn_comm_t *comm)
{
    tn_coll_tmp_t t = { .p = NULL };
    char *acc;
    tn_status_t st;

    if (root == TN_PROC_NULL) {
        return TN_OK;
    }
    if (root == TN_COLL_ROOT) {
        return tn_p2p_recv(rbuf, count, dt, 0, TN_COLL_TAG_REDUCE, comm, 1, NULL);
    }
    st = local_reduce(sbuf, count, dt, op, comm, &t, &acc);
    if (st == TN_OK && comm->rank == 0) {
        st = tn_p2p_send(acc, count, dt, root, TN_COLL_TAG_REDUCE, comm, 1);
    }
    tn_coll_tmp_put(&t);
    return st;
}

tn_status_t tn_coll_inter_allreduce(const void *sbuf, void *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    tn_coll_tmp_t t = { .p = NULL };
    char *acc;
    tn_status_t st;

    st = local_reduce(sbuf, count, dt, op, comm, &t, &acc);
    if (st == TN_OK && comm->rank == 0) {
        st = tn_p2p_sendrecv(acc, count, dt, 0, TN_COLL_TAG_ALLREDUCE, rbuf, count, dt, 0,
                             TN_COLL_TAG_ALLREDUCE, comm, 1, NULL);
    }
    tn_coll_tmp_put(&t);
    if (st == TN_OK) {
        st = tn_coll_bcast(rbuf, count, dt, 0, comm->local);
    }
    return st;
}

tn_status_t tn_coll_inter_reduce_scatter(const void *sbuf, void *rbuf,
                                         const tn_coll_blocks_t *rc, const tn_op_t *op,
                                         tn_comm_t *comm)
{
    tn_coll_tmp_t t = { .p = NULL }, t2 = { .p = NULL };
    const tn_dt_t *dt = rc->dt;
    int n = comm->size, i;
    size_t total = tn_coll_blk_prefix(rc, n);
    char *acc, *res = NULL;
    tn_status_t st;

    st = local_reduce(sbuf, total, dt, op, comm, &t, &acc);
    if (st == TN_OK && comm->rank == 0) {
        /* the remote group reduced the same number of elements */
        res = tn_coll_tmp_dt(&t2, dt, total);
        st = res == NULL ? TN_ERR_NOMEM
                         : tn_p2p_sendrecv(acc, total, dt, 0, TN_COLL_TAG_REDUCE_SCATTER,
                                           res, total, dt, 0, TN_COLL_TAG_REDUCE_SCATTER,
                                           comm, 1, NULL);
        for (i = 1; i < n && st == TN_OK; i++) {
            st = tn_p2p_send(res + (ptrdiff_t)tn_coll_blk_prefix(rc, i) * dt->extent,
                             tn_coll_blk_count(rc, i), dt, i, TN_COLL_TAG_REDUCE_SCATTER,
                             comm->local, 1);
        }
        if (st == TN_OK) {
            st = tn_coll_copy(res, tn_coll_blk_count(rc, 0), dt, rbuf,
                              tn_coll_blk_count(rc, 0), dt, comm);
        }
    } else if (st == TN_OK) {
        st = tn_p2p_recv(rbuf, tn_coll_blk_count(rc, comm->rank), dt, 0,
                         TN_COLL_TAG_REDUCE_SCATTER, comm->local, 1, NULL);
    }
    tn_coll_tmp_put(&t2);
    tn_coll_tmp_put(&t);
    return st;
}

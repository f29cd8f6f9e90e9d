/* Reduce through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node and vectors that fit a slot buffer: every rank
 * (the root too) copies its vector into its buffer and posts; the root
 * combines the buffers in rank order straight into its result.  Any op. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_reduce_shm(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                               const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || !tn_coll_shm_fits_typed(sh, count, dt)) {
        return tn_coll_reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_may_write(sh, me, s);
    tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, count, dt);
    if (me != root) {
        tn_coll_shm_post(sh, me, s);
        return TN_OK;
    }
    st = tn_coll_shm_reduce(sh, me, s, rbuf, 0, count, count, dt, op, comm);
    tn_coll_shm_post(sh, me, s);
    return st;
}

/* Allreduce through the communicator's shared-memory slot (coll_shm.h),
 * for communicators on one node and vectors that fit a slot buffer: every
 * rank copies its vector into its buffer and posts, then combines all the
 * buffers in rank order into its result.  Every rank computes the same
 * expression in the same order (the same bits everywhere, any op); n
 * reads of the vector per rank, which for short vectors costs less than
 * log2 n rounds of messages. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_allreduce_shm(const void *sbuf, void *rbuf, size_t count,
                                  const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || !tn_coll_shm_fits_typed(sh, count, dt)) {
        return tn_coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_may_write(sh, me, s);
    tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, count, dt);
    tn_coll_shm_post(sh, me, s);
    st = tn_coll_shm_reduce(sh, me, s, rbuf, 0, count, count, dt, op, comm);
    sh->all_lb = s;
    return st;
}

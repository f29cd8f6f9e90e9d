/* Reduce through the communicator's shared-memory slot (coll_shm.h): every
 * reduce on a communicator that has one.  Every rank says the size of its
 * vector.  When the choice for that size is shm and the vector fits a slot
 * buffer, every rank (the root too) copies it into its buffer with the same
 * post; a rank other than the root is then done, and the root combines the
 * buffers in rank order straight into its result once it has checked that
 * each rank said its size.  Any op.  Otherwise every rank reads every
 * rank's word before it runs the chosen message algorithm (binomial for
 * shm); when they differ nothing moves and the root returns
 * TN_ERR_TRUNCATE (the others only send). */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, void *rbuf, size_t count,
                       const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
    }
    return a->fn.reduce(sbuf, rbuf, count, dt, op, root, comm);
}

tn_status_t tn_coll_reduce_shm(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                               const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    size_t bytes = tn_dt_bytes(dt, count);
    const tn_coll_algo_t *a;
    int me = comm->rank, via_slot;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    a = tn_coll_pick(TN_COLL_REDUCE, comm, bytes, op->commutative, 0, 0);
    if (sh == NULL) {
        return count == 0 ? TN_OK : run(a, sbuf, rbuf, count, dt, op, root, comm);
    }
    via_slot = tn_coll_algo_is_shm(a) && count > 0 && tn_coll_shm_fits_typed(sh, count, dt);
    s = tn_coll_shm_next(sh);
    if (via_slot) {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, count, dt);
    } else {
        tn_coll_shm_may_say(sh, me, s);
    }
    tn_coll_shm_say_post(sh, me, s, bytes);
    if (via_slot) {
        return me != root ? TN_OK
                          : tn_coll_shm_reduce(sh, me, s, bytes, rbuf, 0, count, count, dt, op,
                                               comm);
    }
    if (!tn_coll_shm_all_said(sh, me, s, bytes)) {
        /* nothing moves: the root says so, the others only send */
        return me == root ? TN_ERR_TRUNCATE : TN_OK;
    }
    return count == 0 ? TN_OK : run(a, sbuf, rbuf, count, dt, op, root, comm);
}

/* Allreduce through the communicator's shared-memory slot (coll_shm.h):
 * every allreduce on a communicator that has one.  Every rank says the
 * size of its vector; when the choice for that size is shm and the vector
 * fits a slot buffer, it copies the vector into its buffer with the same
 * post, then combines all the buffers in rank order into its result.
 * Every rank computes the same expression in the same order (the same bits
 * everywhere, any op); n reads of the vector per rank, which for short
 * vectors costs less than log2 n rounds of messages.  Otherwise each rank
 * reads every rank's word first and runs the chosen message algorithm
 * (recdbl for shm).  Every rank sees every word before it uses any data:
 * when the sizes differ, each returns TN_ERR_TRUNCATE. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, void *rbuf, size_t count,
                       const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm);
    }
    return a->fn.allreduce(sbuf, rbuf, count, dt, op, comm);
}

tn_status_t tn_coll_allreduce_shm(const void *sbuf, void *rbuf, size_t count,
                                  const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
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
    a = tn_coll_pick(TN_COLL_ALLREDUCE, comm, bytes, op->commutative, sbuf == TN_IN_PLACE, 0);
    if (sh == NULL) {
        return count == 0 ? TN_OK : run(a, sbuf, rbuf, count, dt, op, comm);
    }
    via_slot = tn_coll_algo_is_shm(a) && count > 0 && tn_coll_shm_fits_typed(sh, count, dt);
    s = tn_coll_shm_next(sh);
    if (via_slot) {
        tn_coll_shm_may_write(sh, me, s);
    } else {
        tn_coll_shm_may_say(sh, me, s);
    }
    if (via_slot) {
        tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, count, dt);
    }
    tn_coll_shm_say_post(sh, me, s, bytes);
    if (via_slot) {
        return tn_coll_shm_reduce(sh, me, s, bytes, rbuf, 0, count, count, dt, op, comm);
    }
    if (!tn_coll_shm_all_said(sh, me, s, bytes)) {
        return TN_ERR_TRUNCATE;
    }
    return count == 0 ? TN_OK : run(a, sbuf, rbuf, count, dt, op, comm);
}

/* Reduce_scatter (and _block) through the communicator's shared-memory
 * slot (coll_shm.h), for communicators on one node and vectors that fit a
 * slot buffer: every rank copies its whole vector into its buffer and
 * posts, then combines its own block of every buffer in rank order into its
 * result.  Any op; each rank reads only its block of each vector. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_reduce_scatter_shm(const void *sbuf, void *rbuf, const tn_coll_blocks_t *rc,
                                       const tn_op_t *op, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    size_t total = tn_coll_blk_prefix(rc, comm->size);
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || !tn_coll_shm_fits_typed(sh, total, rc->dt)) {
        return tn_coll_reduce_scatter_pairwise(sbuf, rbuf, rc, op, comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_may_write(sh, me, s);
    tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, total, rc->dt);
    tn_coll_shm_post(sh, me, s);
    if (tn_coll_blk_count(rc, me) > 0) {
        st = tn_coll_shm_reduce(sh, me, s, rbuf, tn_coll_blk_prefix(rc, me),
                                tn_coll_blk_count(rc, me), total, rc->dt, op, comm);
    }
    /* every rank has posted (seen already unless my block is empty) */
    tn_coll_shm_wait_all(sh, me, s);
    return st;
}

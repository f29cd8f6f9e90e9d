/* Gather through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node and blocks that fit a slot buffer: every rank
 * but the root packs its block into its buffer and posts; the root unpacks
 * each block straight into its result, then posts. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_gather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               void *rbuf, const tn_coll_blocks_t *rb, int root,
                               tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    size_t bytes = me == root && sbuf == TN_IN_PLACE ? tn_dt_bytes(rb->dt, rb->count)
                                                     : tn_dt_bytes(sdt, scount);
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || bytes > sh->bytes) {
        return tn_coll_gather_linear(sbuf, scount, sdt, rbuf, rb, root, comm);
    }
    s = tn_coll_shm_next(sh);
    if (me != root) {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_data(sh, me, s, sbuf, scount, sdt, 0, comm);
        tn_coll_shm_post(sh, me, s);
        return TN_OK;
    }
    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, me), rb->count, rb->dt,
                          comm);
    }
    if (st == TN_OK) {
        st = tn_coll_shm_collect(sh, me, s, bytes, rbuf, rb, comm);
    }
    tn_coll_shm_post(sh, me, s);
    return st;
}

/* Allgather through the communicator's shared-memory slot (coll_shm.h),
 * for communicators on one node and blocks that fit a slot buffer: every
 * rank packs its block into its buffer and posts, then unpacks every other
 * rank's block straight from that rank's buffer into its result. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_allgather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                  void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    size_t bytes = tn_dt_bytes(rb->dt, rb->count);
    char *mine = tn_coll_blk_ptr(rb, rbuf, me);
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || bytes > sh->bytes) {
        return tn_coll_allgather_ring(sbuf, scount, sdt, rbuf, rb, comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_may_write(sh, me, s);
    if (sbuf == TN_IN_PLACE) {
        tn_coll_shm_put_data(sh, me, s, mine, rb->count, rb->dt, 0, comm);
    } else {
        tn_coll_shm_put_data(sh, me, s, sbuf, scount, sdt, 0, comm);
    }
    tn_coll_shm_post(sh, me, s);
    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, mine, rb->count, rb->dt, comm);
    }
    if (st == TN_OK) {
        st = tn_coll_shm_collect(sh, me, s, bytes, rbuf, rb, comm);
    }
    return st;
}

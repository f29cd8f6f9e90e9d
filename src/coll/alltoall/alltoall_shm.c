/* Alltoall through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node when all of a rank's blocks fit a slot buffer:
 * every rank packs its n blocks into its buffer and posts, then unpacks
 * block "me" of every rank's buffer into its result. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_alltoall_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                 const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int n = comm->size, me = comm->rank, j;
    size_t bytes = tn_dt_bytes(rb->dt, rb->count);
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || bytes * (size_t)n > sh->bytes) {
        return tn_coll_alltoall_pairwise(sbuf, sb, rbuf, rb, comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_may_write(sh, me, s);
    for (j = 0; j < n; j++) {
        if (sbuf == TN_IN_PLACE) {
            tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(rb, rbuf, j), rb->count, rb->dt,
                                 (size_t)j * bytes, comm);
        } else {
            tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(sb, sbuf, j), sb->count, sb->dt,
                                 (size_t)j * bytes, comm);
        }
    }
    tn_coll_shm_post(sh, me, s);
    for (j = 0; j < n && st == TN_OK; j++) {
        if (j != me) {
            tn_coll_shm_wait(sh, j, s);
        }
        st = tn_coll_copy(tn_coll_shm_buf(sh, j, s) + (size_t)me * bytes, bytes, tn_dt_byte(),
                          tn_coll_blk_ptr(rb, rbuf, j), rb->count, rb->dt, comm);
    }
    sh->all_lb = s;
    return st;
}

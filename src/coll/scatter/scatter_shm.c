/* Scatter through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node when all the root's blocks fit a slot buffer:
 * the root packs its n blocks into its buffer and posts; every other rank
 * unpacks its block straight from the root's buffer, then posts. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_scatter_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int n = comm->size, me = comm->rank, j;
    size_t bytes = me == root ? tn_dt_bytes(sb->dt, sb->count) : tn_dt_bytes(rdt, rcount);
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || bytes * (size_t)n > sh->bytes) {
        return tn_coll_scatter_linear(sbuf, sb, rbuf, rcount, rdt, root, comm);
    }
    s = tn_coll_shm_next(sh);
    if (me == root) {
        tn_coll_shm_may_write(sh, me, s);
        for (j = 0; j < n; j++) {
            if (j != me) {
                tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(sb, sbuf, j), sb->count,
                                     sb->dt, (size_t)j * bytes, comm);
            }
        }
        tn_coll_shm_post(sh, me, s);
        if (rbuf != TN_IN_PLACE) {
            st = tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, me), sb->count, sb->dt, rbuf, rcount,
                              rdt, comm);
        }
        return st;
    }
    tn_coll_shm_wait(sh, root, s);
    st = tn_coll_copy(tn_coll_shm_buf(sh, root, s) + (size_t)me * bytes, bytes, tn_dt_byte(),
                      rbuf, rcount, rdt, comm);
    tn_coll_shm_post(sh, me, s);
    return st;
}

/* Bcast through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node and messages that fit a slot buffer: the root
 * packs the message into its buffer and posts; every other rank waits for
 * the post and unpacks straight from the root's buffer: one copy in, one
 * copy out per rank, no message.  Longer messages: binomial. */
#include "coll/coll_shm.h"

tn_status_t tn_coll_bcast_shm(void *buf, size_t count, const tn_dt_t *dt, int root,
                              tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    size_t bytes = tn_dt_bytes(dt, count);
    int me = comm->rank;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL || bytes > sh->bytes) {
        return tn_coll_bcast_binomial(buf, count, dt, root, comm);
    }
    s = tn_coll_shm_next(sh);
    if (me == root) {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_data(sh, me, s, buf, count, dt, 0, comm);
    } else {
        tn_coll_shm_wait(sh, root, s);
        st = tn_coll_copy(tn_coll_shm_buf(sh, root, s), bytes, tn_dt_byte(), buf, count, dt,
                          comm);
    }
    tn_coll_shm_post(sh, me, s);
    return st;
}

/* Bcast through the communicator's shared-memory slot (coll_shm.h): every
 * bcast on a communicator that has one.  The root says its size with the
 * collective's number and every rank picks the algorithm for the root's
 * size, so a receiver whose count disagrees cannot pick another algorithm
 * than the others.  When the choice is shm and the message fits a slot
 * buffer, the root packs it into its buffer with the same post and every
 * other rank unpacks straight from there: one copy in, one copy out per
 * rank, no message.  Otherwise the chosen message algorithm runs (binomial
 * for shm), and a receiver whose size differs from the root's takes part
 * with a temporary of the root's size, then keeps what fits its buffer. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, void *buf, size_t count, const tn_dt_t *dt,
                       int root, tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_bcast_binomial(buf, count, dt, root, comm);
    }
    return a->fn.bcast(buf, count, dt, root, comm);
}

tn_status_t tn_coll_bcast_shm(void *buf, size_t count, const tn_dt_t *dt, int root,
                              tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    size_t bytes = tn_dt_bytes(dt, count), sent;
    const tn_coll_algo_t *a;
    int me = comm->rank;
    uint64_t s;
    char *tmp;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL) {
        /* no slot (the same on every rank): sizes are not compared */
        return bytes == 0 ? TN_OK : run(tn_coll_pick(TN_COLL_BCAST, comm, bytes, 1, 0, 0), buf,
                                         count, dt, root, comm);
    }
    s = tn_coll_shm_next(sh);
    if (me == root) {
        a = tn_coll_pick(TN_COLL_BCAST, comm, bytes, 1, 0, 0);
        int via_slot = tn_coll_algo_is_shm(a) && bytes <= sh->bytes;

        if (via_slot) {
            tn_coll_shm_may_write(sh, me, s);
            tn_coll_shm_put_data(sh, me, s, buf, count, dt, 0, comm);
        } else {
            tn_coll_shm_may_say(sh, me, s);
        }
        tn_coll_shm_say_post(sh, me, s, bytes);
        return via_slot || bytes == 0 ? TN_OK : run(a, buf, count, dt, root, comm);
    }
    tn_coll_shm_wait(sh, root, s);
    sent = tn_coll_shm_heard(sh, root, s);
    if (sent != bytes) {
        tn_coll_shm_differ(sh, me, s, root, bytes);
    }
    a = tn_coll_pick(TN_COLL_BCAST, comm, sent, 1, 0, 0);
    if (sent == 0 || (tn_coll_algo_is_shm(a) && sent <= sh->bytes)) {
        st = tn_coll_unpack_prefix(tn_coll_shm_buf(sh, root, s), sent, buf, count, dt);
        tn_coll_shm_took(sh, root, sent);
        tn_coll_shm_post(sh, me, s);
        return st;
    }
    tn_coll_shm_post(sh, me, s);
    if (sent == bytes) {
        return run(a, buf, count, dt, root, comm);
    }
    tmp = tn_coll_buf_get(sent);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    st = run(a, tmp, sent, tn_dt_byte(), root, comm);
    if (st == TN_OK) {
        st = tn_coll_unpack_prefix(tmp, sent, buf, count, dt);
    }
    tn_coll_buf_put(tmp);
    return st;
}

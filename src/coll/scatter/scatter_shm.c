/* Scatter through the communicator's shared-memory slot (coll_shm.h): every
 * scatter of equal blocks on a communicator that has one.  The root says
 * its block size and every rank picks the algorithm for it (as bcast_shm.c
 * does).  When the choice is shm and all the root's blocks fit a slot
 * buffer, the root packs its n blocks into its buffer with the same post;
 * every other rank unpacks its block straight from there, then posts.
 * Otherwise the chosen message algorithm runs (linear for shm), and a
 * receiver whose block size differs from the root's takes part with a
 * temporary of the root's size, then keeps what fits. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, const tn_coll_blocks_t *sb,
                       void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                       tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_scatter_linear(sbuf, sb, rbuf, rcount, rdt, root, comm);
    }
    return a->fn.scatter(sbuf, sb, rbuf, rcount, rdt, root, comm);
}

tn_status_t tn_coll_scatter_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int n = comm->size, me = comm->rank, j;
    size_t bytes = me == root ? tn_dt_bytes(sb->dt, sb->count) : tn_dt_bytes(rdt, rcount);
    const tn_coll_algo_t *a;
    uint64_t s;
    char *tmp;

    if (st != TN_OK) {
        return st;
    }
    if (sh == NULL) {
        return run(tn_coll_pick(TN_COLL_SCATTER, comm, bytes, 1, 0, 0), sbuf, sb, rbuf, rcount,
                   rdt, root, comm);
    }
    s = tn_coll_shm_next(sh);
    if (me == root) {
        a = tn_coll_pick(TN_COLL_SCATTER, comm, bytes, 1, 0, 0);
        int via_slot = tn_coll_algo_is_shm(a) && bytes <= sh->bytes / (size_t)n;

        if (via_slot) {
            tn_coll_shm_may_write(sh, me, s);
        } else {
            tn_coll_shm_may_say(sh, me, s);
        }
        for (j = 0; j < n && via_slot; j++) {
            if (j != me) {
                tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(sb, sbuf, j), sb->count,
                                     sb->dt, (size_t)j * bytes, comm);
            }
        }
        tn_coll_shm_say_post(sh, me, s, bytes);
        if (!via_slot && bytes > 0) {
            return run(a, sbuf, sb, rbuf, rcount, rdt, root, comm);
        }
        if (rbuf != TN_IN_PLACE) {
            st = tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, me), sb->count, sb->dt, rbuf, rcount,
                              rdt, comm);
        }
        return st;
    }
    tn_coll_shm_wait(sh, root, s);
    size_t sent = tn_coll_shm_heard(sh, root, s);
    if (sent != bytes) {
        tn_coll_shm_differ(sh, me, s, root, bytes);
    }
    a = tn_coll_pick(TN_COLL_SCATTER, comm, sent, 1, 0, 0);
    if (sent == 0 || (tn_coll_algo_is_shm(a) && sent <= sh->bytes / (size_t)n)) {
        st = tn_coll_unpack_prefix(tn_coll_shm_buf(sh, root, s) + (size_t)me * sent, sent, rbuf,
                                   rcount, rdt);
        tn_coll_shm_took(sh, root, sent);
        tn_coll_shm_post(sh, me, s);
        return st;
    }
    tn_coll_shm_post(sh, me, s);
    if (sent == bytes) {
        return run(a, sbuf, sb, rbuf, rcount, rdt, root, comm);
    }
    tmp = tn_coll_buf_get(sent);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    st = run(a, sbuf, sb, tmp, sent, tn_dt_byte(), root, comm);
    if (st == TN_OK) {
        st = tn_coll_unpack_prefix(tmp, sent, rbuf, rcount, rdt);
    }
    tn_coll_buf_put(tmp);
    return st;
}

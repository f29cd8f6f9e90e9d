/* Gather through the communicator's shared-memory slot (coll_shm.h): every
 * gather of equal blocks on a communicator that has one.  Every rank says
 * its block size (the root the size of its receive blocks, or
 * TN_COLL_SHM_DIFFER when its own block's send and receive sizes differ).
 * When the choice for that size is shm and a block fits a slot buffer, a
 * rank other than the root packs its block into its buffer with the same
 * post and is done; the root unpacks each block straight into its result
 * once it has checked that the rank said the root's size.  Otherwise every
 * rank reads every rank's word before it runs the chosen message algorithm
 * (linear for shm); when they differ nothing moves and the root returns
 * TN_ERR_TRUNCATE (the others only send). */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, size_t scount,
                       const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb, int root,
                       tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_gather_linear(sbuf, scount, sdt, rbuf, rb, root, comm);
    }
    return a->fn.gather(sbuf, scount, sdt, rbuf, rb, root, comm);
}

tn_status_t tn_coll_gather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               void *rbuf, const tn_coll_blocks_t *rb, int root,
                               tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank, via_slot;
    size_t bytes = me == root ? tn_dt_bytes(rb->dt, rb->count) : tn_dt_bytes(sdt, scount);
    uint64_t word = bytes;
    const tn_coll_algo_t *a;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    a = tn_coll_pick(TN_COLL_GATHER, comm, bytes, 1, 0, 0);
    if (sh == NULL) {
        return run(a, sbuf, scount, sdt, rbuf, rb, root, comm);
    }
    if (me == root && sbuf != TN_IN_PLACE && tn_dt_bytes(sdt, scount) != bytes) {
        word = TN_COLL_SHM_DIFFER;
    }
    via_slot = tn_coll_algo_is_shm(a) && bytes <= sh->bytes;
    s = tn_coll_shm_next(sh);
    if (via_slot && me != root) {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_data(sh, me, s, sbuf, scount, sdt, 0, comm);
    } else {
        tn_coll_shm_may_say(sh, me, s);
    }
    tn_coll_shm_say_post(sh, me, s, word);
    if (via_slot && me != root) {
        return TN_OK;
    }
    if (via_slot) {
        if (word == bytes && sbuf != TN_IN_PLACE) {
            st = tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, me), rb->count,
                              rb->dt, comm);
        }
        tn_status_t cst = tn_coll_shm_collect(sh, me, s, bytes, rbuf, rb, comm);
        return word != bytes ? TN_ERR_TRUNCATE : st != TN_OK ? st : cst;
    }
    if (!tn_coll_shm_all_said(sh, me, s, word) || word != bytes) {
        /* nothing moves: the root says so, the others only send */
        return me == root ? TN_ERR_TRUNCATE : TN_OK;
    }
    return run(a, sbuf, scount, sdt, rbuf, rb, root, comm);
}

/* Reduce_scatter (and _block) through the communicator's shared-memory
 * slot (coll_shm.h): every one on a communicator that has one.  Every rank
 * says what it holds: the size of the whole vector, mixed with every
 * block's count when the blocks differ.  When the choice for that size is
 * shm and the vector fits a slot buffer, each rank copies its whole vector
 * into its buffer with the same post, then combines its own block of every
 * buffer in rank order into its result.  Any op; each rank reads only its
 * block of each vector.  Otherwise each rank reads every rank's word first
 * and runs the chosen message algorithm (pairwise for shm).  Every rank
 * sees every word before it uses any data: when they differ, each returns
 * TN_ERR_TRUNCATE. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, void *rbuf,
                       const tn_coll_blocks_t *rc, const tn_op_t *op, tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_reduce_scatter_pairwise(sbuf, rbuf, rc, op, comm);
    }
    return a->fn.reduce_scatter(sbuf, rbuf, rc, op, comm);
}

/* What a rank says: the vector's bytes, and for blocks of different counts
 * a hash of them too (ranks whose counts differ, the same total or not, must
 * not agree by chance). */
static uint64_t said(const tn_coll_blocks_t *rc, int n, size_t bytes)
{
    uint64_t h = bytes;
    int i;

    if (tn_coll_blk_uniform(rc)) {
        return h;
    }
    h = h * 0x100000001b3ull ^ 0xcbf29ce484222325ull;
    for (i = 0; i < n; i++) {
        h = (h ^ tn_coll_blk_count(rc, i)) * 0x100000001b3ull;
    }
    return h == TN_COLL_SHM_DIFFER ? h - 1 : h;
}

tn_status_t tn_coll_reduce_scatter_shm(const void *sbuf, void *rbuf, const tn_coll_blocks_t *rc,
                                       const tn_op_t *op, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank, via_slot;
    size_t total = tn_coll_blk_prefix(rc, comm->size);
    size_t bytes = tn_dt_bytes(rc->dt, total);
    uint64_t word = said(rc, comm->size, bytes);
    const tn_coll_algo_t *a;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    a = tn_coll_pick(TN_COLL_REDUCE_SCATTER, comm, bytes, op->commutative, sbuf == TN_IN_PLACE,
                     !tn_coll_blk_uniform(rc));
    if (sh == NULL) {
        return total == 0 ? TN_OK : run(a, sbuf, rbuf, rc, op, comm);
    }
    via_slot = tn_coll_algo_is_shm(a) && total > 0 && tn_coll_shm_fits_typed(sh, total, rc->dt);
    s = tn_coll_shm_next(sh);
    if (via_slot) {
        tn_coll_shm_may_write(sh, me, s);
    } else {
        tn_coll_shm_may_say(sh, me, s);
    }
    if (via_slot) {
        tn_coll_shm_put_typed(sh, me, s, sbuf == TN_IN_PLACE ? rbuf : sbuf, total, rc->dt);
    }
    tn_coll_shm_say_post(sh, me, s, word);
    if (via_slot && tn_coll_blk_count(rc, me) > 0) {
        /* waits for every rank and checks its word */
        return tn_coll_shm_reduce(sh, me, s, word, rbuf, tn_coll_blk_prefix(rc, me),
                                  tn_coll_blk_count(rc, me), total, rc->dt, op, comm);
    }
    if (!tn_coll_shm_all_said(sh, me, s, word)) {
        return TN_ERR_TRUNCATE;
    }
    return via_slot || total == 0 ? TN_OK : run(a, sbuf, rbuf, rc, op, comm);
}

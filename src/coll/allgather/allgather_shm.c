/* Allgather through the communicator's shared-memory slot (coll_shm.h):
 * every allgather of equal blocks on a communicator that has one.  Every
 * rank says its block size (TN_COLL_SHM_DIFFER when what it sends and what
 * it receives per block differ); when the choice for that size is shm and
 * the block fits a slot buffer, it packs its block into its buffer with the
 * same post, then unpacks every other rank's block straight from that
 * rank's buffer into its result.  Otherwise each rank reads every rank's
 * word first and runs the chosen message algorithm (ring for shm).  Every
 * rank checks every word before it uses the rank's data: when they differ,
 * each returns TN_ERR_TRUNCATE. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, size_t scount,
                       const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                       tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_allgather_ring(sbuf, scount, sdt, rbuf, rb, comm);
    }
    return a->fn.allgather(sbuf, scount, sdt, rbuf, rb, comm);
}

tn_status_t tn_coll_allgather_shm(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                  void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank, n = comm->size, via_slot;
    size_t bytes = tn_dt_bytes(rb->dt, rb->count);
    size_t sent = sbuf == TN_IN_PLACE ? bytes : tn_dt_bytes(sdt, scount);
    uint64_t word = sent == bytes ? bytes : TN_COLL_SHM_DIFFER;
    char *mine = tn_coll_blk_ptr(rb, rbuf, me);
    const tn_coll_algo_t *a;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    a = tn_coll_pick(TN_COLL_ALLGATHER, comm, sent * (size_t)n, 1, sbuf == TN_IN_PLACE, 0);
    if (sh == NULL) {
        return run(a, sbuf, scount, sdt, rbuf, rb, comm);
    }
    via_slot = tn_coll_algo_is_shm(a) && word == bytes && bytes <= sh->bytes;
    s = tn_coll_shm_next(sh);
    if (!via_slot) {
        tn_coll_shm_may_say(sh, me, s);
    } else if (sbuf == TN_IN_PLACE) {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_data(sh, me, s, mine, rb->count, rb->dt, 0, comm);
    } else {
        tn_coll_shm_may_write(sh, me, s);
        tn_coll_shm_put_data(sh, me, s, sbuf, scount, sdt, 0, comm);
    }
    tn_coll_shm_say_post(sh, me, s, word);
    if (!via_slot) {
        if (!tn_coll_shm_all_said(sh, me, s, word) || word != bytes) {
            return TN_ERR_TRUNCATE;
        }
        return run(a, sbuf, scount, sdt, rbuf, rb, comm);
    }
    /* my own block fits (my word is my receive size): copy it while the
     * others post */
    if (sbuf != TN_IN_PLACE) {
        st = tn_coll_copy(sbuf, scount, sdt, mine, rb->count, rb->dt, comm);
    }
    tn_status_t cst = tn_coll_shm_collect(sh, me, s, bytes, rbuf, rb, comm);
    return st != TN_OK ? st : cst;
}

/* Alltoall through the communicator's shared-memory slot (coll_shm.h):
 * every alltoall of equal blocks on a communicator that has one.  Every
 * rank says its block size (TN_COLL_SHM_DIFFER when what it sends and what
 * it receives per block differ); when the choice for that size is shm and
 * all of a rank's blocks fit a slot buffer, it packs its n blocks into its
 * buffer with the same post, then unpacks block "me" of every rank's buffer
 * into its result.  Otherwise each rank reads every rank's word first and
 * runs the chosen message algorithm (pairwise for shm).  Every rank checks
 * every word before it uses the rank's data: when they differ, each returns
 * TN_ERR_TRUNCATE. */
#include "coll/coll_shm.h"

static tn_status_t run(const tn_coll_algo_t *a, const void *sbuf, const tn_coll_blocks_t *sb,
                       void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    if (tn_coll_algo_is_shm(a)) {
        return tn_coll_alltoall_pairwise(sbuf, sb, rbuf, rb, comm);
    }
    return a->fn.alltoall(sbuf, sb, rbuf, rb, comm);
}

tn_status_t tn_coll_alltoall_shm(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                 const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int n = comm->size, me = comm->rank, j, via_slot;
    size_t bytes = tn_dt_bytes(rb->dt, rb->count);
    size_t sent = sbuf == TN_IN_PLACE ? bytes : tn_dt_bytes(sb->dt, sb->count);
    uint64_t word = sent == bytes ? bytes : TN_COLL_SHM_DIFFER;
    const tn_coll_algo_t *a;
    uint64_t s;

    if (st != TN_OK) {
        return st;
    }
    a = tn_coll_pick(TN_COLL_ALLTOALL, comm, sent, 1, sbuf == TN_IN_PLACE, 0);
    if (sh == NULL) {
        return run(a, sbuf, sb, rbuf, rb, comm);
    }
    via_slot = tn_coll_algo_is_shm(a) && word == bytes && bytes <= sh->bytes / (size_t)n;
    s = tn_coll_shm_next(sh);
    if (via_slot) {
        tn_coll_shm_may_write(sh, me, s);
    } else {
        tn_coll_shm_may_say(sh, me, s);
    }
    for (j = 0; j < n && via_slot; j++) {
        if (sbuf == TN_IN_PLACE) {
            tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(rb, rbuf, j), rb->count, rb->dt,
                                 (size_t)j * bytes, comm);
        } else {
            tn_coll_shm_put_data(sh, me, s, tn_coll_blk_ptr(sb, sbuf, j), sb->count, sb->dt,
                                 (size_t)j * bytes, comm);
        }
    }
    tn_coll_shm_say_post(sh, me, s, word);
    if (!via_slot) {
        if (!tn_coll_shm_all_said(sh, me, s, word) || word != bytes) {
            return TN_ERR_TRUNCATE;
        }
        return run(a, sbuf, sb, rbuf, rb, comm);
    }
    for (j = 0; j < n; j++) {
        if (j != me) {
            tn_coll_shm_wait(sh, j, s);
            if (st == TN_OK && tn_coll_shm_heard(sh, j, s) != word) {
                tn_coll_shm_differ(sh, me, s, j, word);
                st = TN_ERR_TRUNCATE;
            }
        }
        if (st == TN_OK) {
            st = tn_coll_copy(tn_coll_shm_buf(sh, j, s) + (size_t)me * bytes, bytes,
                              tn_dt_byte(), tn_coll_blk_ptr(rb, rbuf, j), rb->count, rb->dt,
                              comm);
            if (j != me) {
                tn_coll_shm_took(sh, j, bytes);
            }
        }
    }
    sh->all_lb = s;
    return st;
}

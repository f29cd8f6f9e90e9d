/* Nonblocking alltoall(v,w): every pair exchanges in one round.  In place,
 * all outgoing blocks are first copied to temporaries (before any receive
 * is posted: a posted receive may be filled at once). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                     void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    const char **src = calloc((size_t)n, sizeof(*src));

    if (src == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return;
    }
    if (sbuf != TN_IN_PLACE) {
        tn_sched_copy(s, tn_coll_blk_ptr(sb, sbuf, r), tn_coll_blk_count(sb, r),
                      tn_coll_blk_dt(sb, r), tn_coll_blk_ptr(rb, rbuf, r),
                      tn_coll_blk_count(rb, r), tn_coll_blk_dt(rb, r));
        for (int i = 0; i < n; i++) {
            src[i] = tn_coll_blk_ptr(sb, sbuf, i);
        }
    } else {
        sb = rb;
        for (int i = 0; i < n; i++) {
            size_t cnt = tn_coll_blk_count(rb, i);
            const tn_dt_t *dt = tn_coll_blk_dt(rb, i);
            char *t = i == r ? NULL : tn_sched_tmp(s, dt, cnt);
            if (i != r && t == NULL) {
                free(src);
                return;
            }
            if (i != r) {
                tn_sched_copy(s, tn_coll_blk_ptr(rb, rbuf, i), cnt, dt, t, cnt, dt);
            }
            src[i] = t;
        }
    }
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        tn_sched_send(s, src[to], tn_coll_blk_count(sb, to), tn_coll_blk_dt(sb, to), to);
        tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, from), tn_coll_blk_count(rb, from),
                      tn_coll_blk_dt(rb, from), from);
    }
    free(src);
}

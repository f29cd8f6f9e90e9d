/* Nonblocking alltoall(v,w): every pair exchanges in one round.  In place,
 * all outgoing blocks are first copied to temporaries (before any receive
 * is posted: a posted receive may be filled at once).  Across nodes,
 * alltoall of short equal blocks in two levels (nbc_twolevel.c). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

#include <string.h>

/* Two levels pay for short blocks with four ranks or more on a node: fewer,
 * larger messages across the network against two extra copies of the
 * node's data at its leader.  8 ranks on 2 namespaces (4 + 4), 2 cores:
 * 0.16-0.78 x the flat schedule's time at 8-512 B, 0.3-0.55 x at 1-2 KiB,
 * a tie at 4 KiB, 2-3 x at 16-32 KiB. */
#define TN_NBC_TWOLEVEL_A2A_MAX 2048
#define TN_NBC_TWOLEVEL_A2A_PPN 4

static int twolevel_alltoall(tn_comm_t *comm, const void *sbuf, const tn_coll_blocks_t *sb,
                             const tn_coll_blocks_t *rb, size_t *blk_p)
{
    const char *f = tn_coll_forced(TN_COLL_ALLTOALL);
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    int forced = f != NULL && strcmp(f, "twolevel") == 0;
    size_t blk;

    if (sb->vector || rb->vector || sb->dts != NULL || rb->dts != NULL || m == NULL) {
        return 0;
    }
    blk = sbuf == TN_IN_PLACE ? tn_dt_bytes(rb->dt, rb->count) : tn_dt_bytes(sb->dt, sb->count);
    if (blk == 0 || (!forced && (blk > TN_NBC_TWOLEVEL_A2A_MAX ||
                                 m->max_local < TN_NBC_TWOLEVEL_A2A_PPN))) {
        return 0;
    }
    *blk_p = blk;
    return tn_nbc_twolevel_fits(comm, TN_COLL_ALLTOALL, 0);
}

void tn_nbc_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                     void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    size_t blk;

    if (twolevel_alltoall(comm, sbuf, sb, rb, &blk)) {
        tn_nbc_twolevel_alltoall(s, sbuf, sb, rbuf, rb, blk, comm);
        return;
    }
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

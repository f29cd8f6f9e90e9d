/* Nonblocking gather(v), scatter(v) and allgather(v): linear, every
 * message in one round (the root posts one receive or send per rank); in
 * two levels across nodes where they can (nbc_twolevel.c): gather and
 * scatter with equal blocks below TN_NBC_TWOLEVEL_BLOCK_MAX, allgather
 * with equal blocks. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

#include <string.h>

/* Larger blocks lose more to the hop through the leader (the node's blocks
 * gathered first, then sent on) than they gain from fewer messages: 8
 * ranks on 2 namespaces, 4 each, 2 cores, igather of 32 KiB blocks took
 * 2-2.5 x the flat schedule's time, 4 KiB 1.0-1.5 x, 8-256 B 0.4-0.9 x. */
#define TN_NBC_TWOLEVEL_BLOCK_MAX 4096

/* Two levels for a gather or scatter of blk-byte blocks?  Every rank
 * decides alike: blocks have one signature, and a v call never qualifies
 * (only the root knows its counts). */
static int twolevel_blocks(tn_comm_t *comm, tn_coll_kind_t kind, size_t blk, int vector)
{
    const char *f = tn_coll_forced(kind);

    if (vector || blk == 0 ||
        (blk >= TN_NBC_TWOLEVEL_BLOCK_MAX && (f == NULL || strcmp(f, "twolevel") != 0))) {
        return 0;
    }
    return tn_nbc_twolevel_fits(comm, kind, 0);
}

void tn_nbc_gather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, const tn_coll_blocks_t *rb, int root, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    size_t blk = sbuf == TN_IN_PLACE ? tn_dt_bytes(rb->dt, rb->count) : tn_dt_bytes(sdt, scount);

    if (twolevel_blocks(comm, TN_COLL_GATHER, blk, rb->vector)) {
        tn_nbc_twolevel_gather(s, sbuf, scount, sdt, rbuf, rb, blk, root, comm);
        return;
    }
    if (r != root) {
        tn_sched_send(s, sbuf, scount, sdt, root);
        return;
    }
    if (sbuf != TN_IN_PLACE) {
        tn_sched_copy(s, sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, r),
                      tn_coll_blk_count(rb, r), tn_coll_blk_dt(rb, r));
    }
    for (int i = 0; i < n; i++) {
        if (i != r) {
            tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                          tn_coll_blk_dt(rb, i), i);
        }
    }
}

void tn_nbc_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                    size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;
    size_t blk = rbuf == TN_IN_PLACE ? tn_dt_bytes(sb->dt, sb->count) : tn_dt_bytes(rdt, rcount);

    if (twolevel_blocks(comm, TN_COLL_SCATTER, blk, sb->vector)) {
        tn_nbc_twolevel_scatter(s, sbuf, sb, rbuf, rcount, rdt, blk, root, comm);
        return;
    }
    if (r != root) {
        tn_sched_recv(s, rbuf, rcount, rdt, root);
        return;
    }
    if (rbuf != TN_IN_PLACE) {
        tn_sched_copy(s, tn_coll_blk_ptr(sb, sbuf, r), tn_coll_blk_count(sb, r),
                      tn_coll_blk_dt(sb, r), rbuf, rcount, rdt);
    }
    for (int i = 0; i < n; i++) {
        if (i != r) {
            tn_sched_send(s, tn_coll_blk_ptr(sb, sbuf, i), tn_coll_blk_count(sb, i),
                          tn_coll_blk_dt(sb, i), i);
        }
    }
}

void tn_nbc_allgather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                      void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;

    if (rb->counts == NULL && tn_nbc_twolevel_fits(comm, TN_COLL_ALLGATHER, 1)) {
        tn_nbc_twolevel_allgather(s, sbuf, scount, sdt, rbuf, rb, comm);
        return;
    }

    if (sbuf == TN_IN_PLACE) {
        sbuf = tn_coll_blk_ptr(rb, rbuf, r);
        scount = tn_coll_blk_count(rb, r);
        sdt = tn_coll_blk_dt(rb, r);
    } else {
        tn_sched_copy(s, sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, r),
                      tn_coll_blk_count(rb, r), tn_coll_blk_dt(rb, r));
    }
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, from), tn_coll_blk_count(rb, from),
                      tn_coll_blk_dt(rb, from), from);
        tn_sched_send(s, sbuf, scount, sdt, to);
    }
}

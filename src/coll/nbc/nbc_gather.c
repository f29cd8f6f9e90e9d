/* Nonblocking gather(v), scatter(v) and allgather(v): linear, every
 * message in one round (the root posts one receive or send per rank);
 * allgather in two levels across nodes where it can (nbc_twolevel.c). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_gather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                   void *rbuf, const tn_coll_blocks_t *rb, int root, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;

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

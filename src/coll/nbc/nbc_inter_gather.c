/* Nonblocking intercommunicator gather, scatter, allgather and alltoall,
 * the schedules of coll/inter/inter_gather.c and inter_alltoall.c: one
 * round of messages straight between the groups (the root talks to every
 * remote rank; in the unrooted forms every pair exchanges). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "coll/inter/coll_inter.h"

void tn_nbc_inter_gather(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                         void *rbuf, const tn_coll_blocks_t *rb, int root, tn_comm_t *comm)
{
    if (root == TN_PROC_NULL) {
        return;
    }
    if (root != TN_COLL_ROOT) {
        tn_sched_send(s, sbuf, scount, sdt, root);
        tn_sched_barrier(s);
        return;
    }
    for (int i = 0; i < comm->remote->size; i++) {
        tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                      tn_coll_blk_dt(rb, i), i);
    }
    tn_sched_barrier(s);
}

void tn_nbc_inter_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                          void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                          tn_comm_t *comm)
{
    if (root == TN_PROC_NULL) {
        return;
    }
    if (root != TN_COLL_ROOT) {
        tn_sched_recv(s, rbuf, rcount, rdt, root);
        tn_sched_barrier(s);
        return;
    }
    for (int i = 0; i < comm->remote->size; i++) {
        tn_sched_send(s, tn_coll_blk_ptr(sb, sbuf, i), tn_coll_blk_count(sb, i),
                      tn_coll_blk_dt(sb, i), i);
    }
    tn_sched_barrier(s);
}

/* Receive block i of rb from remote rank i; send block i of sb (sb NULL:
 * scount elements of sdt at sbuf) to remote rank i, starting with my own
 * rank's partner so that not every process sends to remote rank 0 first. */
static void exchange(tn_sched_t *s, const void *sbuf, size_t scount, const tn_dt_t *sdt,
                     const tn_coll_blocks_t *sb, void *rbuf, const tn_coll_blocks_t *rb,
                     tn_comm_t *comm)
{
    int n = comm->remote->size;

    for (int i = 0; i < n; i++) {
        tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, i), tn_coll_blk_count(rb, i),
                      tn_coll_blk_dt(rb, i), i);
    }
    for (int i = 0; i < n; i++) {
        int dst = (comm->rank + i) % n;

        if (sb != NULL) {
            tn_sched_send(s, tn_coll_blk_ptr(sb, sbuf, dst), tn_coll_blk_count(sb, dst),
                          tn_coll_blk_dt(sb, dst), dst);
        } else {
            tn_sched_send(s, sbuf, scount, sdt, dst);
        }
    }
    tn_sched_barrier(s);
}

void tn_nbc_inter_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                            const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                            tn_comm_t *comm)
{
    exchange(s, sbuf, scount, sdt, NULL, rbuf, rb, comm);
}

void tn_nbc_inter_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                           void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    exchange(s, sbuf, 0, NULL, sb, rbuf, rb, comm);
}

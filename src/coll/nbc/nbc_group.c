/* Schedules on groups of ranks (see coll_sched.h): the binomial broadcast
 * and reduce, recursive doubling and the ring for allreduce, and the
 * dissemination barrier.  The flat nonblocking collectives run them on the
 * whole communicator, the two-level ones on a node and on the leaders. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

#include <string.h>

/* Allreduce of this many bytes or more on the ring (commutative ops): it
 * moves 2 (n - 1) / n vectors per rank, recursive doubling log2 n, but it
 * takes 2 (n - 1) rounds (measured, iallreduce on 2 cores: 64 KiB on 4 and
 * 8 ranks 45 and 140 us by recursive doubling, 93 and 323 on the ring;
 * 128 KiB 129 and 626 against 99 and 475; 2 ranks equal from 64 KiB). */
#define TN_NBC_RING_MIN ((size_t)128 * 1024)

void tn_nbc_grp_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                      const tn_nbc_grp_t *g)
{
    int n = g->n, vr, mask = 1;

    if (g->me < 0 || n == 1 || count == 0) {
        return;
    }
    vr = (g->me - root + n) % n;
    while (mask < n) {
        if (vr & mask) {
            tn_sched_recv(s, buf, count, dt, tn_nbc_grp_rank(g, (vr - mask + root) % n));
            tn_sched_barrier(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < n) {
            tn_sched_send(s, buf, count, dt, tn_nbc_grp_rank(g, (vr + mask + root) % n));
        }
    }
    tn_sched_barrier(s);
}

/* Rank order in the tree (root 0, vr = member index): after the children
 * below mask, acc holds members vr .. vr + mask - 1 and the next child's
 * partial members vr + mask .. vr + 2 mask - 1, so part = acc op part keeps
 * the order; a commutative op roots the tree at root instead. */
void tn_nbc_grp_reduce(tn_sched_t *s, const void *mine, void *result, size_t count,
                       const tn_dt_t *dt, const tn_op_t *op, int root,
                       const tn_nbc_grp_t *g)
{
    int n = g->n, rt = op->commutative ? root : 0, vr, mask, parent = -1, nchild = 0;
    const void *acc = mine;
    char *part[32];

    if (g->me < 0 || count == 0) {
        return;
    }
    if (n == 1) {
        if (result != mine) {
            tn_sched_copy(s, mine, count, dt, result, count, dt);
        }
        return;
    }
    vr = (g->me - rt + n) % n;
    for (mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            parent = (vr - mask + rt) % n;
            break;
        }
        if (vr + mask < n) {
            char *t = tn_sched_tmp(s, dt, count);
            if (t == NULL) {
                return;
            }
            tn_sched_recv(s, t, count, dt, tn_nbc_grp_rank(g, (vr + mask + rt) % n));
            part[nchild++] = t;
        }
    }
    tn_sched_barrier(s);
    for (int i = 0; i < nchild; i++) {
        tn_sched_reduce(s, acc, part[i], count, dt, op);
        acc = part[i];
    }
    if (parent >= 0) {
        tn_sched_send(s, acc, count, dt, tn_nbc_grp_rank(g, parent));
    } else if (rt != root) {
        tn_sched_send(s, acc, count, dt, tn_nbc_grp_rank(g, root));
    } else if (acc != result) {
        tn_sched_copy(s, acc, count, dt, result, count, dt);
    }
    tn_sched_barrier(s);
    if (g->me == root && rt != root) {
        tn_sched_recv(s, result, count, dt, tn_nbc_grp_rank(g, rt));
        tn_sched_barrier(s);
    }
}

/* Recursive doubling over the largest power of two p <= n members: the
 * first 2 (n - p) fold in pairs first (the even member hands its vector to
 * the odd one and gets the result back at the end).  New rank nr keeps
 * member order, and every pair combines lower op higher, so every member
 * computes the same operands in the same order. */
static void grp_allreduce_recdbl(tn_sched_t *s, void *rbuf, size_t count, const tn_dt_t *dt,
                                 const tn_op_t *op, const tn_nbc_grp_t *g)
{
    int n = g->n, me = g->me, p = 1, rem, nr;
    char *t = tn_sched_tmp(s, dt, count);

    if (t == NULL) {
        return;
    }
    while (p * 2 <= n) {
        p *= 2;
    }
    rem = n - p;
    if (me < 2 * rem && me % 2 == 0) {
        tn_sched_send(s, rbuf, count, dt, tn_nbc_grp_rank(g, me + 1));
        tn_sched_barrier(s);
        tn_sched_recv(s, rbuf, count, dt, tn_nbc_grp_rank(g, me + 1));
        tn_sched_barrier(s);
        return;
    }
    if (me < 2 * rem) {
        tn_sched_recv(s, t, count, dt, tn_nbc_grp_rank(g, me - 1));
        tn_sched_barrier(s);
        tn_sched_reduce(s, t, rbuf, count, dt, op);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int pn = nr ^ mask, peer = pn < rem ? 2 * pn + 1 : pn + rem;

        tn_sched_send(s, rbuf, count, dt, tn_nbc_grp_rank(g, peer));
        tn_sched_recv(s, t, count, dt, tn_nbc_grp_rank(g, peer));
        tn_sched_barrier(s);
        if (peer < me) {
            tn_sched_reduce(s, t, rbuf, count, dt, op);
        } else {
            tn_sched_reduce(s, rbuf, t, count, dt, op);
            tn_sched_copy(s, t, count, dt, rbuf, count, dt);
        }
    }
    if (me < 2 * rem) {
        tn_sched_send(s, rbuf, count, dt, tn_nbc_grp_rank(g, me - 1));
    }
    tn_sched_barrier(s);
}

/* Block i of the ring: count / n elements, one more for the first
 * count % n blocks. */
static char *ring_blk(void *rbuf, size_t count, const tn_dt_t *dt, int n, int i,
                      size_t *cnt_p)
{
    size_t base = count / (size_t)n, extra = count % (size_t)n, ui = (size_t)i;

    *cnt_p = base + (ui < extra);
    return (char *)rbuf + (ptrdiff_t)(ui * base + (ui < extra ? ui : extra)) * dt->extent;
}

/* Ring (commutative ops, count >= n): n - 1 rounds of reduce-scatter, each
 * passing one block to the right and folding the one from the left into
 * rbuf (after which member me holds block me + 1 reduced), then n - 1
 * rounds of allgather. */
static void grp_allreduce_ring(tn_sched_t *s, void *rbuf, size_t count, const tn_dt_t *dt,
                               const tn_op_t *op, const tn_nbc_grp_t *g)
{
    int n = g->n, me = g->me;
    int right = tn_nbc_grp_rank(g, (me + 1) % n), left = tn_nbc_grp_rank(g, (me - 1 + n) % n);
    char *t = tn_sched_tmp(s, dt, count / (size_t)n + 1), *b;
    size_t cnt;

    if (t == NULL) {
        return;
    }
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;

        b = ring_blk(rbuf, count, dt, n, sb, &cnt);
        if (k > 0) {
            tn_sched_reduce(s, t, b, cnt, dt, op);      /* last round's block */
        }
        tn_sched_send(s, b, cnt, dt, right);
        ring_blk(rbuf, count, dt, n, rb, &cnt);
        tn_sched_recv(s, t, cnt, dt, left);
        tn_sched_barrier(s);
    }
    b = ring_blk(rbuf, count, dt, n, (me + 1) % n, &cnt);
    tn_sched_reduce(s, t, b, cnt, dt, op);
    for (int k = 0; k < n - 1; k++) {
        b = ring_blk(rbuf, count, dt, n, (me + 1 - k + n) % n, &cnt);
        tn_sched_send(s, b, cnt, dt, right);
        b = ring_blk(rbuf, count, dt, n, (me - k + n) % n, &cnt);
        tn_sched_recv(s, b, cnt, dt, left);
        tn_sched_barrier(s);
    }
}

void tn_nbc_grp_allreduce(tn_sched_t *s, const void *mine, void *rbuf, size_t count,
                          const tn_dt_t *dt, const tn_op_t *op, const tn_nbc_grp_t *g)
{
    const char *f = tn_coll_forced(TN_COLL_ALLREDUCE);

    if (g->me < 0 || count == 0) {
        return;
    }
    if (f != NULL && strcmp(f, "reduce_bcast") == 0) {
        tn_nbc_grp_reduce(s, mine, rbuf, count, dt, op, 0, g);
        tn_nbc_grp_bcast(s, rbuf, count, dt, 0, g);
        return;
    }
    if (mine != rbuf) {
        tn_sched_copy(s, mine, count, dt, rbuf, count, dt);
    }
    if (g->n == 1) {
        return;
    }
    /* the ring needs a commutative op and a block per member; forced, or
     * long enough */
    int forced_ring = f != NULL && strcmp(f, "ring") == 0;
    int forced_recdbl = f != NULL && strcmp(f, "recdbl") == 0;
    if (op->commutative && count >= (size_t)g->n &&
        (forced_ring || (!forced_recdbl && count * dt->size >= TN_NBC_RING_MIN))) {
        grp_allreduce_ring(s, rbuf, count, dt, op, g);
    } else {
        grp_allreduce_recdbl(s, rbuf, count, dt, op, g);
    }
}

void tn_nbc_grp_barrier(tn_sched_t *s, const tn_nbc_grp_t *g)
{
    int n = g->n, me = g->me;

    if (me < 0) {
        return;
    }
    for (int k = 1; k < n; k <<= 1) {
        tn_sched_recv(s, NULL, 0, tn_dt_byte(), tn_nbc_grp_rank(g, (me - k + n) % n));
        tn_sched_send(s, NULL, 0, tn_dt_byte(), tn_nbc_grp_rank(g, (me + k) % n));
        tn_sched_barrier(s);
    }
}

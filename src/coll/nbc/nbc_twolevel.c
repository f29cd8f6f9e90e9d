/* Two-level schedules for the nonblocking and persistent collectives, for
 * communicators that span several nodes with several ranks on some: the
 * part inside a node runs between that node's ranks (over shared memory),
 * the part across nodes only between the leaders (each node's lowest
 * rank), so the network carries one message per node where a flat tree
 * would send one per rank.  Like the blocking two-level algorithms, but on
 * the node map alone: no sub-communicator (making one is collective, which
 * a nonblocking call cannot wait for); the groups name comm ranks.
 *
 * Rank order: a node's ranks combine in comm order and the leaders in node
 * order (nodes are numbered by lowest rank), so a non-commutative op gets
 * rank order when every node's ranks are consecutive; tn_nbc_twolevel_fits
 * asks for that. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "base/log.h"

#include <string.h>

int tn_nbc_twolevel_fits(tn_comm_t *comm, tn_coll_kind_t kind, int ordered)
{
    const char *f = tn_coll_forced(kind);
    const tn_comm_nodes_t *m;

    if (f != NULL && strcmp(f, "twolevel") != 0) {
        return 0;
    }
    m = tn_comm_nodes(comm);
    if (m == NULL || m->nnodes < 2 || m->max_local < 2 || (ordered && !m->blocked)) {
        return 0;
    }
    tn_log_trace("coll", "nonblocking %s on %d ranks, %d nodes: two-level schedule",
                 tn_coll_kind_name(kind), comm->size, m->nnodes);
    return 1;
}

/* My node's ranks, and the leaders (me = -1 unless I lead). */
static void node_groups(tn_comm_t *comm, const tn_comm_nodes_t *m, tn_nbc_grp_t *node,
                        tn_nbc_grp_t *leaders)
{
    int k = m->my_node;

    node->ranks = m->order + m->start[k];
    node->n = m->nlocal[k];
    node->me = tn_coll_node_rank(m, comm->rank);
    leaders->ranks = m->leaders;
    leaders->n = m->nnodes;
    leaders->me = m->leaders[k] == comm->rank ? k : -1;
}

/* Fan-in to the leader, a dissemination barrier between the leaders,
 * fan-out from the leader. */
void tn_nbc_twolevel_barrier(tn_sched_t *s, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    tn_nbc_grp_t node, leaders;
    int leader;

    node_groups(comm, m, &node, &leaders);
    leader = node.ranks[0];
    if (node.me != 0) {
        tn_sched_send(s, NULL, 0, tn_dt_byte(), leader);
        tn_sched_barrier(s);
        tn_sched_recv(s, NULL, 0, tn_dt_byte(), leader);
        tn_sched_barrier(s);
        return;
    }
    for (int i = 1; i < node.n; i++) {
        tn_sched_recv(s, NULL, 0, tn_dt_byte(), node.ranks[i]);
    }
    tn_sched_barrier(s);
    tn_nbc_grp_barrier(s, &leaders);
    for (int i = 1; i < node.n; i++) {
        tn_sched_send(s, NULL, 0, tn_dt_byte(), node.ranks[i]);
    }
    tn_sched_barrier(s);
}

/* The root's node broadcasts from the root (its leader is served there),
 * then the leaders from the root's node, then every other node from its
 * leader: no hop from root to leader, and the root's buffer is only read. */
void tn_nbc_twolevel_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt,
                           int root, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    tn_nbc_grp_t node, leaders;
    int rnode = m->node_of[root];

    node_groups(comm, m, &node, &leaders);
    if (m->my_node == rnode) {
        tn_nbc_grp_bcast(s, buf, count, dt, tn_coll_node_rank(m, root), &node);
        tn_nbc_grp_bcast(s, buf, count, dt, rnode, &leaders);
    } else {
        tn_nbc_grp_bcast(s, buf, count, dt, rnode, &leaders);
        tn_nbc_grp_bcast(s, buf, count, dt, 0, &node);
    }
}

/* Every node reduces to its leader, the leaders to the root's leader, which
 * hands the result to the root when it is not the root itself.  A leader
 * accumulates in result when it is the root, else in a temporary. */
void tn_nbc_twolevel_reduce(tn_sched_t *s, const void *mine, void *result, size_t count,
                            const tn_dt_t *dt, const tn_op_t *op, int root, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    tn_nbc_grp_t node, leaders;
    int rnode = m->node_of[root], rleader = m->leaders[rnode];
    char *acc;

    if (count == 0) {
        return;
    }
    node_groups(comm, m, &node, &leaders);
    if (node.me != 0) {
        tn_nbc_grp_reduce(s, mine, NULL, count, dt, op, 0, &node);
        if (comm->rank == root) {
            tn_sched_recv(s, result, count, dt, rleader);
            tn_sched_barrier(s);
        }
        return;
    }
    acc = comm->rank == root ? result : tn_sched_tmp(s, dt, count);
    if (acc == NULL) {
        return;
    }
    tn_nbc_grp_reduce(s, mine, acc, count, dt, op, 0, &node);
    tn_nbc_grp_reduce(s, acc, acc, count, dt, op, rnode, &leaders);
    if (comm->rank == rleader && root != rleader) {
        tn_sched_send(s, acc, count, dt, root);
        tn_sched_barrier(s);
    }
}

/* Every node reduces to its leader into rbuf, the leaders allreduce in
 * place, and every leader broadcasts the result in its node: every rank
 * gets the bits the leaders computed. */
void tn_nbc_twolevel_allreduce(tn_sched_t *s, const void *mine, void *rbuf, size_t count,
                               const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    tn_nbc_grp_t node, leaders;

    if (count == 0) {
        return;
    }
    node_groups(comm, m, &node, &leaders);
    tn_nbc_grp_reduce(s, mine, rbuf, count, dt, op, 0, &node);
    tn_nbc_grp_allreduce(s, rbuf, rbuf, count, dt, op, &leaders);
    tn_nbc_grp_bcast(s, rbuf, count, dt, 0, &node);
}

/* Allgather of equal blocks when every node's ranks are consecutive, so a
 * node's blocks form one run of rbuf: the members hand their blocks to the
 * leader, the leaders exchange their nodes' runs, and every leader
 * broadcasts the whole buffer in its node. */
void tn_nbc_twolevel_allgather(tn_sched_t *s, const void *sbuf, size_t scount,
                               const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                               tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    tn_nbc_grp_t node, leaders;
    int r = comm->rank;
    size_t count = rb->count;
    const tn_dt_t *dt = rb->dt;

    node_groups(comm, m, &node, &leaders);
    if (sbuf == TN_IN_PLACE) {
        sbuf = tn_coll_blk_ptr(rb, rbuf, r);
        scount = count;
        sdt = dt;
    }
    if (node.me != 0) {
        tn_sched_send(s, sbuf, scount, sdt, node.ranks[0]);
        tn_sched_barrier(s);
    } else {
        if (sbuf != tn_coll_blk_ptr(rb, rbuf, r)) {
            tn_sched_copy(s, sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, r), count, dt);
        }
        for (int i = 1; i < node.n; i++) {
            tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, node.ranks[i]), count, dt,
                          node.ranks[i]);
        }
        tn_sched_barrier(s);
        for (int k = 0; k < m->nnodes; k++) {
            if (k == m->my_node) {
                continue;
            }
            tn_sched_send(s, tn_coll_blk_ptr(rb, rbuf, r), (size_t)node.n * count, dt,
                          m->leaders[k]);
            tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, m->leaders[k]),
                          (size_t)m->nlocal[k] * count, dt, m->leaders[k]);
        }
        tn_sched_barrier(s);
    }
    tn_nbc_grp_bcast(s, rbuf, (size_t)comm->size * count, dt, 0, &node);
}

/* Gather of equal blocks: the root's node sends straight to the root; every
 * other node's members hand their blocks to the leader, which sends the
 * node's blocks to the root in one message.  Blocks travel packed (bytes,
 * in comm order): a non-root rank knows only its send type, and all blocks
 * have the same signature.  A node whose ranks are consecutive lands
 * straight in its run of the root's buffer, another one in a temporary
 * that the root then copies block by block. */
void tn_nbc_twolevel_gather(tn_sched_t *s, const void *sbuf, size_t scount,
                            const tn_dt_t *sdt, void *rbuf, const tn_coll_blocks_t *rb,
                            size_t blk, int root, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    const tn_dt_t *byte = tn_dt_byte();
    tn_nbc_grp_t node, leaders;
    int r = comm->rank, rnode = m->node_of[root];
    char *tmp;

    node_groups(comm, m, &node, &leaders);
    if (r == root) {
        size_t off = 0;

        if (sbuf != TN_IN_PLACE) {
            tn_sched_copy(s, sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, r), rb->count,
                          rb->dt);
        }
        tmp = tn_sched_tmp(s, byte, tn_coll_nodes_packed(m, blk, m->nnodes) + 1);
        if (tmp == NULL) {
            return;
        }
        for (int i = 0; i < node.n; i++) {
            if (node.ranks[i] != r) {
                tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, node.ranks[i]), rb->count,
                              rb->dt, node.ranks[i]);
            }
        }
        for (int k = 0; k < m->nnodes; k++) {
            if (k == rnode) {
                off += tn_coll_node_is_run(m, k) ? 0 : (size_t)m->nlocal[k] * blk;
            } else if (tn_coll_node_is_run(m, k)) {
                tn_sched_recv(s, tn_coll_blk_ptr(rb, rbuf, m->leaders[k]),
                              rb->count * (size_t)m->nlocal[k], rb->dt, m->leaders[k]);
            } else {
                tn_sched_recv(s, tmp + off, (size_t)m->nlocal[k] * blk, byte, m->leaders[k]);
                off += (size_t)m->nlocal[k] * blk;
            }
        }
        tn_sched_barrier(s);
        for (int k = 0; k < m->nnodes; k++) {
            if (k == rnode || tn_coll_node_is_run(m, k)) {
                continue;
            }
            off = tn_coll_nodes_packed(m, blk, k);
            for (int j = 0; j < m->nlocal[k]; j++) {
                tn_sched_copy(s, tmp + off + (size_t)j * blk, blk, byte,
                              tn_coll_blk_ptr(rb, rbuf, m->order[m->start[k] + j]),
                              rb->count, rb->dt);
            }
        }
        return;
    }
    if (m->my_node == rnode) {
        tn_sched_send(s, sbuf, scount, sdt, root);
        return;
    }
    if (node.me != 0) {
        tn_sched_send(s, sbuf, scount, sdt, node.ranks[0]);
        return;
    }
    tmp = tn_sched_tmp(s, byte, (size_t)node.n * blk);
    if (tmp == NULL) {
        return;
    }
    tn_sched_copy(s, sbuf, scount, sdt, tmp, blk, byte);
    for (int i = 1; i < node.n; i++) {
        tn_sched_recv(s, tmp + (size_t)i * blk, blk, byte, node.ranks[i]);
    }
    tn_sched_barrier(s);
    tn_sched_send(s, tmp, (size_t)node.n * blk, byte, root);
}

/* Scatter of equal blocks, the gather's mirror: the root sends its node's
 * members their blocks and every other node's leader its node's blocks in
 * one message (its run of the root's buffer, or packed into a temporary
 * when the node's ranks are not consecutive); the leader keeps its block
 * and sends the members theirs. */
void tn_nbc_twolevel_scatter(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt, size_t blk,
                             int root, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    const tn_dt_t *byte = tn_dt_byte();
    tn_nbc_grp_t node, leaders;
    int r = comm->rank, rnode = m->node_of[root];
    char *tmp;

    node_groups(comm, m, &node, &leaders);
    if (r == root) {
        int packed = 0;

        tmp = tn_sched_tmp(s, byte, tn_coll_nodes_packed(m, blk, m->nnodes) + 1);
        if (tmp == NULL) {
            return;
        }
        if (rbuf != TN_IN_PLACE) {
            tn_sched_copy(s, tn_coll_blk_ptr(sb, sbuf, r), sb->count, sb->dt, rbuf, rcount,
                          rdt);
        }
        for (int k = 0; k < m->nnodes; k++) {
            if (k == rnode || tn_coll_node_is_run(m, k)) {
                continue;
            }
            size_t off = tn_coll_nodes_packed(m, blk, k);
            for (int j = 0; j < m->nlocal[k]; j++) {
                tn_sched_copy(s, tn_coll_blk_ptr(sb, sbuf, m->order[m->start[k] + j]),
                              sb->count, sb->dt, tmp + off + (size_t)j * blk, blk, byte);
            }
            packed = 1;
        }
        if (packed) {
            tn_sched_barrier(s);
        }
        for (int i = 0; i < node.n; i++) {
            if (node.ranks[i] != r) {
                tn_sched_send(s, tn_coll_blk_ptr(sb, sbuf, node.ranks[i]), sb->count, sb->dt,
                              node.ranks[i]);
            }
        }
        for (int k = 0; k < m->nnodes; k++) {
            if (k == rnode) {
                continue;
            }
            if (tn_coll_node_is_run(m, k)) {
                tn_sched_send(s, tn_coll_blk_ptr(sb, sbuf, m->leaders[k]),
                              sb->count * (size_t)m->nlocal[k], sb->dt, m->leaders[k]);
            } else {
                tn_sched_send(s, tmp + tn_coll_nodes_packed(m, blk, k),
                              (size_t)m->nlocal[k] * blk, byte, m->leaders[k]);
            }
        }
        return;
    }
    if (m->my_node == rnode) {
        tn_sched_recv(s, rbuf, rcount, rdt, root);
        return;
    }
    if (node.me != 0) {
        tn_sched_recv(s, rbuf, rcount, rdt, node.ranks[0]);
        return;
    }
    tmp = tn_sched_tmp(s, byte, (size_t)node.n * blk);
    if (tmp == NULL) {
        return;
    }
    tn_sched_recv(s, tmp, (size_t)node.n * blk, byte, root);
    tn_sched_barrier(s);
    tn_sched_copy(s, tmp, blk, byte, rbuf, rcount, rdt);
    for (int i = 1; i < node.n; i++) {
        tn_sched_send(s, tmp + (size_t)i * blk, blk, byte, node.ranks[i]);
    }
}

/* A committed hvector of count blocks of blk bytes, stride bytes apart, or
 * NULL (the schedule has failed). */
static tn_dt_t *strided(tn_sched_t *s, int count, size_t blk, size_t stride)
{
    tn_dt_t *t = NULL;

    if (tn_dt_create_hvector((size_t)count, blk, (ptrdiff_t)stride, tn_dt_byte(), &t) !=
        TN_OK) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return NULL;
    }
    tn_dt_commit(t);
    return t;
}

/* Alltoall of equal blocks in two levels (the blocking two-level alltoall's
 * plan as a schedule): the members hand their whole send buffers to the
 * leader; the leader orders the blocks by destination node, exchanges one
 * message with every other leader, orders what came by destination rank
 * and source, and hands every member its receive buffer.  With L ranks on
 * my node, row = comm size x blk bytes, j/i node ranks, q/p comm ranks:
 *   A [j][q]  what my j-th rank sends q (gathered);
 *   B         to node b at L x start[b] blocks: [i][j] for b's i-th rank
 *             from my j-th; later (as D) [i][p] my i-th rank's receive
 *             buffer, p in comm order;
 *   C         from node a at L x start[a] blocks: [i][j] for my i-th rank
 *             from a's j-th.
 * The reordering copies strided runs (one copy per rank, not per block). */
void tn_nbc_twolevel_alltoall(tn_sched_t *s, const void *sbuf, const tn_coll_blocks_t *sb,
                              void *rbuf, const tn_coll_blocks_t *rb, size_t blk,
                              tn_comm_t *comm)
{
    const tn_comm_nodes_t *m = tn_comm_nodes(comm);
    const tn_dt_t *byte = tn_dt_byte();
    tn_nbc_grp_t node, leaders;
    int n = comm->size, me;
    size_t row = (size_t)n * blk;
    char *a, *b, *c;
    tn_dt_t *vec;

    node_groups(comm, m, &node, &leaders);
    me = m->my_node;
    if (sbuf == TN_IN_PLACE) {
        sbuf = rbuf;        /* sent before anything is received into rbuf */
        sb = rb;
    }
    if (node.me != 0) {
        tn_sched_send(s, sbuf, sb->count * (size_t)n, sb->dt, node.ranks[0]);
        tn_sched_barrier(s);
        tn_sched_recv(s, rbuf, rb->count * (size_t)n, rb->dt, node.ranks[0]);
        tn_sched_barrier(s);
        return;
    }
    int L = node.n;
    a = tn_sched_tmp(s, byte, (size_t)L * row);
    b = tn_sched_tmp(s, byte, (size_t)L * row);
    c = tn_sched_tmp(s, byte, (size_t)L * row);
    vec = strided(s, L, blk, row);
    if (a == NULL || b == NULL || c == NULL || vec == NULL) {
        if (vec != NULL) {
            tn_dt_release(vec);
        }
        return;
    }
    /* gather the node's send buffers */
    tn_sched_copy(s, sbuf, sb->count * (size_t)n, sb->dt, a, row, byte);
    for (int j = 1; j < L; j++) {
        tn_sched_recv(s, a + (size_t)j * row, row, byte, node.ranks[j]);
    }
    tn_sched_barrier(s);
    /* by destination node, its rank, my source rank */
    for (int k = 0; k < m->nnodes; k++) {
        if (k == me) {
            continue;
        }
        for (int i = 0; i < m->nlocal[k]; i++) {
            size_t q = (size_t)m->order[m->start[k] + i];
            tn_sched_copy(s, a + q * blk, 1, vec,
                          b + ((size_t)L * (size_t)m->start[k] + (size_t)i * L) * blk,
                          (size_t)L * blk, byte);
        }
    }
    tn_sched_barrier(s);
    /* one message each way with every other leader */
    for (int k = 0; k < m->nnodes; k++) {
        if (k == me) {
            continue;
        }
        size_t off = (size_t)L * (size_t)m->start[k] * blk;
        size_t len = (size_t)L * (size_t)m->nlocal[k] * blk;
        tn_sched_send(s, b + off, len, byte, m->leaders[k]);
        tn_sched_recv(s, c + off, len, byte, m->leaders[k]);
    }
    tn_sched_barrier(s);
    /* my node's receive buffers in b: from other nodes out of c, from my
     * node out of a */
    for (int k = 0; k < m->nnodes; k++) {
        if (k == me) {
            continue;
        }
        tn_dt_t *from = strided(s, L, blk, (size_t)m->nlocal[k] * blk);
        if (from == NULL) {
            break;
        }
        for (int j = 0; j < m->nlocal[k]; j++) {
            size_t p = (size_t)m->order[m->start[k] + j];
            tn_sched_copy(s, c + ((size_t)L * (size_t)m->start[k] + (size_t)j) * blk, 1, from,
                          b + p * blk, 1, vec);
        }
        tn_dt_release(from);
    }
    for (int j = 0; j < L; j++) {
        size_t p = (size_t)node.ranks[j];
        for (int i = 0; i < L; i++) {
            tn_sched_copy(s, a + (size_t)j * row + (size_t)node.ranks[i] * blk, blk, byte,
                          b + (size_t)i * row + p * blk, blk, byte);
        }
    }
    tn_dt_release(vec);
    tn_sched_barrier(s);
    tn_sched_copy(s, b, row, byte, rbuf, rb->count * (size_t)n, rb->dt);
    for (int i = 1; i < L; i++) {
        tn_sched_send(s, b + (size_t)i * row, row, byte, node.ranks[i]);
    }
}

/* Reduce_scatter in two levels: every node reduces the whole vector to its
 * leader (the node's lowest rank) over shared memory; the leaders
 * reduce_scatter it across the network, node k's leader getting the blocks
 * of node k's ranks; every leader scatters those over its node.  Each node
 * sends and receives about one vector across the network instead of one
 * per rank.  The inner collectives are chosen like a user's call.
 *
 * The leaders' reduce_scatter needs node k's blocks to be one run: when
 * the nodes are not rank blocks, the leaders first regroup the reduced
 * vector by node (the node map's order).  Rank order: the node's reduce
 * applies the op in the order of its ranks and the leaders' reduce_scatter
 * in the order of the nodes, so the result is in rank order when every
 * node's ranks are consecutive; with a non-commutative op the row's
 * TN_COLL_R_NODE_ORDER asks for that.  Blocks of any size (the vector
 * forms too). */
#include "coll/coll_util.h"

/* acc: the node's reduced vector (total elements).  Leaves my node's blocks,
 * in node order, at the start of *res_p (acc or tmp). */
static tn_status_t leader_part(char *acc, char *tmp, char **res_p, const tn_coll_blocks_t *rc, const tn_op_t *op,
                               const tn_comm_nodes_t *m, tn_comm_t *leaders)
{
    const tn_dt_t *dt = rc->dt;
    ptrdiff_t ext = dt->extent;
    int64_t *counts;
    tn_coll_blocks_t lb;
    int k, j, same = 1;
    tn_status_t st;

    counts = malloc(sizeof(*counts) * (size_t)m->nnodes);
    if (counts == NULL) {
        return TN_ERR_NOMEM;
    }
    for (k = 0; k < m->nnodes; k++) {
        counts[k] = 0;
        for (j = 0; j < m->nlocal[k]; j++) {
            counts[k] += (int64_t)tn_coll_blk_count(rc, m->order[m->start[k] + j]);
        }
        same = same && counts[k] == counts[0];
    }
    if (!m->blocked) {
        /* regroup by node: block r at element prefix(r) of acc */
        char *out = tmp;

        for (k = 0; k < m->nnodes; k++) {
            for (j = 0; j < m->nlocal[k]; j++) {
                int r = m->order[m->start[k] + j];
                size_t cnt = tn_coll_blk_count(rc, r);

                tn_coll_dup(out, acc + (ptrdiff_t)tn_coll_blk_prefix(rc, r) * ext, dt, cnt);
                out += (ptrdiff_t)cnt * ext;
            }
        }
        acc = tmp;
    }
    lb.counts = same ? NULL : counts;
    lb.displs = NULL;
    lb.wide = 1;
    lb.count = (size_t)counts[0];
    lb.dt = dt;
    lb.dts = NULL;
    st = tn_coll_reduce_scatter(TN_IN_PLACE, acc, &lb, op, leaders);
    free(counts);
    if (st == TN_OK) {
        *res_p = acc;
    }
    return st;
}

/* My node's part of the result: from the leader's res (node's blocks in
 * node order) to every rank's rbuf. */
static tn_status_t node_scatter(const char *res, void *rbuf, const tn_coll_blocks_t *rc,
                                const tn_comm_nodes_t *m, tn_comm_t *node, tn_comm_t *comm)
{
    const int *mine = m->order + m->start[m->my_node];
    int L = node->size, j;
    int64_t *counts, *displs, off = 0;
    tn_coll_blocks_t nb;
    tn_status_t st;

    if (tn_coll_blk_uniform(rc)) {
        return tn_coll_scatter(res, rc->count, rc->dt, rbuf, rc->count, rc->dt, 0, node);
    }
    if (node->rank != 0) {
        return tn_coll_scatterv(NULL, NULL, rbuf, tn_coll_blk_count(rc, comm->rank), rc->dt, 0,
                                node);
    }
    counts = malloc(sizeof(*counts) * (size_t)L);
    displs = malloc(sizeof(*displs) * (size_t)L);
    if (counts == NULL || displs == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    for (j = 0; j < L; j++) {
        counts[j] = (int64_t)tn_coll_blk_count(rc, mine[j]);
        displs[j] = off;
        off += counts[j];
    }
    nb.counts = counts;
    nb.displs = displs;
    nb.wide = 1;
    nb.count = 0;
    nb.dt = rc->dt;
    nb.dts = NULL;
    st = tn_coll_scatterv(res, &nb, rbuf, (size_t)counts[0], rc->dt, 0, node);
out:
    free(counts);
    free(displs);
    return st;
}

tn_status_t tn_coll_reduce_scatter_twolevel(const void *sbuf, void *rbuf,
                                            const tn_coll_blocks_t *rc, const tn_op_t *op,
                                            tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    tn_coll_tmp_t ta = { .p = NULL }, tb = { .p = NULL };
    size_t total = tn_coll_blk_prefix(rc, comm->size);
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    char *acc = NULL, *tmp = NULL, *res = NULL;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    m = tn_comm_nodes(comm);
    if (node->rank != 0) {
        /* rbuf is only read here (in place) until the scatter writes it */
        st = tn_coll_reduce(mine, NULL, total, rc->dt, op, 0, node);
        return st == TN_OK ? node_scatter(NULL, rbuf, rc, m, node, comm) : st;
    }
    acc = tn_coll_tmp_dt(&ta, rc->dt, total);
    if (acc != NULL && !m->blocked) {
        tmp = tn_coll_tmp_dt(&tb, rc->dt, total);
    }
    if (acc == NULL || (!m->blocked && tmp == NULL)) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    st = tn_coll_reduce(mine, acc, total, rc->dt, op, 0, node);
    if (st == TN_OK) {
        st = leader_part(acc, tmp, &res, rc, op, m, leaders);
    }
    if (st == TN_OK) {
        st = node_scatter(res, rbuf, rc, m, node, comm);
    }
out:
    tn_coll_tmp_put(&tb);
    tn_coll_tmp_put(&ta);
    return st;
}

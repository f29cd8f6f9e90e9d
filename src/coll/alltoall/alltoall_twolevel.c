/* Alltoall in two levels: every node gathers its ranks' whole send buffers
 * at its leader (the node's lowest rank) over shared memory; the leaders
 * reorder the blocks by destination node and exchange them with an
 * alltoallv across the network, one message per pair of nodes instead of
 * one per pair of ranks; every leader reorders what it got by destination
 * rank and source and scatters it over its node.  The inner collectives
 * are chosen like a user's call.  Message aggregation for short blocks:
 * each leader copies its node's data twice and holds two buffers of it
 * (ranks on the node * n blocks each).
 *
 * Blocks travel packed (MPI_BYTE): all have the same signature, blk bytes.
 * With L ranks on my node, j a node rank and q, p comm ranks:
 *   gathered (A):  [j][q]     the block my j-th rank sends q;
 *   to node b (B): [i][j]     for b's i-th rank (q), from my j-th, b's
 *                  segment at L * start[b] blocks (node order);
 *   from node a (A): [i][j]   for my i-th rank, from a's j-th rank, a's
 *                  segment at L * start[a] blocks;
 *   to scatter (B): [i][p]    my i-th rank's receive buffer, p in comm order.
 * Any layout of nodes (the reordering follows the node map); equal blocks
 * only (TN_COLL_R_UNIFORM). */
#include "coll/coll_util.h"

/* The leaders' part: A holds my node's gathered send buffers; afterwards B
 * holds my node's receive buffers. */
static tn_status_t leader_exchange(char *a, char *b, size_t blk, const tn_comm_nodes_t *m,
                                   int n, tn_comm_t *leaders)
{
    int L = m->nlocal[m->my_node], k, i, j;
    int64_t *counts, *displs;
    tn_coll_blocks_t lb;
    char *out = b;
    tn_status_t st;

    counts = malloc(sizeof(*counts) * (size_t)m->nnodes);
    displs = malloc(sizeof(*displs) * (size_t)m->nnodes);
    if (counts == NULL || displs == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    /* by destination node, then its rank, then my source rank */
    for (k = 0; k < m->nnodes; k++) {
        for (i = 0; i < m->nlocal[k]; i++) {
            size_t q = (size_t)m->order[m->start[k] + i];

            for (j = 0; j < L; j++, out += blk) {
                memcpy(out, a + ((size_t)j * (size_t)n + q) * blk, blk);
            }
        }
        /* the same both ways: L * nlocal[k] blocks to and from node k */
        counts[k] = (int64_t)L * m->nlocal[k] * (int64_t)blk;
        displs[k] = (int64_t)L * m->start[k] * (int64_t)blk;
    }
    lb.counts = counts;
    lb.displs = displs;
    lb.wide = 1;
    lb.count = 0;
    lb.dt = tn_dt_byte();
    lb.dts = NULL;
    st = tn_coll_alltoallv(b, &lb, a, &lb, leaders);
    /* by my destination rank, then source in comm order */
    for (k = 0; k < m->nnodes && st == TN_OK; k++) {
        const char *in = a + (size_t)displs[k];

        for (i = 0; i < L; i++) {
            for (j = 0; j < m->nlocal[k]; j++, in += blk) {
                size_t p = (size_t)m->order[m->start[k] + j];

                memcpy(b + ((size_t)i * (size_t)n + p) * blk, in, blk);
            }
        }
    }
out:
    free(counts);
    free(displs);
    return st;
}

tn_status_t tn_coll_alltoall_twolevel(const void *sbuf, const tn_coll_blocks_t *sb,
                                      void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    tn_coll_tmp_t ta = { .p = NULL }, tb = { .p = NULL };
    size_t n = (size_t)comm->size, blk = tn_dt_bytes(rb->dt, rb->count), all;
    const tn_dt_t *byte = tn_dt_byte(), *sdt = rb->dt;
    size_t scount = rb->count;
    char *a = NULL, *b = NULL;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK || blk == 0) {
        return st;
    }
    m = tn_comm_nodes(comm);
    /* equal blocks: a whole buffer is n blocks' elements from its start */
    if (sbuf != TN_IN_PLACE) {
        sdt = sb->dt;
        scount = sb->count;
    } else {
        sbuf = rbuf;   /* read by the gather before the scatter writes it */
    }
    if (node->rank != 0) {
        st = tn_coll_gather(sbuf, n * scount, sdt, NULL, 0, NULL, 0, node);
        if (st == TN_OK) {
            st = tn_coll_scatter(NULL, 0, NULL, rbuf, n * rb->count, rb->dt, 0, node);
        }
        return st;
    }
    all = (size_t)node->size * n * blk;
    a = tn_coll_tmp_get(&ta, all);
    b = a == NULL ? NULL : tn_coll_tmp_get(&tb, all);
    if (b == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    st = tn_coll_gather(sbuf, n * scount, sdt, a, n * blk, byte, 0, node);
    if (st == TN_OK) {
        st = leader_exchange(a, b, blk, m, comm->size, leaders);
    }
    if (st == TN_OK) {
        st = tn_coll_scatter(b, n * blk, byte, rbuf, n * rb->count, rb->dt, 0, node);
    }
out:
    tn_coll_tmp_put(&tb);
    tn_coll_tmp_put(&ta);
    return st;
}

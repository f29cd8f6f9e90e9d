/* Scatter in two levels: the root sends every other node's leader (its
 * lowest rank) that node's blocks across the network in one message, then
 * every node scatters over shared memory (from the root on the root's
 * node, from the leader elsewhere).  The root sends nnodes - 1 network
 * messages instead of one per rank off its node.  The inner scatters are
 * chosen like a user's call.
 *
 * A node's blocks travel packed (MPI_BYTE, in comm order): a non-root rank
 * knows only its receive type, and all blocks have the same signature.
 * When a node's ranks are consecutive its blocks are one run of the root's
 * send buffer and leave straight from there; otherwise the root packs them
 * into a temporary first.  Equal blocks only (TN_COLL_R_UNIFORM: only the
 * root knows scatterv's counts). */
#include "coll/coll_util.h"

/* Pack node k's blocks of the root's send buffer into out (blk bytes each). */
static tn_status_t pack_node(const void *sbuf, const tn_coll_blocks_t *sb, size_t blk,
                             const tn_comm_nodes_t *m, int k, char *out, tn_comm_t *comm)
{
    tn_status_t st = TN_OK;
    int j;

    for (j = 0; j < m->nlocal[k] && st == TN_OK; j++) {
        st = tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, m->order[m->start[k] + j]), sb->count,
                          sb->dt, out + (size_t)j * blk, blk, tn_dt_byte(), comm);
    }
    return st;
}

/* The root: send every other node its blocks, then scatter on my node. */
static tn_status_t scatter_root(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                size_t rcount, const tn_dt_t *rdt, size_t blk,
                                const tn_comm_nodes_t *m, tn_comm_t *node, tn_comm_t *comm)
{
    const tn_dt_t *byte = tn_dt_byte();
    int me = m->my_node, k, nreq = 0;
    tn_req_t **reqs = NULL;
    tn_coll_tmp_t t = { .p = NULL };
    size_t packed = tn_coll_nodes_packed(m, blk, m->nnodes);
    char *tmp;
    tn_status_t st = TN_OK;

    reqs = malloc(sizeof(*reqs) * (size_t)m->nnodes);
    tmp = tn_coll_tmp_get(&t, packed);
    if (reqs == NULL || tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    for (k = 0, packed = 0; k < m->nnodes && st == TN_OK; k++) {
        int run = tn_coll_node_is_run(m, k);

        if (!run) {
            st = pack_node(sbuf, sb, blk, m, k, tmp + packed, comm);
        }
        if (st == TN_OK && k != me && run) {
            st = tn_p2p_isend(tn_coll_blk_ptr(sb, sbuf, m->leaders[k]),
                              sb->count * (size_t)m->nlocal[k], sb->dt, m->leaders[k],
                              TN_COLL_TAG_SCATTER, comm, 1, TN_SEND_STD, &reqs[nreq]);
            nreq += st == TN_OK;
        } else if (st == TN_OK && k != me) {
            st = tn_p2p_isend(tmp + packed, (size_t)m->nlocal[k] * blk, byte, m->leaders[k],
                              TN_COLL_TAG_SCATTER, comm, 1, TN_SEND_STD, &reqs[nreq]);
            nreq += st == TN_OK;
        }
        if (!run) {
            packed += (size_t)m->nlocal[k] * blk;
        }
    }
    if (st == TN_OK && tn_coll_node_is_run(m, me)) {
        st = tn_coll_scatter(tn_coll_blk_ptr(sb, sbuf, m->leaders[me]), sb->count, sb->dt, rbuf,
                             rcount, rdt, node->rank, node);
    } else if (st == TN_OK) {
        char *mine = tmp + tn_coll_nodes_packed(m, blk, me);

        st = tn_coll_scatter(mine, blk, byte, rbuf, rcount, rdt, node->rank, node);
    }
    tn_coll_waitall(nreq, reqs, &st);
out:
    tn_coll_tmp_put(&t);
    free(reqs);
    return st;
}

tn_status_t tn_coll_scatter_twolevel(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                     size_t rcount, const tn_dt_t *rdt, int root,
                                     tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    tn_coll_tmp_t t = { .p = NULL };
    size_t blk;
    char *tmp;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    m = tn_comm_nodes(comm);
    /* every block has the same signature: every rank knows its size */
    blk = comm->rank == root ? tn_dt_bytes(sb->dt, sb->count) : tn_dt_bytes(rdt, rcount);
    if (blk == 0) {
        return TN_OK;
    }
    if (comm->rank == root) {
        return scatter_root(sbuf, sb, rbuf, rcount, rdt, blk, m, node, comm);
    }
    if (m->my_node == m->node_of[root]) {
        return tn_coll_scatter(NULL, 0, NULL, rbuf, rcount, rdt, tn_coll_node_rank(m, root),
                               node);
    }
    if (node->rank != 0) {
        return tn_coll_scatter(NULL, 0, NULL, rbuf, rcount, rdt, 0, node);
    }
    /* a leader off the root's node */
    tmp = tn_coll_tmp_get(&t, (size_t)node->size * blk);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_p2p_recv(tmp, (size_t)node->size * blk, tn_dt_byte(), root, TN_COLL_TAG_SCATTER,
                     comm, 1, NULL);
    if (st == TN_OK) {
        st = tn_coll_scatter(tmp, blk, tn_dt_byte(), rbuf, rcount, rdt, 0, node);
    }
    tn_coll_tmp_put(&t);
    return st;
}

/* Gather in two levels: every node gathers its ranks' blocks over shared
 * memory (at the root on the root's node, at the node's leader, its lowest
 * rank, elsewhere), then every other node's leader sends its node's blocks
 * to the root across the network in one message.  The root takes
 * nnodes - 1 network messages instead of one per rank off its node.  The
 * inner gathers are chosen like a user's call.
 *
 * A node's blocks travel packed (MPI_BYTE, in comm order): a non-root rank
 * knows only its send type, and all blocks have the same signature.  When
 * a node's ranks are consecutive its blocks are one run of the root's
 * receive buffer and go straight there; otherwise they land in a temporary
 * and the root puts each in its place.  Equal blocks only
 * (TN_COLL_R_UNIFORM: only the root knows gatherv's counts). */
#include "coll/coll_util.h"

/* The root: receive every other node's blocks while my node gathers. */
static tn_status_t gather_root(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               char *rbuf, const tn_coll_blocks_t *rb, size_t blk,
                               const tn_comm_nodes_t *m, tn_comm_t *node, tn_comm_t *comm)
{
    const tn_dt_t *byte = tn_dt_byte();
    int me = m->my_node, k, j, nreq = 0;
    tn_req_t **reqs = NULL;
    tn_coll_tmp_t t = { .p = NULL };
    size_t packed = tn_coll_nodes_packed(m, blk, m->nnodes);
    char *tmp;
    tn_status_t st = TN_OK;

    /* one temporary for every node whose blocks are not one run */
    reqs = malloc(sizeof(*reqs) * (size_t)m->nnodes);
    tmp = tn_coll_tmp_get(&t, packed);
    if (reqs == NULL || tmp == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    for (k = 0, packed = 0; k < m->nnodes && st == TN_OK; k++) {
        if (k != me && tn_coll_node_is_run(m, k)) {
            st = tn_p2p_irecv(tn_coll_blk_ptr(rb, rbuf, m->leaders[k]),
                              rb->count * (size_t)m->nlocal[k], rb->dt, m->leaders[k],
                              TN_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
            nreq += st == TN_OK;
        } else if (k != me) {
            st = tn_p2p_irecv(tmp + packed, (size_t)m->nlocal[k] * blk, byte, m->leaders[k],
                              TN_COLL_TAG_GATHER, comm, 1, &reqs[nreq]);
            nreq += st == TN_OK;
        }
        if (!tn_coll_node_is_run(m, k)) {
            packed += (size_t)m->nlocal[k] * blk;
        }
    }
    if (st == TN_OK && tn_coll_node_is_run(m, me)) {
        st = tn_coll_gather(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, m->leaders[me]),
                            rb->count, rb->dt, node->rank, node);
    } else if (st == TN_OK) {
        char *mine = tmp + tn_coll_nodes_packed(m, blk, me);

        if (sbuf == TN_IN_PLACE) {
            sbuf = tn_coll_blk_ptr(rb, rbuf, comm->rank);
            scount = rb->count;
            sdt = rb->dt;
        }
        st = tn_coll_gather(sbuf, scount, sdt, mine, blk, byte, node->rank, node);
    }
    tn_coll_waitall(nreq, reqs, &st);
    /* the packed nodes' blocks into their places */
    for (k = 0, packed = 0; k < m->nnodes && st == TN_OK; k++) {
        if (tn_coll_node_is_run(m, k)) {
            continue;
        }
        for (j = 0; j < m->nlocal[k] && st == TN_OK; j++, packed += blk) {
            st = tn_coll_copy(tmp + packed, blk, byte,
                              tn_coll_blk_ptr(rb, rbuf, m->order[m->start[k] + j]), rb->count,
                              rb->dt, comm);
        }
    }
out:
    tn_coll_tmp_put(&t);
    free(reqs);
    return st;
}

tn_status_t tn_coll_gather_twolevel(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, const tn_coll_blocks_t *rb, int root,
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
    blk = sbuf == TN_IN_PLACE ? tn_dt_bytes(rb->dt, rb->count) : tn_dt_bytes(sdt, scount);
    if (blk == 0) {
        return TN_OK;
    }
    if (comm->rank == root) {
        return gather_root(sbuf, scount, sdt, rbuf, rb, blk, m, node, comm);
    }
    if (m->my_node == m->node_of[root]) {
        return tn_coll_gather(sbuf, scount, sdt, NULL, 0, NULL,
                              tn_coll_node_rank(m, root), node);
    }
    if (node->rank != 0) {
        return tn_coll_gather(sbuf, scount, sdt, NULL, 0, NULL, 0, node);
    }
    /* a leader off the root's node */
    tmp = tn_coll_tmp_get(&t, (size_t)node->size * blk);
    if (tmp == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_coll_gather(sbuf, scount, sdt, tmp, blk, tn_dt_byte(), 0, node);
    if (st == TN_OK) {
        st = tn_p2p_send(tmp, (size_t)node->size * blk, tn_dt_byte(), root, TN_COLL_TAG_GATHER,
                         comm, 1);
    }
    tn_coll_tmp_put(&t);
    return st;
}

/* Allgather in two levels: every node gathers its ranks' blocks at its
 * leader (the node's lowest rank) over shared memory, straight into their
 * places in the leader's receive buffer; the leaders exchange their nodes'
 * runs of blocks with an allgatherv in place across the network; every
 * leader broadcasts the whole result inside its node.  The inner
 * collectives are chosen like a user's call.
 *
 * Each node's blocks must be one run (TN_COLL_R_NODE_BLOCKS: its ranks are
 * consecutive) and blocks equal (TN_COLL_R_UNIFORM), so that the node's
 * part is count * nlocal elements of the receive type from its first rank's
 * block. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allgather_twolevel(const void *sbuf, size_t scount,
                                       const tn_dt_t *sdt, void *rbuf,
                                       const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    char *mine = tn_coll_blk_ptr(rb, rbuf, comm->rank);
    int64_t *counts = NULL, *displs = NULL;
    tn_coll_blocks_t lb;
    int k;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    m = tn_comm_nodes(comm);
    if (sbuf == TN_IN_PLACE && node->rank != 0) {
        /* a non-root's send side of the gather: my block, read only */
        sbuf = mine;
        scount = rb->count;
        sdt = rb->dt;
    }
    st = tn_coll_gather(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, m->leaders[m->my_node]),
                        rb->count, rb->dt, 0, node);
    if (st == TN_OK && leaders != NULL) {
        counts = malloc(sizeof(*counts) * (size_t)m->nnodes);
        displs = malloc(sizeof(*displs) * (size_t)m->nnodes);
        if (counts == NULL || displs == NULL) {
            st = TN_ERR_NOMEM;
        } else {
            for (k = 0; k < m->nnodes; k++) {
                counts[k] = (int64_t)rb->count * m->nlocal[k];
                displs[k] = (int64_t)rb->count * m->leaders[k];
            }
            lb.counts = counts;
            lb.displs = displs;
            lb.wide = 1;
            lb.count = 0;
            lb.dt = rb->dt;
            lb.dts = NULL;
            st = tn_coll_allgatherv(TN_IN_PLACE, 0, NULL, rbuf, &lb, leaders);
        }
        free(counts);
        free(displs);
    }
    if (st == TN_OK) {
        st = tn_coll_bcast(rbuf, rb->count * (size_t)comm->size, rb->dt, 0, node);
    }
    return st;
}

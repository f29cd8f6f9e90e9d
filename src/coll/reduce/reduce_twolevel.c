/* Reduce in two levels: every node reduces to its leader (the node's lowest
 * rank) over shared memory, the leaders reduce to the root's leader across
 * the network, which hands the result to the root when it is not the root
 * itself.  The inner reduces are chosen like a user's call.
 *
 * Rank order: a node's reduce applies the op in the order of its ranks and
 * the leaders' reduce in the order of the nodes (by lowest rank), so the
 * result is in rank order when every node's ranks are consecutive; with a
 * non-commutative op the row's TN_COLL_R_NODE_ORDER asks for that.
 *
 * Buffers: a leader accumulates in rbuf when it is the root, else in a
 * temporary laid out like dt; my contribution is read from rbuf when sbuf is
 * TN_IN_PLACE (any rank, see tn_coll_reduce). */
#include "coll/coll_util.h"

tn_status_t tn_coll_reduce_twolevel(const void *sbuf, void *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, int root,
                                    tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    tn_coll_tmp_t t = { .p = NULL };
    const void *mine = sbuf == TN_IN_PLACE ? (const void *)rbuf : sbuf;
    char *acc = NULL;
    int rnode, rleader;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    m = tn_comm_nodes(comm);
    rnode = m->node_of[root];
    rleader = m->leaders[rnode];
    if (node->rank != 0) {
        /* my part goes to my leader; rbuf is not written here */
        st = tn_coll_reduce(mine, NULL, count, dt, op, 0, node);
        if (st == TN_OK && comm->rank == root) {
            st = tn_p2p_recv(rbuf, count, dt, rleader, TN_COLL_TAG_REDUCE, comm, 1, NULL);
        }
        return st;
    }
    if (comm->rank == root) {
        acc = rbuf;
        st = tn_coll_reduce(sbuf, rbuf, count, dt, op, 0, node);
    } else {
        acc = tn_coll_tmp_dt(&t, dt, count);
        if (acc == NULL) {
            return TN_ERR_NOMEM;
        }
        st = tn_coll_reduce(mine, acc, count, dt, op, 0, node);
    }
    /* leader comm rank k is node k's leader */
    if (st == TN_OK) {
        st = tn_coll_reduce(TN_IN_PLACE, acc, count, dt, op, rnode, leaders);
    }
    if (st == TN_OK && comm->rank == rleader && root != rleader) {
        st = tn_p2p_send(acc, count, dt, root, TN_COLL_TAG_REDUCE, comm, 1);
    }
    tn_coll_tmp_put(&t);
    return st;
}

/* Allreduce in two levels: every node reduces to its leader (the node's
 * lowest rank) over shared memory, the leaders allreduce across the
 * network, and every leader broadcasts the result inside its node.  The
 * inner collectives are chosen like a user's call.  The result is computed
 * by the leaders' allreduce, which gives every leader the same bits, and
 * copied from there, so every rank gets the same bits.
 *
 * Rank order: as reduce_twolevel, the op applies in rank order when every
 * node's ranks are consecutive (TN_COLL_R_NODE_ORDER for non-commutative
 * ops).  Buffers: the leader accumulates in rbuf; TN_IN_PLACE reads my
 * contribution from rbuf on every rank. */
#include "coll/coll_util.h"

tn_status_t tn_coll_allreduce_twolevel(const void *sbuf, void *rbuf, size_t count,
                                       const tn_dt_t *dt, const tn_op_t *op,
                                       tn_comm_t *comm)
{
    tn_comm_t *node, *leaders;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    st = tn_coll_reduce(sbuf, rbuf, count, dt, op, 0, node);
    if (st == TN_OK && leaders != NULL) {
        st = tn_coll_allreduce(TN_IN_PLACE, rbuf, count, dt, op, leaders);
    }
    if (st == TN_OK) {
        st = tn_coll_bcast(rbuf, count, dt, 0, node);
    }
    return st;
}

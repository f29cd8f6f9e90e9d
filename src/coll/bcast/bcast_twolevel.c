/* Broadcast in two levels: the root hands the data to its node's leader
 * (the node's lowest rank) when it is not the leader itself, the leaders
 * broadcast among themselves across the network, then every leader
 * broadcasts inside its node over shared memory.  Both inner broadcasts are
 * chosen like a user's call (TERN_COLL_BCAST=twolevel does not apply to
 * them: neither spans several nodes with several ranks on one). */
#include "coll/coll_util.h"

tn_status_t tn_coll_bcast_twolevel(void *buf, size_t count, const tn_dt_t *dt, int root,
                                   tn_comm_t *comm)
{
    const tn_comm_nodes_t *m;
    tn_comm_t *node, *leaders;
    int rnode, rleader;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    m = tn_comm_nodes(comm);
    rnode = m->node_of[root];
    rleader = m->leaders[rnode];
    if (root != rleader) {
        if (comm->rank == root) {
            st = tn_p2p_send(buf, count, dt, rleader, TN_COLL_TAG_BCAST, comm, 1);
        } else if (comm->rank == rleader) {
            st = tn_p2p_recv(buf, count, dt, root, TN_COLL_TAG_BCAST, comm, 1, NULL);
        }
        if (st != TN_OK) {
            return st;
        }
    }
    /* leader comm rank k is node k's leader (both in comm rank order) */
    if (leaders != NULL) {
        st = tn_coll_bcast(buf, count, dt, rnode, leaders);
        if (st != TN_OK) {
            return st;
        }
    }
    return tn_coll_bcast(buf, count, dt, 0, node);
}

/* Barrier in two levels: every node's ranks check in with their leader (the
 * node's lowest rank) over shared memory, the leaders run a barrier among
 * themselves (chosen like a user's call) across the network, then each
 * leader releases its node.  One message per rank and direction crosses a
 * node boundary only between leaders. */
#include "coll/coll_util.h"

tn_status_t tn_coll_barrier_twolevel(tn_comm_t *comm)
{
    const tn_dt_t *byte = tn_dt_byte();
    tn_comm_t *node, *leaders;
    char dummy = 0;
    int r;
    tn_status_t st;

    st = tn_comm_node_comms(comm, &node, &leaders);
    if (st != TN_OK) {
        return st;
    }
    if (node->rank != 0) {
        st = tn_p2p_send(&dummy, 0, byte, 0, TN_COLL_TAG_BARRIER, node, 1);
        if (st == TN_OK) {
            st = tn_p2p_recv(&dummy, 0, byte, 0, TN_COLL_TAG_BARRIER, node, 1, NULL);
        }
        return st;
    }
    for (r = 1; r < node->size && st == TN_OK; r++) {
        st = tn_p2p_recv(&dummy, 0, byte, r, TN_COLL_TAG_BARRIER, node, 1, NULL);
    }
    if (st == TN_OK && leaders != NULL && leaders->size > 1) {
        st = tn_coll_barrier(leaders);
    }
    /* zero-byte sends complete at once (eager) */
    for (r = 1; r < node->size && st == TN_OK; r++) {
        st = tn_p2p_send(&dummy, 0, byte, r, TN_COLL_TAG_BARRIER, node, 1);
    }
    return st;
}

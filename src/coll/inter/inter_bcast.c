/* Intercommunicator barrier and broadcast. */
#include "coll/inter/coll_inter.h"
#include "coll/coll_util.h"

/* Each group meets, the leaders swap an empty message, each group meets
 * again: nobody leaves before every member of both groups arrived. */
tn_status_t tn_coll_inter_barrier(tn_comm_t *comm)
{
    tn_status_t st;

    st = tn_coll_barrier(comm->local);
    if (st == TN_OK && comm->rank == 0) {
        st = tn_p2p_sendrecv(NULL, 0, tn_dt_byte(), 0, TN_COLL_TAG_BARRIER, NULL, 0,
                             tn_dt_byte(), 0, TN_COLL_TAG_BARRIER, comm, 1, NULL);
    }
    if (st == TN_OK) {
        st = tn_coll_barrier(comm->local);
    }
    return st;
}

/* The root sends to the remote leader, which broadcasts in its group. */
tn_status_t tn_coll_inter_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                                tn_comm_t *comm)
{
    tn_status_t st = TN_OK;

    if (root == TN_PROC_NULL) {
        return TN_OK;
    }
    if (root == TN_COLL_ROOT) {
        return tn_p2p_send(buf, count, dt, 0, TN_COLL_TAG_BCAST, comm, 1);
    }
    if (comm->rank == 0) {
        st = tn_p2p_recv(buf, count, dt, root, TN_COLL_TAG_BCAST, comm, 1, NULL);
    }
    if (st == TN_OK) {
        st = tn_coll_bcast(buf, count, dt, 0, comm->local);
    }
    return st;
}

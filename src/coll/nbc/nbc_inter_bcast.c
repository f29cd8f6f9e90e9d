/* Nonblocking intercommunicator barrier and broadcast, the schedules of
 * coll/inter/inter_bcast.c: the group-internal parts are the
 * intracommunicator builders run on comm->local. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"
#include "coll/inter/coll_inter.h"

/* Each group meets, the leaders swap an empty message, each group meets
 * again. */
void tn_nbc_inter_barrier(tn_sched_t *s, tn_comm_t *comm)
{
    tn_sched_use_local(s, 1);
    tn_nbc_barrier(s, comm->local);
    tn_sched_barrier(s);
    if (comm->rank == 0) {
        tn_sched_use_local(s, 0);
        tn_sched_recv(s, NULL, 0, tn_dt_byte(), 0);
        tn_sched_send(s, NULL, 0, tn_dt_byte(), 0);
        tn_sched_barrier(s);
    }
    tn_sched_use_local(s, 1);
    tn_nbc_barrier(s, comm->local);
    tn_sched_use_local(s, 0);
}

/* The root sends to the remote leader, which broadcasts in its group. */
void tn_nbc_inter_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                        tn_comm_t *comm)
{
    if (root == TN_PROC_NULL) {
        return;
    }
    if (root == TN_COLL_ROOT) {
        tn_sched_send(s, buf, count, dt, 0);
        tn_sched_barrier(s);
        return;
    }
    if (comm->rank == 0) {
        tn_sched_recv(s, buf, count, dt, root);
        tn_sched_barrier(s);
    }
    tn_sched_use_local(s, 1);
    tn_nbc_bcast(s, buf, count, dt, 0, comm->local);
    tn_sched_use_local(s, 0);
}

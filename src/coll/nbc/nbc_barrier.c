/* Nonblocking barrier: dissemination, ceil(log2 n) rounds of one empty
 * message each way. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_barrier(tn_sched_t *s, tn_comm_t *comm)
{
    int n = comm->size, r = comm->rank;

    for (int k = 1; k < n; k <<= 1) {
        tn_sched_recv(s, NULL, 0, tn_dt_byte(), (r - k + n) % n);
        tn_sched_send(s, NULL, 0, tn_dt_byte(), (r + k) % n);
        tn_sched_barrier(s);
    }
}

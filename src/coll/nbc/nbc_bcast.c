/* Nonblocking broadcast: binomial tree rooted at root (receive from the
 * parent, then send to every child in one round). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                  tn_comm_t *comm)
{
    int n = comm->size, vr = (comm->rank - root + n) % n, mask = 1;

    if (n == 1 || count == 0) {
        return;
    }
    while (mask < n) {
        if (vr & mask) {
            tn_sched_recv(s, buf, count, dt, (vr - mask + root) % n);
            tn_sched_barrier(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < n) {
            tn_sched_send(s, buf, count, dt, (vr + mask + root) % n);
        }
    }
    tn_sched_barrier(s);
}

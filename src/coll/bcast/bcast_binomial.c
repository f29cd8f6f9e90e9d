/* Broadcast along a binomial tree rooted at root.  With vr the rank relative
 * to root, a rank receives from vr - lowbit(vr) and then sends to
 * vr + lowbit(vr)/2, vr + lowbit(vr)/4, ..., 1 (the root: n/2 rounded to a
 * power of two, down to 1).  log2 n rounds; every child send is started at
 * once so the subtrees proceed in parallel. */
#include "coll/coll_util.h"

tn_status_t tn_coll_bcast_binomial(void *buf, size_t count, const tn_dt_t *dt, int root,
                                   tn_comm_t *comm)
{
    int n = comm->size, rank = comm->rank;
    int vr = (rank - root + n) % n;
    tn_req_t *reqs[32];
    int nreq = 0, mask;
    tn_status_t st;

    /* receive from my parent; mask ends at my lowest set bit (or >= n at root) */
    for (mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            int src = (vr - mask + root) % n;

            st = tn_p2p_recv(buf, count, dt, src, TN_COLL_TAG_BCAST, comm, 1, NULL);
            if (st != TN_OK) {
                return st;
            }
            break;
        }
    }
    /* send to my children, largest subtree first */
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < n) {
            int dst = (vr + mask + root) % n;

            st = tn_p2p_isend(buf, count, dt, dst, TN_COLL_TAG_BCAST, comm, 1,
                              TN_SEND_STD, &reqs[nreq]);
            if (st != TN_OK) {
                tn_req_waitall_free(nreq, reqs);
                return st;
            }
            nreq++;
        }
    }
    return tn_req_waitall_free(nreq, reqs);
}

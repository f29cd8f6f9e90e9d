/* Barrier by dissemination: in round k every rank signals rank + 2^k and
 * waits for rank - 2^k.  ceil(log2 n) rounds of zero-byte messages, any n. */
#include "coll/coll_util.h"

tn_status_t tn_coll_barrier_dissemination(tn_comm_t *comm)
{
    const tn_dt_t *byte = tn_dt_byte();
    int n = comm->size, rank = comm->rank;
    char sdummy = 0, rdummy;
    tn_status_t st;
    int mask;

    for (mask = 1; mask < n; mask <<= 1) {
        int dst = (rank + mask) % n;
        int src = (rank - mask + n) % n;

        st = tn_p2p_sendrecv(&sdummy, 0, byte, dst, TN_COLL_TAG_BARRIER,
                             &rdummy, 0, byte, src, TN_COLL_TAG_BARRIER,
                             comm, 1, NULL);
        if (st != TN_OK) {
            return st;
        }
    }
    return TN_OK;
}

/* Barrier through one rank: everyone signals rank 0, which answers everyone
 * once it heard from all.  2 (n - 1) zero-byte messages, all through rank 0,
 * in 2 steps: for small communicators, where it beats the log2 n rounds of
 * dissemination.  On one node barrier_shm.c does better still (flags in
 * the communicator's shared-memory slot, no messages). */
#include "coll/coll_util.h"

/* Answers in flight at once at rank 0. */
#define TN_BARRIER_FLAT_BATCH 32

tn_status_t tn_coll_barrier_flat(tn_comm_t *comm)
{
    const tn_dt_t *byte = tn_dt_byte();
    tn_req_t *reqs[TN_BARRIER_FLAT_BATCH];
    int n = comm->size, r, nreq = 0;
    char dummy = 0;
    tn_status_t st = TN_OK;

    if (comm->rank != 0) {
        st = tn_p2p_send(&dummy, 0, byte, 0, TN_COLL_TAG_BARRIER, comm, 1);
        if (st == TN_OK) {
            st = tn_p2p_recv(&dummy, 0, byte, 0, TN_COLL_TAG_BARRIER, comm, 1, NULL);
        }
        return st;
    }
    for (r = 1; r < n && st == TN_OK; r++) {
        st = tn_p2p_recv(&dummy, 0, byte, r, TN_COLL_TAG_BARRIER, comm, 1, NULL);
    }
    for (r = 1; r < n && st == TN_OK; r++) {
        st = tn_p2p_isend(&dummy, 0, byte, r, TN_COLL_TAG_BARRIER, comm, 1, TN_SEND_STD,
                          &reqs[nreq]);
        if (st == TN_OK && ++nreq == TN_BARRIER_FLAT_BATCH) {
            tn_coll_waitall(nreq, reqs, &st);
            nreq = 0;
        }
    }
    tn_coll_waitall(nreq, reqs, &st);
    return st;
}

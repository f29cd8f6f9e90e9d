/* Barrier through the communicator's shared-memory slot (coll_shm.h), for
 * communicators on one node.  Up to TN_BARRIER_SHM_ALL ranks every rank
 * posts and then waits for every other rank's post: one cache-line
 * hand-off, no message.  Larger communicators take two numbers: everyone
 * posts the first, rank 0 waits for all of them and posts the second,
 * which the others wait for (2 hand-offs instead of n looks per rank). */
#include "coll/coll_shm.h"

#define TN_BARRIER_SHM_ALL 16

tn_status_t tn_coll_barrier_shm(tn_comm_t *comm)
{
    tn_coll_shm_t *sh;
    tn_status_t st = tn_coll_shm_get(comm, &sh);
    int me = comm->rank;
    uint64_t s;

    if (st != TN_OK || sh == NULL) {
        return st != TN_OK ? st : tn_coll_barrier_dissemination(comm);
    }
    s = tn_coll_shm_next(sh);
    tn_coll_shm_post(sh, me, s);
    if (comm->size <= TN_BARRIER_SHM_ALL) {
        tn_coll_shm_wait_all(sh, me, s);
        return TN_OK;
    }
    uint64_t release = tn_coll_shm_next(sh);
    if (me == 0) {
        tn_coll_shm_wait_all(sh, me, s);
    } else {
        tn_coll_shm_wait(sh, 0, release);
    }
    tn_coll_shm_post(sh, me, release);
    return TN_OK;
}

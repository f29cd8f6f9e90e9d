/* Nonblocking broadcast: a binomial tree rooted at root, or two levels
 * across nodes (nbc_twolevel.c). */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_bcast(tn_sched_t *s, void *buf, size_t count, const tn_dt_t *dt, int root,
                  tn_comm_t *comm)
{
    tn_nbc_grp_t all = tn_nbc_grp_all(comm);

    if (comm->size == 1 || count == 0) {
        return;
    }
    if (tn_nbc_twolevel_fits(comm, TN_COLL_BCAST, 0)) {
        tn_nbc_twolevel_bcast(s, buf, count, dt, root, comm);
        return;
    }
    tn_nbc_grp_bcast(s, buf, count, dt, root, &all);
}

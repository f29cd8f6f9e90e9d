/* Nonblocking barrier: dissemination, or two levels across nodes. */
#include "coll/coll_sched.h"
#include "coll/coll_util.h"

void tn_nbc_barrier(tn_sched_t *s, tn_comm_t *comm)
{
    tn_nbc_grp_t all = tn_nbc_grp_all(comm);

    if (tn_nbc_twolevel_fits(comm, TN_COLL_BARRIER, 0)) {
        tn_nbc_twolevel_barrier(s, comm);
        return;
    }
    tn_nbc_grp_barrier(s, &all);
}

/* Collective entry points: the table of algorithms and the choice of one.
 *
 * Choices today are simple: one algorithm per collective, except allreduce,
 * which uses recursive doubling for commutative ops and reduce + bcast for
 * the others.  Recursive doubling as written combines blocks in rank order
 * too, but reduce + bcast evaluates the op exactly once per element pair
 * along a single tree, which is what users of non-commutative ops expect. */
#include "coll/coll_util.h"

const tn_coll_algo_t tn_coll_algos[] = {
    { TN_COLL_BARRIER,   "dissemination", 0 },
    { TN_COLL_BCAST,     "binomial",      0 },
    { TN_COLL_REDUCE,    "binomial",      0 },
    { TN_COLL_ALLREDUCE, "recdbl",        0 },
    { TN_COLL_ALLREDUCE, "reduce_bcast",  0 },
    { TN_COLL_GATHER,    "binomial",      0 },
    { TN_COLL_ALLGATHER, "ring",          0 },
    { TN_COLL_ALLTOALL,  "pairwise",      0 },
    { TN_COLL_KIND_COUNT_, NULL, 0 },
};

tn_status_t tn_coll_barrier(tn_comm_t *comm)
{
    if (comm->size == 1) {
        return TN_OK;
    }
    return tn_coll_barrier_dissemination(comm);
}

tn_status_t tn_coll_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                          tn_comm_t *comm)
{
    if (comm->size == 1 || count == 0) {
        return TN_OK;
    }
    return tn_coll_bcast_binomial(buf, count, dt, root, comm);
}

tn_status_t tn_coll_reduce(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, int root, tn_comm_t *comm)
{
    if (count == 0) {
        return TN_OK;
    }
    return tn_coll_reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
}

tn_status_t tn_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                              const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    if (count == 0) {
        return TN_OK;
    }
    if (!op->commutative) {
        return tn_coll_allreduce_reduce_bcast(sbuf, rbuf, count, dt, op, comm);
    }
    return tn_coll_allreduce_recdbl(sbuf, rbuf, count, dt, op, comm);
}

tn_status_t tn_coll_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                           void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                           tn_comm_t *comm)
{
    return tn_coll_gather_binomial(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm);
}

tn_status_t tn_coll_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                              void *rbuf, size_t rcount, const tn_dt_t *rdt,
                              tn_comm_t *comm)
{
    return tn_coll_allgather_ring(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

tn_status_t tn_coll_alltoall(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt,
                             tn_comm_t *comm)
{
    return tn_coll_alltoall_pairwise(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

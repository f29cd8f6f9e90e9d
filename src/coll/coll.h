/* Blocking collectives over the point-to-point core.
 *
 * Every collective runs on the communicator's collective context (coll = 1 in
 * tn_p2p_*), so it never matches user point-to-point traffic, and uses a fixed
 * tag per collective kind.  Blocking collectives are called in the same order
 * on every member, and matching is non-overtaking per (source, context), so
 * fixed tags are enough to keep consecutive collectives apart.
 *
 * Buffers: count elements of a predefined datatype occupy count * extent
 * bytes (pair types may have holes; the p2p layer packs them).  sbuf may be
 * TN_IN_PLACE where MPI allows MPI_IN_PLACE; the MPI layer has checked that.
 * Reductions respect rank order: the result equals op applied to the
 * contributions of ranks 0, 1, ..., n-1 in that order, so non-commutative
 * user ops are correct.
 *
 * The tn_coll_<op>() entry points choose an algorithm (coll.c holds the table
 * of algorithms and their restrictions); tn_coll_<op>_<algo>() run one. All
 * return TN_OK or the first error of the underlying messages.  Called with the
 * progress lock held, like tn_p2p_*. */
#ifndef TN_COLL_COLL_H
#define TN_COLL_COLL_H

#include <stddef.h>
#include "base/status.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "dt/op.h"

/* MPI_IN_PLACE's value in the standard ABI. */
#define TN_IN_PLACE ((const void *)1)

/* Tags on the collective context, one per kind. */
enum {
    TN_COLL_TAG_BARRIER = 1,
    TN_COLL_TAG_BCAST,
    TN_COLL_TAG_REDUCE,
    TN_COLL_TAG_ALLREDUCE,
    TN_COLL_TAG_GATHER,
    TN_COLL_TAG_ALLGATHER,
    TN_COLL_TAG_ALLTOALL,
    TN_COLL_TAG_COPY,          /* local copy between different datatypes */
    TN_COLL_TAG_COMM_CTX,      /* context id agreement (comm/comm.c) */
    TN_COLL_TAG_COMM_SPLIT,    /* MPI_Comm_split's exchange (comm/comm.c) */
};

/* Algorithms, for TERN_COLL_<OP> forcing and the sweeps of the tests. */
typedef enum {
    TN_COLL_BARRIER, TN_COLL_BCAST, TN_COLL_REDUCE, TN_COLL_ALLREDUCE,
    TN_COLL_GATHER, TN_COLL_ALLGATHER, TN_COLL_ALLTOALL, TN_COLL_KIND_COUNT_
} tn_coll_kind_t;

/* Restrictions of an algorithm, as data. */
enum {
    TN_COLL_R_COMMUTATIVE = 1 << 0,   /* op must be commutative */
    TN_COLL_R_POW2        = 1 << 1,   /* communicator size a power of two */
    TN_COLL_R_NO_INPLACE  = 1 << 2,   /* MPI_IN_PLACE not handled */
};

typedef struct {
    tn_coll_kind_t kind;
    const char    *name;              /* "recdbl" */
    unsigned       restrict_;         /* TN_COLL_R_* */
} tn_coll_algo_t;

/* The table of every algorithm (terminated by name == NULL). */
extern const tn_coll_algo_t tn_coll_algos[];

/* ---- entry points ------------------------------------------------------ */
tn_status_t tn_coll_barrier(tn_comm_t *comm);
tn_status_t tn_coll_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                          tn_comm_t *comm);
tn_status_t tn_coll_reduce(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, int root, tn_comm_t *comm);
tn_status_t tn_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                              const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
tn_status_t tn_coll_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                           void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                           tn_comm_t *comm);
tn_status_t tn_coll_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                              void *rbuf, size_t rcount, const tn_dt_t *rdt,
                              tn_comm_t *comm);
tn_status_t tn_coll_alltoall(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt,
                             tn_comm_t *comm);

/* ---- algorithms -------------------------------------------------------- */
tn_status_t tn_coll_barrier_dissemination(tn_comm_t *comm);
tn_status_t tn_coll_bcast_binomial(void *buf, size_t count, const tn_dt_t *dt, int root,
                                   tn_comm_t *comm);
tn_status_t tn_coll_reduce_binomial(const void *sbuf, void *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, int root,
                                    tn_comm_t *comm);
tn_status_t tn_coll_allreduce_recdbl(const void *sbuf, void *rbuf, size_t count,
                                     const tn_dt_t *dt, const tn_op_t *op,
                                     tn_comm_t *comm);
tn_status_t tn_coll_allreduce_reduce_bcast(const void *sbuf, void *rbuf, size_t count,
                                           const tn_dt_t *dt, const tn_op_t *op,
                                           tn_comm_t *comm);
tn_status_t tn_coll_gather_binomial(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                    int root, tn_comm_t *comm);
tn_status_t tn_coll_allgather_ring(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                   void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                   tn_comm_t *comm);
tn_status_t tn_coll_alltoall_pairwise(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                      void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                      tn_comm_t *comm);

#endif

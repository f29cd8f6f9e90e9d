/* Blocking collectives over the point-to-point core.
 *
 * Every collective runs on the communicator's collective context (coll = 1 in
 * tn_p2p_*), so it never matches user point-to-point traffic, and uses a fixed
 * tag per collective kind.  Blocking collectives are called in the same order
 * on every member, and matching is non-overtaking per (source, context), so
 * fixed tags are enough to keep consecutive collectives apart.  Within one
 * call two ranks post their messages to each other in the same order.
 *
 * Buffers: count elements of a datatype occupy count * extent bytes from the
 * buffer address (element i at + i * extent); only the data bytes of user
 * receive buffers are ever written (copies into them go through
 * tn_coll_copy), temporaries are laid out like the user's type.  sbuf may be
 * TN_IN_PLACE where MPI allows MPI_IN_PLACE; the MPI layer has checked that.
 * Arguments MPI calls "significant only at root" may be NULL elsewhere (the
 * types of a rooted collective included).
 * Reductions respect rank order: the result equals op applied to the
 * contributions of ranks 0, 1, ..., n-1 in that order, so non-commutative
 * user ops are correct with every algorithm that accepts them; algorithms
 * that regroup freely carry TN_COLL_R_COMMUTATIVE in the table.  Every rank
 * of an allreduce gets the same bits.
 *
 * The tn_coll_<op>() entry points choose an algorithm (coll.c holds the table
 * of algorithms with their restrictions, the automatic choice and the
 * TERN_COLL_<KIND> forcing); tn_coll_<op>_<algo>() run one and may assume
 * the restrictions of their row hold and the communicator has 2 ranks or
 * more.  All return TN_OK or the first error of the underlying messages
 * (TN_ERR_NOMEM when a temporary could not be allocated).  Called with the
 * progress lock held, like tn_p2p_*. */
#ifndef TN_COLL_COLL_H
#define TN_COLL_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "comm/comm.h"
#include "dt/dt.h"
#include "dt/op.h"

/* MPI_IN_PLACE's value in the standard ABI. */
#define TN_IN_PLACE ((const void *)1)

/* Tags on the collective context, one per kind (values are stable: new
 * kinds go at the end). */
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
    TN_COLL_TAG_SCATTER,
    TN_COLL_TAG_REDUCE_SCATTER,
    TN_COLL_TAG_SCAN,
};

/* Collective kinds: one TERN_COLL_<KIND> variable and one set of algorithms
 * each.  The vector forms share their kind's algorithms (gatherv: GATHER,
 * allgatherv: ALLGATHER, alltoallv/w: ALLTOALL, reduce_scatter_block:
 * REDUCE_SCATTER, exscan: SCAN). */
typedef enum {
    TN_COLL_BARRIER, TN_COLL_BCAST, TN_COLL_REDUCE, TN_COLL_ALLREDUCE,
    TN_COLL_GATHER, TN_COLL_SCATTER, TN_COLL_ALLGATHER, TN_COLL_ALLTOALL,
    TN_COLL_REDUCE_SCATTER, TN_COLL_SCAN, TN_COLL_KIND_COUNT_
} tn_coll_kind_t;

/* Restrictions of an algorithm, as data: the algorithm is not used for a
 * call that breaks one (forcing it falls back to the automatic choice). */
enum {
    TN_COLL_R_COMMUTATIVE = 1 << 0,   /* op must be commutative */
    TN_COLL_R_POW2        = 1 << 1,   /* communicator size a power of two */
    TN_COLL_R_NO_INPLACE  = 1 << 2,   /* MPI_IN_PLACE not handled (unrooted
                                       * kinds only: every rank must see the
                                       * same restriction) */
    TN_COLL_R_UNIFORM     = 1 << 3,   /* equal blocks only: not for the
                                       * vector forms (gatherv, alltoallw...) */
    TN_COLL_R_MULTINODE   = 1 << 4,   /* the communicator spans several
                                       * nodes and some node holds more than
                                       * one of its ranks (two-level) */
    TN_COLL_R_NODE_ORDER  = 1 << 5,   /* a non-commutative op only when every
                                       * node's ranks are consecutive comm
                                       * ranks (tn_comm_nodes_t.blocked) */
    TN_COLL_R_NODE_BLOCKS = 1 << 6,   /* every node's ranks are consecutive
                                       * comm ranks, whatever the op */
    TN_COLL_R_SHM         = 1 << 7,   /* every rank on this node, reached
                                       * through shm, and no failed slot
                                       * claim (coll/coll_shm.h) */
};

/* Where the blocks of a vector collective lie in a buffer.  Block i holds
 * count(i) elements of type(i) at byte offset off(i) from the buffer:
 *   counts == NULL:  count elements of dt each, block i at i * count * extent;
 *   else counts[i] elements at displs[i] * extent(dt), or at displs[i] bytes
 *   when dts != NULL (alltoallw: block i has type dts[i]).
 * counts/displs are int arrays, or int64_t (MPI_Count / MPI_Aint) when wide.
 * reduce_scatter's recvcounts use counts only (blocks follow each other). */
typedef struct {
    const void    *counts;
    const void    *displs;
    int            wide;
    size_t         count;
    const tn_dt_t *dt;
    const tn_dt_t *const *dts;
    int            vector;  /* a v/w call's blocks: counts may be known at the root only */
} tn_coll_blocks_t;

/* Algorithm signatures, one per kind. */
typedef tn_status_t (tn_coll_barrier_fn_t)(tn_comm_t *comm);
typedef tn_status_t (tn_coll_bcast_fn_t)(void *buf, size_t count, const tn_dt_t *dt,
                                         int root, tn_comm_t *comm);
typedef tn_status_t (tn_coll_reduce_fn_t)(const void *sbuf, void *rbuf, size_t count,
                                          const tn_dt_t *dt, const tn_op_t *op, int root,
                                          tn_comm_t *comm);
typedef tn_status_t (tn_coll_allreduce_fn_t)(const void *sbuf, void *rbuf, size_t count,
                                             const tn_dt_t *dt, const tn_op_t *op,
                                             tn_comm_t *comm);
/* rb: the root's receive blocks (NULL elsewhere) */
typedef tn_status_t (tn_coll_gather_fn_t)(const void *sbuf, size_t scount,
                                          const tn_dt_t *sdt, void *rbuf,
                                          const tn_coll_blocks_t *rb, int root,
                                          tn_comm_t *comm);
/* sb: the root's send blocks (NULL elsewhere); rbuf TN_IN_PLACE at the root */
typedef tn_status_t (tn_coll_scatter_fn_t)(const void *sbuf, const tn_coll_blocks_t *sb,
                                           void *rbuf, size_t rcount, const tn_dt_t *rdt,
                                           int root, tn_comm_t *comm);
typedef tn_status_t (tn_coll_allgather_fn_t)(const void *sbuf, size_t scount,
                                             const tn_dt_t *sdt, void *rbuf,
                                             const tn_coll_blocks_t *rb, tn_comm_t *comm);
/* sb is not read when sbuf is TN_IN_PLACE */
typedef tn_status_t (tn_coll_alltoall_fn_t)(const void *sbuf, const tn_coll_blocks_t *sb,
                                            void *rbuf, const tn_coll_blocks_t *rb,
                                            tn_comm_t *comm);
/* rc: counts of the result block of every rank (type rc->dt) */
typedef tn_status_t (tn_coll_reduce_scatter_fn_t)(const void *sbuf, void *rbuf,
                                                  const tn_coll_blocks_t *rc,
                                                  const tn_op_t *op, tn_comm_t *comm);
/* exclusive: MPI_Exscan (rank 0's rbuf is left alone) */
typedef tn_status_t (tn_coll_scan_fn_t)(const void *sbuf, void *rbuf, size_t count,
                                        const tn_dt_t *dt, const tn_op_t *op,
                                        int exclusive, tn_comm_t *comm);

typedef struct {
    tn_coll_kind_t kind;
    const char    *name;              /* "recdbl", as TERN_COLL_<KIND> names it */
    unsigned       restrict_;         /* TN_COLL_R_* */
    union {
        tn_coll_barrier_fn_t        *barrier;
        tn_coll_bcast_fn_t          *bcast;
        tn_coll_reduce_fn_t         *reduce;
        tn_coll_allreduce_fn_t      *allreduce;
        tn_coll_gather_fn_t         *gather;
        tn_coll_scatter_fn_t        *scatter;
        tn_coll_allgather_fn_t      *allgather;
        tn_coll_alltoall_fn_t       *alltoall;
        tn_coll_reduce_scatter_fn_t *reduce_scatter;
        tn_coll_scan_fn_t           *scan;
    } fn;
} tn_coll_algo_t;

/* The table of every algorithm (terminated by name == NULL). */
extern const tn_coll_algo_t tn_coll_algos[];
/* "BARRIER", "REDUCE_SCATTER": the kind's part of TERN_COLL_<KIND>. */
const char *tn_coll_kind_name(tn_coll_kind_t kind);

/* The name of the algorithm TERN_COLL_<KIND> forces ("ring"), or NULL for
 * the automatic choice (also when the variable names no algorithm). */
const char *tn_coll_forced(tn_coll_kind_t kind);

/* ---- entry points ------------------------------------------------------ */
tn_status_t tn_coll_barrier(tn_comm_t *comm);
tn_status_t tn_coll_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                          tn_comm_t *comm);
/* sbuf may be TN_IN_PLACE on any rank here (my contribution is then read
 * from rbuf, which every rank must provide): allreduce's reduce_bcast. */
tn_status_t tn_coll_reduce(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, int root, tn_comm_t *comm);
tn_status_t tn_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                              const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
tn_status_t tn_coll_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                           void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                           tn_comm_t *comm);
tn_status_t tn_coll_gatherv(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                            void *rbuf, const tn_coll_blocks_t *rb, int root,
                            tn_comm_t *comm);
tn_status_t tn_coll_scatter(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                            void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                            tn_comm_t *comm);
tn_status_t tn_coll_scatterv(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                             size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm);
tn_status_t tn_coll_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                              void *rbuf, size_t rcount, const tn_dt_t *rdt,
                              tn_comm_t *comm);
tn_status_t tn_coll_allgatherv(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
tn_status_t tn_coll_alltoall(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt,
                             tn_comm_t *comm);
/* alltoallv and alltoallw: blocks with counts (and dts for w) */
tn_status_t tn_coll_alltoallv(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                              const tn_coll_blocks_t *rb, tn_comm_t *comm);
/* rc->counts == NULL: reduce_scatter_block with rc->count each */
tn_status_t tn_coll_reduce_scatter(const void *sbuf, void *rbuf, const tn_coll_blocks_t *rc,
                                   const tn_op_t *op, tn_comm_t *comm);
tn_status_t tn_coll_scan(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                         const tn_op_t *op, tn_comm_t *comm);
tn_status_t tn_coll_exscan(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, tn_comm_t *comm);

/* ---- algorithms (one file each, coll/<kind>/<kind>_<algo>.c) ------------ */
tn_coll_barrier_fn_t        tn_coll_barrier_dissemination;
tn_coll_barrier_fn_t        tn_coll_barrier_flat;
tn_coll_barrier_fn_t        tn_coll_barrier_twolevel;
tn_coll_bcast_fn_t          tn_coll_bcast_binomial;
tn_coll_bcast_fn_t          tn_coll_bcast_scatter_allgather;
tn_coll_bcast_fn_t          tn_coll_bcast_pipeline;
tn_coll_bcast_fn_t          tn_coll_bcast_twolevel;
tn_coll_reduce_fn_t         tn_coll_reduce_binomial;
tn_coll_reduce_fn_t         tn_coll_reduce_rabenseifner;
tn_coll_reduce_fn_t         tn_coll_reduce_twolevel;
tn_coll_allreduce_fn_t      tn_coll_allreduce_recdbl;
tn_coll_allreduce_fn_t      tn_coll_allreduce_reduce_bcast;
tn_coll_allreduce_fn_t      tn_coll_allreduce_rabenseifner;
tn_coll_allreduce_fn_t      tn_coll_allreduce_ring;
tn_coll_allreduce_fn_t      tn_coll_allreduce_twolevel;
tn_coll_gather_fn_t         tn_coll_gather_binomial;
tn_coll_gather_fn_t         tn_coll_gather_linear;
tn_coll_gather_fn_t         tn_coll_gather_twolevel;
tn_coll_scatter_fn_t        tn_coll_scatter_binomial;
tn_coll_scatter_fn_t        tn_coll_scatter_linear;
tn_coll_scatter_fn_t        tn_coll_scatter_twolevel;
tn_coll_allgather_fn_t      tn_coll_allgather_ring;
tn_coll_allgather_fn_t      tn_coll_allgather_recdbl;
tn_coll_allgather_fn_t      tn_coll_allgather_bruck;
tn_coll_allgather_fn_t      tn_coll_allgather_twolevel;
tn_coll_alltoall_fn_t       tn_coll_alltoall_pairwise;
tn_coll_alltoall_fn_t       tn_coll_alltoall_bruck;
tn_coll_alltoall_fn_t       tn_coll_alltoall_scattered;
tn_coll_alltoall_fn_t       tn_coll_alltoall_twolevel;
tn_coll_reduce_scatter_fn_t tn_coll_reduce_scatter_rechalving;
tn_coll_reduce_scatter_fn_t tn_coll_reduce_scatter_pairwise;
tn_coll_reduce_scatter_fn_t tn_coll_reduce_scatter_twolevel;
tn_coll_scan_fn_t           tn_coll_scan_recdbl;
tn_coll_scan_fn_t           tn_coll_scan_linear;

tn_coll_barrier_fn_t        tn_coll_barrier_shm;
tn_coll_bcast_fn_t          tn_coll_bcast_shm;
tn_coll_reduce_fn_t         tn_coll_reduce_shm;
tn_coll_allreduce_fn_t      tn_coll_allreduce_shm;
tn_coll_gather_fn_t         tn_coll_gather_shm;
tn_coll_scatter_fn_t        tn_coll_scatter_shm;
tn_coll_allgather_fn_t      tn_coll_allgather_shm;
tn_coll_alltoall_fn_t       tn_coll_alltoall_shm;
tn_coll_reduce_scatter_fn_t tn_coll_reduce_scatter_shm;

/* Whether comm may run shared-memory collectives (TN_COLL_R_SHM); looked
 * at once, the same answer on every rank. */
int tn_coll_shm_eligible(tn_comm_t *comm);
/* Forget the last algorithm chosen on comm (what it depended on changed). */
void tn_coll_pick_forget(tn_comm_t *comm);
/* Give up comm's collective slot (communicator freed). */
void tn_coll_shm_free(tn_comm_t *comm);

/* Give back the temporaries collectives keep for reuse (finalize). */
void tn_coll_buf_drain(void);

#endif

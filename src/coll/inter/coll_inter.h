/* Blocking collectives on intercommunicators.
 *
 * Rooted collectives move data from one group to the other: in the group
 * that holds the root, the root passes TN_COLL_ROOT and everyone else
 * TN_PROC_NULL (they take no part); the other group passes the root's rank
 * in the remote group.  Unrooted collectives deliver to each group what
 * the other group contributed (allreduce: the reduction of the remote
 * group's data; allgather: the remote group's blocks in remote rank order).
 *
 * They are built from the intracommunicator collectives on each group's
 * local communicator (comm->local) and point-to-point messages between the
 * groups on the intercommunicator's collective context; the two leaders
 * (local rank 0 of each group) carry the exchanges that go through one
 * process.  Block layouts (tn_coll_blocks_t) index remote ranks for what
 * is received from or sent to the remote group, local ranks for
 * reduce_scatter's result counts.  Same ownership and error rules as the
 * intracommunicator entry points (coll/coll.h). */
#ifndef TN_COLL_INTER_COLL_INTER_H
#define TN_COLL_INTER_COLL_INTER_H

#include "coll/coll.h"

/* MPI_ROOT's value in the standard ABI. */
#define TN_COLL_ROOT (-4)

tn_status_t tn_coll_inter_barrier(tn_comm_t *comm);
tn_status_t tn_coll_inter_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                                tn_comm_t *comm);
/* rb: the root's receive blocks, one per remote rank */
tn_status_t tn_coll_inter_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                 void *rbuf, const tn_coll_blocks_t *rb, int root,
                                 tn_comm_t *comm);
/* sb: the root's send blocks, one per remote rank */
tn_status_t tn_coll_inter_scatter(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                  size_t rcount, const tn_dt_t *rdt, int root,
                                  tn_comm_t *comm);
tn_status_t tn_coll_inter_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                    void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm);
tn_status_t tn_coll_inter_alltoall(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                   const tn_coll_blocks_t *rb, tn_comm_t *comm);
tn_status_t tn_coll_inter_reduce(const void *sbuf, void *rbuf, size_t count,
                                 const tn_dt_t *dt, const tn_op_t *op, int root,
                                 tn_comm_t *comm);
tn_status_t tn_coll_inter_allreduce(const void *sbuf, void *rbuf, size_t count,
                                    const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm);
/* rc: result counts of the local ranks (rc->counts NULL: rc->count each);
 * sbuf holds their sum of elements of rc->dt on every local rank. */
tn_status_t tn_coll_inter_reduce_scatter(const void *sbuf, void *rbuf,
                                         const tn_coll_blocks_t *rc, const tn_op_t *op,
                                         tn_comm_t *comm);

#endif

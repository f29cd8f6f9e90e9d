/* Blocking collectives on intercommunicators (mpi_coll_inter.c): the
 * argument checks that differ from the intracommunicator forms (roots are
 * MPI_ROOT, MPI_PROC_NULL or a remote rank; receive and send blocks count
 * remote ranks; no MPI_IN_PLACE) and the call into src/coll/inter.
 * mpi_coll.c branches here once it knows comm is an intercommunicator.
 * Vector arguments: counts == NULL means count each (and displs unused);
 * wide: MPI_Count/MPI_Aint arrays.  types: alltoallw's type arrays, else
 * NULL with one type.
 *
 * nb: NULL for the blocking call; else the nonblocking (MPI_I<coll>) or
 * persistent (MPI_<coll>_init) call (tn_mpi_call_t, from the generated
 * entry point), which builds the collective as a schedule
 * (coll/coll_sched.h) and returns it in *nb->req (on ranks that take no
 * part, MPI_PROC_NULL roots, an empty one). */
#ifndef TN_MPI_MPI_COLL_INTER_H
#define TN_MPI_MPI_COLL_INTER_H

#include "mpi/mpi_impl.h"

typedef tn_mpi_call_t tn_mpi_nbc_t;

/* The nb argument of a family member's call: NULL when it blocks. */
static inline const tn_mpi_nbc_t *tn_mpi_nbc_of(const tn_mpi_call_t *call)
{
    return call->kind == TN_MPI_CALL_BLOCKING ? NULL : call;
}

int tn_mpi_inter_barrier(const char *fn, tn_comm_t *c, const tn_mpi_nbc_t *nb);
int tn_mpi_inter_bcast(const char *fn, tn_comm_t *c, void *buf, int64_t count,
                       MPI_Datatype type, int root, const tn_mpi_nbc_t *nb);
int tn_mpi_inter_reduce(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                        int64_t count, MPI_Datatype type, MPI_Op op, int root,
                        const tn_mpi_nbc_t *nb);
int tn_mpi_inter_allreduce(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                           int64_t count, MPI_Datatype type, MPI_Op op, const tn_mpi_nbc_t *nb);
int tn_mpi_inter_gather(const char *fn, tn_comm_t *c, const void *sbuf, int64_t scount,
                        MPI_Datatype stype, void *rbuf, const void *rcounts,
                        const void *displs, int wide, int64_t rcount, MPI_Datatype rtype,
                        int root, const tn_mpi_nbc_t *nb);
int tn_mpi_inter_scatter(const char *fn, tn_comm_t *c, const void *sbuf, const void *scounts,
                         const void *displs, int wide, int64_t scount, MPI_Datatype stype,
                         void *rbuf, int64_t rcount, MPI_Datatype rtype, int root,
                         const tn_mpi_nbc_t *nb);
int tn_mpi_inter_allgather(const char *fn, tn_comm_t *c, const void *sbuf, int64_t scount,
                           MPI_Datatype stype, void *rbuf, const void *rcounts,
                           const void *displs, int wide, int64_t rcount, MPI_Datatype rtype,
                           const tn_mpi_nbc_t *nb);
int tn_mpi_inter_alltoall(const char *fn, tn_comm_t *c, const void *sbuf,
                          const void *scounts, const void *sdispls, int64_t scount,
                          MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf,
                          const void *rcounts, const void *rdispls, int64_t rcount,
                          MPI_Datatype rtype, const MPI_Datatype *rtypes, int wide,
                          const tn_mpi_nbc_t *nb);
/* rcounts == NULL: the block form with rcount each */
int tn_mpi_inter_reduce_scatter(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                                const void *rcounts, int wide, int64_t rcount,
                                MPI_Datatype type, MPI_Op op, const tn_mpi_nbc_t *nb);

#endif

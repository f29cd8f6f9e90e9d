/* MPI blocking collectives: argument checks, MPI_IN_PLACE rules, then the
 * algorithms of src/coll.  The int and large-count (_c) forms share one
 * implementation taking 64-bit counts. */
#include "mpi/mpi_impl.h"
#include "coll/coll.h"

/* Report a failed collective. */
static int coll_done(const char *fn, tn_comm_t *c, tn_status_t st)
{
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_err_status(c, st, fn);
}

/* MPI_IN_PLACE where the standard does not allow it on this rank. */
static int inplace_err(const char *fn, tn_comm_t *c, const char *arg, const char *why)
{
    return tn_mpi_err(c, MPI_ERR_BUFFER, fn, arg, "MPI_IN_PLACE %s", why);
}

/* sendbuf == recvbuf with data in both is illegal aliasing. */
static int alias_err(const char *fn, tn_comm_t *c)
{
    return tn_mpi_err(c, MPI_ERR_BUFFER, fn, "sendbuf",
                      "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
}

int tn_mpi_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_barrier(c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

/* ---- bcast ---------------------------------------------------------------- */
static int bcast(const char *fn, void *buffer, int64_t count, MPI_Datatype datatype,
                 int root, MPI_Comm comm)
{
    const tn_dt_t *dt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_root(fn, c, root)) ||
        (rc = tn_mpi_check_buf(fn, c, buffer, count, dt, "buffer"))) {
        return rc;
    }
    if (count == 0 || c->size == 1) {
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    st = tn_coll_bcast(buffer, (size_t)count, dt, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm);
}

int tn_mpi_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                   MPI_Comm comm)
{
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

/* ---- reduce --------------------------------------------------------------- */
static int reduce(const char *fn, const void *sendbuf, void *recvbuf, int64_t count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o)) ||
        (rc = tn_mpi_check_root(fn, c, root))) {
        return rc;
    }
    if (c->rank == root) {
        if ((rc = tn_mpi_check_buf(fn, c, recvbuf, count, dt, "recvbuf"))) {
            return rc;
        }
        if (sendbuf != MPI_IN_PLACE) {
            if ((rc = tn_mpi_check_buf(fn, c, sendbuf, count, dt, "sendbuf"))) {
                return rc;
            }
            if (count > 0 && sendbuf == recvbuf) {
                return alias_err(fn, c);
            }
        }
    } else {
        if (sendbuf == MPI_IN_PLACE) {
            return inplace_err(fn, c, "sendbuf", "is only valid at the root");
        }
        if ((rc = tn_mpi_check_buf(fn, c, sendbuf, count, dt, "sendbuf"))) {
            return rc;
        }
    }
    if (count == 0) {
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    st = tn_coll_reduce(sendbuf, recvbuf, (size_t)count, dt, o, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int tn_mpi_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm);
}

/* ---- allreduce ------------------------------------------------------------ */
static int allreduce(const char *fn, const void *sendbuf, void *recvbuf, int64_t count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o)) ||
        (rc = tn_mpi_check_buf(fn, c, recvbuf, count, dt, "recvbuf"))) {
        return rc;
    }
    if (sendbuf != MPI_IN_PLACE) {
        if ((rc = tn_mpi_check_buf(fn, c, sendbuf, count, dt, "sendbuf"))) {
            return rc;
        }
        if (count > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    if (count == 0) {
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    st = tn_coll_allreduce(sendbuf, recvbuf, (size_t)count, dt, o, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
}

int tn_mpi_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm);
}

/* ---- gather --------------------------------------------------------------- */
static int gather(const char *fn, const void *sendbuf, int64_t sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = tn_mpi_check_root(fn, c, root))) {
        return rc;
    }
    if (c->rank == root) {
        if ((rc = tn_mpi_check_count(fn, c, recvcount, "recvcount")) ||
            (rc = tn_mpi_check_dt(fn, c, recvtype, "recvtype", &rdt)) ||
            (rc = tn_mpi_check_buf(fn, c, recvbuf, recvcount * c->size, rdt, "recvbuf"))) {
            return rc;
        }
    } else if (sendbuf == MPI_IN_PLACE) {
        return inplace_err(fn, c, "sendbuf", "is only valid at the root");
    }
    if (sendbuf != MPI_IN_PLACE) {
        if ((rc = tn_mpi_check_count(fn, c, sendcount, "sendcount")) ||
            (rc = tn_mpi_check_dt(fn, c, sendtype, "sendtype", &sdt)) ||
            (rc = tn_mpi_check_buf(fn, c, sendbuf, sendcount, sdt, "sendbuf"))) {
            return rc;
        }
        if (c->rank == root && sendcount > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    tn_mpi_enter();
    st = tn_coll_gather(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt,
                        root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  root, comm);
}

int tn_mpi_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm)
{
    return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
}

/* ---- allgather / alltoall ------------------------------------------------- */
/* Shared checks: recv side always, send side unless MPI_IN_PLACE.  sendbuf
 * holds send_blocks blocks of sendcount (0: one per rank, for alltoall). */
static int all_args(const char *fn, const void *sendbuf, int64_t sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, tn_comm_t **c_p,
                    const tn_dt_t **sdt_p, const tn_dt_t **rdt_p, int64_t send_blocks)
{
    tn_comm_t *c = NULL;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) ||
        (rc = tn_mpi_check_count(fn, c, recvcount, "recvcount")) ||
        (rc = tn_mpi_check_dt(fn, c, recvtype, "recvtype", rdt_p)) ||
        (rc = tn_mpi_check_buf(fn, c, recvbuf, recvcount * c->size, *rdt_p, "recvbuf"))) {
        return rc;
    }
    *sdt_p = NULL;
    if (send_blocks == 0) {
        send_blocks = c->size;
    }
    if (sendbuf != MPI_IN_PLACE) {
        if ((rc = tn_mpi_check_count(fn, c, sendcount, "sendcount")) ||
            (rc = tn_mpi_check_dt(fn, c, sendtype, "sendtype", sdt_p)) ||
            (rc = tn_mpi_check_buf(fn, c, sendbuf, sendcount * send_blocks, *sdt_p,
                                   "sendbuf"))) {
            return rc;
        }
        if (sendcount > 0 && recvcount > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    *c_p = c;
    return MPI_SUCCESS;
}

static int allgather(const char *fn, const void *sendbuf, int64_t sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = all_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       &c, &sdt, &rdt, 1))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_allgather(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount,
                           rdt, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm);
}

int tn_mpi_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm);
}

static int alltoall(const char *fn, const void *sendbuf, int64_t sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = all_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       &c, &sdt, &rdt, 0))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_alltoall(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount,
                          rdt, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm);
}

int tn_mpi_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                      MPI_Comm comm)
{
    return alltoall("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm);
}

/* MPI collectives on intracommunicators: argument checks, MPI_IN_PLACE
 * rules, then the algorithms of src/coll (blocking) or a schedule
 * (nonblocking and persistent).  Each collective is one family core
 * (tn_mpi_family_X, see tools/abi/gen_bindings.py) behind its six entry
 * points: int and large-count (_c) forms, blocking, MPI_I and _init.  Counts
 * arrive as 64 bits; the vector forms pass their count and displacement
 * arrays through as they are (int, or MPI_Count/MPI_Aint when call->wide:
 * tn_coll_blocks_t.wide). */
#include <stdio.h>
#include <stdlib.h>
#include "mpi/mpi_impl.h"
#include "coll/coll.h"
#include "coll/coll_sched.h"
#include "comm/topo.h"
#include "mpi/mpi_coll_inter.h"
#include "mpi/mpi_trace.h"

_Static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) == sizeof(int64_t),
               "the _c vector forms pass MPI_Count/MPI_Aint arrays as int64_t");

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

/* ---- the trace (mpi/mpi_trace.h) ---------------------------------------- */
#define NB_FORM(nb) ((nb) != NULL ? (nb)->kind : TERN_TRACE_BLOCKING)
#define IP(buf) ((buf) == MPI_IN_PLACE ? TERN_TRACE_C_INPLACE : 0)

static uint64_t dt_bytes(int64_t count, const tn_dt_t *dt)
{
    return dt != NULL && count > 0 ? tn_dt_bytes(dt, (size_t)count) : 0;
}

static uint64_t vec_bytes(const void *counts, int wide, int n, const tn_dt_t *dt)
{
    uint64_t t = 0;
    if (counts == NULL || dt == NULL) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int64_t k = wide ? ((const int64_t *)counts)[i] : ((const int *)counts)[i];
        t += k > 0 ? (uint64_t)k : 0;
    }
    return t * dt->size;
}

/* The bytes of deg blocks described by b (uniform, v or w). */
static uint64_t blocks_bytes(const tn_coll_blocks_t *b, int deg)
{
    if (b->counts == NULL) {
        return dt_bytes((int64_t)b->count, b->dt) * (uint64_t)(deg > 0 ? deg : 0);
    }
    if (b->dts == NULL) {
        return vec_bytes(b->counts, b->wide, deg, b->dt);
    }
    uint64_t t = 0;
    for (int i = 0; i < deg; i++) {
        int64_t k = b->wide ? ((const int64_t *)b->counts)[i] : ((const int *)b->counts)[i];
        t += b->dts[i] != NULL ? dt_bytes(k, b->dts[i]) : 0;
    }
    return t;
}

/* A nonblocking (MPI_I<coll>) or persistent (MPI_<coll>_init) call: the
 * collective is built as a schedule (coll/coll_sched.h) and returned in
 * *req; nb == NULL is the blocking call. */
typedef tn_mpi_nbc_t nbc_t;

/* The request pointer. */
static int nbc_check(const char *fn, tn_comm_t *c, const nbc_t *nb)
{
    if (nb == NULL) {
        return MPI_SUCCESS;
    }
    if (nb->req == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    return MPI_SUCCESS;
}

/* Commit a built schedule s (NULL: out of memory) into *nb->req (lock held);
 * traced: the request is the user's (not a blocking call's own). */
static int nbc_commit(const char *fn, tn_comm_t *c, tn_sched_t *s, const nbc_t *nb, int traced)
{
    tn_req_t *req = NULL;
    tn_status_t st = s == NULL ? TN_ERR_NOMEM
                               : tn_sched_commit(s, nb->kind == TN_MPI_CALL_PERSISTENT, &req);

    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *nb->req = (MPI_Request)(void *)req;
    if (traced) {
        TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
    }
    return MPI_SUCCESS;
}

static int nbc_finish(const char *fn, tn_comm_t *c, tn_sched_t *s, const nbc_t *nb)
{
    return nbc_commit(fn, c, s, nb, 1);
}

static int barrier(const char *fn, MPI_Comm comm, const nbc_t *nb)
{
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_barrier(fn, c, nb);
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_BARRIER, TERN_TRACE_NONE, NULL, 0, 0,
                                    NB_FORM(nb), 0));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_barrier(s, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_barrier(c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Barrier(MPI_Comm comm, const tn_mpi_call_t *call)
{
    return barrier(call->fn, comm, tn_mpi_nbc_of(call));
}

/* ---- bcast ---------------------------------------------------------------- */
static int bcast(const char *fn, void *buffer, int64_t count, MPI_Datatype datatype,
                 int root, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_bcast(fn, c, buffer, count, datatype, root, nb);
    }
    if ((rc = tn_mpi_check_count(fn, c, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_root(fn, c, root)) ||
        (rc = tn_mpi_check_buf(fn, c, buffer, count, dt, "buffer"))) {
        return rc;
    }
    /* A count of 0 goes down too (so in reduce, allreduce, reduce_scatter):
     * on one node the ranks compare their sizes first (coll/coll_shm.h),
     * and a rank that stayed away would leave the others waiting. */
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_BCAST, root, NULL,
                                    c->rank == root ? dt_bytes(count, dt) : 0,
                                    c->rank == root ? 0 : dt_bytes(count, dt), NB_FORM(nb), 0));
    if (nb == NULL && c->size == 1) {
        return MPI_SUCCESS;
    }
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_bcast(s, buffer, (size_t)count, dt, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_bcast(buffer, (size_t)count, dt, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        MPI_Comm comm, const tn_mpi_call_t *call)
{
    return bcast(call->fn, buffer, count, datatype, root, comm, tn_mpi_nbc_of(call));
}

/* ---- reduce --------------------------------------------------------------- */
static int reduce(const char *fn, const void *sendbuf, void *recvbuf, int64_t count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_reduce(fn, c, sendbuf, recvbuf, count, datatype, op, root, nb);
    }
    if ((rc = tn_mpi_check_count(fn, c, count, "count")) ||
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
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_REDUCE, root, o, dt_bytes(count, dt),
                                    c->rank == root ? dt_bytes(count, dt) : 0, NB_FORM(nb),
                                    IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_reduce(s, sendbuf, recvbuf, (size_t)count, dt, o, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_reduce(sendbuf, recvbuf, (size_t)count, dt, o, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                         const tn_mpi_call_t *call)
{
    return reduce(call->fn, sendbuf, recvbuf, count, datatype, op, root, comm,
                  tn_mpi_nbc_of(call));
}

/* ---- allreduce ------------------------------------------------------------ */
static int allreduce(const char *fn, const void *sendbuf, void *recvbuf, int64_t count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, nb);
    }
    if ((rc = tn_mpi_check_count(fn, c, count, "count")) ||
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
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLREDUCE, TERN_TRACE_NONE, o,
                                    dt_bytes(count, dt), dt_bytes(count, dt), NB_FORM(nb),
                                    IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_allreduce(s, sendbuf, recvbuf, (size_t)count, dt, o, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_allreduce(sendbuf, recvbuf, (size_t)count, dt, o, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            const tn_mpi_call_t *call)
{
    return allreduce(call->fn, sendbuf, recvbuf, count, datatype, op, comm,
                     tn_mpi_nbc_of(call));
}

/* ---- gather --------------------------------------------------------------- */
static int gather(const char *fn, const void *sendbuf, int64_t sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, 0,
                                   recvcount, recvtype, root, nb);
    }
    if ((rc = tn_mpi_check_root(fn, c, root))) {
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
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_GATHER, root, NULL,
                                    sdt != NULL ? dt_bytes(sendcount, sdt)
                                                : dt_bytes(recvcount, rdt),
                                    c->rank == root ? dt_bytes(recvcount, rdt) * (uint64_t)c->size
                                                    : 0,
                                    NB_FORM(nb), IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_coll_blocks_t rb = { NULL, NULL, 0, (size_t)recvcount, rdt, NULL };
            tn_nbc_gather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_gather(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt,
                        root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, const tn_mpi_call_t *call)
{
    return gather(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  root, comm, tn_mpi_nbc_of(call));
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
                     MPI_Datatype recvtype, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL,
                                      0, recvcount, recvtype, nb);
    }
    if ((rc = all_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       &c, &sdt, &rdt, 1))) {
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLGATHER, TERN_TRACE_NONE, NULL,
                                    sdt != NULL ? dt_bytes(sendcount, sdt)
                                                : dt_bytes(recvcount, rdt),
                                    dt_bytes(recvcount, rdt) * (uint64_t)c->size,
                                    NB_FORM(nb), IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_coll_blocks_t rb = { NULL, NULL, 0, (size_t)recvcount, rdt, NULL };
            tn_nbc_allgather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_allgather(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount,
                           rdt, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm, const tn_mpi_call_t *call)
{
    return allgather(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, tn_mpi_nbc_of(call));
}

static int alltoall(const char *fn, const void *sendbuf, int64_t sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_alltoall(fn, c, sendbuf, NULL, NULL, sendcount, sendtype, NULL,
                                     recvbuf, NULL, NULL, recvcount, recvtype, NULL, 0, nb);
    }
    if ((rc = all_args(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                       &c, &sdt, &rdt, 0))) {
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLTOALL, TERN_TRACE_NONE, NULL,
                                    (sdt != NULL ? dt_bytes(sendcount, sdt)
                                                 : dt_bytes(recvcount, rdt)) * (uint64_t)c->size,
                                    dt_bytes(recvcount, rdt) * (uint64_t)c->size,
                                    NB_FORM(nb), IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_coll_blocks_t sb = { NULL, NULL, 0, (size_t)sendcount, sdt, NULL };
            tn_coll_blocks_t rb = { NULL, NULL, 0, (size_t)recvcount, rdt, NULL };
            tn_nbc_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_alltoall(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount,
                          rdt, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm, const tn_mpi_call_t *call)
{
    return alltoall(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, tn_mpi_nbc_of(call));
}

/* ---- helpers of the vector forms ------------------------------------------ */
static int64_t vec_at(const void *a, int wide, int i)
{
    return wide ? ((const int64_t *)a)[i] : ((const int *)a)[i];
}

/* Where block i of a w-collective starts: its displacement is in bytes, so
 * MPI_BOTTOM (NULL) with absolute addresses is a valid buffer; only a block
 * that itself starts at NULL is not. */
static const void *w_block(const void *buf, const void *displs, int wide, int i)
{
    return (const void *)((uintptr_t)buf + (uintptr_t)vec_at(displs, wide, i));
}

/* A count array of n entries: present, none negative.  *sum_p gets the sum
 * (NULL: not wanted). */
static int check_counts(const char *fn, tn_comm_t *c, const void *counts, int wide, int n,
                        const char *arg, int64_t *sum_p)
{
    int64_t sum = 0;
    int i;

    if (counts == NULL && n > 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "NULL array");
    }
    for (i = 0; i < n; i++) {
        int64_t v = vec_at(counts, wide, i);

        if (v < 0) {
            return tn_mpi_err(c, MPI_ERR_COUNT, fn, arg, "%s[%d] = %lld is negative", arg, i,
                              (long long)v);
        }
        sum += v;
    }
    if (sum_p != NULL) {
        *sum_p = sum;
    }
    return MPI_SUCCESS;
}

static int check_displs(const char *fn, tn_comm_t *c, const void *displs, int n,
                        const char *arg)
{
    if (displs == NULL && n > 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, arg, "NULL array");
    }
    return MPI_SUCCESS;
}

/* counts + displs + type + buffer of one side of a vector collective. */
static int check_vec_side(const char *fn, tn_comm_t *c, const void *buf, const void *counts,
                          const void *displs, int wide, MPI_Datatype type, const char *buf_arg,
                          const char *counts_arg, const char *displs_arg,
                          const char *type_arg, const tn_dt_t **dt_p)
{
    int64_t sum = 0;
    int rc;

    if ((rc = check_counts(fn, c, counts, wide, c->size, counts_arg, &sum)) ||
        (rc = check_displs(fn, c, displs, c->size, displs_arg)) ||
        (rc = tn_mpi_check_dt(fn, c, type, type_arg, dt_p)) ||
        (rc = tn_mpi_check_buf(fn, c, buf, sum, *dt_p, buf_arg))) {
        return rc;
    }
    return MPI_SUCCESS;
}

static void blocks_set(tn_coll_blocks_t *b, const void *counts, const void *displs, int wide,
                       const tn_dt_t *dt)
{
    b->counts = counts;
    b->displs = displs;
    b->wide = wide;
    b->count = 0;
    b->dt = dt;
    b->dts = NULL;
    b->vector = 1;
}

/* ---- scatter / scatterv --------------------------------------------------- */
/* The receive side, shared by scatter and scatterv: recvbuf may be
 * MPI_IN_PLACE at the root only. */
static int scatter_recv_args(const char *fn, tn_comm_t *c, int root, void *recvbuf,
                             int64_t recvcount, MPI_Datatype recvtype, const tn_dt_t **rdt_p)
{
    int rc;

    *rdt_p = NULL;
    if (recvbuf == MPI_IN_PLACE) {
        return c->rank == root ? MPI_SUCCESS
                               : inplace_err(fn, c, "recvbuf", "is only valid at the root");
    }
    if ((rc = tn_mpi_check_count(fn, c, recvcount, "recvcount")) ||
        (rc = tn_mpi_check_dt(fn, c, recvtype, "recvtype", rdt_p)) ||
        (rc = tn_mpi_check_buf(fn, c, recvbuf, recvcount, *rdt_p, "recvbuf"))) {
        return rc;
    }
    return MPI_SUCCESS;
}

static int scatter(const char *fn, const void *sendbuf, int64_t sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_scatter(fn, c, sendbuf, NULL, NULL, 0, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, nb);
    }
    if ((rc = tn_mpi_check_root(fn, c, root)) ||
        (rc = scatter_recv_args(fn, c, root, recvbuf, recvcount, recvtype, &rdt))) {
        return rc;
    }
    if (c->rank == root) {
        if ((rc = tn_mpi_check_count(fn, c, sendcount, "sendcount")) ||
            (rc = tn_mpi_check_dt(fn, c, sendtype, "sendtype", &sdt)) ||
            (rc = tn_mpi_check_buf(fn, c, sendbuf, sendcount * c->size, sdt, "sendbuf"))) {
            return rc;
        }
        if (recvbuf != MPI_IN_PLACE && recvcount > 0 && sendcount > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_SCATTER, root, NULL,
                                    c->rank == root ? dt_bytes(sendcount, sdt) * (uint64_t)c->size
                                                    : 0,
                                    dt_bytes(recvcount, rdt), NB_FORM(nb), IP(recvbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_coll_blocks_t sb = { NULL, NULL, 0, (size_t)sendcount, sdt, NULL };
            tn_nbc_scatter(s, sendbuf, &sb, recvbuf, (size_t)recvcount, rdt, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_scatter(sendbuf, (size_t)sendcount, sdt, recvbuf, (size_t)recvcount, rdt,
                         root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, const tn_mpi_call_t *call)
{
    return scatter(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   root, comm, tn_mpi_nbc_of(call));
}

static int scatterv(const char *fn, const void *sendbuf, const void *sendcounts,
                    const void *displs, int wide, MPI_Datatype sendtype, void *recvbuf,
                    int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t sb;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_scatter(fn, c, sendbuf, sendcounts, displs, wide, 0, sendtype,
                                    recvbuf, recvcount, recvtype, root, nb);
    }
    if ((rc = tn_mpi_check_root(fn, c, root)) ||
        (rc = scatter_recv_args(fn, c, root, recvbuf, recvcount, recvtype, &rdt))) {
        return rc;
    }
    if (c->rank == root) {
        if ((rc = check_vec_side(fn, c, sendbuf, sendcounts, displs, wide, sendtype, "sendbuf",
                                 "sendcounts", "displs", "sendtype", &sdt))) {
            return rc;
        }
        if (recvbuf != MPI_IN_PLACE && recvcount > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    blocks_set(&sb, sendcounts, displs, wide, sdt);
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_SCATTER, root, NULL,
                                    c->rank == root ? vec_bytes(sendcounts, wide, c->size, sdt) : 0,
                                    dt_bytes(recvcount, rdt), NB_FORM(nb),
                                    IP(recvbuf) | TERN_TRACE_C_VECTOR));
    if (c->rank == root) {
        TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_SCOUNTS, sendcounts, wide, c->size, sdt));
    }
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_scatter(s, sendbuf, &sb, recvbuf, (size_t)recvcount, rdt, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_scatterv(sendbuf, &sb, recvbuf, (size_t)recvcount, rdt, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Scatterv(const void *sendbuf, const void *sendcounts, const void *displs,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm,
                           const tn_mpi_call_t *call)
{
    return scatterv(call->fn, sendbuf, sendcounts, displs, call->wide, sendtype, recvbuf,
                    recvcount, recvtype, root, comm, tn_mpi_nbc_of(call));
}

/* ---- gatherv -------------------------------------------------------------- */
static int gatherv(const char *fn, const void *sendbuf, int64_t sendcount,
                   MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                   const void *displs, int wide, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t rb;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, wide, 0, recvtype, root, nb);
    }
    if ((rc = tn_mpi_check_root(fn, c, root))) {
        return rc;
    }
    if (c->rank == root) {
        if ((rc = check_vec_side(fn, c, recvbuf, recvcounts, displs, wide, recvtype, "recvbuf",
                                 "recvcounts", "displs", "recvtype", &rdt))) {
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
    blocks_set(&rb, recvcounts, displs, wide, rdt);
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_GATHER, root, NULL, dt_bytes(sendcount, sdt),
                                    c->rank == root ? vec_bytes(recvcounts, wide, c->size, rdt) : 0,
                                    NB_FORM(nb), IP(sendbuf) | TERN_TRACE_C_VECTOR));
    if (c->rank == root) {
        TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_RCOUNTS, recvcounts, wide, c->size, rdt));
    }
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_gather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, root, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_gatherv(sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, root, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const void *recvcounts, const void *displs,
                          MPI_Datatype recvtype, int root, MPI_Comm comm,
                          const tn_mpi_call_t *call)
{
    return gatherv(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   call->wide, recvtype, root, comm, tn_mpi_nbc_of(call));
}

/* ---- allgatherv ----------------------------------------------------------- */
static int allgatherv(const char *fn, const void *sendbuf, int64_t sendcount,
                      MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                      const void *displs, int wide, MPI_Datatype recvtype, MPI_Comm comm,
                      const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t rb;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                      displs, wide, 0, recvtype, nb);
    }
    if ((rc = check_vec_side(fn, c, recvbuf, recvcounts, displs, wide, recvtype, "recvbuf",
                             "recvcounts", "displs", "recvtype", &rdt))) {
        return rc;
    }
    if (sendbuf != MPI_IN_PLACE) {
        if ((rc = tn_mpi_check_count(fn, c, sendcount, "sendcount")) ||
            (rc = tn_mpi_check_dt(fn, c, sendtype, "sendtype", &sdt)) ||
            (rc = tn_mpi_check_buf(fn, c, sendbuf, sendcount, sdt, "sendbuf"))) {
            return rc;
        }
        if (sendcount > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    blocks_set(&rb, recvcounts, displs, wide, rdt);
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLGATHER, TERN_TRACE_NONE, NULL,
                                    sdt != NULL ? dt_bytes(sendcount, sdt)
                                                : dt_bytes(vec_at(recvcounts, wide, c->rank), rdt),
                                    vec_bytes(recvcounts, wide, c->size, rdt), NB_FORM(nb),
                                    IP(sendbuf) | TERN_TRACE_C_VECTOR));
    TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_RCOUNTS, recvcounts, wide, c->size, rdt));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_allgather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_allgatherv(sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const void *recvcounts, const void *displs,
                             MPI_Datatype recvtype, MPI_Comm comm, const tn_mpi_call_t *call)
{
    return allgatherv(call->fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, call->wide, recvtype, comm, tn_mpi_nbc_of(call));
}

/* ---- alltoallv / alltoallw ------------------------------------------------ */
static int alltoallv(const char *fn, const void *sendbuf, const void *sendcounts,
                     const void *sdispls, MPI_Datatype sendtype, void *recvbuf,
                     const void *recvcounts, const void *rdispls, MPI_Datatype recvtype,
                     int wide, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t sb, rb;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_alltoall(fn, c, sendbuf, sendcounts, sdispls, 0, sendtype, NULL,
                                     recvbuf, recvcounts, rdispls, 0, recvtype, NULL, wide, nb);
    }
    if ((rc = check_vec_side(fn, c, recvbuf, recvcounts, rdispls, wide, recvtype, "recvbuf",
                             "recvcounts", "rdispls", "recvtype", &rdt))) {
        return rc;
    }
    if (sendbuf != MPI_IN_PLACE) {
        if ((rc = check_vec_side(fn, c, sendbuf, sendcounts, sdispls, wide, sendtype,
                                 "sendbuf", "sendcounts", "sdispls", "sendtype", &sdt))) {
            return rc;
        }
    }
    blocks_set(&sb, sendcounts, sdispls, wide, sdt);
    blocks_set(&rb, recvcounts, rdispls, wide, rdt);
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLTOALL, TERN_TRACE_NONE, NULL,
                                    sdt != NULL ? vec_bytes(sendcounts, wide, c->size, sdt)
                                                : vec_bytes(recvcounts, wide, c->size, rdt),
                                    vec_bytes(recvcounts, wide, c->size, rdt), NB_FORM(nb),
                                    IP(sendbuf) | TERN_TRACE_C_VECTOR));
    TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_SCOUNTS, sdt != NULL ? sendcounts : recvcounts,
                                      wide, c->size, sdt != NULL ? sdt : rdt));
    TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_RCOUNTS, recvcounts, wide, c->size, rdt));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_alltoallv(sendbuf, &sb, recvbuf, &rb, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                            const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                            const tn_mpi_call_t *call)
{
    return alltoallv(call->fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, call->wide, comm, tn_mpi_nbc_of(call));
}

/* One side of an alltoallw: counts, byte displacements and one type per
 * rank, converted into dts[0..n). */
static int alltoallw_side(const char *fn, tn_comm_t *c, const void *buf, const void *counts,
                          const void *displs, const MPI_Datatype types[], int wide,
                          const char *side, const tn_dt_t **dts)
{
    char counts_arg[16], displs_arg[16], types_arg[16], buf_arg[16];
    int i, rc;

    snprintf(counts_arg, sizeof counts_arg, "%scounts", side);
    snprintf(displs_arg, sizeof displs_arg, "%sdispls", side[0] == 's' ? "s" : "r");
    snprintf(types_arg, sizeof types_arg, "%stypes", side);
    snprintf(buf_arg, sizeof buf_arg, "%sbuf", side);
    if ((rc = check_counts(fn, c, counts, wide, c->size, counts_arg, NULL)) ||
        (rc = check_displs(fn, c, displs, c->size, displs_arg))) {
        return rc;
    }
    if (types == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, types_arg, "NULL array");
    }
    for (i = 0; i < c->size; i++) {
        if ((rc = tn_mpi_check_dt(fn, c, types[i], types_arg, &dts[i])) ||
            (rc = tn_mpi_check_buf(fn, c, w_block(buf, displs, wide, i),
                                   vec_at(counts, wide, i), dts[i], buf_arg))) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

static int alltoallw(const char *fn, const void *sendbuf, const void *sendcounts,
                     const void *sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                     const void *recvcounts, const void *rdispls,
                     const MPI_Datatype recvtypes[], int wide, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t **dts;
    tn_coll_blocks_t sb, rb;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_alltoall(fn, c, sendbuf, sendcounts, sdispls, 0, MPI_DATATYPE_NULL,
                                     sendtypes, recvbuf, recvcounts, rdispls, 0,
                                     MPI_DATATYPE_NULL, recvtypes, wide, nb);
    }
    dts = calloc(2 * (size_t)c->size, sizeof *dts);
    if (dts == NULL) {
        return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
    }
    if ((rc = alltoallw_side(fn, c, recvbuf, recvcounts, rdispls, recvtypes, wide, "recv",
                             dts + c->size)) ||
        (sendbuf != MPI_IN_PLACE &&
         (rc = alltoallw_side(fn, c, sendbuf, sendcounts, sdispls, sendtypes, wide, "send",
                              dts)))) {
        free(dts);
        return rc;
    }
    blocks_set(&sb, sendcounts, sdispls, wide, NULL);
    sb.dts = dts;
    blocks_set(&rb, recvcounts, rdispls, wide, NULL);
    rb.dts = dts + c->size;
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_ALLTOALL, TERN_TRACE_NONE, NULL,
                                    blocks_bytes(sendbuf == MPI_IN_PLACE ? &rb : &sb, c->size),
                                    blocks_bytes(&rb, c->size), NB_FORM(nb),
                                    IP(sendbuf) | TERN_TRACE_C_VECTOR));
    TN_MPI_TRACE(tn_mpi_trace_blocks_(TERN_TRACE_I_SCOUNTS,
                                      sendbuf == MPI_IN_PLACE ? &rb : &sb, c->size));
    TN_MPI_TRACE(tn_mpi_trace_blocks_(TERN_TRACE_I_RCOUNTS, &rb, c->size));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        free(dts);
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_alltoallv(sendbuf, &sb, recvbuf, &rb, c);
    tn_mpi_leave();
    free(dts);
    return coll_done(fn, c, st);
}

int tn_mpi_family_Alltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const void *recvcounts, const void *rdispls,
                            const MPI_Datatype recvtypes[], MPI_Comm comm,
                            const tn_mpi_call_t *call)
{
    return alltoallw(call->fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, call->wide, comm, tn_mpi_nbc_of(call));
}

/* ---- reduce_scatter / reduce_scatter_block -------------------------------- */
/* block: the block form with recvcount each (counts unused). */
static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, int block,
                          const void *counts, int wide, int64_t recvcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_coll_blocks_t rc_blocks;
    tn_comm_t *c = NULL;
    int64_t total = 0, mine;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb))) {
        return rc;
    }
    if (c->remote != NULL) {
        return tn_mpi_inter_reduce_scatter(fn, c, sendbuf, recvbuf, block ? NULL : counts,
                                           wide, recvcount, datatype, op, nb);
    }
    if (!block) {
        if ((rc = check_counts(fn, c, counts, wide, c->size, "recvcounts", &total))) {
            return rc;
        }
        mine = vec_at(counts, wide, c->rank);
    } else {
        if ((rc = tn_mpi_check_count(fn, c, recvcount, "recvcount"))) {
            return rc;
        }
        mine = recvcount;
        total = recvcount * c->size;
    }
    if ((rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o))) {
        return rc;
    }
    if (sendbuf == MPI_IN_PLACE) {
        if ((rc = tn_mpi_check_buf(fn, c, recvbuf, total, dt, "recvbuf"))) {
            return rc;
        }
    } else {
        if ((rc = tn_mpi_check_buf(fn, c, recvbuf, mine, dt, "recvbuf")) ||
            (rc = tn_mpi_check_buf(fn, c, sendbuf, total, dt, "sendbuf"))) {
            return rc;
        }
        if (mine > 0 && sendbuf == recvbuf) {
            return alias_err(fn, c);
        }
    }
    blocks_set(&rc_blocks, block ? NULL : counts, NULL, wide, dt);
    rc_blocks.count = (size_t)recvcount;
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_REDUCE_SCATTER, TERN_TRACE_NONE, o,
                                    dt_bytes(total, dt), dt_bytes(mine, dt), NB_FORM(nb),
                                    IP(sendbuf) | (block ? 0 : TERN_TRACE_C_VECTOR)));
    if (!block) {
        TN_MPI_TRACE(tn_mpi_trace_counts_(TERN_TRACE_I_RCOUNTS, counts, wide, c->size, dt));
    }
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_reduce_scatter(s, sendbuf, recvbuf, &rc_blocks, o, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = tn_coll_reduce_scatter(sendbuf, recvbuf, &rc_blocks, o, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Reduce_scatter(const void *sendbuf, void *recvbuf, const void *recvcounts,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const tn_mpi_call_t *call)
{
    return reduce_scatter(call->fn, sendbuf, recvbuf, 0, recvcounts, call->wide, 0,
                          datatype, op, comm, tn_mpi_nbc_of(call));
}

int tn_mpi_family_Reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       const tn_mpi_call_t *call)
{
    return reduce_scatter(call->fn, sendbuf, recvbuf, 1, NULL, call->wide, recvcount,
                          datatype, op, comm, tn_mpi_nbc_of(call));
}

/* ---- scan / exscan -------------------------------------------------------- */
static int scan(const char *fn, const void *sendbuf, void *recvbuf, int64_t count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int exclusive, const nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_comm_t *c = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, &c)) || (rc = nbc_check(fn, c, nb)) ||
        (rc = tn_mpi_check_intra(fn, c, "comm")) ||
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
    if (nb == NULL && count == 0) {
        return MPI_SUCCESS;
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, exclusive ? TERN_TRACE_EXSCAN : TERN_TRACE_SCAN,
                                    TERN_TRACE_NONE, o, dt_bytes(count, dt), dt_bytes(count, dt),
                                    NB_FORM(nb), IP(sendbuf)));
    if (nb != NULL) {
        tn_mpi_enter();
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_scan(s, sendbuf, recvbuf, (size_t)count, dt, o, exclusive, c);
        }
        rc = nbc_finish(fn, c, s, nb);
        tn_mpi_leave();
        return rc;
    }
    tn_mpi_enter();
    st = exclusive ? tn_coll_exscan(sendbuf, recvbuf, (size_t)count, dt, o, c)
                   : tn_coll_scan(sendbuf, recvbuf, (size_t)count, dt, o, c);
    tn_mpi_leave();
    return coll_done(fn, c, st);
}

int tn_mpi_family_Scan(const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       const tn_mpi_call_t *call)
{
    return scan(call->fn, sendbuf, recvbuf, count, datatype, op, comm, 0, tn_mpi_nbc_of(call));
}

int tn_mpi_family_Exscan(const void *sendbuf, void *recvbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         const tn_mpi_call_t *call)
{
    return scan(call->fn, sendbuf, recvbuf, count, datatype, op, comm, 1, tn_mpi_nbc_of(call));
}

/* ---- neighbourhood collectives -------------------------------------------- */
/* Blocking ones run the same schedule and wait for it. */
static int nbr_run(const char *fn, tn_comm_t *c, tn_sched_t *s, const nbc_t *nb)
{
    MPI_Request h = MPI_REQUEST_NULL;
    nbc_t self = { fn, TN_MPI_CALL_NONBLOCKING, 0, &h, MPI_INFO_NULL };
    int rc = nbc_commit(fn, c, s, nb != NULL ? nb : &self, nb != NULL);

    if (nb != NULL || rc != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req = (tn_req_t *)(void *)h;
    tn_status_t st = tn_req_wait(req, NULL);
    tn_req_free(req);
    return coll_done(fn, c, st);
}

/* The communicator with its topology, and the degrees. */
static int nbr_comm(const char *fn, MPI_Comm comm, const nbc_t *nb, tn_comm_t **c_p,
                    int *indeg_p, int *outdeg_p)
{
    int rc;

    if ((rc = tn_mpi_check_comm(fn, comm, c_p)) || (rc = nbc_check(fn, *c_p, nb))) {
        return rc;
    }
    if ((*c_p)->topo == NULL) {
        return tn_mpi_err(*c_p, MPI_ERR_TOPOLOGY, fn, "comm", "the communicator has no "
                          "Cartesian, graph or distributed graph topology");
    }
    tn_topo_neighbors((*c_p)->topo, (*c_p)->rank, indeg_p, outdeg_p, NULL, NULL);
    return MPI_SUCCESS;
}

/* recvcounts == NULL: allgather with recvcount each. */
static int nbr_allgather(const char *fn, const void *sendbuf, int64_t sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int64_t recvcount,
                         const void *recvcounts, const void *displs, int wide,
                         MPI_Datatype recvtype, MPI_Comm comm, const nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t rb;
    tn_comm_t *c = NULL;
    int rc, indeg, outdeg;
    int64_t total = recvcount;

    if ((rc = nbr_comm(fn, comm, nb, &c, &indeg, &outdeg)) ||
        (rc = tn_mpi_check_count(fn, c, sendcount, "sendcount")) ||
        (rc = tn_mpi_check_dt(fn, c, sendtype, "sendtype", &sdt)) ||
        (rc = tn_mpi_check_buf(fn, c, sendbuf, sendcount, sdt, "sendbuf"))) {
        return rc;
    }
    if (recvcounts != NULL) {
        if ((rc = check_counts(fn, c, recvcounts, wide, indeg, "recvcounts", &total)) ||
            (rc = check_displs(fn, c, displs, indeg, "displs"))) {
            return rc;
        }
    } else if ((rc = tn_mpi_check_count(fn, c, recvcount, "recvcount"))) {
        return rc;
    } else {
        total = recvcount * indeg;
    }
    if ((rc = tn_mpi_check_dt(fn, c, recvtype, "recvtype", &rdt)) ||
        (rc = tn_mpi_check_buf(fn, c, recvbuf, total, rdt, "recvbuf"))) {
        return rc;
    }
    blocks_set(&rb, recvcounts, displs, wide, rdt);
    rb.count = (size_t)recvcount;
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_NBR_ALLGATHER, TERN_TRACE_NONE, NULL,
                                    dt_bytes(sendcount, sdt) * (uint64_t)outdeg,
                                    dt_bytes(total, rdt), NB_FORM(nb),
                                    TERN_TRACE_C_NEIGHBOR |
                                    (recvcounts != NULL ? TERN_TRACE_C_VECTOR : 0)));
    if (__builtin_expect(tn_trace_on, 0)) {
        tn_coll_blocks_t one = { NULL, NULL, 0, (size_t)sendcount, sdt, NULL, 0 };
        tn_mpi_trace_nbrs_(c);
        tn_mpi_trace_blocks_(TERN_TRACE_I_SCOUNTS, &one, outdeg);
        tn_mpi_trace_blocks_(TERN_TRACE_I_RCOUNTS, &rb, indeg);
    }
    tn_mpi_enter();
    tn_sched_t *s = tn_sched_new(c);
    if (s != NULL) {
        tn_nbc_neighbor_allgather(s, sendbuf, (size_t)sendcount, sdt, recvbuf, &rb, c);
    }
    rc = nbr_run(fn, c, s, nb);
    tn_mpi_leave();
    return rc;
}

/* One side of a neighbour alltoall: uniform (counts == NULL: count each of
 * type), v (counts, displs in elements) or w (types != NULL: displs in
 * bytes, always MPI_Aint).  Fills b; *wide_counts_p gets an int64 copy of
 * int counts for w (freed by the caller). */
static int nbr_side(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                    const void *counts, const void *displs, int wide, MPI_Datatype type,
                    const MPI_Datatype *types, int deg, const char *side,
                    tn_coll_blocks_t *b, const tn_dt_t **dts, int64_t **wide_counts_p)
{
    char a_buf[16], a_counts[16], a_displs[16], a_type[16];
    const tn_dt_t *dt = NULL;
    int64_t total = count * deg;
    int rc;

    snprintf(a_buf, sizeof a_buf, "%sbuf", side);
    snprintf(a_counts, sizeof a_counts, "%scounts", side);
    snprintf(a_displs, sizeof a_displs, "%sdispls", side[0] == 's' ? "s" : "r");
    snprintf(a_type, sizeof a_type, "%stype%s", side, types != NULL ? "s" : "");
    if (counts == NULL) {
        if ((rc = tn_mpi_check_count(fn, c, count, a_counts))) {
            return rc;
        }
    } else if ((rc = check_counts(fn, c, counts, wide, deg, a_counts, &total)) ||
               (rc = check_displs(fn, c, displs, deg, a_displs))) {
        return rc;
    }
    if (types == NULL) {
        if ((rc = tn_mpi_check_dt(fn, c, type, a_type, &dt)) ||
            (rc = tn_mpi_check_buf(fn, c, buf, total, dt, a_buf))) {
            return rc;
        }
        blocks_set(b, counts, displs, wide, dt);
        b->count = (size_t)count;
        return MPI_SUCCESS;
    }
    int64_t *wc = malloc(((size_t)deg + 1) * sizeof(*wc));
    if (wc == NULL) {
        return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
    }
    for (int i = 0; i < deg; i++) {
        wc[i] = vec_at(counts, wide, i);
        if ((rc = tn_mpi_check_dt(fn, c, types[i], a_type, &dts[i])) ||
            (rc = tn_mpi_check_buf(fn, c, w_block(buf, displs, 1, i), wc[i], dts[i],
                                   a_buf))) {
            free(wc);
            return rc;
        }
    }
    blocks_set(b, wc, displs, 1, NULL);
    b->dts = dts;
    *wide_counts_p = wc;
    return MPI_SUCCESS;
}

static int nbr_alltoall(const char *fn, const void *sendbuf, int64_t sendcount,
                        const void *sendcounts, const void *sdispls, MPI_Datatype sendtype,
                        const MPI_Datatype *sendtypes, void *recvbuf, int64_t recvcount,
                        const void *recvcounts, const void *rdispls, MPI_Datatype recvtype,
                        const MPI_Datatype *recvtypes, int wide, MPI_Comm comm, const nbc_t *nb)
{
    tn_coll_blocks_t sb, rb;
    tn_comm_t *c = NULL;
    const tn_dt_t **dts = NULL;
    int64_t *swc = NULL, *rwc = NULL;
    int rc, indeg, outdeg;

    if ((rc = nbr_comm(fn, comm, nb, &c, &indeg, &outdeg))) {
        return rc;
    }
    if (sendtypes != NULL || recvtypes != NULL) {
        dts = calloc((size_t)indeg + (size_t)outdeg + 1, sizeof(*dts));
        if (dts == NULL) {
            return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
        }
    }
    if ((sendcounts == NULL && sendtypes != NULL) || (recvcounts == NULL && recvtypes != NULL)) {
        free(dts);
        return tn_mpi_err(c, MPI_ERR_ARG, fn, sendcounts == NULL ? "sendcounts" : "recvcounts",
                          "NULL array");
    }
    if ((rc = nbr_side(fn, c, sendbuf, sendcount, sendcounts, sdispls, wide, sendtype,
                       sendtypes, outdeg, "send", &sb, dts, &swc)) ||
        (rc = nbr_side(fn, c, recvbuf, recvcount, recvcounts, rdispls, wide, recvtype,
                       recvtypes, indeg, "recv", &rb, dts == NULL ? NULL : dts + outdeg,
                       &rwc))) {
        free(swc);
        free(dts);
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_coll_(c, TERN_TRACE_NBR_ALLTOALL, TERN_TRACE_NONE, NULL,
                                    blocks_bytes(&sb, outdeg), blocks_bytes(&rb, indeg),
                                    NB_FORM(nb),
                                    TERN_TRACE_C_NEIGHBOR |
                                    (sendcounts != NULL ? TERN_TRACE_C_VECTOR : 0)));
    TN_MPI_TRACE(tn_mpi_trace_nbrs_(c));
    TN_MPI_TRACE(tn_mpi_trace_blocks_(TERN_TRACE_I_SCOUNTS, &sb, outdeg));
    TN_MPI_TRACE(tn_mpi_trace_blocks_(TERN_TRACE_I_RCOUNTS, &rb, indeg));
    tn_mpi_enter();
    tn_sched_t *s = tn_sched_new(c);
    if (s != NULL) {
        tn_nbc_neighbor_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    }
    rc = nbr_run(fn, c, s, nb);
    tn_mpi_leave();
    free(swc);
    free(rwc);
    free(dts);
    return rc;
}

int tn_mpi_family_Neighbor_allgather(const void *sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype recvtype, MPI_Comm comm,
                                     const tn_mpi_call_t *call)
{
    return nbr_allgather(call->fn, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, NULL, NULL, call->wide, recvtype, comm,
                         tn_mpi_nbc_of(call));
}

int tn_mpi_family_Neighbor_allgatherv(const void *sendbuf, MPI_Count sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const void *recvcounts, const void *displs,
                                      MPI_Datatype recvtype, MPI_Comm comm,
                                      const tn_mpi_call_t *call)
{
    return nbr_allgather(call->fn, sendbuf, sendcount, sendtype, recvbuf,
                         0, recvcounts, displs, call->wide, recvtype, comm,
                         tn_mpi_nbc_of(call));
}

int tn_mpi_family_Neighbor_alltoall(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    const tn_mpi_call_t *call)
{
    return nbr_alltoall(call->fn, sendbuf, sendcount, NULL, NULL, sendtype,
                        NULL, recvbuf, recvcount, NULL, NULL, recvtype, NULL, call->wide, comm,
                        tn_mpi_nbc_of(call));
}

int tn_mpi_family_Neighbor_alltoallv(const void *sendbuf, const void *sendcounts,
                                     const void *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                     const void *recvcounts, const void *rdispls,
                                     MPI_Datatype recvtype, MPI_Comm comm,
                                     const tn_mpi_call_t *call)
{
    return nbr_alltoall(call->fn, sendbuf, 0, sendcounts, sdispls, sendtype,
                        NULL, recvbuf, 0, recvcounts, rdispls, recvtype, NULL, call->wide, comm,
                        tn_mpi_nbc_of(call));
}

int tn_mpi_family_Neighbor_alltoallw(const void *sendbuf, const void *sendcounts,
                                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const void *recvcounts,
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm comm, const tn_mpi_call_t *call)
{
    return nbr_alltoall(call->fn, sendbuf, 0, sendcounts, sdispls,
                        MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls,
                        MPI_DATATYPE_NULL, recvtypes, call->wide, comm, tn_mpi_nbc_of(call));
}


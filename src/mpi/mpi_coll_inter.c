/* MPI collectives on intercommunicators: argument checks, then the
 * blocking algorithm of src/coll/inter or, for the nonblocking and
 * persistent forms, its schedule (coll/nbc/nbc_inter_*.c); see
 * mpi_coll_inter.h. */
#include <stdlib.h>
#include "mpi/mpi_coll_inter.h"
#include "coll/inter/coll_inter.h"
#include "coll/coll_sched.h"

static int done(const char *fn, tn_comm_t *c, tn_status_t st)
{
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_err_status(c, st, fn);
}

/* Commit a built schedule s (NULL: out of memory) into *nb->req (lock
 * held). */
static tn_status_t commit(tn_sched_t *s, const tn_mpi_nbc_t *nb)
{
    tn_req_t *req = NULL;
    tn_status_t st = s == NULL ? TN_ERR_NOMEM
                               : tn_sched_commit(s, nb->kind == TN_MPI_CALL_PERSISTENT, &req);

    if (st == TN_OK) {
        *nb->req = (MPI_Request)(void *)req;
    }
    return st;
}

/* A rank that takes no part (an MPI_PROC_NULL root): nothing to do, or an
 * empty schedule that completes as soon as it starts. */
static int no_part(const char *fn, tn_comm_t *c, const tn_mpi_nbc_t *nb)
{
    tn_status_t st;

    if (nb == NULL) {
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    st = commit(tn_sched_new(c), nb);
    tn_mpi_leave();
    return done(fn, c, st);
}

/* MPI_ROOT, MPI_PROC_NULL or a rank of the remote group. */
static int check_root(const char *fn, tn_comm_t *c, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote->size)) {
        return MPI_SUCCESS;
    }
    return tn_mpi_err(c, MPI_ERR_ROOT, fn, "root",
                      "root %d is not MPI_ROOT, MPI_PROC_NULL nor in [0, %d) of the remote "
                      "group", root, c->remote->size);
}

static int no_inplace(const char *fn, tn_comm_t *c, const void *buf, const char *arg)
{
    if (buf == MPI_IN_PLACE) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, arg,
                          "MPI_IN_PLACE is not allowed on an intercommunicator");
    }
    return MPI_SUCCESS;
}

/* count, type and buffer of one side. */
static int check_side(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                      MPI_Datatype type, const char *cname, const char *tname,
                      const char *bname, const tn_dt_t **dt_p)
{
    int rc;

    if ((rc = no_inplace(fn, c, buf, bname)) ||
        (rc = tn_mpi_check_count(fn, c, count, cname)) ||
        (rc = tn_mpi_check_dt(fn, c, type, tname, dt_p)) ||
        (rc = tn_mpi_check_buf(fn, c, buf, count, *dt_p, bname))) {
        return rc;
    }
    return MPI_SUCCESS;
}

static int64_t vec_at(const void *a, int wide, int i)
{
    return wide ? ((const int64_t *)a)[i] : ((const int *)a)[i];
}

/* n counts (and displacements when displs_name): present and not negative. */
static int check_vec(const char *fn, tn_comm_t *c, const void *counts, const void *displs,
                     int wide, int n, const char *cname, const char *dname)
{
    int i;

    if (counts == NULL && n > 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, cname, "NULL array");
    }
    if (dname != NULL && displs == NULL && n > 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, dname, "NULL array");
    }
    for (i = 0; i < n; i++) {
        if (vec_at(counts, wide, i) < 0) {
            return tn_mpi_err(c, MPI_ERR_COUNT, fn, cname, "%s[%d] = %lld is negative", cname,
                              i, (long long)vec_at(counts, wide, i));
        }
    }
    return MPI_SUCCESS;
}

static void blocks(tn_coll_blocks_t *b, const void *counts, const void *displs, int wide,
                   int64_t count, const tn_dt_t *dt)
{
    b->counts = counts;
    b->displs = displs;
    b->wide = wide;
    b->count = (size_t)count;
    b->dt = dt;
    b->dts = NULL;
}

int tn_mpi_inter_barrier(const char *fn, tn_comm_t *c, const tn_mpi_nbc_t *nb)
{
    tn_status_t st;

    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_barrier(s, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_barrier(c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_bcast(const char *fn, tn_comm_t *c, void *buf, int64_t count,
                       MPI_Datatype type, int root, const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    tn_status_t st;
    int rc;

    if ((rc = check_root(fn, c, root))) {
        return rc;
    }
    if (root == MPI_PROC_NULL) {
        return no_part(fn, c, nb);
    }
    if ((rc = check_side(fn, c, buf, count, type, "count", "datatype", "buffer", &dt))) {
        return rc;
    }
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_bcast(s, buf, (size_t)count, dt, root, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_bcast(buf, (size_t)count, dt, root, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_reduce(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                        int64_t count, MPI_Datatype type, MPI_Op op, int root,
                        const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_status_t st;
    int rc;

    if ((rc = check_root(fn, c, root))) {
        return rc;
    }
    if (root == MPI_PROC_NULL) {
        return no_part(fn, c, nb);
    }
    if ((rc = root == MPI_ROOT ? check_side(fn, c, rbuf, count, type, "count", "datatype",
                                            "recvbuf", &dt)
                               : check_side(fn, c, sbuf, count, type, "count", "datatype",
                                            "sendbuf", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o))) {
        return rc;
    }
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_reduce(s, sbuf, rbuf, (size_t)count, dt, o, root, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_reduce(sbuf, rbuf, (size_t)count, dt, o, root, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_allreduce(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                           int64_t count, MPI_Datatype type, MPI_Op op, const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_status_t st;
    int rc;

    if ((rc = check_side(fn, c, sbuf, count, type, "count", "datatype", "sendbuf", &dt)) ||
        (rc = check_side(fn, c, rbuf, count, type, "count", "datatype", "recvbuf", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o))) {
        return rc;
    }
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_allreduce(s, sbuf, rbuf, (size_t)count, dt, o, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_allreduce(sbuf, rbuf, (size_t)count, dt, o, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_gather(const char *fn, tn_comm_t *c, const void *sbuf, int64_t scount,
                        MPI_Datatype stype, void *rbuf, const void *rcounts,
                        const void *displs, int wide, int64_t rcount, MPI_Datatype rtype,
                        int root, const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t rb;
    tn_status_t st;
    int rc;

    if ((rc = check_root(fn, c, root))) {
        return rc;
    }
    if (root == MPI_PROC_NULL) {
        return no_part(fn, c, nb);
    }
    if (root == MPI_ROOT) {
        if ((rc = no_inplace(fn, c, rbuf, "recvbuf")) ||
            (rc = tn_mpi_check_dt(fn, c, rtype, "recvtype", &rdt))) {
            return rc;
        }
        if (displs != NULL || rcounts != NULL) {
            rc = check_vec(fn, c, rcounts, displs, wide, c->remote->size, "recvcounts",
                           "displs");
        } else {
            rc = tn_mpi_check_count(fn, c, rcount, "recvcount");
            if (rc == MPI_SUCCESS) {
                rc = tn_mpi_check_buf(fn, c, rbuf, rcount * c->remote->size, rdt, "recvbuf");
            }
        }
        if (rc) {
            return rc;
        }
    } else if ((rc = check_side(fn, c, sbuf, scount, stype, "sendcount", "sendtype",
                                "sendbuf", &sdt))) {
        return rc;
    }
    blocks(&rb, rcounts, displs, wide, rcount, rdt);
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_gather(s, sbuf, (size_t)scount, sdt, rbuf, &rb, root, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_gather(sbuf, (size_t)scount, sdt, rbuf, &rb, root, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_scatter(const char *fn, tn_comm_t *c, const void *sbuf, const void *scounts,
                         const void *displs, int wide, int64_t scount, MPI_Datatype stype,
                         void *rbuf, int64_t rcount, MPI_Datatype rtype, int root,
                         const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t sb;
    tn_status_t st;
    int rc;

    if ((rc = check_root(fn, c, root))) {
        return rc;
    }
    if (root == MPI_PROC_NULL) {
        return no_part(fn, c, nb);
    }
    if (root == MPI_ROOT) {
        if ((rc = no_inplace(fn, c, sbuf, "sendbuf")) ||
            (rc = tn_mpi_check_dt(fn, c, stype, "sendtype", &sdt))) {
            return rc;
        }
        if (displs != NULL || scounts != NULL) {
            rc = check_vec(fn, c, scounts, displs, wide, c->remote->size, "sendcounts",
                           "displs");
        } else {
            rc = tn_mpi_check_count(fn, c, scount, "sendcount");
            if (rc == MPI_SUCCESS) {
                rc = tn_mpi_check_buf(fn, c, sbuf, scount * c->remote->size, sdt, "sendbuf");
            }
        }
        if (rc) {
            return rc;
        }
    } else if ((rc = check_side(fn, c, rbuf, rcount, rtype, "recvcount", "recvtype",
                                "recvbuf", &rdt))) {
        return rc;
    }
    blocks(&sb, scounts, displs, wide, scount, sdt);
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_scatter(s, sbuf, &sb, rbuf, (size_t)rcount, rdt, root, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_scatter(sbuf, &sb, rbuf, (size_t)rcount, rdt, root, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

int tn_mpi_inter_allgather(const char *fn, tn_comm_t *c, const void *sbuf, int64_t scount,
                           MPI_Datatype stype, void *rbuf, const void *rcounts,
                           const void *displs, int wide, int64_t rcount, MPI_Datatype rtype,
                           const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *sdt = NULL, *rdt = NULL;
    tn_coll_blocks_t rb;
    tn_status_t st;
    int rc;

    if ((rc = check_side(fn, c, sbuf, scount, stype, "sendcount", "sendtype", "sendbuf",
                         &sdt)) ||
        (rc = no_inplace(fn, c, rbuf, "recvbuf")) ||
        (rc = tn_mpi_check_dt(fn, c, rtype, "recvtype", &rdt))) {
        return rc;
    }
    if (rcounts != NULL) {
        rc = check_vec(fn, c, rcounts, displs, wide, c->remote->size, "recvcounts", "displs");
    } else if ((rc = tn_mpi_check_count(fn, c, rcount, "recvcount")) == MPI_SUCCESS) {
        rc = tn_mpi_check_buf(fn, c, rbuf, rcount * c->remote->size, rdt, "recvbuf");
    }
    if (rc) {
        return rc;
    }
    blocks(&rb, rcounts, displs, wide, rcount, rdt);
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_allgather(s, sbuf, (size_t)scount, sdt, rbuf, &rb, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_allgather(sbuf, (size_t)scount, sdt, rbuf, &rb, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

/* One side of an alltoall: blocks into b; *dts_p gets a malloc'ed type
 * array for the w form. */
static int a2a_side(const char *fn, tn_comm_t *c, const void *buf, const void *counts,
                    const void *displs, int64_t count, MPI_Datatype type,
                    const MPI_Datatype *types, int wide, int send, tn_coll_blocks_t *b,
                    const tn_dt_t ***dts_p)
{
    const char *cname = send ? "sendcounts" : "recvcounts";
    const char *dname = send ? "sdispls" : "rdispls";
    const char *tname = send ? "sendtype" : "recvtype";
    const char *bname = send ? "sendbuf" : "recvbuf";
    int n = c->remote->size, i, rc;
    const tn_dt_t *dt = NULL;

    *dts_p = NULL;
    if ((rc = no_inplace(fn, c, buf, bname))) {
        return rc;
    }
    if (counts == NULL) {
        if ((rc = tn_mpi_check_count(fn, c, count, send ? "sendcount" : "recvcount")) ||
            (rc = tn_mpi_check_dt(fn, c, type, tname, &dt)) ||
            (rc = tn_mpi_check_buf(fn, c, buf, count * n, dt, bname))) {
            return rc;
        }
        blocks(b, NULL, NULL, wide, count, dt);
        return MPI_SUCCESS;
    }
    if ((rc = check_vec(fn, c, counts, displs, wide, n, cname, dname))) {
        return rc;
    }
    if (types == NULL) {
        if ((rc = tn_mpi_check_dt(fn, c, type, tname, &dt))) {
            return rc;
        }
        blocks(b, counts, displs, wide, 0, dt);
        return MPI_SUCCESS;
    }
    const tn_dt_t **dts = calloc((size_t)n + 1, sizeof(*dts));
    if (dts == NULL) {
        return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
    }
    for (i = 0; i < n; i++) {
        if ((rc = tn_mpi_check_dt(fn, c, types[i], send ? "sendtypes" : "recvtypes",
                                  &dts[i]))) {
            free(dts);
            return rc;
        }
    }
    blocks(b, counts, displs, wide, 0, dts[0]);
    b->dts = dts;
    *dts_p = dts;
    return MPI_SUCCESS;
}

int tn_mpi_inter_alltoall(const char *fn, tn_comm_t *c, const void *sbuf,
                          const void *scounts, const void *sdispls, int64_t scount,
                          MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf,
                          const void *rcounts, const void *rdispls, int64_t rcount,
                          MPI_Datatype rtype, const MPI_Datatype *rtypes, int wide,
                          const tn_mpi_nbc_t *nb)
{
    const tn_dt_t **sdts = NULL, **rdts = NULL;
    tn_coll_blocks_t sb, rb;
    tn_status_t st;
    int rc;

    if ((rc = a2a_side(fn, c, sbuf, scounts, sdispls, scount, stype, stypes, wide, 1, &sb,
                       &sdts)) ||
        (rc = a2a_side(fn, c, rbuf, rcounts, rdispls, rcount, rtype, rtypes, wide, 0, &rb,
                       &rdts))) {
        free(sdts);
        return rc;
    }
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_alltoall(s, sbuf, &sb, rbuf, &rb, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_alltoall(sbuf, &sb, rbuf, &rb, c);
    }
    tn_mpi_leave();
    free(sdts);
    free(rdts);
    return done(fn, c, st);
}

int tn_mpi_inter_reduce_scatter(const char *fn, tn_comm_t *c, const void *sbuf, void *rbuf,
                                const void *rcounts, int wide, int64_t rcount,
                                MPI_Datatype type, MPI_Op op, const tn_mpi_nbc_t *nb)
{
    const tn_dt_t *dt = NULL;
    const tn_op_t *o = NULL;
    tn_coll_blocks_t rb;
    int64_t total = 0, mine;
    tn_status_t st;
    int i, rc;

    if ((rc = no_inplace(fn, c, sbuf, "sendbuf")) ||
        (rc = tn_mpi_check_dt(fn, c, type, "datatype", &dt)) ||
        (rc = tn_mpi_check_op(fn, c, op, dt, &o))) {
        return rc;
    }
    if (rcounts != NULL) {
        if ((rc = check_vec(fn, c, rcounts, NULL, wide, c->size, "recvcounts", NULL))) {
            return rc;
        }
        for (i = 0; i < c->size; i++) {
            total += vec_at(rcounts, wide, i);
        }
        mine = vec_at(rcounts, wide, c->rank);
    } else {
        if ((rc = tn_mpi_check_count(fn, c, rcount, "recvcount"))) {
            return rc;
        }
        mine = rcount;
        total = rcount * c->size;
    }
    if ((rc = tn_mpi_check_buf(fn, c, sbuf, total, dt, "sendbuf")) ||
        (rc = tn_mpi_check_buf(fn, c, rbuf, mine, dt, "recvbuf"))) {
        return rc;
    }
    blocks(&rb, rcounts, NULL, wide, rcount, dt);
    tn_mpi_enter();
    if (nb != NULL) {
        tn_sched_t *s = tn_sched_new(c);
        if (s != NULL) {
            tn_nbc_inter_reduce_scatter(s, sbuf, rbuf, &rb, o, c);
        }
        st = commit(s, nb);
    } else {
        st = tn_coll_inter_reduce_scatter(sbuf, rbuf, &rb, o, c);
    }
    tn_mpi_leave();
    return done(fn, c, st);
}

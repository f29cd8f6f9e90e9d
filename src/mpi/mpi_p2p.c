/* Point-to-point entry points: sends, receives, probes, persistent
 * requests, counts.  Large-count (_c) variants share the same code. */
#include "mpi/mpi_p2p_impl.h"
#include "mpi/mpi_trace.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Report a receive's completion error (truncation) through the handler. */
static int tn_mpi_recv_error(const char *fn, tn_comm_t *c, const tn_msg_status_t *ms)
{
    if (ms->error == TN_OK) {
        return MPI_SUCCESS;
    }
    if (ms->error == TN_ERR_TRUNCATE) {
        return tn_mpi_err(c, MPI_ERR_TRUNCATE, fn, "count",
                          "message from rank %d (tag %d) is larger than the receive buffer "
                          "(%llu bytes)", ms->source, ms->tag, (unsigned long long)ms->bytes);
    }
    return tn_mpi_err_status(c, (tn_status_t)ms->error, fn);
}

static int tn_mpi_send_checks(const char *fn, const void *buf, int64_t count,
                              MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              tn_comm_t **c_p, const tn_dt_t **dt_p)
{
    int rc;
    if ((rc = tn_mpi_check_comm(fn, comm, c_p)) ||
        (rc = tn_mpi_check_count(fn, *c_p, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, *c_p, datatype, "datatype", dt_p)) ||
        (rc = tn_mpi_check_buf(fn, *c_p, buf, count, *dt_p, "buf")) ||
        (rc = tn_mpi_check_rank(fn, *c_p, dest, "dest", TN_RANK_PROC_NULL)) ||
        (rc = tn_mpi_check_tag(fn, *c_p, tag, 0))) {
        return rc;
    }
    return MPI_SUCCESS;
}

/* A send's item, recorded once the message is on its way: off the path
 * to the peer (before the request's item, which names it). */
static inline void tn_mpi_send_trace(tn_comm_t *c, int dest, int tag, const tn_dt_t *dt,
                                     int64_t count, tn_send_mode_t mode, int nonblocking)
{
    TN_MPI_TRACE(tn_mpi_trace_send_(c, dest, tag, tn_dt_bytes(dt, (size_t)count), (int)mode,
                                    nonblocking ? TERN_TRACE_NONBLOCKING : TERN_TRACE_BLOCKING));
}

static int tn_mpi_send_common(const char *fn, const void *buf, int64_t count,
                              MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              tn_send_mode_t mode, MPI_Request *request)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = tn_mpi_send_checks(fn, buf, count, datatype, dest, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_status_t st;
    tn_req_t *req = NULL;
    if (mode == TN_SEND_BUFFERED) {
        rc = tn_mpi_bsend_start(fn, c, buf, count, dt, dest, tag);
        tn_mpi_send_trace(c, dest, tag, dt, count, mode, request != NULL);
        if (rc == MPI_SUCCESS && request != NULL) {
            req = tn_req_new_completed();
            *request = req != NULL ? tn_mpi_req_handle(req) : MPI_REQUEST_NULL;
            TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
        }
        tn_mpi_leave();
        return rc;
    }
    if (request == NULL && mode != TN_SEND_SYNC) {
        st = tn_p2p_send(buf, (size_t)count, dt, dest, tag, c, 0);
        tn_mpi_send_trace(c, dest, tag, dt, count, mode, request != NULL);
    } else {
        st = tn_p2p_isend(buf, (size_t)count, dt, dest, tag, c, 0, mode, &req);
        tn_mpi_send_trace(c, dest, tag, dt, count, mode, request != NULL);
        if (st == TN_OK && request == NULL) {
            st = tn_req_wait(req, NULL);
            tn_req_free(req);
        } else if (st == TN_OK) {
            *request = tn_mpi_req_handle(req);
            TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
        }
    }
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    return MPI_SUCCESS;
}

static int tn_mpi_req_arg(const char *fn, tn_comm_t *c, MPI_Request *request)
{
    if (request == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- receives */

static int tn_mpi_recv_checks(const char *fn, void *buf, int64_t count, MPI_Datatype datatype,
                              int source, int tag, MPI_Comm comm, tn_comm_t **c_p,
                              const tn_dt_t **dt_p)
{
    int rc;
    if ((rc = tn_mpi_check_comm(fn, comm, c_p)) ||
        (rc = tn_mpi_check_count(fn, *c_p, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, *c_p, datatype, "datatype", dt_p)) ||
        (rc = tn_mpi_check_buf(fn, *c_p, buf, count, *dt_p, "buf")) ||
        (rc = tn_mpi_check_rank(fn, *c_p, source, "source", TN_RANK_PROC_NULL | TN_RANK_ANY)) ||
        (rc = tn_mpi_check_tag(fn, *c_p, tag, 1))) {
        return rc;
    }
    return MPI_SUCCESS;
}

static int tn_mpi_recv_common(const char *fn, void *buf, int64_t count, MPI_Datatype datatype,
                              int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = tn_mpi_recv_checks(fn, buf, count, datatype, source, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, source, tag, tn_dt_bytes(dt, (size_t)count),
                                    TERN_TRACE_BLOCKING));
    tn_msg_status_t ms;
    tn_mpi_enter();
    tn_status_t st = tn_p2p_recv(buf, (size_t)count, dt, source, tag, c, 0, &ms);
    tn_mpi_leave();
    if (st != TN_OK && st != TN_ERR_TRUNCATE) {
        return tn_mpi_err_status(c, st, fn);
    }
    TN_MPI_TRACE(tn_mpi_trace_status_(&ms));
    tn_mpi_status_set(status, &ms);
    return tn_mpi_recv_error(fn, c, &ms);
}

static int tn_mpi_irecv_common(const char *fn, void *buf, int64_t count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = tn_mpi_recv_checks(fn, buf, count, datatype, source, tag, comm, &c, &dt);
    if (rc != MPI_SUCCESS || (rc = tn_mpi_req_arg(fn, c, request)) != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req;
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, source, tag, tn_dt_bytes(dt, (size_t)count),
                                    TERN_TRACE_NONBLOCKING));
    tn_mpi_enter();
    tn_status_t st = tn_p2p_irecv(buf, (size_t)count, dt, source, tag, c, 0, &req);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *request = tn_mpi_req_handle(req);
    TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
    return MPI_SUCCESS;
}

static int tn_mpi_sendrecv_common(const char *fn, const void *sendbuf, int64_t sendcount,
                                  MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                                  int64_t recvcount, MPI_Datatype recvtype, int source,
                                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    tn_comm_t *c;
    const tn_dt_t *sdt, *rdt;
    int rc = tn_mpi_send_checks(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &sdt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = tn_mpi_recv_checks(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &c, &rdt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    TN_MPI_TRACE(tn_mpi_trace_send_(c, dest, sendtag, tn_dt_bytes(sdt, (size_t)sendcount),
                                    TERN_TRACE_STD, TERN_TRACE_BLOCKING));
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, source, recvtag, tn_dt_bytes(rdt, (size_t)recvcount),
                                    TERN_TRACE_BLOCKING));
    tn_msg_status_t ms;
    tn_mpi_enter();
    tn_status_t st = tn_p2p_sendrecv(sendbuf, (size_t)sendcount, sdt, dest, sendtag, recvbuf,
                                     (size_t)recvcount, rdt, source, recvtag, c, 0, &ms);
    tn_mpi_leave();
    if (st != TN_OK && st != TN_ERR_TRUNCATE) {
        return tn_mpi_err_status(c, st, fn);
    }
    TN_MPI_TRACE(tn_mpi_trace_status_(&ms));
    tn_mpi_status_set(status, &ms);
    return tn_mpi_recv_error(fn, c, &ms);
}

static int tn_mpi_sendrecv_replace_common(const char *fn, void *buf, int64_t count,
                                          MPI_Datatype datatype, int dest, int sendtag,
                                          int source, int recvtag, MPI_Comm comm,
                                          MPI_Status *status)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = tn_mpi_send_checks(fn, buf, count, datatype, dest, sendtag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = tn_mpi_recv_checks(fn, buf, count, datatype, source, recvtag, comm, &c, &dt);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The outgoing data leave packed, as bytes: the receive may then write
     * any layout into buf. */
    size_t bytes = tn_dt_bytes(dt, (size_t)count);
    TN_MPI_TRACE(tn_mpi_trace_send_(c, dest, sendtag, bytes, TERN_TRACE_STD, TERN_TRACE_BLOCKING));
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, source, recvtag, bytes, TERN_TRACE_BLOCKING));
    void *tmp = bytes ? malloc(bytes) : NULL;
    if (bytes && tmp == NULL) {
        return tn_mpi_err(c, MPI_ERR_NO_MEM, fn, NULL, "no memory for a %zu-byte copy", bytes);
    }
    if (bytes) {
        tn_dt_pack(dt, buf, (size_t)count, tmp);
    }
    tn_msg_status_t ms;
    tn_mpi_enter();
    tn_status_t st = tn_p2p_sendrecv(tmp, bytes, tn_dt_byte(), dest,
                                     sendtag, buf, (size_t)count, dt, source, recvtag, c, 0,
                                     &ms);
    tn_mpi_leave();
    free(tmp);
    if (st != TN_OK && st != TN_ERR_TRUNCATE) {
        return tn_mpi_err_status(c, st, fn);
    }
    TN_MPI_TRACE(tn_mpi_trace_status_(&ms));
    tn_mpi_status_set(status, &ms);
    return tn_mpi_recv_error(fn, c, &ms);
}

/* ------------------------------------------------------------ isendrecv */

static int tn_mpi_isendrecv_common(const char *fn, const void *sendbuf, int64_t sendcount,
                                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                                   int64_t recvcount, MPI_Datatype recvtype, int source,
                                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    tn_comm_t *c;
    const tn_dt_t *sdt, *rdt;
    int rc = tn_mpi_send_checks(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &sdt);
    if (rc != MPI_SUCCESS ||
        (rc = tn_mpi_recv_checks(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &c,
                                 &rdt))) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_req_t *req;
    TN_MPI_TRACE(tn_mpi_trace_send_(c, dest, sendtag, tn_dt_bytes(sdt, (size_t)sendcount),
                                    TERN_TRACE_STD, TERN_TRACE_NONBLOCKING));
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, source, recvtag, tn_dt_bytes(rdt, (size_t)recvcount),
                                    TERN_TRACE_NONBLOCKING));
    tn_mpi_enter();
    tn_status_t st = tn_p2p_isendrecv(sendbuf, (size_t)sendcount, sdt, dest, sendtag, recvbuf,
                                      (size_t)recvcount, rdt, source, recvtag, c, NULL, &req);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *request = tn_mpi_req_handle(req);
    TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
    return MPI_SUCCESS;
}

/* MPI_Sendrecv and MPI_Isendrecv, int and _c counts. */
int tn_mpi_family_Sendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status *status, const tn_mpi_call_t *call)
{
    if (call->kind == TN_MPI_CALL_NONBLOCKING) {
        return tn_mpi_isendrecv_common(call->fn, sendbuf, sendcount, sendtype, dest, sendtag,
                                       recvbuf, recvcount, recvtype, source, recvtag, comm,
                                       call->req);
    }
    return tn_mpi_sendrecv_common(call->fn, sendbuf, sendcount, sendtype, dest, sendtag,
                                  recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

static int tn_mpi_isendrecv_replace_common(const char *fn, void *buf, int64_t count,
                                           MPI_Datatype datatype, int dest, int sendtag,
                                           int source, int recvtag, MPI_Comm comm,
                                           MPI_Request *request)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = tn_mpi_send_checks(fn, buf, count, datatype, dest, sendtag, comm, &c, &dt);
    if (rc != MPI_SUCCESS ||
        (rc = tn_mpi_recv_checks(fn, buf, count, datatype, source, recvtag, comm, &c, &dt))) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    /* The outgoing data leave packed from a copy the request owns, so the
     * receive may overwrite buf at any time. */
    size_t bytes = tn_dt_bytes(dt, (size_t)count);
    void *tmp = bytes ? malloc(bytes) : NULL;
    if (bytes && tmp == NULL) {
        return tn_mpi_err(c, MPI_ERR_NO_MEM, fn, NULL, "no memory for a %zu-byte copy", bytes);
    }
    if (bytes) {
        tn_dt_pack(dt, buf, (size_t)count, tmp);
    }
    tn_req_t *req;
    tn_mpi_enter();
    tn_status_t st = tn_p2p_isendrecv(tmp, bytes, tn_dt_byte(), dest, sendtag, buf,
                                      (size_t)count, dt, source, recvtag, c, tmp, &req);
    tn_mpi_leave();
    if (st != TN_OK) {
        free(tmp);
        return tn_mpi_err_status(c, st, fn);
    }
    *request = tn_mpi_req_handle(req);
    return MPI_SUCCESS;
}

/* MPI_Sendrecv_replace and MPI_Isendrecv_replace, int and _c counts. */
int tn_mpi_family_Sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                   int sendtag, int source, int recvtag, MPI_Comm comm,
                                   MPI_Status *status, const tn_mpi_call_t *call)
{
    if (call->kind == TN_MPI_CALL_NONBLOCKING) {
        return tn_mpi_isendrecv_replace_common(call->fn, buf, count, datatype, dest, sendtag,
                                               source, recvtag, comm, call->req);
    }
    return tn_mpi_sendrecv_replace_common(call->fn, buf, count, datatype, dest, sendtag,
                                          source, recvtag, comm, status);
}

/* ---------------------------------------------------------------- probes */

static int tn_mpi_probe_checks(const char *fn, int source, int tag, MPI_Comm comm,
                               tn_comm_t **c_p)
{
    int rc;
    if ((rc = tn_mpi_check_comm(fn, comm, c_p)) ||
        (rc = tn_mpi_check_rank(fn, *c_p, source, "source", TN_RANK_PROC_NULL | TN_RANK_ANY)) ||
        (rc = tn_mpi_check_tag(fn, *c_p, tag, 1))) {
        return rc;
    }
    return MPI_SUCCESS;
}

static void tn_mpi_status_proc_null(MPI_Status *status)
{
    tn_msg_status_t ms = { MPI_PROC_NULL, MPI_ANY_TAG, TN_OK, 0, 0 };
    tn_mpi_status_set(status, &ms);
}

int tn_mpi_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    static const char fn[] = "MPI_Probe";
    tn_comm_t *c;
    int rc = tn_mpi_probe_checks(fn, source, tag, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (source == MPI_PROC_NULL) {
        tn_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tn_msg_status_t ms;
    tn_mpi_enter();
    tn_p2p_probe(source, tag, c, 0, &ms, NULL);
    tn_mpi_leave();
    tn_mpi_status_set(status, &ms);
    return MPI_SUCCESS;
}

int tn_mpi_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Iprobe";
    tn_comm_t *c;
    int rc = tn_mpi_probe_checks(fn, source, tag, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "flag", "NULL pointer");
    }
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        tn_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tn_msg_status_t ms;
    tn_mpi_enter();
    *flag = tn_p2p_iprobe(source, tag, c, 0, &ms, NULL);
    tn_mpi_leave();
    if (*flag) {
        tn_mpi_status_set(status, &ms);
    }
    return MPI_SUCCESS;
}

/* A matched message handle carries the communicator it came from. */
typedef struct {
    void      *msg;
    tn_comm_t *comm;
} tn_mpi_msg_t;

static int tn_mpi_make_message(const char *fn, tn_comm_t *c, void *msg, MPI_Message *message)
{
    tn_mpi_msg_t *m = malloc(sizeof(*m));
    if (m != NULL && tn_objreg_add(m, TN_OBJ_MSG) != TN_OK) {
        free(m);
        m = NULL;
    }
    if (m == NULL) {
        return tn_mpi_err(c, MPI_ERR_NO_MEM, fn, NULL, "out of memory");
    }
    m->msg = msg;
    m->comm = c;
    tn_comm_retain(c);
    *message = (MPI_Message)(void *)m;
    return MPI_SUCCESS;
}

int tn_mpi_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    static const char fn[] = "MPI_Mprobe";
    tn_comm_t *c;
    int rc = tn_mpi_probe_checks(fn, source, tag, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (message == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "message", "NULL pointer");
    }
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        tn_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tn_msg_status_t ms;
    void *msg;
    tn_mpi_enter();
    tn_p2p_probe(source, tag, c, 1, &ms, &msg);
    rc = tn_mpi_make_message(fn, c, msg, message);
    tn_mpi_leave();
    tn_mpi_status_set(status, &ms);
    return rc;
}

int tn_mpi_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                   MPI_Status *status)
{
    static const char fn[] = "MPI_Improbe";
    tn_comm_t *c;
    int rc = tn_mpi_probe_checks(fn, source, tag, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL || message == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, flag == NULL ? "flag" : "message", "NULL pointer");
    }
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        tn_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tn_msg_status_t ms;
    void *msg = NULL;
    tn_mpi_enter();
    *flag = tn_p2p_iprobe(source, tag, c, 1, &ms, &msg);
    rc = *flag ? tn_mpi_make_message(fn, c, msg, message) : MPI_SUCCESS;
    tn_mpi_leave();
    if (*flag) {
        tn_mpi_status_set(status, &ms);
    }
    return rc;
}

static int tn_mpi_imrecv_common(const char *fn, void *buf, int64_t count,
                                MPI_Datatype datatype, MPI_Message *message,
                                MPI_Request *request, MPI_Status *status)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    const tn_dt_t *dt;
    if (message == NULL || *message == MPI_MESSAGE_NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "message", "%s",
                          message == NULL ? "NULL pointer" : "MPI_MESSAGE_NULL is not a message");
    }
    if ((rc = tn_mpi_check_count(fn, NULL, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, NULL, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_buf(fn, NULL, buf, count, dt, "buf"))) {
        return rc;
    }
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        if (request != NULL) {
            tn_mpi_enter();
            tn_req_t *req = tn_req_new_completed();
            tn_mpi_leave();
            *request = tn_mpi_req_handle(req);
        } else {
            tn_mpi_status_proc_null(status);
        }
        return MPI_SUCCESS;
    }
    tn_mpi_msg_t *m = (tn_mpi_msg_t *)(void *)*message;
    if (!tn_objreg_has(m, TN_OBJ_MSG)) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "message", "invalid message");
    }
    tn_comm_t *c = m->comm;
    tn_req_t *req;
    TN_MPI_TRACE(tn_mpi_trace_recv_(c, MPI_ANY_SOURCE, MPI_ANY_TAG, tn_dt_bytes(dt, (size_t)count),
                                    request != NULL ? TERN_TRACE_NONBLOCKING
                                                    : TERN_TRACE_BLOCKING));
    tn_mpi_enter();
    tn_status_t st = tn_p2p_imrecv(buf, (size_t)count, dt, m->msg, c, &req);
    tn_comm_release(c);
    tn_objreg_del(m);
    free(m);
    *message = MPI_MESSAGE_NULL;
    if (st != TN_OK) {
        tn_mpi_leave();
        return tn_mpi_err_status(c, st, fn);
    }
    if (request != NULL) {
        *request = tn_mpi_req_handle(req);
        TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
        tn_mpi_leave();
        return MPI_SUCCESS;
    }
    tn_msg_status_t ms;
    tn_req_wait(req, &ms);
    tn_req_free(req);
    tn_mpi_leave();
    TN_MPI_TRACE(tn_mpi_trace_status_(&ms));
    tn_mpi_status_set(status, &ms);
    return tn_mpi_recv_error(fn, &tn_comm_world, &ms);
}

/* MPI_Mrecv and MPI_Imrecv, int and _c counts. */
int tn_mpi_family_Mrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Status *status, const tn_mpi_call_t *call)
{
    if (call->kind == TN_MPI_CALL_NONBLOCKING) {
        if (call->req == NULL) {
            return tn_mpi_err(NULL, MPI_ERR_ARG, call->fn, "request", "NULL pointer");
        }
        return tn_mpi_imrecv_common(call->fn, buf, count, datatype, message, call->req, NULL);
    }
    return tn_mpi_imrecv_common(call->fn, buf, count, datatype, message, NULL, status);
}

/* ------------------------------------------------------------ persistent */

static int tn_mpi_pinit(const char *fn, int is_send, const void *buf, int64_t count,
                        MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                        tn_send_mode_t mode, MPI_Request *request)
{
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc = is_send ? tn_mpi_send_checks(fn, buf, count, datatype, peer, tag, comm, &c, &dt)
                     : tn_mpi_recv_checks(fn, (void *)buf, count, datatype, peer, tag, comm,
                                          &c, &dt);
    if (rc != MPI_SUCCESS || (rc = tn_mpi_req_arg(fn, c, request)) != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req;
    if (is_send) {
        TN_MPI_TRACE(tn_mpi_trace_send_(c, peer, tag, tn_dt_bytes(dt, (size_t)count), (int)mode,
                                        TERN_TRACE_PERSISTENT));
    } else {
        TN_MPI_TRACE(tn_mpi_trace_recv_(c, peer, tag, tn_dt_bytes(dt, (size_t)count),
                                        TERN_TRACE_PERSISTENT));
    }
    tn_mpi_enter();
    tn_status_t st = tn_p2p_persistent_init(is_send, buf, (size_t)count, dt, peer, tag, c,
                                            mode, &req);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *request = tn_mpi_req_handle(req);
    TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_REQ, req));
    return MPI_SUCCESS;
}

/* Every send: the blocking call, or a request for the nonblocking and
 * persistent forms (whose request pointer is checked first). */
static int tn_mpi_send_family(const void *buf, int64_t count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, tn_send_mode_t mode,
                              const tn_mpi_call_t *call)
{
    if (call->kind == TN_MPI_CALL_BLOCKING) {
        return tn_mpi_send_common(call->fn, buf, count, datatype, dest, tag, comm, mode, NULL);
    }
    if (call->req == NULL) {
        return tn_mpi_req_arg(call->fn, tn_mpi_comm_get(comm), call->req);
    }
    if (call->kind == TN_MPI_CALL_PERSISTENT) {
        return tn_mpi_pinit(call->fn, 1, buf, count, datatype, dest, tag, comm, mode,
                            call->req);
    }
    return tn_mpi_send_common(call->fn, buf, count, datatype, dest, tag, comm, mode, call->req);
}


/* MPI_Send in every form: blocking, MPI_Isend, MPI_Send_init, int and _c counts. */
int tn_mpi_family_Send(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, const tn_mpi_call_t *call)
{
    return tn_mpi_send_family(buf, count, datatype, dest, tag, comm, TN_SEND_STD, call);
}

/* MPI_Ssend in every form: blocking, MPI_Issend, MPI_Ssend_init, int and _c counts. */
int tn_mpi_family_Ssend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, const tn_mpi_call_t *call)
{
    return tn_mpi_send_family(buf, count, datatype, dest, tag, comm, TN_SEND_SYNC, call);
}

/* MPI_Rsend in every form: blocking, MPI_Irsend, MPI_Rsend_init, int and _c counts. */
int tn_mpi_family_Rsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, const tn_mpi_call_t *call)
{
    return tn_mpi_send_family(buf, count, datatype, dest, tag, comm, TN_SEND_READY, call);
}

/* MPI_Bsend in every form: blocking, MPI_Ibsend, MPI_Bsend_init, int and _c counts. */
int tn_mpi_family_Bsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, const tn_mpi_call_t *call)
{
    return tn_mpi_send_family(buf, count, datatype, dest, tag, comm, TN_SEND_BUFFERED, call);
}

/* MPI_Recv, MPI_Irecv, MPI_Recv_init, int and _c counts. */
int tn_mpi_family_Recv(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status, const tn_mpi_call_t *call)
{
    switch (call->kind) {
    case TN_MPI_CALL_BLOCKING:
        return tn_mpi_recv_common(call->fn, buf, count, datatype, source, tag, comm, status);
    case TN_MPI_CALL_NONBLOCKING:
        return tn_mpi_irecv_common(call->fn, buf, count, datatype, source, tag, comm,
                                   call->req);
    default:
        return tn_mpi_pinit(call->fn, 0, buf, count, datatype, source, tag, comm, TN_SEND_STD,
                            call->req);
    }
}

/* Start one persistent request (lock held). */
static int tn_mpi_start_one(const char *fn, MPI_Request *request)
{
    tn_req_t *req = tn_mpi_req_get(*request);
    if (req == NULL || !tn_req_is_persistent(req)) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "%s",
                          req == NULL ? "not a valid request" : "not a persistent request");
    }
    if (tn_req_is_active(req)) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "request is already active");
    }
    TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_START, req));
    tn_send_mode_t mode;
    const void *buf;
    size_t count;
    const tn_dt_t *dt;
    int peer, tag;
    tn_comm_t *c;
    tn_req_get_args(req, &buf, &count, &dt, &peer, &tag, &c, &mode);
    if (tn_req_kind(req) == TN_REQ_SEND && mode == TN_SEND_BUFFERED) {
        /* buffered: the data is copied out now; the request completes at once */
        int rc = peer == MPI_PROC_NULL ? MPI_SUCCESS
                                       : tn_mpi_bsend_start(fn, c, buf, (int64_t)count, dt,
                                                            peer, tag);
        tn_req_set_started_complete(req);
        return rc;
    }
    tn_status_t st = tn_p2p_start(req);
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Start(MPI_Request *request)
{
    int rc = tn_mpi_check_init("MPI_Start");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Start", "request", "NULL pointer");
    }
    tn_mpi_enter();
    rc = tn_mpi_start_one("MPI_Start", request);
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Startall(int count, MPI_Request array_of_requests[])
{
    static const char fn[] = "MPI_Startall";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS || (rc = tn_mpi_check_count(fn, NULL, count, "count"))) {
        return rc;
    }
    if (count > 0 && array_of_requests == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_requests", "NULL pointer");
    }
    tn_mpi_enter();
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rc = tn_mpi_start_one(fn, &array_of_requests[i]);
    }
    tn_mpi_leave();
    return rc;
}

/* ---------------------------------------------------------------- counts */

static int tn_mpi_count_common(const char *fn, const MPI_Status *status, MPI_Datatype datatype,
                               int64_t *count_p, int elements)
{
    const tn_dt_t *dt;
    int rc;
    if (status == NULL || status == MPI_STATUS_IGNORE) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "status", "NULL status");
    }
    if ((rc = tn_mpi_check_dt(fn, NULL, datatype, "datatype", &dt)) != MPI_SUCCESS) {
        return rc;
    }
    uint64_t bytes = tn_mpi_status_bytes(status);
    *count_p = 0;
    if (dt->size == 0) {
        return MPI_SUCCESS;
    }
    if (!elements) {
        *count_p = bytes % dt->size ? MPI_UNDEFINED : (int64_t)(bytes / dt->size);
    } else {
        int64_t n = tn_dt_count_elements(dt, bytes);
        *count_p = n < 0 ? MPI_UNDEFINED : n;
    }
    return MPI_SUCCESS;
}

/* MPI_Get_count and MPI_Get_count_c (count: int * or MPI_Count *). */
int tn_mpi_family_Get_count(const MPI_Status *status, MPI_Datatype datatype, void *count,
                         const tn_mpi_call_t *call)
{
    int64_t n = 0;
    if (count == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, call->fn, "count", "NULL pointer");
    }
    int rc = tn_mpi_count_common(call->fn, status, datatype, &n, 0);
    if (rc == MPI_SUCCESS && call->wide) {
        *(MPI_Count *)count = n;
    } else if (rc == MPI_SUCCESS) {
        *(int *)count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return rc;
}

/* MPI_Get_elements and MPI_Get_elements_c (count: int * or MPI_Count *). */
int tn_mpi_family_Get_elements(const MPI_Status *status, MPI_Datatype datatype, void *count,
                            const tn_mpi_call_t *call)
{
    int64_t n = 0;
    if (count == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, call->fn, "count", "NULL pointer");
    }
    int rc = tn_mpi_count_common(call->fn, status, datatype, &n, 1);
    if (rc == MPI_SUCCESS && call->wide) {
        *(MPI_Count *)count = n;
    } else if (rc == MPI_SUCCESS) {
        *(int *)count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return rc;
}


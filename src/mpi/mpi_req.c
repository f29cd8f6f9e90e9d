/* Completion: Wait/Test and their any/all/some forms, Request_free,
 * Request_get_status, Cancel. */
#include "mpi/mpi_p2p_impl.h"
#include "mpi/mpi_trace.h"

#include <stdlib.h>

/* A request slot is "null" when it holds MPI_REQUEST_NULL or an inactive
 * persistent request: such slots complete at once with an empty status. */
static int tn_mpi_slot_null(tn_req_t *req)
{
    return req == NULL || (tn_req_is_persistent(req) && !tn_req_is_active(req));
}

static int tn_mpi_check_reqs(const char *fn, int count, MPI_Request reqs[])
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS || (rc = tn_mpi_check_count(fn, NULL, count, "count"))) {
        return rc;
    }
    if (count > 0 && reqs == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "array_of_requests", "NULL pointer");
    }
    for (int i = 0; i < count; i++) {
        if (reqs[i] != MPI_REQUEST_NULL && tn_mpi_req_get(reqs[i]) == NULL) {
            return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "array_of_requests",
                              "entry %d is not a valid request", i);
        }
    }
    return MPI_SUCCESS;
}

/* Freeing or cancelling an active partitioned request that has not
 * completed is erroneous (MPI-4.1 section 5.2.1). */
static int tn_mpi_part_busy(tn_req_t *req)
{
    return tn_part_kind(req) != 0 && tn_req_is_active(req) && !tn_req_is_complete(req);
}

/* ---- generalized requests (MPI_Grequest_start) ---- */
typedef struct {
    MPI_Grequest_query_function  *query_fn;
    MPI_Grequest_free_function   *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void                         *extra_state;
    int                           freed;   /* free_fn has run */
} tn_mpi_greq_t;

/* Status of a complete generalized request: ask query_fn; its return value
 * is the request's error (lock held).  MPI_ERROR stays the caller's: the
 * completion call decides whether the error goes there (MPI-4.1 13.2). */
static int tn_mpi_greq_query(tn_req_t *req, MPI_Status *status)
{
    tn_mpi_greq_t *g = req->ext;
    MPI_Status tmp;
    tn_mpi_status_empty(&tmp);
    tmp.MPI_SOURCE = MPI_UNDEFINED;
    tmp.MPI_TAG = MPI_UNDEFINED;
    tmp.MPI_ERROR = MPI_SUCCESS;
    int err = g->query_fn != NULL ? g->query_fn(g->extra_state, &tmp) : MPI_SUCCESS;
    if (status != MPI_STATUS_IGNORE) {
        tmp.MPI_ERROR = status->MPI_ERROR;
        *status = tmp;
    }
    return err;
}

static int tn_mpi_greq_free(tn_req_t *req)
{
    tn_mpi_greq_t *g = req->ext;
    int err = MPI_SUCCESS;
    if (!g->freed) {
        g->freed = 1;
        err = g->free_fn != NULL ? g->free_fn(g->extra_state) : MPI_SUCCESS;
    }
    return err;
}

/* Release a request; a generalized one's state goes with it. */
static void tn_mpi_req_release(tn_req_t *req)
{
    void *ext = req->ext;
    int done = tn_req_is_complete(req);
    tn_req_free(req);
    if (done) {
        free(ext);   /* else MPI_Grequest_complete frees it */
    }
}

/* Status of a complete request without retiring it (lock held). */
static int tn_mpi_req_status_of(tn_req_t *req, MPI_Status *status)
{
    if (req->ext != NULL) {
        return tn_mpi_greq_query(req, status);
    }
    tn_mpi_status_set(status, tn_req_status(req));
    return tn_mpi_class_of((tn_status_t)tn_req_status(req)->error);
}

/* Retire a completed request: fill status, free or deactivate it, return
 * its error class (lock held). */
static int tn_mpi_retire(MPI_Request *h, MPI_Status *status)
{
    tn_req_t *req = tn_mpi_req_get(*h);
    TN_MPI_TRACE(tn_mpi_trace_done_(req));
    if (req->ext != NULL) {
        int err = tn_mpi_greq_query(req, status);
        int ferr = tn_mpi_greq_free(req);
        tn_mpi_req_release(req);
        *h = MPI_REQUEST_NULL;
        return err != MPI_SUCCESS ? err : ferr;
    }
    const tn_msg_status_t *ms = tn_req_status(req);
    int err = tn_mpi_class_of((tn_status_t)ms->error);
    tn_mpi_status_set(status, ms);
    if (tn_req_is_persistent(req)) {
        tn_req_deactivate(req);
    } else {
        tn_req_free(req);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

static int tn_mpi_report(const char *fn, int err)
{
    if (err == MPI_SUCCESS) {
        return MPI_SUCCESS;
    }
    return tn_mpi_err(NULL, err, fn, NULL, "the request completed with an error");
}

static int tn_mpi_req_done(void *arg)
{
    return tn_req_is_complete(arg);
}

int tn_mpi_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char fn[] = "MPI_Wait";
    if (request == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    int rc = tn_mpi_check_reqs(fn, 1, request);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_req_t *req = tn_mpi_req_get(*request);
    if (tn_mpi_slot_null(req)) {
        tn_mpi_leave();
        tn_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!tn_req_is_complete(req)) {
        tn_rt_wait(tn_mpi_req_done, req);
    }
    int err = tn_mpi_retire(request, status);
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

int tn_mpi_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Test";
    if (request == NULL || flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, request == NULL ? "request" : "flag",
                          "NULL pointer");
    }
    int rc = tn_mpi_check_reqs(fn, 1, request);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    tn_req_t *req = tn_mpi_req_get(*request);
    if (tn_mpi_slot_null(req)) {
        tn_mpi_leave();
        *flag = 1;
        tn_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!tn_req_is_complete(req)) {
        tn_progress();
    }
    *flag = tn_req_is_complete(req);
    int err = *flag ? tn_mpi_retire(request, status) : MPI_SUCCESS;
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

typedef struct {
    int          count;
    MPI_Request *reqs;
    int          want_all;
    int          first;      /* want_all: slots before this one are known done */
} tn_mpi_multi_t;

/* all: every non-null slot complete; otherwise: at least one (or none left) */
static int tn_mpi_multi_done(void *arg)
{
    tn_mpi_multi_t *m = arg;
    if (m->want_all) {
        /* requests complete mostly in order: resume where the last look
         * stopped instead of rescanning the whole array on every poll */
        for (; m->first < m->count; m->first++) {
            tn_req_t *req = tn_mpi_req_get(m->reqs[m->first]);
            if (!tn_mpi_slot_null(req) && !tn_req_is_complete(req)) {
                return 0;
            }
        }
        return 1;
    }
    int active = 0, done = 0;
    for (int i = 0; i < m->count; i++) {
        tn_req_t *req = tn_mpi_req_get(m->reqs[i]);
        if (tn_mpi_slot_null(req)) {
            continue;
        }
        active++;
        if (tn_req_is_complete(req)) {
            done++;
            if (!m->want_all) {
                return 1;
            }
        }
    }
    return m->want_all ? done == active : active == 0;
}

static MPI_Status *tn_mpi_status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* MPI_ERROR of statuses[i], the i-th status a multiple-completion call
 * fills, err its request's class.  The field is written only when the call
 * returns MPI_ERR_IN_STATUS, and then in every status it fills (MPI-4.1
 * 3.2.5): the first failure writes MPI_SUCCESS into the statuses before it,
 * and from then on each gets its own class.  *failed_p: a failure seen. */
static void tn_mpi_status_error(MPI_Status *statuses, int i, int err, int *failed_p)
{
    if (err != MPI_SUCCESS && !*failed_p) {
        *failed_p = 1;
        for (int j = 0; j < i && statuses != MPI_STATUSES_IGNORE; j++) {
            statuses[j].MPI_ERROR = MPI_SUCCESS;
        }
    }
    if (*failed_p && statuses != MPI_STATUSES_IGNORE) {
        statuses[i].MPI_ERROR = err;
    }
}

/* Retire every complete slot of reqs (all must be complete when all != 0). */
static int tn_mpi_retire_all(const char *fn, int count, MPI_Request reqs[],
                             MPI_Status statuses[])
{
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        tn_req_t *req = tn_mpi_req_get(reqs[i]);
        MPI_Status *st = tn_mpi_status_at(statuses, i);
        int err = MPI_SUCCESS;
        if (tn_mpi_slot_null(req)) {
            tn_mpi_status_empty(st);
        } else {
            err = tn_mpi_retire(&reqs[i], st);
        }
        tn_mpi_status_error(statuses, i, err, &any_err);
    }
    return any_err ? tn_mpi_err(NULL, MPI_ERR_IN_STATUS, fn, NULL,
                                "a request completed with an error (see the statuses)")
                   : MPI_SUCCESS;
}

int tn_mpi_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    static const char fn[] = "MPI_Waitall";
    int rc = tn_mpi_check_reqs(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_multi_t m = { count, array_of_requests, 1, 0 };
    tn_mpi_enter();
    if (!tn_mpi_multi_done(&m)) {
        tn_rt_wait(tn_mpi_multi_done, &m);
    }
    rc = tn_mpi_retire_all(fn, count, array_of_requests, array_of_statuses);
    tn_mpi_leave();
    return rc;
}

int tn_mpi_Testall(int count, MPI_Request array_of_requests[], int *flag,
                   MPI_Status array_of_statuses[])
{
    static const char fn[] = "MPI_Testall";
    int rc = tn_mpi_check_reqs(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "flag", "NULL pointer");
    }
    tn_mpi_multi_t m = { count, array_of_requests, 1, 0 };
    tn_mpi_enter();
    if (!tn_mpi_multi_done(&m)) {
        tn_progress();
    }
    *flag = tn_mpi_multi_done(&m);
    rc = *flag ? tn_mpi_retire_all(fn, count, array_of_requests, array_of_statuses)
               : MPI_SUCCESS;
    tn_mpi_leave();
    return rc;
}

/* Index of the first complete non-null slot, or -1. */
static int tn_mpi_first_done(int count, MPI_Request reqs[], int *any_active_p)
{
    *any_active_p = 0;
    for (int i = 0; i < count; i++) {
        tn_req_t *req = tn_mpi_req_get(reqs[i]);
        if (tn_mpi_slot_null(req)) {
            continue;
        }
        *any_active_p = 1;
        if (tn_req_is_complete(req)) {
            return i;
        }
    }
    return -1;
}

static int tn_mpi_any(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, int block)
{
    int rc = tn_mpi_check_reqs(fn, count, reqs);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (index == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "index", "NULL pointer");
    }
    tn_mpi_multi_t m = { count, reqs, 0, 0 };
    tn_mpi_enter();
    if (!tn_mpi_multi_done(&m)) {
        if (block) {
            tn_rt_wait(tn_mpi_multi_done, &m);
        } else {
            tn_progress();
        }
    }
    int active;
    int i = tn_mpi_first_done(count, reqs, &active);
    int err = MPI_SUCCESS;
    if (flag != NULL) {
        *flag = (i >= 0 || !active);
    }
    if (i >= 0) {
        *index = i;
        err = tn_mpi_retire(&reqs[i], status);
    } else {
        *index = MPI_UNDEFINED;
        if (!active) {
            tn_mpi_status_empty(status);
        }
    }
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

int tn_mpi_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return tn_mpi_any("MPI_Waitany", count, array_of_requests, index, NULL, status, 1);
}

int tn_mpi_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                   MPI_Status *status)
{
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Testany", "flag", "NULL pointer");
    }
    return tn_mpi_any("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

static int tn_mpi_some(const char *fn, int incount, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status statuses[], int block)
{
    int rc = tn_mpi_check_reqs(fn, incount, reqs);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (outcount == NULL || (incount > 0 && indices == NULL)) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, outcount == NULL ? "outcount"
                          : "array_of_indices", "NULL pointer");
    }
    tn_mpi_multi_t m = { incount, reqs, 0, 0 };
    tn_mpi_enter();
    if (!tn_mpi_multi_done(&m)) {
        if (block) {
            tn_rt_wait(tn_mpi_multi_done, &m);
        } else {
            tn_progress();
        }
    }
    int n = 0, active = 0, any_err = 0;
    for (int i = 0; i < incount; i++) {
        tn_req_t *req = tn_mpi_req_get(reqs[i]);
        if (tn_mpi_slot_null(req)) {
            continue;
        }
        active = 1;
        if (!tn_req_is_complete(req)) {
            continue;
        }
        int err = tn_mpi_retire(&reqs[i], tn_mpi_status_at(statuses, n));
        tn_mpi_status_error(statuses, n, err, &any_err);
        indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    tn_mpi_leave();
    return any_err ? tn_mpi_err(NULL, MPI_ERR_IN_STATUS, fn, NULL,
                                "a request completed with an error (see the statuses)")
                   : MPI_SUCCESS;
}

int tn_mpi_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[])
{
    return tn_mpi_some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 1);
}

int tn_mpi_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[])
{
    return tn_mpi_some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 0);
}

int tn_mpi_Request_free(MPI_Request *request)
{
    static const char fn[] = "MPI_Request_free";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_req_t *req = tn_mpi_req_get(*request);
    if (req == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "%s",
                          *request == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL cannot be freed"
                                                       : "not a valid request");
    }
    tn_mpi_enter();
    if (tn_mpi_part_busy(req)) {
        tn_mpi_leave();
        return tn_mpi_err(req->comm, MPI_ERR_REQUEST, fn, "request",
                          "an active partitioned request cannot be freed before it "
                          "completes (MPI_Wait or MPI_Test it first)");
    }
    TN_MPI_TRACE(tn_mpi_trace_req_(TERN_TRACE_I_FREE, req));
    int err = req->ext != NULL ? tn_mpi_greq_free(req) : MPI_SUCCESS;
    tn_mpi_req_release(req);
    tn_mpi_leave();
    *request = MPI_REQUEST_NULL;
    return tn_mpi_report(fn, err);
}

int tn_mpi_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Request_get_status";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "flag", "NULL pointer");
    }
    tn_req_t *req = tn_mpi_req_get(request);
    if (request != MPI_REQUEST_NULL && req == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "not a valid request");
    }
    if (tn_mpi_slot_null(req)) {
        *flag = 1;
        tn_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    tn_mpi_enter();
    if (!tn_req_is_complete(req)) {
        tn_progress();
    }
    *flag = tn_req_is_complete(req);
    int err = *flag ? tn_mpi_req_status_of(req, status) : MPI_SUCCESS;
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

int tn_mpi_Cancel(MPI_Request *request)
{
    static const char fn[] = "MPI_Cancel";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_req_t *req = tn_mpi_req_get(*request);
    if (req == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "not a valid request");
    }
    tn_mpi_enter();
    if (tn_mpi_part_busy(req)) {
        tn_mpi_leave();
        return tn_mpi_err(req->comm, MPI_ERR_REQUEST, fn, "request",
                          "an active partitioned request cannot be cancelled");
    }
    /* Receives not yet matched are cancelled; a send is withdrawn if the
     * receiver has not matched it (the request then completes cancelled,
     * maybe later), else completes normally (tn_p2p_cancel).  Inactive
     * persistent requests have nothing to cancel. */
    int err = MPI_SUCCESS;
    if (req->ext != NULL) {
        tn_mpi_greq_t *g = req->ext;
        if (g->cancel_fn != NULL) {
            err = g->cancel_fn(g->extra_state, tn_req_is_complete(req));
        }
    } else {
        tn_p2p_cancel(req);
    }
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

int tn_mpi_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Test_cancelled",
                          status == NULL ? "status" : "flag", "NULL pointer");
    }
    *flag = status->MPI_internal[2] != 0;
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: Request_get_status_all/any/some (never free a request) ---- */

/* Is the request in slot h done (lock held)?  Null slots count as done. */
static int tn_mpi_peek_done(MPI_Request h)
{
    tn_req_t *req = tn_mpi_req_get(h);
    return tn_mpi_slot_null(req) || tn_req_is_complete(req);
}

/* Status of a done slot; its error class (lock held). */
static int tn_mpi_peek_status(MPI_Request h, MPI_Status *st)
{
    tn_req_t *req = tn_mpi_req_get(h);
    if (tn_mpi_slot_null(req)) {
        tn_mpi_status_empty(st);
        return MPI_SUCCESS;
    }
    return tn_mpi_req_status_of(req, st);
}

int tn_mpi_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                  MPI_Status *array_of_statuses)
{
    static const char fn[] = "MPI_Request_get_status_all";
    int rc = tn_mpi_check_reqs(fn, count, (MPI_Request *)array_of_requests);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "flag", "NULL pointer");
    }
    tn_mpi_enter();
    int all = 1;
    for (int i = 0; i < count && all; i++) {
        all = tn_mpi_peek_done(array_of_requests[i]);
    }
    if (!all) {
        tn_progress();
        all = 1;
        for (int i = 0; i < count && all; i++) {
            all = tn_mpi_peek_done(array_of_requests[i]);
        }
    }
    int failed = 0;
    if (all) {
        for (int i = 0; i < count; i++) {
            MPI_Status *st = tn_mpi_status_at(array_of_statuses, i);
            tn_mpi_status_error(array_of_statuses, i,
                                tn_mpi_peek_status(array_of_requests[i], st), &failed);
        }
    }
    tn_mpi_leave();
    *flag = all;
    if (failed) {
        return tn_mpi_err(NULL, MPI_ERR_IN_STATUS, fn, NULL,
                          "a request completed with an error (see the statuses)");
    }
    return MPI_SUCCESS;
}

int tn_mpi_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx,
                                  int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Request_get_status_any";
    int rc = tn_mpi_check_reqs(fn, count, (MPI_Request *)array_of_requests);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (indx == NULL || flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, indx == NULL ? "indx" : "flag",
                          "NULL pointer");
    }
    tn_mpi_enter();
    int found = -1, active = 0;
    for (int pass = 0; pass < 2 && found < 0; pass++) {
        if (pass == 1) {
            tn_progress();
        }
        active = 0;
        for (int i = 0; i < count && found < 0; i++) {
            tn_req_t *req = tn_mpi_req_get(array_of_requests[i]);
            if (tn_mpi_slot_null(req)) {
                continue;
            }
            active = 1;
            if (tn_req_is_complete(req)) {
                found = i;
            }
        }
        if (!active) {
            break;
        }
    }
    int err = MPI_SUCCESS;
    if (found >= 0) {
        *flag = 1;
        *indx = found;
        err = tn_mpi_peek_status(array_of_requests[found], status);
    } else if (!active) {
        *flag = 1;             /* no active request: flag true, index undefined */
        *indx = MPI_UNDEFINED;
        tn_mpi_status_empty(status);
    } else {
        *flag = 0;
        *indx = MPI_UNDEFINED;
    }
    tn_mpi_leave();
    return tn_mpi_report(fn, err);
}

int tn_mpi_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                   int *outcount, int array_of_indices[],
                                   MPI_Status *array_of_statuses)
{
    static const char fn[] = "MPI_Request_get_status_some";
    int rc = tn_mpi_check_reqs(fn, incount, (MPI_Request *)array_of_requests);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (outcount == NULL || (incount > 0 && array_of_indices == NULL)) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn,
                          outcount == NULL ? "outcount" : "array_of_indices", "NULL pointer");
    }
    tn_mpi_enter();
    int n = 0, active = 0, failed = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++) {
        if (pass == 1) {
            tn_progress();
        }
        active = 0;
        for (int i = 0; i < incount; i++) {
            tn_req_t *req = tn_mpi_req_get(array_of_requests[i]);
            if (tn_mpi_slot_null(req)) {
                continue;
            }
            active = 1;
            if (tn_req_is_complete(req)) {
                array_of_indices[n] = i;
                int err = tn_mpi_peek_status(array_of_requests[i],
                                             tn_mpi_status_at(array_of_statuses, n));
                tn_mpi_status_error(array_of_statuses, n, err, &failed);
                n++;
            }
        }
        if (!active) {
            break;
        }
    }
    *outcount = active ? n : MPI_UNDEFINED;
    tn_mpi_leave();
    if (failed) {
        return tn_mpi_err(NULL, MPI_ERR_IN_STATUS, fn, NULL,
                          "a request completed with an error (see the statuses)");
    }
    return MPI_SUCCESS;
}

/* ---- generalized requests ---- */

int tn_mpi_Grequest_start(MPI_Grequest_query_function *query_fn,
                          MPI_Grequest_free_function *free_fn,
                          MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                          MPI_Request *request)
{
    static const char fn[] = "MPI_Grequest_start";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (request == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_mpi_greq_t *g = malloc(sizeof(*g));
    if (g == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "no memory for a request");
    }
    *g = (tn_mpi_greq_t){ query_fn, free_fn, cancel_fn, extra_state, 0 };
    tn_mpi_enter();
    tn_req_t *req = tn_req_new_pending(g);
    tn_mpi_leave();
    if (req == NULL) {
        free(g);
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, NULL, "no memory for a request");
    }
    *request = tn_mpi_req_handle(req);
    return MPI_SUCCESS;
}

int tn_mpi_Grequest_complete(MPI_Request request)
{
    static const char fn[] = "MPI_Grequest_complete";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req = tn_mpi_req_get(request);
    if (req == NULL || req->ext == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request",
                          "not a generalized request");
    }
    tn_mpi_enter();
    if (tn_req_is_complete(req)) {
        tn_mpi_leave();
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "already complete");
    }
    /* After MPI_Request_free the request goes at completion; its state with it. */
    void *ext = req->user_freed ? req->ext : NULL;
    tn_req_finish(req);
    free(ext);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

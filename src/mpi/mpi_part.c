/* Partitioned point-to-point entry points: MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived.  The
 * requests are persistent: MPI_Start/MPI_Startall, the Wait/Test family,
 * MPI_Request_get_status and MPI_Request_free take them like any other
 * (mpi_p2p.c, mpi_req.c).  Errors about a valid partitioned request go to
 * its communicator's error handler. */
#include "mpi/mpi_p2p_impl.h"
#include "mpi/mpi_info.h"

#include <stdint.h>
#include <stdlib.h>

static int tn_mpi_part_init(const char *fn, int is_send, const void *buf, int partitions,
                            MPI_Count count, MPI_Datatype datatype, int peer, int tag,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    const char *peer_arg = is_send ? "dest" : "source";
    tn_comm_t *c;
    const tn_dt_t *dt;
    int rc;
    if ((rc = tn_mpi_check_comm(fn, comm, &c))) {
        return rc;
    }
    if (partitions < 0) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "partitions", "%d partitions (negative)",
                          partitions);
    }
    if ((rc = tn_mpi_check_count(fn, c, count, "count")) ||
        (rc = tn_mpi_check_dt(fn, c, datatype, "datatype", &dt))) {
        return rc;
    }
    int64_t elems = 0;
    if (count > 0 && partitions > 0) {
        if (count > INT64_MAX / partitions ||
            (dt->size > 0 && (uint64_t)(count * partitions) > (uint64_t)INT64_MAX / dt->size)) {
            return tn_mpi_err(c, MPI_ERR_COUNT, fn, "count",
                              "%d partitions of %lld elements are too large a message",
                              partitions, (long long)count);
        }
        elems = (int64_t)count * partitions;
    }
    if ((rc = tn_mpi_check_buf(fn, c, buf, elems, dt, "buf"))) {
        return rc;
    }
    if (peer == MPI_ANY_SOURCE) {
        return tn_mpi_err(c, MPI_ERR_RANK, fn, peer_arg,
                          "MPI_ANY_SOURCE is not allowed in partitioned communication");
    }
    if ((rc = tn_mpi_check_rank(fn, c, peer, peer_arg, TN_RANK_PROC_NULL))) {
        return rc;
    }
    if (tag == MPI_ANY_TAG) {
        return tn_mpi_err(c, MPI_ERR_TAG, fn, "tag",
                          "MPI_ANY_TAG is not allowed in partitioned communication");
    }
    if ((rc = tn_mpi_check_tag(fn, c, tag, 0))) {
        return rc;
    }
    if (info != MPI_INFO_NULL && tn_mpi_info_get(info) == NULL) {
        return tn_mpi_err(c, MPI_ERR_INFO, fn, "info", "invalid info handle");
    }
    if (request == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_req_t *req;
    tn_mpi_enter();
    tn_status_t st = tn_part_init(is_send, buf, partitions, (size_t)count, dt, peer, tag, c,
                                  &req);
    tn_mpi_leave();
    if (st != TN_OK) {
        return tn_mpi_err_status(c, st, fn);
    }
    *request = tn_mpi_req_handle(req);
    return MPI_SUCCESS;
}

int tn_mpi_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return tn_mpi_part_init("MPI_Psend_init", 1, buf, partitions, count, datatype, dest, tag,
                            comm, info, request);
}

int tn_mpi_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return tn_mpi_part_init("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag,
                            comm, info, request);
}

/* The partitioned request behind h, of kind (1 send, 2 receive); a send
 * must be active (lock held). */
static int tn_mpi_part_req(const char *fn, MPI_Request h, int kind, tn_req_t **req_p)
{
    tn_req_t *req = tn_mpi_req_get(h);
    if (req == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_REQUEST, fn, "request", "%s",
                          h == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : "not a valid request");
    }
    if (tn_part_kind(req) != kind) {
        return tn_mpi_err(req->comm, MPI_ERR_REQUEST, fn, "request",
                          "not a partitioned %s request (from MPI_%s_init)",
                          kind == 1 ? "send" : "receive", kind == 1 ? "Psend" : "Precv");
    }
    if (kind == 1 && !tn_req_is_active(req)) {
        return tn_mpi_err(req->comm, MPI_ERR_REQUEST, fn, "request",
                          "the partitioned send is not active (MPI_Start it first)");
    }
    *req_p = req;
    return MPI_SUCCESS;
}

static int tn_mpi_part_index(const char *fn, tn_req_t *req, int i, const char *arg)
{
    int n = tn_part_partitions(req);
    if (i < 0 || i >= n) {
        return tn_mpi_err(req->comm, MPI_ERR_ARG, fn, arg, "partition %d is not in [0, %d)",
                          i, n);
    }
    return MPI_SUCCESS;
}

static int tn_mpi_part_not_ready(const char *fn, tn_req_t *req, int i, const char *arg)
{
    if (tn_part_is_ready(req, i)) {
        return tn_mpi_err(req->comm, MPI_ERR_ARG, fn, arg,
                          "partition %d is already ready in this epoch", i);
    }
    return MPI_SUCCESS;
}

/* Mark [low, high] ready: every check first, so that an error changes nothing. */
static int tn_mpi_pready_range(const char *fn, int low, int high, MPI_Request request,
                               const char *low_arg, const char *high_arg)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req;
    tn_mpi_enter();
    if ((rc = tn_mpi_part_req(fn, request, 1, &req)) ||
        (rc = tn_mpi_part_index(fn, req, low, low_arg)) ||
        (rc = tn_mpi_part_index(fn, req, high, high_arg))) {
        tn_mpi_leave();
        return rc;
    }
    if (high < low) {
        tn_mpi_leave();
        return tn_mpi_err(req->comm, MPI_ERR_ARG, fn, high_arg,
                          "partition_high %d is below partition_low %d", high, low);
    }
    for (int i = low; i <= high; i++) {
        if ((rc = tn_mpi_part_not_ready(fn, req, i, low_arg))) {
            tn_mpi_leave();
            return rc;
        }
    }
    tn_status_t st = tn_part_ready(req, low, high - low + 1);
    tn_mpi_leave();
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_err_status(req->comm, st, fn);
}

int tn_mpi_Pready(int partition, MPI_Request request)
{
    return tn_mpi_pready_range("MPI_Pready", partition, partition, request, "partition",
                               "partition");
}

int tn_mpi_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    return tn_mpi_pready_range("MPI_Pready_range", partition_low, partition_high, request,
                               "partition_low", "partition_high");
}

int tn_mpi_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    static const char fn[] = "MPI_Pready_list";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_req_t *req;
    tn_mpi_enter();
    if ((rc = tn_mpi_part_req(fn, request, 1, &req))) {
        tn_mpi_leave();
        return rc;
    }
    if (length < 0 || (length > 0 && array_of_partitions == NULL)) {
        tn_mpi_leave();
        return length < 0 ? tn_mpi_err(req->comm, MPI_ERR_ARG, fn, "length",
                                       "%d is negative", length)
                          : tn_mpi_err(req->comm, MPI_ERR_ARG, fn, "array_of_partitions",
                                       "NULL pointer");
    }
    for (int k = 0; k < length && rc == MPI_SUCCESS; k++) {
        int i = array_of_partitions[k];
        if (!(rc = tn_mpi_part_index(fn, req, i, "array_of_partitions"))) {
            rc = tn_mpi_part_not_ready(fn, req, i, "array_of_partitions");
        }
    }
    /* a partition named twice is ready twice */
    unsigned char *seen = NULL;
    if (rc == MPI_SUCCESS && length > 1) {
        seen = calloc((size_t)tn_part_partitions(req), 1);
        if (seen == NULL) {
            rc = tn_mpi_err(req->comm, MPI_ERR_NO_MEM, fn, NULL, "no memory");
        }
        for (int k = 0; k < length && rc == MPI_SUCCESS; k++) {
            int i = array_of_partitions[k];
            if (seen[i]) {
                rc = tn_mpi_err(req->comm, MPI_ERR_ARG, fn, "array_of_partitions",
                                "partition %d is listed twice", i);
            }
            seen[i] = 1;
        }
        free(seen);
    }
    /* runs of consecutive partitions leave as one message each */
    tn_status_t st = TN_OK;
    for (int k = 0; k < length && rc == MPI_SUCCESS && st == TN_OK;) {
        int j = k + 1;
        while (j < length && array_of_partitions[j] == array_of_partitions[j - 1] + 1) {
            j++;
        }
        st = tn_part_ready(req, array_of_partitions[k], j - k);
        k = j;
    }
    tn_mpi_leave();
    if (rc == MPI_SUCCESS && st != TN_OK) {
        rc = tn_mpi_err_status(req->comm, st, fn);
    }
    return rc;
}

int tn_mpi_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char fn[] = "MPI_Parrived";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "flag", "NULL pointer");
    }
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;              /* a null or inactive request: flag = true */
        return MPI_SUCCESS;
    }
    tn_req_t *req = NULL;
    tn_mpi_enter();
    if ((rc = tn_mpi_part_req(fn, request, 2, &req)) ||
        (rc = tn_mpi_part_index(fn, req, partition, "partition"))) {
        tn_mpi_leave();
        return rc;
    }
    if (!tn_part_arrived(req, partition)) {
        tn_progress();
    }
    *flag = tn_part_arrived(req, partition);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

/* MPI_Status accessors (MPI-4.1): Status_get/set_source/tag/error,
 * Status_set_cancelled, Status_set_elements(_c,_x), Get_elements_x; and
 * MPI_Alloc_mem / MPI_Free_mem. */
#include "mpi/mpi_impl.h"

#include <stdlib.h>

static int tn_mpi_check_status(const char *fn, const void *status)
{
    if (status == NULL || status == MPI_STATUS_IGNORE) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "status", "%s",
                          status == NULL ? "NULL pointer" : "MPI_STATUS_IGNORE");
    }
    return MPI_SUCCESS;
}

static int tn_mpi_status_get_field(const char *fn, const MPI_Status *status, int *out,
                                   const char *arg, int which)
{
    int rc = tn_mpi_check_status(fn, status);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (out == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "NULL pointer");
    }
    *out = which == 0 ? status->MPI_SOURCE : which == 1 ? status->MPI_TAG : status->MPI_ERROR;
    return MPI_SUCCESS;
}

int tn_mpi_Status_get_source(const MPI_Status *status, int *source)
{
    return tn_mpi_status_get_field("MPI_Status_get_source", status, source, "source", 0);
}

int tn_mpi_Status_get_tag(const MPI_Status *status, int *tag)
{
    return tn_mpi_status_get_field("MPI_Status_get_tag", status, tag, "tag", 1);
}

int tn_mpi_Status_get_error(const MPI_Status *status, int *error)
{
    return tn_mpi_status_get_field("MPI_Status_get_error", status, error, "error", 2);
}

int tn_mpi_Status_set_source(MPI_Status *status, int source)
{
    int rc = tn_mpi_check_status("MPI_Status_set_source", status);
    if (rc == MPI_SUCCESS) {
        status->MPI_SOURCE = source;
    }
    return rc;
}

int tn_mpi_Status_set_tag(MPI_Status *status, int tag)
{
    int rc = tn_mpi_check_status("MPI_Status_set_tag", status);
    if (rc == MPI_SUCCESS) {
        status->MPI_TAG = tag;
    }
    return rc;
}

int tn_mpi_Status_set_error(MPI_Status *status, int error)
{
    int rc = tn_mpi_check_status("MPI_Status_set_error", status);
    if (rc == MPI_SUCCESS) {
        status->MPI_ERROR = error;
    }
    return rc;
}

int tn_mpi_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc = tn_mpi_check_status("MPI_Status_set_cancelled", status);
    if (rc == MPI_SUCCESS) {
        status->MPI_internal[2] = flag != 0;
    }
    return rc;
}

/* Bytes that `count` basic elements of dt occupy in a packed stream:
 * whole elements of dt, then the leading basic elements of one more (the
 * bytes of a partial element are approximated by the average basic size,
 * exact for homogeneous types). */
static uint64_t tn_mpi_elements_bytes(const tn_dt_t *dt, int64_t count)
{
    if (dt->nbasic == 0 || dt->size == 0) {
        return 0;
    }
    uint64_t whole = (uint64_t)count / dt->nbasic;
    uint64_t part = (uint64_t)count % dt->nbasic;
    return whole * dt->size + part * (dt->size / dt->nbasic);
}

static int tn_mpi_set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype,
                               int64_t count)
{
    const tn_dt_t *dt;
    int rc = tn_mpi_check_status(fn, status);
    if (rc != MPI_SUCCESS || (rc = tn_mpi_check_dt(fn, NULL, datatype, "datatype", &dt)) ||
        (rc = tn_mpi_check_count(fn, NULL, count, "count"))) {
        return rc;
    }
    uint64_t bytes = tn_mpi_elements_bytes(dt, count);
    status->MPI_internal[0] = (int)(uint32_t)(bytes & 0xffffffffu);
    status->MPI_internal[1] = (int)(uint32_t)(bytes >> 32);
    return MPI_SUCCESS;
}

int tn_mpi_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return tn_mpi_set_elements("MPI_Status_set_elements", status, datatype, count);
}

int tn_mpi_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return tn_mpi_set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

int tn_mpi_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return tn_mpi_set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int tn_mpi_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    if (count == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_elements_x", "count", "NULL pointer");
    }
    /* Same answer as the _c form; only the function name differs. */
    const tn_dt_t *dt;
    int rc = tn_mpi_check_status("MPI_Get_elements_x", status);
    if (rc != MPI_SUCCESS ||
        (rc = tn_mpi_check_dt("MPI_Get_elements_x", NULL, datatype, "datatype", &dt))) {
        return rc;
    }
    if (dt->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    int64_t n = tn_dt_count_elements(dt, tn_mpi_status_bytes(status));
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- memory */

int tn_mpi_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char fn[] = "MPI_Alloc_mem";
    (void)info;   /* no hints are honoured; any info (or MPI_INFO_NULL) is fine */
    if (size < 0) {
        return tn_mpi_err(NULL, MPI_ERR_SIZE, fn, "size", "negative size %lld",
                          (long long)size);
    }
    if (baseptr == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "baseptr", "NULL pointer");
    }
    /* Cache-line aligned; size 0 still yields a pointer Free_mem accepts.
     * Sizes beyond a 47-bit user address space cannot be met: say so
     * without asking the allocator (sanitizers abort on such requests). */
    void *p = NULL;
    size_t n = ((size_t)size + 63u) & ~(size_t)63u;
    if ((uint64_t)size > ((uint64_t)1 << 47) || posix_memalign(&p, 64, n ? n : 64) != 0) {
        return tn_mpi_err(NULL, MPI_ERR_NO_MEM, fn, "size", "cannot allocate %lld bytes",
                          (long long)size);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int tn_mpi_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

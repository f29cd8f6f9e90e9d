/* Shared by the point-to-point files of the MPI layer. */
#ifndef TN_MPI_MPI_P2P_IMPL_H
#define TN_MPI_MPI_P2P_IMPL_H

#include "mpi/mpi_impl.h"

static inline MPI_Request tn_mpi_req_handle(tn_req_t *req)
{
    return (MPI_Request)(void *)req;
}

/* NULL for MPI_REQUEST_NULL and for anything that is not a live request. */
static inline tn_req_t *tn_mpi_req_get(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL || tn_mpi_hval(h) < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;
    }
    tn_req_t *req = (tn_req_t *)(void *)h;
    if (!tn_objreg_has(req, TN_OBJ_REQ)) {
        return NULL;                    /* garbage or another kind */
    }
    return tn_req_valid(req) ? req : NULL;
}

/* Buffered sends (mpi_bsend.c): copy the message into the attached buffer
 * and start a send from there. */
int tn_mpi_bsend_start(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                       const tn_dt_t *dt, int dest, int tag);

#endif

/* Buffered sends: messages are copied into the user's attached buffer and
 * sent from there; the space returns when the send completes.  The buffer
 * is managed first-fit over a list of in-use blocks kept in address order. */
#include "mpi/mpi_p2p_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct tn_bsend_blk {
    struct tn_bsend_blk *next;
    char                *start;     /* inside the attached buffer */
    size_t               len;
} tn_bsend_blk_t;

static struct {
    char           *base;
    size_t          size;
    int             automatic;      /* MPI_BUFFER_AUTOMATIC: malloc each message */
    tn_bsend_blk_t *used;           /* sorted by start */
    int             pending;        /* sends still using the buffer */
} tn_bsend;

static char *tn_bsend_alloc(size_t len, tn_bsend_blk_t **blk_p)
{
    tn_bsend_blk_t *blk = malloc(sizeof(*blk));
    if (blk == NULL) {
        return NULL;
    }
    if (tn_bsend.automatic) {
        blk->start = malloc(len ? len : 1);
        blk->len = len;
        blk->next = NULL;
        if (blk->start == NULL) {
            free(blk);
            return NULL;
        }
        *blk_p = blk;
        return blk->start;
    }
    /* each message costs its size plus MPI_BSEND_OVERHEAD, as the user
     * was told to reserve */
    size_t need = len + MPI_BSEND_OVERHEAD;
    char *cand = tn_bsend.base;
    tn_bsend_blk_t **link = &tn_bsend.used;
    for (tn_bsend_blk_t *b = tn_bsend.used; ; b = b->next) {
        char *limit = b != NULL ? b->start : tn_bsend.base + tn_bsend.size;
        if (cand + need <= limit) {
            blk->start = cand;
            blk->len = need;
            blk->next = b;
            *link = blk;
            *blk_p = blk;
            return cand;
        }
        if (b == NULL) {
            break;
        }
        cand = b->start + b->len;
        link = &b->next;
    }
    free(blk);
    return NULL;
}

static void tn_bsend_done(tn_req_t *req)
{
    tn_bsend_blk_t *blk = tn_req_callback_arg(req);
    if (tn_bsend.automatic || tn_bsend.base == NULL) {
        free(blk->start);
    } else {
        tn_bsend_blk_t **link = &tn_bsend.used;
        while (*link != NULL && *link != blk) {
            link = &(*link)->next;
        }
        if (*link == blk) {
            *link = blk->next;
        }
    }
    free(blk);
    tn_bsend.pending--;
    tn_req_set_callback(req, NULL, NULL);
    tn_req_free(req);
}

int tn_mpi_bsend_start(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                       const tn_dt_t *dt, int dest, int tag)
{
    if (dest == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (tn_bsend.base == NULL && !tn_bsend.automatic) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, NULL,
                          "no buffer is attached (MPI_Buffer_attach)");
    }
    size_t bytes = tn_dt_bytes(dt, (size_t)count);
    tn_bsend_blk_t *blk;
    char *space = tn_bsend_alloc(bytes, &blk);
    if (space == NULL) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, NULL,
                          "the attached buffer (%zu bytes) has no room for %zu more bytes "
                          "(+%d overhead)", tn_bsend.size, bytes, MPI_BSEND_OVERHEAD);
    }
    if (dt->is_contig) {
        memcpy(space, buf, bytes);
    } else {
        tn_dt_pack(dt, buf, (size_t)count, space);
    }
    /* the copy is sent as bytes of the same size */
    const tn_dt_t *byte = tn_dt_predefined(0x247);    /* MPI_BYTE */
    tn_req_t *req;
    tn_status_t st = tn_p2p_isend(space, bytes, byte, dest, tag, c, 0, TN_SEND_STD, &req);
    if (st != TN_OK) {
        free(blk);
        return tn_mpi_err_status(c, st, fn);
    }
    tn_bsend.pending++;
    if (tn_req_is_complete(req)) {
        tn_req_set_callback(req, tn_bsend_done, blk);
        tn_bsend_done(req);
    } else {
        tn_req_set_callback(req, tn_bsend_done, blk);
    }
    return MPI_SUCCESS;
}

static int tn_mpi_attach(const char *fn, void *buffer, int64_t size)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (tn_bsend.base != NULL || tn_bsend.automatic) {
        return tn_mpi_err(NULL, MPI_ERR_BUFFER, fn, "buffer", "a buffer is already attached");
    }
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        tn_bsend.automatic = 1;
        return MPI_SUCCESS;
    }
    if (size < 0 || (buffer == NULL && size > 0)) {
        return tn_mpi_err(NULL, size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER, fn,
                          size < 0 ? "size" : "buffer", "%s",
                          size < 0 ? "negative size" : "NULL buffer");
    }
    tn_bsend.base = buffer;
    tn_bsend.size = (size_t)size;
    return MPI_SUCCESS;
}

static int tn_bsend_idle(void *arg)
{
    return tn_bsend.pending == 0;
}

static int tn_mpi_detach(const char *fn, void *buffer_addr, int64_t *size_p)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (buffer_addr == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "buffer_addr", "NULL pointer");
    }
    if (tn_bsend.base == NULL && !tn_bsend.automatic) {
        return tn_mpi_err(NULL, MPI_ERR_BUFFER, fn, NULL, "no buffer is attached");
    }
    tn_mpi_enter();
    if (tn_bsend.pending > 0) {
        tn_rt_wait(tn_bsend_idle, NULL);
    }
    tn_mpi_leave();
    *(void **)buffer_addr = tn_bsend.automatic ? MPI_BUFFER_AUTOMATIC : tn_bsend.base;
    *size_p = (int64_t)tn_bsend.size;
    tn_bsend.base = NULL;
    tn_bsend.size = 0;
    tn_bsend.automatic = 0;
    return MPI_SUCCESS;
}

int tn_mpi_Buffer_attach(void *buffer, int size)
{
    return tn_mpi_attach("MPI_Buffer_attach", buffer, size);
}

int tn_mpi_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return tn_mpi_attach("MPI_Buffer_attach_c", buffer, size);
}

int tn_mpi_Buffer_detach(void *buffer_addr, int *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Buffer_detach", "size", "NULL pointer");
    }
    int rc = tn_mpi_detach("MPI_Buffer_detach", buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = (int)s;
    }
    return rc;
}

int tn_mpi_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Buffer_detach_c", "size", "NULL pointer");
    }
    int rc = tn_mpi_detach("MPI_Buffer_detach_c", buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = s;
    }
    return rc;
}

int tn_mpi_Buffer_flush(void)
{
    int rc = tn_mpi_check_init("MPI_Buffer_flush");
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_mpi_enter();
    if (tn_bsend.pending > 0) {
        tn_rt_wait(tn_bsend_idle, NULL);
    }
    tn_mpi_leave();
    return MPI_SUCCESS;
}

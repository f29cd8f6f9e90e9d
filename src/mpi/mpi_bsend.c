/* Buffered sends: messages are copied into the user's attached buffer and
 * sent from there; the space returns when the send completes.  The buffer
 * is managed first-fit over a list of in-use blocks kept in address order.
 *
 * MPI-4.1 buffers: one for the process (MPI_Buffer_attach), one per session
 * (MPI_Session_attach_buffer) for the communicators derived from it, and one
 * per communicator (MPI_Comm_attach_buffer); a send uses its communicator's,
 * else its session's, else the process's.  Communicator and session buffers
 * sit in a small table here keyed by the object; MPI_Comm_free and
 * MPI_Session_finalize detach theirs implicitly (after its pending sends).
 * MPI_Buffer_iflush / MPI_Comm_iflush_buffer return a request that
 * completes when the buffer's pending sends have. */
#include "mpi/mpi_p2p_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct tn_bsend_blk {
    struct tn_bsend_blk *next;
    char                *start;     /* inside the attached buffer */
    size_t               len;
} tn_bsend_blk_t;

#define TN_BSEND_MAX_FLUSH 16

typedef struct tn_bsend_pool {
    char           *base;
    size_t          size;
    int             automatic;      /* MPI_BUFFER_AUTOMATIC: malloc each message */
    tn_bsend_blk_t *used;           /* sorted by start */
    int             pending;        /* sends still using the buffer */
    tn_req_t       *flush[TN_BSEND_MAX_FLUSH];   /* iflush requests waiting */
    int             nflush;
} tn_bsend_pool_t;

static tn_bsend_pool_t tn_bsend_proc;

/* communicator and session buffers, keyed by the tn_comm_t or session */
typedef struct {
    const void      *owner;
    tn_bsend_pool_t *pool;
} tn_bsend_comm_t;
static tn_bsend_comm_t *tn_bsend_comms;
static int tn_bsend_ncomms, tn_bsend_comms_cap;

static tn_bsend_comm_t *tn_bsend_comm_entry(const void *owner)
{
    for (int i = 0; i < tn_bsend_ncomms; i++) {
        if (tn_bsend_comms[i].owner == owner) {
            return &tn_bsend_comms[i];
        }
    }
    return NULL;
}

/* A message's data outlive its send request's pool pointer only through
 * the block, which records the pool. */
typedef struct {
    tn_bsend_blk_t   blk;
    tn_bsend_pool_t *pool;
} tn_bsend_msg_t;

static char *tn_bsend_alloc(tn_bsend_pool_t *pool, size_t len, tn_bsend_blk_t **blk_p)
{
    tn_bsend_msg_t *msg = malloc(sizeof(*msg));
    if (msg == NULL) {
        return NULL;
    }
    tn_bsend_blk_t *blk = &msg->blk;
    msg->pool = pool;
    if (pool->automatic) {
        blk->start = malloc(len ? len : 1);
        blk->len = len;
        blk->next = NULL;
        if (blk->start == NULL) {
            free(msg);
            return NULL;
        }
        *blk_p = blk;
        return blk->start;
    }
    /* each message costs its size plus MPI_BSEND_OVERHEAD, as the user
     * was told to reserve */
    size_t need = len + MPI_BSEND_OVERHEAD;
    char *cand = pool->base;
    tn_bsend_blk_t **link = &pool->used;
    for (tn_bsend_blk_t *b = pool->used; ; b = b->next) {
        char *limit = b != NULL ? b->start : pool->base + pool->size;
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
    free(msg);
    return NULL;
}

/* Complete the iflush requests of an idle pool. */
static void tn_bsend_flush_done(tn_bsend_pool_t *pool)
{
    if (pool->pending == 0) {
        for (int i = 0; i < pool->nflush; i++) {
            tn_req_finish(pool->flush[i]);
        }
        pool->nflush = 0;
    }
}

static void tn_bsend_done(tn_req_t *req)
{
    tn_bsend_msg_t *msg = tn_req_callback_arg(req);
    tn_bsend_blk_t *blk = &msg->blk;
    tn_bsend_pool_t *pool = msg->pool;
    if (pool->automatic || pool->base == NULL) {
        free(blk->start);
    } else {
        tn_bsend_blk_t **link = &pool->used;
        while (*link != NULL && *link != blk) {
            link = &(*link)->next;
        }
        if (*link == blk) {
            *link = blk->next;
        }
    }
    free(msg);
    pool->pending--;
    tn_req_set_callback(req, NULL, NULL);
    tn_req_free(req);
    tn_bsend_flush_done(pool);
}

/* The buffer a buffered send on c uses: c's own, else the process's. */
static tn_bsend_pool_t *tn_bsend_pool_of(const tn_comm_t *c)
{
    tn_bsend_comm_t *e = c != NULL ? tn_bsend_comm_entry(c) : NULL;
    if (e == NULL && c != NULL && c->session != NULL) {
        e = tn_bsend_comm_entry(c->session);
    }
    return e != NULL && (e->pool->base != NULL || e->pool->automatic) ? e->pool
                                                                      : &tn_bsend_proc;
}

int tn_mpi_bsend_start(const char *fn, tn_comm_t *c, const void *buf, int64_t count,
                       const tn_dt_t *dt, int dest, int tag)
{
    if (dest == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    tn_bsend_pool_t *pool = tn_bsend_pool_of(c);
    if (pool->base == NULL && !pool->automatic) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, NULL,
                          "no buffer is attached (MPI_Buffer_attach)");
    }
    size_t bytes = tn_dt_bytes(dt, (size_t)count);
    tn_bsend_blk_t *blk;
    char *space = tn_bsend_alloc(pool, bytes, &blk);
    if (space == NULL) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, NULL,
                          "the attached buffer (%zu bytes) has no room for %zu more bytes "
                          "(+%d overhead)", pool->size, bytes, MPI_BSEND_OVERHEAD);
    }
    tn_bsend_msg_t *msg = (tn_bsend_msg_t *)blk;     /* blk is its first member */
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
        /* give the space back as a completed send would */
        pool->pending++;
        tn_req_t *done = tn_req_new_completed();
        if (done != NULL) {
            tn_req_set_callback(done, tn_bsend_done, msg);
            tn_bsend_done(done);
        }
        return tn_mpi_err_status(c, st, fn);
    }
    pool->pending++;
    tn_req_set_callback(req, tn_bsend_done, msg);
    if (tn_req_is_complete(req)) {
        tn_bsend_done(req);
    }
    return MPI_SUCCESS;
}

static int tn_bsend_pool_attach(const char *fn, tn_comm_t *c, tn_bsend_pool_t *pool,
                                void *buffer, int64_t size)
{
    if (pool->base != NULL || pool->automatic) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, "buffer", "a buffer is already attached");
    }
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        pool->automatic = 1;
        return MPI_SUCCESS;
    }
    if (size < 0 || (buffer == NULL && size > 0)) {
        return tn_mpi_err(c, size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER, fn,
                          size < 0 ? "size" : "buffer", "%s",
                          size < 0 ? "negative size" : "NULL buffer");
    }
    pool->base = buffer;
    pool->size = (size_t)size;
    return MPI_SUCCESS;
}

static int tn_mpi_attach(const char *fn, void *buffer, int64_t size)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return tn_bsend_pool_attach(fn, NULL, &tn_bsend_proc, buffer, size);
}

static int tn_bsend_idle(void *arg)
{
    return ((tn_bsend_pool_t *)arg)->pending == 0;
}

static void tn_bsend_pool_wait(tn_bsend_pool_t *pool)
{
    tn_mpi_enter();
    if (pool->pending > 0) {
        tn_rt_wait(tn_bsend_idle, pool);
    }
    tn_mpi_leave();
}

static int tn_bsend_pool_detach(const char *fn, tn_comm_t *c, tn_bsend_pool_t *pool,
                                void *buffer_addr, int64_t *size_p)
{
    if (buffer_addr == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "buffer_addr", "NULL pointer");
    }
    if (pool == NULL || (pool->base == NULL && !pool->automatic)) {
        return tn_mpi_err(c, MPI_ERR_BUFFER, fn, NULL, "no buffer is attached");
    }
    tn_bsend_pool_wait(pool);
    *(void **)buffer_addr = pool->automatic ? MPI_BUFFER_AUTOMATIC : pool->base;
    *size_p = (int64_t)pool->size;
    pool->base = NULL;
    pool->size = 0;
    pool->automatic = 0;
    return MPI_SUCCESS;
}

static int tn_mpi_detach(const char *fn, void *buffer_addr, int64_t *size_p)
{
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return tn_bsend_pool_detach(fn, NULL, &tn_bsend_proc, buffer_addr, size_p);
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
    int64_t s = 0;
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
    int64_t s = 0;
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
    tn_bsend_pool_wait(&tn_bsend_proc);
    return MPI_SUCCESS;
}

/* A request completing when pool has no pending sends. */
static int tn_bsend_pool_iflush(const char *fn, tn_comm_t *c, tn_bsend_pool_t *pool,
                                MPI_Request *request)
{
    if (request == NULL) {
        return tn_mpi_err(c, MPI_ERR_ARG, fn, "request", "NULL pointer");
    }
    tn_mpi_enter();
    tn_req_t *req = NULL;
    int rc = MPI_SUCCESS;
    if (pool == NULL || pool->pending == 0) {
        req = tn_req_new_completed();
    } else if (pool->nflush < TN_BSEND_MAX_FLUSH) {
        req = tn_req_new_pending(NULL);
        if (req != NULL) {
            pool->flush[pool->nflush++] = req;
        }
    } else {
        rc = tn_mpi_err(c, MPI_ERR_OTHER, fn, NULL, "more than %d flushes pending",
                        TN_BSEND_MAX_FLUSH);
    }
    tn_mpi_leave();
    if (rc == MPI_SUCCESS && req == NULL) {
        rc = tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
    }
    if (rc == MPI_SUCCESS) {
        *request = tn_mpi_req_handle(req);
    }
    return rc;
}

int tn_mpi_Buffer_iflush(MPI_Request *request)
{
    static const char fn[] = "MPI_Buffer_iflush";
    int rc = tn_mpi_check_init(fn);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return tn_bsend_pool_iflush(fn, NULL, &tn_bsend_proc, request);
}

/* ---- communicator buffers (MPI-4.1) ---- */

/* Attach to owner's buffer (c: where errors go). */
static int tn_bsend_owner_attach(const char *fn, tn_comm_t *c, const void *owner,
                                 void *buffer, int64_t size)
{
    int rc;
    tn_mpi_enter();
    tn_bsend_comm_t *e = tn_bsend_comm_entry(owner);
    if (e == NULL) {
        if (tn_bsend_ncomms == tn_bsend_comms_cap) {
            int cap = tn_bsend_comms_cap ? 2 * tn_bsend_comms_cap : 8;
            tn_bsend_comm_t *n = realloc(tn_bsend_comms, (size_t)cap * sizeof(*n));
            if (n == NULL) {
                tn_mpi_leave();
                return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
            }
            tn_bsend_comms = n;
            tn_bsend_comms_cap = cap;
        }
        tn_bsend_pool_t *pool = calloc(1, sizeof(*pool));
        if (pool == NULL) {
            tn_mpi_leave();
            return tn_mpi_err_status(c, TN_ERR_NOMEM, fn);
        }
        e = &tn_bsend_comms[tn_bsend_ncomms++];
        e->owner = owner;
        e->pool = pool;
    }
    rc = tn_bsend_pool_attach(fn, c, e->pool, buffer, size);
    if (rc != MPI_SUCCESS && e->pool->pending == 0 && e->pool->base == NULL &&
        !e->pool->automatic) {
        free(e->pool);       /* nothing attached after all */
        *e = tn_bsend_comms[--tn_bsend_ncomms];
    }
    tn_mpi_leave();
    return rc;
}

static int tn_mpi_comm_attach(const char *fn, MPI_Comm comm, void *buffer, int64_t size)
{
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return tn_bsend_owner_attach(fn, c, c, buffer, size);
}

static int tn_bsend_owner_detach(const char *fn, tn_comm_t *c, const void *owner,
                                 void *buffer_addr, int64_t *size_p)
{
    tn_bsend_comm_t *e = tn_bsend_comm_entry(owner);
    int rc = tn_bsend_pool_detach(fn, c, e != NULL ? e->pool : NULL, buffer_addr, size_p);
    if (rc == MPI_SUCCESS) {
        tn_mpi_enter();
        e = tn_bsend_comm_entry(owner);
        free(e->pool);
        *e = tn_bsend_comms[--tn_bsend_ncomms];
        tn_mpi_leave();
    }
    return rc;
}

static int tn_mpi_comm_detach(const char *fn, MPI_Comm comm, void *buffer_addr,
                              int64_t *size_p)
{
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return tn_bsend_owner_detach(fn, c, c, buffer_addr, size_p);
}

int tn_mpi_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return tn_mpi_comm_attach("MPI_Comm_attach_buffer", comm, buffer, size);
}

int tn_mpi_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return tn_mpi_comm_attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}

int tn_mpi_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Comm_detach_buffer", "size", "NULL pointer");
    }
    int rc = tn_mpi_comm_detach("MPI_Comm_detach_buffer", comm, buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = (int)s;
    }
    return rc;
}

int tn_mpi_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Comm_detach_buffer_c", "size",
                          "NULL pointer");
    }
    int rc = tn_mpi_comm_detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = s;
    }
    return rc;
}

int tn_mpi_Comm_flush_buffer(MPI_Comm comm)
{
    static const char fn[] = "MPI_Comm_flush_buffer";
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_bsend_comm_t *e = tn_bsend_comm_entry(c);
    if (e != NULL) {
        tn_bsend_pool_wait(e->pool);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Comm_iflush_buffer";
    tn_comm_t *c;
    int rc = tn_mpi_check_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_bsend_comm_t *e = tn_bsend_comm_entry(c);
    return tn_bsend_pool_iflush(fn, c, e != NULL ? e->pool : NULL, request);
}

void tn_mpi_buffer_release(const void *owner)
{
    tn_bsend_comm_t *e = tn_bsend_comm_entry(owner);
    if (e == NULL) {
        return;
    }
    tn_bsend_pool_wait(e->pool);
    e = tn_bsend_comm_entry(owner);
    if (e != NULL) {
        free(e->pool);
        *e = tn_bsend_comms[--tn_bsend_ncomms];
    }
}

void tn_mpi_comm_buffer_release(tn_comm_t *c)
{
    tn_mpi_buffer_release(c);
}

/* ---- session buffers (MPI-4.1) ---- */

/* The session object behind h (its error handler tells a valid one). */
static int tn_bsend_session(const char *fn, MPI_Session h, const void **owner_p)
{
    if (tn_mpi_session_errh(h) == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_SESSION, fn, "session", "%s",
                          h == MPI_SESSION_NULL ? "MPI_SESSION_NULL is not a session"
                                                : "invalid session handle");
    }
    *owner_p = (const void *)h;
    return MPI_SUCCESS;
}

static int tn_mpi_session_attach(const char *fn, MPI_Session session, void *buffer,
                                 int64_t size)
{
    const void *owner = NULL;
    int rc = tn_bsend_session(fn, session, &owner);
    return rc != MPI_SUCCESS ? rc : tn_bsend_owner_attach(fn, NULL, owner, buffer, size);
}

static int tn_mpi_session_detach(const char *fn, MPI_Session session, void *buffer_addr,
                                 int64_t *size_p)
{
    const void *owner = NULL;
    int rc = tn_bsend_session(fn, session, &owner);
    return rc != MPI_SUCCESS ? rc
                             : tn_bsend_owner_detach(fn, NULL, owner, buffer_addr, size_p);
}

int tn_mpi_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return tn_mpi_session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

int tn_mpi_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return tn_mpi_session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

int tn_mpi_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Session_detach_buffer", "size",
                          "NULL pointer");
    }
    int rc = tn_mpi_session_detach("MPI_Session_detach_buffer", session, buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = (int)s;
    }
    return rc;
}

int tn_mpi_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    int64_t s;
    if (size == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, "MPI_Session_detach_buffer_c", "size",
                          "NULL pointer");
    }
    int rc = tn_mpi_session_detach("MPI_Session_detach_buffer_c", session, buffer_addr, &s);
    if (rc == MPI_SUCCESS) {
        *size = s;
    }
    return rc;
}

int tn_mpi_Session_flush_buffer(MPI_Session session)
{
    const void *owner = NULL;
    int rc = tn_bsend_session("MPI_Session_flush_buffer", session, &owner);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_bsend_comm_t *e = tn_bsend_comm_entry(owner);
    if (e != NULL) {
        tn_bsend_pool_wait(e->pool);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    static const char fn[] = "MPI_Session_iflush_buffer";
    const void *owner = NULL;
    int rc = tn_bsend_session(fn, session, &owner);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    tn_bsend_comm_t *e = tn_bsend_comm_entry(owner);
    return tn_bsend_pool_iflush(fn, NULL, e != NULL ? e->pool : NULL, request);
}

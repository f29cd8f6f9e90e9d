/* MPI_T performance variables: the counters of base/counters_table.h, one
 * variable per counter, in the table's order (docs/mpi_t.md).
 *
 * Every variable binds to no object and holds count unsigned long longs:
 * its elements for a PROCESS set (1, or one per rail), and for a PEER set
 * (udp_peer_*) those of every world rank in turn, element
 * [peer * n + e]; a rank the process has no connection with reads 0.  A
 * PEER variable's handle can be allocated only once MPI_Init has told the
 * world size (MPI_T_ERR_INVALID before).
 *
 * Classes: COUNTER (continuous; reset and write change what this handle
 * shows, not the library's counter), TIMER (nanoseconds; not continuous:
 * counts only between start and stop), LEVEL and HIGHWATERMARK (read-only,
 * continuous: the current value, the largest since MPI_Init). */
#include "mpi/mpi_t_impl.h"
#include "base/counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TN_T_SESSION_MAGIC 0x54505353u   /* "TPSS" */
#define TN_T_PVAR_MAGIC 0x54505652u      /* "TPVR" */

typedef struct tn_t_pvar {
    uint32_t            magic;
    struct tn_t_session *session;
    struct tn_t_pvar   *next;           /* in the session */
    int                 index;
    int                 count;
    int                 n;              /* elements per instance */
    int                 peers;          /* a PEER set */
    int                 running;
    int                 resettable;     /* COUNTER and TIMER */
    int                 continuous;
    uint64_t           *acc;            /* [count] value while stopped / at mark */
    uint64_t           *mark;           /* [count] the counter when acc was set */
} tn_t_pvar_t;

typedef struct tn_t_session {
    uint32_t             magic;
    tn_t_pvar_t         *handles;
    struct tn_t_session *next;
} tn_t_session_t;

static tn_t_session_t *tn_t_sessions;

static int tn_t_pvar_class(tn_ctr_class_t c)
{
    switch (c) {
    case TN_CTR_COUNTER:       return MPI_T_PVAR_CLASS_COUNTER;
    case TN_CTR_LEVEL:         return MPI_T_PVAR_CLASS_LEVEL;
    case TN_CTR_HIGHWATERMARK: return MPI_T_PVAR_CLASS_HIGHWATERMARK;
    default:                   return MPI_T_PVAR_CLASS_TIMER;
    }
}

int tn_mpi_T_pvar_get_num(int *num_pvar)
{
    TN_T_CHECK_INIT();
    if (num_pvar == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_pvar = tn_ctr_count();
    return MPI_SUCCESS;
}

int tn_mpi_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                           int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                           char *desc, int *desc_len, int *bind, int *readonly,
                           int *continuous, int *atomic)
{
    TN_T_CHECK_INIT();
    const tn_ctr_desc_t *d = tn_ctr_desc(pvar_index);
    if (d == NULL) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    const tn_ctr_set_desc_t *s = tn_ctr_set_desc(d->set);
    char text[512];
    const char *key = tn_ctr_axis_key(d->axis);
    snprintf(text, sizeof(text), "%s (%s%s%s%s)", d->help, d->unit,
             s->kind == TN_CTR_PEER ? "; per peer" : "", key != NULL ? "; one element per " : "",
             key != NULL ? key : "");
    tn_t_str(name, name_len, d->name);
    tn_t_str(desc, desc_len, text);
    if (verbosity != NULL) {
        *verbosity = d->cls == TN_CTR_COUNTER || d->cls == TN_CTR_LEVEL
                     ? MPI_T_VERBOSITY_TUNER_BASIC : MPI_T_VERBOSITY_TUNER_DETAIL;
    }
    if (var_class != NULL) {
        *var_class = tn_t_pvar_class(d->cls);
    }
    if (datatype != NULL) {
        *datatype = MPI_UNSIGNED_LONG_LONG;
    }
    if (enumtype != NULL) {
        *enumtype = MPI_T_ENUM_NULL;
    }
    if (bind != NULL) {
        *bind = MPI_T_BIND_NO_OBJECT;
    }
    if (readonly != NULL) {
        *readonly = d->cls == TN_CTR_LEVEL || d->cls == TN_CTR_HIGHWATERMARK;
    }
    if (continuous != NULL) {
        *continuous = d->cls != TN_CTR_TIMER;
    }
    if (atomic != NULL) {
        *atomic = 1;            /* read and reset under one lock */
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    TN_T_CHECK_INIT();
    if (name == NULL || pvar_index == NULL) {
        return MPI_T_ERR_INVALID;
    }
    int i = tn_ctr_index(name);
    if (i < 0 || tn_t_pvar_class(tn_ctr_desc(i)->cls) != var_class) {
        return MPI_T_ERR_INVALID_NAME;
    }
    *pvar_index = i;
    return MPI_SUCCESS;
}

int tn_mpi_T_pvar_session_create(MPI_T_pvar_session *session)
{
    TN_T_CHECK_INIT();
    if (session == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_session_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return MPI_T_ERR_OUT_OF_SESSIONS;
    }
    s->magic = TN_T_SESSION_MAGIC;
    tn_t_lock();
    s->next = tn_t_sessions;
    tn_t_sessions = s;
    tn_t_unlock();
    *session = (MPI_T_pvar_session)s;
    return MPI_SUCCESS;
}

/* Called with tn_t_lock held. */
static tn_t_session_t *tn_t_session_of(MPI_T_pvar_session session)
{
    for (tn_t_session_t *s = tn_t_sessions; s != NULL; s = s->next) {
        if (s == (tn_t_session_t *)session && s->magic == TN_T_SESSION_MAGIC) {
            return s;
        }
    }
    return NULL;
}

static tn_t_pvar_t *tn_t_pvar_of(tn_t_session_t *s, MPI_T_pvar_handle handle)
{
    for (tn_t_pvar_t *h = s->handles; h != NULL; h = h->next) {
        if (h == (tn_t_pvar_t *)handle && h->magic == TN_T_PVAR_MAGIC) {
            return h;
        }
    }
    return NULL;
}

static void tn_t_pvar_destroy(tn_t_pvar_t *h)
{
    h->magic = 0;
    free(h->acc);
    free(h);
}

static void tn_t_session_destroy(tn_t_session_t *s)
{
    while (s->handles != NULL) {
        tn_t_pvar_t *h = s->handles;
        s->handles = h->next;
        tn_t_pvar_destroy(h);
    }
    s->magic = 0;
    free(s);
}

int tn_mpi_T_pvar_session_free(MPI_T_pvar_session *session)
{
    TN_T_CHECK_INIT();
    if (session == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_lock();
    tn_t_session_t **pp = &tn_t_sessions;
    while (*pp != NULL && *pp != (tn_t_session_t *)*session) {
        pp = &(*pp)->next;
    }
    tn_t_session_t *s = *pp;
    if (s != NULL) {
        *pp = s->next;
        tn_t_session_destroy(s);
    }
    tn_t_unlock();
    if (s == NULL) {
        return MPI_T_ERR_INVALID_SESSION;
    }
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

void tn_t_pvar_release_all(void)
{
    while (tn_t_sessions != NULL) {
        tn_t_session_t *s = tn_t_sessions;
        tn_t_sessions = s->next;
        tn_t_session_destroy(s);
    }
}

/* The library's counter behind element k of h.  State lock held. */
static uint64_t tn_t_pvar_raw(const tn_t_pvar_t *h, int k)
{
    return tn_ctr_value(h->index, h->peers ? k / h->n : -1, k % h->n);
}

int tn_mpi_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                               MPI_T_pvar_handle *handle, int *count)
{
    TN_T_CHECK_INIT();
    const tn_ctr_desc_t *d = tn_ctr_desc(pvar_index);
    if (d == NULL) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (handle == NULL || count == NULL) {
        return MPI_T_ERR_INVALID;
    }
    int peers = tn_ctr_set_desc(d->set)->kind == TN_CTR_PEER;
    if (peers && !tn_rt.initialized && !tn_rt.finalized) {
        return MPI_T_ERR_INVALID;   /* the world size is not known yet */
    }
    int n = d->n * (peers ? tn_rt.world_size : 1);
    tn_t_pvar_t *h = calloc(1, sizeof(*h));
    uint64_t *arrays = calloc(2 * (size_t)n, sizeof(uint64_t));
    if (h == NULL || arrays == NULL) {
        free(h);
        free(arrays);
        return MPI_T_ERR_OUT_OF_HANDLES;
    }
    *h = (tn_t_pvar_t){ .magic = TN_T_PVAR_MAGIC, .index = pvar_index, .count = n, .n = d->n,
                        .peers = peers, .resettable = d->cls == TN_CTR_COUNTER ||
                                                      d->cls == TN_CTR_TIMER,
                        .continuous = d->cls != TN_CTR_TIMER, .acc = arrays,
                        .mark = arrays + n };
    h->running = h->continuous;
    tn_t_lock();
    tn_t_session_t *s = tn_t_session_of(session);
    if (s == NULL) {
        tn_t_unlock();
        tn_t_pvar_destroy(h);
        return MPI_T_ERR_INVALID_SESSION;
    }
    /* a counter starts at 0 for its handle */
    tn_t_state_lock();
    for (int k = 0; k < n; k++) {
        h->mark[k] = tn_t_pvar_raw(h, k);
    }
    tn_t_state_unlock();
    h->session = s;
    h->next = s->handles;
    s->handles = h;
    tn_t_unlock();
    *handle = (MPI_T_pvar_handle)h;
    *count = n;
    return MPI_SUCCESS;
}

int tn_mpi_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    TN_T_CHECK_INIT();
    if (handle == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_lock();
    tn_t_session_t *s = tn_t_session_of(session);
    if (s == NULL) {
        tn_t_unlock();
        return MPI_T_ERR_INVALID_SESSION;
    }
    tn_t_pvar_t **pp = &s->handles;
    while (*pp != NULL && *pp != (tn_t_pvar_t *)*handle) {
        pp = &(*pp)->next;
    }
    tn_t_pvar_t *h = *pp;
    if (h != NULL) {
        *pp = h->next;
        tn_t_pvar_destroy(h);
    }
    tn_t_unlock();
    if (h == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

enum { TN_T_START, TN_T_STOP, TN_T_RESET };

/* Start, stop or reset one handle.  Both locks held. */
static int tn_t_pvar_op1(tn_t_pvar_t *h, int op, int all)
{
    if (op != TN_T_RESET && h->continuous) {
        return all ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
    }
    if (op == TN_T_RESET && !h->resettable) {
        return all ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
    }
    for (int k = 0; k < h->count; k++) {
        uint64_t raw = tn_t_pvar_raw(h, k);
        if (op == TN_T_STOP && h->running) {
            h->acc[k] += raw - h->mark[k];
        } else if (op == TN_T_RESET) {
            h->acc[k] = 0;
        }
        h->mark[k] = raw;
    }
    if (op != TN_T_RESET) {
        h->running = op == TN_T_START;
    }
    return MPI_SUCCESS;
}

static int tn_t_pvar_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
    TN_T_CHECK_INIT();
    int rc = MPI_SUCCESS;
    tn_t_lock();
    tn_t_session_t *s = tn_t_session_of(session);
    if (s == NULL) {
        rc = MPI_T_ERR_INVALID_SESSION;
        goto out;
    }
    tn_t_state_lock();
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (tn_t_pvar_t *h = s->handles; h != NULL; h = h->next) {
            tn_t_pvar_op1(h, op, 1);
        }
    } else {
        tn_t_pvar_t *h = tn_t_pvar_of(s, handle);
        rc = h != NULL ? tn_t_pvar_op1(h, op, 0) : MPI_T_ERR_INVALID_HANDLE;
    }
    tn_t_state_unlock();
out:
    tn_t_unlock();
    return rc;
}

int tn_mpi_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return tn_t_pvar_op(session, handle, TN_T_START);
}

int tn_mpi_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return tn_t_pvar_op(session, handle, TN_T_STOP);
}

int tn_mpi_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return tn_t_pvar_op(session, handle, TN_T_RESET);
}

/* Read into buf (when not NULL), then reset (reset) or set to in (when not
 * NULL). */
static int tn_t_pvar_rw(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf,
                        int reset, const void *in)
{
    TN_T_CHECK_INIT();
    int rc = MPI_SUCCESS;
    tn_t_lock();
    tn_t_session_t *s = tn_t_session_of(session);
    tn_t_pvar_t *h = s != NULL ? tn_t_pvar_of(s, handle) : NULL;
    if (s == NULL) {
        rc = MPI_T_ERR_INVALID_SESSION;
    } else if (h == NULL) {
        rc = MPI_T_ERR_INVALID_HANDLE;     /* MPI_T_PVAR_ALL_HANDLES included */
    } else if ((reset || in != NULL) && !h->resettable) {
        rc = MPI_T_ERR_PVAR_NO_WRITE;
    } else if ((in == NULL && buf == NULL) || (in != NULL && in == buf)) {
        rc = MPI_T_ERR_INVALID;
    }
    if (rc != MPI_SUCCESS) {
        tn_t_unlock();
        return rc;
    }
    unsigned long long *out = buf;
    const unsigned long long *set = in;
    tn_t_state_lock();
    for (int k = 0; k < h->count; k++) {
        uint64_t raw = tn_t_pvar_raw(h, k);
        if (out != NULL) {
            out[k] = !h->resettable ? raw
                                    : h->acc[k] + (h->running ? raw - h->mark[k] : 0);
        }
        if (reset || set != NULL) {
            h->acc[k] = set != NULL ? set[k] : 0;
            h->mark[k] = raw;
        }
    }
    tn_t_state_unlock();
    tn_t_unlock();
    return MPI_SUCCESS;
}

int tn_mpi_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return tn_t_pvar_rw(session, handle, buf, 0, NULL);
}

int tn_mpi_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    return tn_t_pvar_rw(session, handle, buf, 1, NULL);
}

int tn_mpi_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    if (buf == NULL) {
        TN_T_CHECK_INIT();
        return MPI_T_ERR_INVALID;
    }
    return tn_t_pvar_rw(session, handle, NULL, 0, buf);
}

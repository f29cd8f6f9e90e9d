/* tern-trace export --otf2: one job's traces as an OTF2 archive (the
 * format Score-P writes and Vampir, Scalasca and otf2-print read), written
 * with the OTF2 library (docs/trace.md).
 *
 * What maps to what:
 *   rank             location group (process) with one location (thread),
 *                    under a system tree node per host
 *   MPI call         region (one per function name), Enter/Leave
 *   blocking send    MpiSend at the call's entry
 *   Isend + request  MpiIsend at entry, MpiIsendComplete where a wait or
 *                    test completed the request
 *   Irecv + request  MpiIrecvRequest at entry, MpiIrecv (with the matched
 *                    source) where the request completed
 *   blocking recv    MpiRecv (matched source) right before Leave
 *   blocking coll.   MpiCollectiveBegin at entry, MpiCollectiveEnd before
 *                    Leave with the kind, root and this rank's bytes
 *   nonblocking and  NonBlockingCollectiveRequest at the call's (or each
 *   persistent coll. MPI_Start's) entry, NonBlockingCollectiveComplete
 *                    where a wait or test completed it
 *   persistent send, the request kept from its init call; each MPI_Start
 *   receive          is an MpiIsend or MpiIrecvRequest, completed like a
 *                    nonblocking one; MPI_Request_free forgets it
 *   communicators    Group (world ranks) + Comm per job communicator
 * Not exported (Enter/Leave only): intercommunicator messages and
 * collectives, one-sided operations.  Times are the job clock of
 * trace_load (ns). */
#include "trace_otf2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TERN_HAVE_OTF2
#include <otf2/otf2.h>

enum { TO_SEND, TO_RECV, TO_COLL };

typedef struct {
    uint64_t id;
    uint32_t comm;
    int32_t  peer;             /* a collective's root, or -1 */
    int32_t  tag;
    uint8_t  what;             /* TO_* */
    uint8_t  persistent;       /* kept after completion, until freed */
    uint8_t  active;           /* started, not completed */
    uint16_t kind;             /* a collective's */
    uint64_t bytes, rbytes;
} to_req_t;

/* The open nonblocking requests of one rank, by id (small linear map with
 * removal by swap: a rank has few outstanding requests at a time). */
typedef struct {
    to_req_t *v;
    size_t    n, cap;
} to_reqs_t;

static int to_reqs_put(to_reqs_t *m, const to_req_t *r)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].id == r->id) {      /* an id reused: the newer one */
            m->v[i] = *r;
            return 0;
        }
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        to_req_t *v = realloc(m->v, cap * sizeof(*v));
        if (v == NULL) {
            return -1;
        }
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = *r;
    return 0;
}

/* The request with id; removed unless persistent (then only marked
 * complete).  0 when there is none. */
static int to_reqs_take(to_reqs_t *m, uint64_t id, to_req_t *out)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].id == id) {
            *out = m->v[i];
            if (m->v[i].persistent) {
                m->v[i].active = 0;
            } else {
                m->v[i] = m->v[--m->n];
            }
            return 1;
        }
    }
    return 0;
}

static to_req_t *to_reqs_find(to_reqs_t *m, uint64_t id)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].id == id) {
            return &m->v[i];
        }
    }
    return NULL;
}

static void to_reqs_drop(to_reqs_t *m, uint64_t id)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].id == id) {
            m->v[i] = m->v[--m->n];
            return;
        }
    }
}

static OTF2_FlushType to_pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c,
                                   bool final)
{
    (void)u, (void)t, (void)l, (void)c, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp to_post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u, (void)t, (void)l;
    return 0;
}

static const OTF2_FlushCallbacks to_flush = { to_pre_flush, to_post_flush };

static OTF2_CollectiveOp to_coll_op(unsigned kind)
{
    switch (kind) {
    case TERN_TRACE_BARRIER:        return OTF2_COLLECTIVE_OP_BARRIER;
    case TERN_TRACE_BCAST:          return OTF2_COLLECTIVE_OP_BCAST;
    case TERN_TRACE_REDUCE:         return OTF2_COLLECTIVE_OP_REDUCE;
    case TERN_TRACE_ALLREDUCE:      return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case TERN_TRACE_GATHER:         return OTF2_COLLECTIVE_OP_GATHER;
    case TERN_TRACE_SCATTER:        return OTF2_COLLECTIVE_OP_SCATTER;
    case TERN_TRACE_ALLGATHER:      return OTF2_COLLECTIVE_OP_ALLGATHER;
    case TERN_TRACE_ALLTOALL:       return OTF2_COLLECTIVE_OP_ALLTOALL;
    case TERN_TRACE_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case TERN_TRACE_SCAN:           return OTF2_COLLECTIVE_OP_SCAN;
    case TERN_TRACE_EXSCAN:         return OTF2_COLLECTIVE_OP_EXSCAN;
    default:                        return OTF2_COLLECTIVE_OP_ALLTOALL;
    }
}

/* A communicator's events are written only on intracommunicators: an
 * intercommunicator's ranks name the other group, which needs OTF2's
 * InterComm definitions (not written). */
static int to_intra(const tl_job_t *j, uint32_t comm)
{
    return comm < j->ncomms && (j->comms[comm].flags & TERN_TRACE_COMM_INTER) == 0;
}

static uint64_t to_time(int64_t t)
{
    return t > 0 ? (uint64_t)t : 0;
}

/* A started request's first event. */
static void to_start(OTF2_EvtWriter *w, uint64_t t, const to_req_t *q, uint64_t *n)
{
    if (q->what == TO_SEND) {
        OTF2_EvtWriter_MpiIsend(w, NULL, t, (uint32_t)q->peer, q->comm, (uint32_t)q->tag, q->bytes, q->id);
    } else if (q->what == TO_RECV) {
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, q->id);
    } else {
        OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t, q->id);
    }
    (*n)++;
}

/* The items of record r that happen at its entry. */
static void to_at_enter(OTF2_EvtWriter *w, const tl_job_t *j, const tl_rank_t *rk,
                        const tl_rec_t *r, to_reqs_t *reqs, uint64_t *n)
{
    uint64_t t = to_time(r->t_enter);
    const tl_item_t *it = rk->items + r->item;
    for (uint32_t i = 0; i < r->nitems; i++) {
        const tl_item_t *x = &it[i];
        const tl_item_t *next = i + 1 < r->nitems ? &it[i + 1] : NULL;
        int req = next != NULL && next->type == TERN_TRACE_I_REQ;
        int later = x->form == TERN_TRACE_NONBLOCKING || x->form == TERN_TRACE_PERSISTENT;
        if ((x->type == TERN_TRACE_I_SEND || x->type == TERN_TRACE_I_RECV) && to_intra(j, x->comm) &&
            later && req) {
            /* a nonblocking one starts now; a persistent one at each MPI_Start */
            to_req_t q = { next->id, x->comm, x->peer, x->u.tag,
                           x->type == TERN_TRACE_I_SEND ? TO_SEND : TO_RECV,
                           x->form == TERN_TRACE_PERSISTENT, x->form == TERN_TRACE_NONBLOCKING, 0,
                           x->bytes, 0 };
            if (q.what == TO_SEND && x->peer < 0) {
                continue;                       /* MPI_PROC_NULL */
            }
            (void)to_reqs_put(reqs, &q);
            if (q.active) {
                to_start(w, t, &q, n);
            }
        } else if (x->type == TERN_TRACE_I_SEND && to_intra(j, x->comm) && x->peer >= 0 &&
                   x->form == TERN_TRACE_BLOCKING) {
            OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)x->peer, x->comm, (uint32_t)x->u.tag, x->bytes);
            (*n)++;
        } else if (x->type == TERN_TRACE_I_COLL && to_intra(j, x->comm) && x->form == TERN_TRACE_BLOCKING) {
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
            (*n)++;
        } else if (x->type == TERN_TRACE_I_COLL && to_intra(j, x->comm) && later && req) {
            to_req_t q = { next->id, x->comm, x->peer, 0, TO_COLL, x->form == TERN_TRACE_PERSISTENT,
                           x->form == TERN_TRACE_NONBLOCKING, x->u.coll.kind, x->bytes, x->rbytes };
            (void)to_reqs_put(reqs, &q);
            if (q.active) {
                to_start(w, t, &q, n);
            }
        } else if (x->type == TERN_TRACE_I_START) {
            to_req_t *q = to_reqs_find(reqs, x->id);
            if (q != NULL && q->persistent && !q->active) {
                q->active = 1;
                to_start(w, t, q, n);
            }
        } else if (x->type == TERN_TRACE_I_FREE) {
            to_req_t *q = to_reqs_find(reqs, x->id);
            if (q != NULL && !q->active) {
                to_reqs_drop(reqs, x->id);      /* a freed active one completes first */
            } else if (q != NULL) {
                q->persistent = 0;
            }
        }
    }
}

/* The items of record r that happen at its exit (before Leave). */
static void to_at_exit(OTF2_EvtWriter *w, const tl_job_t *j, const tl_rank_t *rk,
                       const tl_rec_t *r, to_reqs_t *reqs, uint64_t *n)
{
    uint64_t t = to_time(r->t_exit);
    const tl_item_t *it = rk->items + r->item;
    uint32_t rcomm = TL_NONE;
    for (uint32_t i = 0; i < r->nitems; i++) {
        const tl_item_t *x = &it[i];
        if (x->type == TERN_TRACE_I_RECV) {
            rcomm = x->form == TERN_TRACE_BLOCKING ? x->comm : TL_NONE;
        } else if (x->type == TERN_TRACE_I_STATUS && rcomm != TL_NONE && to_intra(j, rcomm) &&
                   x->peer >= 0 && x->mode == 0) {
            OTF2_EvtWriter_MpiRecv(w, NULL, t, (uint32_t)x->peer, rcomm, (uint32_t)x->u.tag,
                                   x->bytes);
            (*n)++;
        } else if (x->type == TERN_TRACE_I_DONE) {
            to_req_t q;
            if (!to_reqs_take(reqs, x->id, &q) || !q.active) {
                continue;               /* not one of ours, or not started */
            }
            if (x->mode != 0) {
                OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, x->id);
            } else if (q.what == TO_RECV && x->peer >= 0) {
                OTF2_EvtWriter_MpiIrecv(w, NULL, t, (uint32_t)x->peer, q.comm,
                                        (uint32_t)x->u.tag, x->bytes, x->id);
            } else if (q.what == TO_SEND) {
                OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, x->id);
            } else if (q.what == TO_COLL) {
                uint32_t root = q.peer >= 0 ? (uint32_t)q.peer : OTF2_COLLECTIVE_ROOT_NONE;
                OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t, to_coll_op(q.kind), q.comm, root,
                                                             q.bytes, q.rbytes, x->id);
            } else {
                continue;
            }
            (*n)++;
        } else if (x->type == TERN_TRACE_I_COLL && x->form == TERN_TRACE_BLOCKING &&
                   to_intra(j, x->comm)) {
            uint32_t root = x->peer >= 0 ? (uint32_t)x->peer : OTF2_COLLECTIVE_ROOT_NONE;
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, to_coll_op(x->u.coll.kind), x->comm,
                                            root, x->bytes, x->rbytes);
            (*n)++;
        }
    }
}

static int to_cmp_enter(const void *a, const void *b, void *arg)
{
    const tl_rec_t *recs = arg;
    const tl_rec_t *x = &recs[*(const uint32_t *)a], *y = &recs[*(const uint32_t *)b];
    if (x->t_enter != y->t_enter) {
        return x->t_enter < y->t_enter ? -1 : 1;
    }
    if (x->depth != y->depth) {         /* the enclosing call first */
        return x->depth < y->depth ? -1 : 1;
    }
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* One rank's events, in time order: records sorted by entry, Leaves of
 * enclosing calls held on a stack until their exit. */
static int to_rank(OTF2_Archive *ar, const tl_job_t *j, const tl_rank_t *rk, uint64_t *nev)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, rk->rank);
    uint32_t *ord = malloc(sizeof(uint32_t) * (rk->nrecs + 1));
    uint32_t *stack = malloc(sizeof(uint32_t) * 8);
    to_reqs_t reqs = { NULL, 0, 0 };
    if (w == NULL || ord == NULL || stack == NULL) {
        free(ord);
        free(stack);
        return -1;
    }
    for (uint32_t i = 0; i < rk->nrecs; i++) {
        ord[i] = i;
    }
    qsort_r(ord, rk->nrecs, sizeof(*ord), to_cmp_enter, rk->recs);
    uint32_t sp = 0;
    uint64_t n = 0;
    for (uint32_t k = 0; k <= rk->nrecs; k++) {
        const tl_rec_t *r = k < rk->nrecs ? &rk->recs[ord[k]] : NULL;
        while (sp > 0 && (r == NULL || rk->recs[stack[sp - 1]].t_exit <= r->t_enter ||
                          sp >= 8)) {
            const tl_rec_t *o = &rk->recs[stack[--sp]];
            to_at_exit(w, j, rk, o, &reqs, &n);
            OTF2_EvtWriter_Leave(w, NULL, to_time(o->t_exit), o->call);
            n++;
        }
        if (r == NULL) {
            break;
        }
        OTF2_EvtWriter_Enter(w, NULL, to_time(r->t_enter), r->call);
        n++;
        to_at_enter(w, j, rk, r, &reqs, &n);
        stack[sp++] = ord[k];
    }
    free(ord);
    free(stack);
    free(reqs.v);
    OTF2_Archive_CloseEvtWriter(ar, w);
    *nev = n;
    return 0;
}

/* Strings are numbered as they are written; the caller keeps the count. */
static OTF2_StringRef to_str(OTF2_GlobalDefWriter *g, uint32_t *next, const char *s)
{
    OTF2_StringRef id = (*next)++;
    OTF2_GlobalDefWriter_WriteString(g, id, s);
    return id;
}

static int to_defs(OTF2_Archive *ar, const tl_job_t *j, const uint64_t *nev)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (g == NULL) {
        return -1;
    }
    uint32_t s = 0;
    char buf[160];
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, to_time(j->t_end) + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_StringRef empty = to_str(g, &s, "");
    /* regions: the job's MPI functions, ids = call indices */
    OTF2_StringRef first_call = s;
    for (uint32_t c = 0; c < j->ncalls; c++) {
        to_str(g, &s, j->calls[c]);
    }
    OTF2_StringRef mpi = to_str(g, &s, "MPI");
    for (uint32_t c = 0; c < j->ncalls; c++) {
        OTF2_GlobalDefWriter_WriteRegion(g, c, first_call + c, first_call + c, empty,
                                         OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, mpi, 0, 0);
    }
    /* system tree: the machine, its hosts (one per node index) */
    OTF2_StringRef machine = to_str(g, &s, "machine"), node = to_str(g, &s, "node");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, to_str(g, &s, "Tern job"), machine,
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (uint32_t n = 0; n < j->nnodes; n++) {
        const char *host = "?";
        for (uint32_t r = 0; r < j->nranks; r++) {
            if (j->ranks[r].node == n) {
                host = j->ranks[r].host;
                break;
            }
        }
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1 + n, to_str(g, &s, host), node, 0);
    }
    OTF2_StringRef thread = to_str(g, &s, "Master thread");
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        snprintf(buf, sizeof(buf), "MPI Rank %u", rk->rank);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, rk->rank, to_str(g, &s, buf),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + rk->node,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, rk->rank, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           nev[r], rk->rank);
    }
    /* groups: every location (MPI's view of the world), then each
     * communicator's members as world ranks */
    uint64_t *members = malloc(sizeof(uint64_t) * (j->size + 1));
    if (members == NULL) {
        return -1;
    }
    for (uint32_t r = 0; r < j->size; r++) {
        members[r] = r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, j->size, members);
    for (uint32_t c = 0; c < j->ncomms; c++) {
        const tl_comm_t *cm = &j->comms[c];
        uint32_t n = cm->size + cm->remote_size;
        uint64_t *m = malloc(sizeof(uint64_t) * (n + 1));
        if (m == NULL) {
            free(members);
            return -1;
        }
        for (uint32_t i = 0; i < n; i++) {
            m[i] = (uint64_t)cm->world[i];
        }
        snprintf(buf, sizeof(buf), "%s %u (context %u)",
                 cm->flags & TERN_TRACE_COMM_INTER ? "intercommunicator" : "communicator", c,
                 cm->ctx);
        OTF2_StringRef name = to_str(g, &s, buf);
        OTF2_GlobalDefWriter_WriteGroup(g, 1 + c, name, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, m);
        OTF2_GlobalDefWriter_WriteComm(g, c, name, 1 + c, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
        free(m);
    }
    free(members);
    return 0;
}

int to_export_otf2(const tl_job_t *j, const char *dir, const char *name, char *err,
                   size_t errlen)
{
    if (j->ncalls > UINT32_MAX / 2 || j->nranks == 0) {
        snprintf(err, errlen, "nothing to export");
        return -1;
    }
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (ar == NULL) {
        snprintf(err, errlen, "%s: cannot create the OTF2 archive %s", dir, name);
        return -1;
    }
    uint64_t *nev = calloc(j->nranks, sizeof(uint64_t));
    int rc = nev == NULL ? -1 : 0;
    if (rc == 0) {
        OTF2_Archive_SetFlushCallbacks(ar, &to_flush, NULL);
        OTF2_Archive_SetSerialCollectiveCallbacks(ar);
        OTF2_Archive_SetCreator(ar, "tern-trace");
        OTF2_Archive_OpenEvtFiles(ar);
        for (uint32_t r = 0; r < j->nranks && rc == 0; r++) {
            rc = to_rank(ar, j, &j->ranks[r], &nev[r]);
        }
        OTF2_Archive_CloseEvtFiles(ar);
        /* every location gets its (empty) local definitions file */
        OTF2_Archive_OpenDefFiles(ar);
        for (uint32_t r = 0; r < j->nranks && rc == 0; r++) {
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(ar, j->ranks[r].rank);
            if (d != NULL) {
                OTF2_Archive_CloseDefWriter(ar, d);
            }
        }
        OTF2_Archive_CloseDefFiles(ar);
        if (rc == 0) {
            rc = to_defs(ar, j, nev);
        }
    }
    if (OTF2_Archive_Close(ar) != OTF2_SUCCESS && rc == 0) {
        rc = -1;
    }
    free(nev);
    if (rc != 0) {
        snprintf(err, errlen, "%s: writing the OTF2 archive %s failed", dir, name);
    }
    return rc;
}

#else

int to_export_otf2(const tl_job_t *j, const char *dir, const char *name, char *err,
                   size_t errlen)
{
    (void)j, (void)dir, (void)name;
    snprintf(err, errlen, "this tern-trace was built without OTF2 (install libotf2-trace-dev "
             "and rebuild)");
    return -1;
}

#endif

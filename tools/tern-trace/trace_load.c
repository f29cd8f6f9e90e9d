/* Loading one job's traces (trace_load.h). */
#include "trace_load.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_unify.h"

#define TL_NS_MAX ((int64_t)1 << 62)

void tl_job_init(tl_job_t *j, const char *want)
{
    memset(j, 0, sizeof(*j));
    if (want != NULL) {
        snprintf(j->want, sizeof(j->want), "%s", want);
        j->want_given = 1;
    }
}

int32_t tl_peer_world(const tl_job_t *j, uint32_t comm, unsigned side, int32_t peer)
{
    if (comm >= j->ncomms || peer < 0) {
        return -1;
    }
    const tl_comm_t *c = &j->comms[comm];
    if (c->remote_size == 0) {
        return (uint32_t)peer < c->size ? c->world[peer] : -1;
    }
    /* an intercommunicator's peers are in the other group */
    if (side == 0) {
        return (uint32_t)peer < c->remote_size ? c->world[c->size + (uint32_t)peer] : -1;
    }
    return (uint32_t)peer < c->size ? c->world[peer] : -1;
}

static int tl_grow(void **p, uint32_t *cap, size_t elem, uint32_t need)
{
    if (need <= *cap) {
        return 0;
    }
    uint64_t nc = *cap ? *cap : 256;
    while (nc < need) {
        nc *= 2;
    }
    nc = nc > UINT32_MAX ? UINT32_MAX : nc;
    void *q = realloc(*p, (size_t)nc * elem);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    *cap = (uint32_t)nc;
    return 0;
}

static int64_t tl_clamp(uint64_t ns)
{
    return ns >= (uint64_t)TL_NS_MAX ? TL_NS_MAX - 1 : (int64_t)ns;
}

/* One file's reading state: the maps from its own numbering to the job's. */
typedef struct {
    tl_job_t  *j;
    tl_rank_t *r;
    tt_file_t *t;
    uint16_t  *calls, *algos;           /* file index -> job index */
    uint32_t  *comm;                    /* file communicator id -> job's (TL_NONE) */
    uint8_t   *side;
    uint32_t   ncomm;
    uint32_t   rcap, icap;
    size_t     ccap;
} tl_reading_t;

static int tl_map_names(tl_reading_t *rd)
{
    const tern_trace_hdr_t *h = &rd->t->hdr;
    rd->calls = malloc(h->ncalls * sizeof(uint16_t));
    rd->algos = malloc((h->nalgos + 1) * sizeof(uint16_t));
    if (rd->calls == NULL || rd->algos == NULL) {
        snprintf(rd->j->err, sizeof(rd->j->err), "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < h->ncalls; i++) {
        if (tl_name_index(rd->j, 0, rd->t->calls[i], &rd->calls[i]) != 0) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < h->nalgos; i++) {
        if (tl_name_index(rd->j, 1, rd->t->algos[i], &rd->algos[i]) != 0) {
            return -1;
        }
    }
    return 0;
}

static int tl_def_comm(tl_reading_t *rd, uint32_t id)
{
    const tt_comm_t *c = tt_comm(rd->t, id);
    if (id >= rd->ncomm) {
        uint32_t n = rd->t->ncomms;     /* the reader's slots cover every id it took */
        uint32_t *m = realloc(rd->comm, n * sizeof(*m));
        if (m == NULL) {
            return -1;
        }
        rd->comm = m;
        uint8_t *s = realloc(rd->side, n);
        if (s == NULL) {
            return -1;
        }
        rd->side = s;
        for (uint32_t i = rd->ncomm; i < n; i++) {
            rd->comm[i] = TL_NONE;
        }
        rd->ncomm = n;
    }
    unsigned side;
    if (tl_comm_unify(rd->j, c, rd->r->rank, &rd->comm[id], &side) != 0) {
        return -1;
    }
    rd->side[id] = (uint8_t)side;
    return 0;
}

/* A file communicator id the reader checked: the job's, with its side. */
static int tl_job_comm(const tl_reading_t *rd, uint32_t id, tl_item_t *o)
{
    if (id >= rd->ncomm || rd->comm[id] == TL_NONE) {
        return -1;
    }
    o->comm = rd->comm[id];
    o->side = rd->side[id];
    return 0;
}

/* Room for n more values in the rank's counts. */
static int tl_counts_room(tl_reading_t *rd, size_t n)
{
    tl_rank_t *r = rd->r;
    if (r->ncounts + n > rd->ccap) {
        size_t nc = rd->ccap ? rd->ccap : 1024;
        while (nc < r->ncounts + n) {
            nc *= 2;
        }
        uint64_t *c = realloc(r->counts, nc * sizeof(*c));
        if (c == NULL) {
            return -1;
        }
        r->counts = c;
        rd->ccap = nc;
    }
    return 0;
}

static int tl_push_counts(tl_reading_t *rd, const tt_item_t *it, tl_item_t *o)
{
    tl_rank_t *r = rd->r;
    size_t n = it->u.counts.n;
    if (tl_counts_room(rd, n) != 0) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        r->counts[r->ncounts + i] = tt_count(it, (uint32_t)i);
    }
    o->bytes = n;
    o->id = r->ncounts;
    r->ncounts += n;
    return 0;
}

/* NBRS: the ranks go into the counts as int64 values (tl_nbr). */
static int tl_push_nbrs(tl_reading_t *rd, const tt_item_t *it, tl_item_t *o)
{
    tl_rank_t *r = rd->r;
    size_t n = (size_t)it->u.nbrs.h.indegree + it->u.nbrs.h.outdegree;
    if (tl_job_comm(rd, it->u.nbrs.h.comm, o) != 0 || tl_counts_room(rd, n) != 0) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        r->counts[r->ncounts + i] = (uint64_t)(int64_t)tt_nbr(it, (uint32_t)i);
    }
    o->bytes = it->u.nbrs.h.indegree;
    o->rbytes = it->u.nbrs.h.outdegree;
    o->mode = (uint8_t)it->u.nbrs.h.flags;
    o->id = r->ncounts;
    r->ncounts += n;
    return 0;
}

/* An item of a CALL record in job terms; recv: the record's receive so
 * far (a STATUS item's source is a rank of its communicator).  0, or -1
 * when a communicator is not known (cannot happen after the reader's
 * checks) or memory ran out. */
static int tl_item(tl_reading_t *rd, const tt_item_t *it, const tl_item_t *recv, tl_item_t *o)
{
    memset(o, 0, sizeof(*o));
    o->type = (uint8_t)it->type;
    o->comm = TL_NONE;
    o->world = -1;
    switch (it->type) {
    case TERN_TRACE_I_SEND:
        if (tl_job_comm(rd, it->u.send.comm, o) != 0) {
            return -1;
        }
        o->peer = it->u.send.peer;
        o->world = tl_peer_world(rd->j, o->comm, o->side, o->peer);
        o->u.tag = it->u.send.tag;
        o->bytes = it->u.send.bytes;
        o->mode = it->u.send.mode;
        o->form = it->u.send.form;
        return 0;
    case TERN_TRACE_I_RECV:
        if (tl_job_comm(rd, it->u.recv.comm, o) != 0) {
            return -1;
        }
        o->peer = it->u.recv.peer;
        o->world = tl_peer_world(rd->j, o->comm, o->side, o->peer);
        o->u.tag = it->u.recv.tag;
        o->bytes = it->u.recv.bytes;
        o->form = it->u.recv.form;
        return 0;
    case TERN_TRACE_I_STATUS:
        o->peer = it->u.status.source;
        if (recv != NULL) {
            o->world = tl_peer_world(rd->j, recv->comm, recv->side, o->peer);
        }
        o->u.tag = it->u.status.tag;
        o->bytes = it->u.status.bytes;
        o->v.error = it->u.status.error;
        o->mode = (uint8_t)it->u.status.cancelled;
        return 0;
    case TERN_TRACE_I_REQ:
    case TERN_TRACE_I_START:
    case TERN_TRACE_I_FREE:
        o->id = it->u.req.req;
        return 0;
    case TERN_TRACE_I_DONE:
        o->id = it->u.done.req;
        o->peer = it->u.done.source;
        o->u.tag = it->u.done.tag;
        o->bytes = it->u.done.bytes;
        o->v.error = it->u.done.error;
        o->mode = (uint8_t)it->u.done.cancelled;
        return 0;
    case TERN_TRACE_I_COLL:
        if (tl_job_comm(rd, it->u.coll.comm, o) != 0) {
            return -1;
        }
        o->u.coll.kind = it->u.coll.kind;
        o->u.coll.algo = it->u.coll.algo == TERN_TRACE_ALGO_UNKNOWN
                             ? TERN_TRACE_ALGO_UNKNOWN
                             : rd->algos[it->u.coll.algo];
        o->peer = it->u.coll.root;
        if (rd->j->comms[o->comm].remote_size == 0) {
            o->world = tl_peer_world(rd->j, o->comm, 0, o->peer);
        }
        o->v.op = it->u.coll.op;
        o->id = it->u.coll.seq;
        o->bytes = it->u.coll.sbytes;
        o->rbytes = it->u.coll.rbytes;
        o->form = it->u.coll.form;
        o->mode = it->u.coll.flags;
        return 0;
    case TERN_TRACE_I_SCOUNTS:
    case TERN_TRACE_I_RCOUNTS:
        return tl_push_counts(rd, it, o);
    case TERN_TRACE_I_NBRS:
        return tl_push_nbrs(rd, it, o);
    case TERN_TRACE_I_NEWCOMM:
        if (it->u.newcomm.comm != 0 && tl_job_comm(rd, it->u.newcomm.comm, o) != 0) {
            return -1;
        }
        return 0;
    case TERN_TRACE_I_RMA:
        if (tl_job_comm(rd, it->u.rma.comm, o) != 0) {
            return -1;
        }
        o->peer = it->u.rma.target;
        o->world = tl_peer_world(rd->j, o->comm, o->side, o->peer);
        o->bytes = it->u.rma.bytes;
        o->mode = it->u.rma.op;
        return 0;
    case 0:
        return 0;                       /* a later version's item, skipped */
    case TERN_TRACE_I_EVENT:
        /* the event in mode; its elements: the peer's world rank, then
         * (retransmit) packets and cause, (rail_state) rail and state,
         * (peer_failure) reason */
        o->mode = (uint8_t)it->u.event.event;
        o->world = it->u.event.elems[0];
        o->peer = it->u.event.elems[1];
        o->v.error = it->u.event.elems[2];
        return 0;
    default:
        return -1;
    }
}

static int tl_call(tl_reading_t *rd, const tt_rec_t *tr)
{
    tl_rank_t *r = rd->r;
    if (r->nrecs == UINT32_MAX || (uint64_t)r->nitems + tr->nitems >= UINT32_MAX) {
        snprintf(rd->j->err, sizeof(rd->j->err), "more than 2^32 records or items");
        return -1;
    }
    if (tl_grow((void **)&r->recs, &rd->rcap, sizeof(tl_rec_t), r->nrecs + 1) != 0 ||
        tl_grow((void **)&r->items, &rd->icap, sizeof(tl_item_t), r->nitems + tr->nitems) != 0) {
        snprintf(rd->j->err, sizeof(rd->j->err), "out of memory");
        return -1;
    }
    tl_rec_t *o = &r->recs[r->nrecs];
    o->t_enter = tl_clamp(tt_ns(rd->t, tr->t_enter));
    o->t_exit = tl_clamp(tt_ns(rd->t, tr->t_exit));
    if (o->t_exit < o->t_enter) {
        o->t_exit = o->t_enter;
    }
    o->call = rd->calls[tr->call];
    o->flags = (uint8_t)(tr->flags & TERN_TRACE_F_ERROR);
    o->depth = (uint8_t)tr->depth;
    o->item = r->nitems;
    o->nitems = tr->nitems;
    const tl_item_t *recv = NULL;
    for (unsigned i = 0; i < tr->nitems; i++) {
        tl_item_t *it = &r->items[r->nitems + i];
        if (tl_item(rd, &tr->items[i], recv, it) != 0) {
            snprintf(rd->j->err, sizeof(rd->j->err), "%.500s: record at offset %llu: an item "
                     "names no known communicator, or out of memory", rd->t->name,
                     (unsigned long long)tr->offset);
            return -1;
        }
        if (it->type == TERN_TRACE_I_RECV) {
            recv = it;
        }
    }
    r->nitems += tr->nitems;
    r->nrecs++;
    return 0;
}

/* The header against the job's; 1: another job's file to skip. */
static int tl_same_job(tl_job_t *j, const tt_file_t *t)
{
    const tern_trace_hdr_t *h = &t->hdr;
    if (j->want[0] != '\0' && strcmp(j->want, h->job) != 0) {
        if (j->want_given) {
            return 1;
        }
        snprintf(j->err, sizeof(j->err), "%s: a trace of job %s, but %s holds one of job %s "
                 "(more than one job: choose one with --job)", t->name, h->job,
                 j->nranks ? j->ranks[0].path : "an earlier file", j->want);
        return -1;
    }
    if (j->size == 0) {
        j->size = h->size;
        j->nnodes = h->nnodes;
        snprintf(j->job, sizeof(j->job), "%s", h->job);
        snprintf(j->want, sizeof(j->want), "%s", h->job);
        return 0;
    }
    if (h->size != j->size || h->nnodes != j->nnodes) {
        snprintf(j->err, sizeof(j->err), "%s: job %s of %u ranks on %u nodes, but earlier "
                 "files say %u ranks on %u nodes", t->name, h->job, h->size, h->nnodes,
                 j->size, j->nnodes);
        return -1;
    }
    return 0;
}

int tl_job_add_stream(tl_job_t *j, FILE *f, const char *name)
{
    tt_file_t t;
    if (tt_open_stream(&t, f, name) != 0) {
        snprintf(j->err, sizeof(j->err), "%s", t.err);
        return -1;
    }
    int status = tl_same_job(j, &t);
    if (status != 0) {
        if (status > 0) {
            j->skipped++;
        }
        tt_close(&t);
        return status;
    }
    if (tl_grow((void **)&j->ranks, &j->rank_cap, sizeof(tl_rank_t), j->nranks + 1) != 0) {
        tt_close(&t);
        snprintf(j->err, sizeof(j->err), "out of memory");
        return -1;
    }
    tl_rank_t *r = &j->ranks[j->nranks++];
    memset(r, 0, sizeof(*r));
    r->rank = t.hdr.rank;
    r->node = t.hdr.node;
    r->pid = t.hdr.pid;
    r->clock = t.hdr.clock;
    snprintf(r->host, sizeof(r->host), "%s", t.hdr.host);
    r->path = strdup(name);
    r->init_exit = tl_clamp(t.hdr.t0_ns);
    tl_reading_t rd = { .j = j, .r = r, .t = &t };
    status = r->path == NULL ? -1 : tl_map_names(&rd);
    tt_rec_t tr;
    int rc = 0;
    while (status == 0 && (rc = tt_next(&t, &tr)) == 1) {
        if (tr.kind == TERN_TRACE_REC_COMM) {
            if (tl_def_comm(&rd, tr.items[0].u.commdef) != 0) {
                status = -1;
            }
        } else if (tr.kind == TERN_TRACE_REC_CALL) {
            status = tl_call(&rd, &tr);
        }
    }
    if (status == 0 && rc < 0 && (r->warning = strdup(t.err)) == NULL) {
        status = -1;
    }
    if (status != 0 && j->err[0] == '\0') {
        snprintf(j->err, sizeof(j->err), "%s: out of memory", name);
    }
    free(rd.calls);
    free(rd.algos);
    free(rd.comm);
    free(rd.side);
    tt_close(&t);
    j->nrecs += r->nrecs;
    j->nitems += r->nitems;
    return status;
}

int tl_job_add(tl_job_t *j, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(j->err, sizeof(j->err), "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    return tl_job_add_stream(j, f, path);
}

static int tl_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tl_job_add_dir(tl_job_t *j, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(j->err, sizeof(j->err), "%s: cannot open the directory: %s", dir,
                 strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int status = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        size_t sl = sizeof(TERN_TRACE_SUFFIX) - 1;
        if (e->d_name[0] == '.' || len <= sl || strcmp(e->d_name + len - sl, TERN_TRACE_SUFFIX) != 0) {
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof(*nn));
            if (nn == NULL) {
                status = -1;
                break;
            }
            names = nn;
        }
        if ((names[n] = malloc(strlen(dir) + len + 2)) == NULL) {
            status = -1;
            break;
        }
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (status != 0) {
        snprintf(j->err, sizeof(j->err), "out of memory");
    } else if (n == 0) {
        snprintf(j->err, sizeof(j->err), "%s: no trace files (*%s)", dir, TERN_TRACE_SUFFIX);
        status = -1;
    }
    if (n > 1) {
        qsort(names, n, sizeof(*names), tl_cmp_str);
    }
    for (size_t i = 0; i < n; i++) {
        if (status == 0 && tl_job_add(j, names[i]) < 0) {
            status = -1;
        }
        free(names[i]);
    }
    free(names);
    return status;
}

int tl_job_add_paths(tl_job_t *j, char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            snprintf(j->err, sizeof(j->err), "%s: %s", paths[i], strerror(errno));
            return -1;
        }
        int rc = S_ISDIR(st.st_mode) ? tl_job_add_dir(j, paths[i]) : tl_job_add(j, paths[i]);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}

static int tl_cmp_rank(const void *a, const void *b)
{
    const tl_rank_t *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* When the rank left MPI_Init (its first record of that name), on its own
 * clock; without one the header's clock pair stands in. */
static void tl_find_init(const tl_job_t *j, tl_rank_t *r)
{
    for (uint32_t i = 0; i < r->nrecs && i < 64; i++) {
        const char *name = tl_call_name(j, r->recs[i].call);
        if (r->recs[i].depth == 0 &&
            (strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0)) {
            r->init_exit = r->recs[i].t_exit;
            return;
        }
    }
}

int tl_job_finish(tl_job_t *j)
{
    if (j->nranks == 0) {
        snprintf(j->err, sizeof(j->err), "no trace files%s", j->skipped ? " of that job" : "");
        return -1;
    }
    qsort(j->ranks, j->nranks, sizeof(*j->ranks), tl_cmp_rank);
    for (uint32_t i = 0; i + 1 < j->nranks; i++) {
        if (j->ranks[i].rank == j->ranks[i + 1].rank) {
            snprintf(j->err, sizeof(j->err), "rank %u comes twice: %s and %s",
                     j->ranks[i].rank, j->ranks[i].path, j->ranks[i + 1].path);
            return -1;
        }
    }
    for (uint32_t i = 0; i < j->size; i++) {
        if (i >= j->nranks || j->ranks[i].rank != i) {
            snprintf(j->err, sizeof(j->err), "rank %u's trace is missing (%u of %u ranks of "
                     "job %s found)", i, j->nranks, j->size, j->job);
            return -1;
        }
    }
    /* Clock domains: the ranks of one host share CLOCK_MONOTONIC, also when
     * they are on different nodes (network namespaces of one machine); a
     * domain is named by its first rank. */
    int64_t *anchor = malloc(j->size * sizeof(int64_t));
    uint32_t *dom = malloc(j->size * sizeof(uint32_t));
    if (anchor == NULL || dom == NULL) {
        free(anchor);
        free(dom);
        snprintf(j->err, sizeof(j->err), "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < j->size; i++) {
        anchor[i] = TL_NS_MAX;
        dom[i] = i;
        for (uint32_t k = 0; k < i; k++) {
            if (dom[k] == k && strcmp(j->ranks[k].host, j->ranks[i].host) == 0) {
                dom[i] = k;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < j->size; i++) {
        tl_rank_t *r = &j->ranks[i];
        tl_find_init(j, r);
        anchor[dom[i]] = r->init_exit < anchor[dom[i]] ? r->init_exit : anchor[dom[i]];
    }
    /* each host's first exit from MPI_Init at 0, then the earliest entry */
    int64_t lo = INT64_MAX;
    for (uint32_t i = 0; i < j->size; i++) {
        tl_rank_t *r = &j->ranks[i];
        int64_t a = anchor[dom[i]];
        lo = r->init_exit - a < lo ? r->init_exit - a : lo;
        for (uint32_t k = 0; k < r->nrecs; k++) {
            lo = r->recs[k].t_enter - a < lo ? r->recs[k].t_enter - a : lo;
        }
    }
    j->t_end = 0;
    for (uint32_t i = 0; i < j->size; i++) {
        tl_rank_t *r = &j->ranks[i];
        int64_t off = anchor[dom[i]] + lo;
        r->init_exit -= off;
        for (uint32_t k = 0; k < r->nrecs; k++) {
            r->recs[k].t_enter -= off;
            r->recs[k].t_exit -= off;
            j->t_end = r->recs[k].t_exit > j->t_end ? r->recs[k].t_exit : j->t_end;
        }
    }
    free(dom);
    free(anchor);
    j->finished = 1;
    return 0;
}

void tl_job_free(tl_job_t *j)
{
    for (uint32_t i = 0; i < j->nranks; i++) {
        free(j->ranks[i].path);
        free(j->ranks[i].warning);
        free(j->ranks[i].recs);
        free(j->ranks[i].items);
        free(j->ranks[i].counts);
    }
    free(j->ranks);
    tl_unify_free(j);
    memset(j, 0, sizeof(*j));
}

/* Decoding trace files (trace_read.h). */
#include "trace_read.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int tt_fail(tt_file_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int tt_fail(tt_file_t *t, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(t->err, sizeof(t->err), "%s: offset %llu: %s", t->name,
             (unsigned long long)t->off, why);
    return -1;
}

/* Printable ASCII only, so a name never carries terminal escapes into a
 * report. */
static int tt_printable(const char *s)
{
    for (; *s != '\0'; s++) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e) {
            return 0;
        }
    }
    return 1;
}

static void tt_clean_text(char *s, size_t n)
{
    s[n - 1] = '\0';
    for (size_t i = 0; s[i] != '\0'; i++) {
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) {
            s[i] = '?';
        }
    }
}

static int tt_read(tt_file_t *t, void *p, size_t n)
{
    return n == 0 || fread(p, 1, n, t->f) == n ? 0 : -1;
}

static int tt_check_header(tt_file_t *t)
{
    const tern_trace_hdr_t *h = &t->hdr;
    if (memcmp(h->magic, TERN_TRACE_MAGIC, sizeof(TERN_TRACE_MAGIC)) != 0) {
        return tt_fail(t, "not a Tern trace (bad magic)");
    }
    if (h->version != TERN_TRACE_VERSION) {
        return tt_fail(t, "trace format version %u, this reader knows %d", h->version,
                       TERN_TRACE_VERSION);
    }
    if (h->hdr_size != TERN_TRACE_HDR_SIZE) {
        return tt_fail(t, "header size %u, expected %d", h->hdr_size, TERN_TRACE_HDR_SIZE);
    }
    if (h->size == 0 || h->size > TT_MAX_SIZE || h->rank >= h->size) {
        return tt_fail(t, "rank %u of %u ranks", h->rank, h->size);
    }
    if (h->nnodes == 0 || h->nnodes > h->size || h->node >= h->nnodes) {
        return tt_fail(t, "node %u of %u nodes", h->node, h->nnodes);
    }
    if (h->rails > 64) {
        return tt_fail(t, "%u rails", h->rails);
    }
    if (h->clock > TERN_TRACE_CLOCK_TSC) {
        return tt_fail(t, "unknown clock %u", h->clock);
    }
    if (h->ncalls == 0 || h->ncalls > TT_MAX_NAMES || h->nalgos > TT_MAX_NAMES - h->ncalls) {
        return tt_fail(t, "%u call and %u algorithm names", h->ncalls, h->nalgos);
    }
    if (h->names_bytes > TT_MAX_NAMES_SIZE || h->names_bytes < h->ncalls + h->nalgos) {
        return tt_fail(t, "names block of %u bytes", h->names_bytes);
    }
    return 0;
}

static int tt_read_names(tt_file_t *t)
{
    const tern_trace_hdr_t *h = &t->hdr;
    size_t n = h->names_bytes;
    t->names = malloc(n + 1);
    t->calls = calloc(h->ncalls, sizeof(*t->calls));
    t->algos = calloc(h->nalgos + 1, sizeof(*t->algos));
    if (t->names == NULL || t->calls == NULL || t->algos == NULL) {
        return tt_fail(t, "out of memory");
    }
    if (tt_read(t, t->names, n) != 0) {
        return tt_fail(t, "the names block is cut short");
    }
    t->names[n] = '\0';
    size_t off = 0;
    for (unsigned i = 0; i < h->ncalls + h->nalgos; i++) {
        const char *s = t->names + off;
        const char *z = memchr(s, '\0', n - off);
        if (off >= n || z == NULL) {
            return tt_fail(t, "name %u is not inside the names block", i);
        }
        if (z == s || !tt_printable(s)) {
            return tt_fail(t, "name %u is empty or not printable", i);
        }
        if (i < h->ncalls) {
            t->calls[i] = s;
        } else {
            t->algos[i - h->ncalls] = s;
        }
        off = (size_t)(z - t->names) + 1;
    }
    if (off != n) {
        return tt_fail(t, "%zu bytes after the last name", n - off);
    }
    return 0;
}

/* The last CLOCK record, found by walking record headers only (the main
 * pass checks everything again); stops quietly at anything odd.  Small
 * records are skipped by reading them: fseek asks the kernel where the
 * file is each time, a third of the time of loading a large trace. */
static void tt_find_last_clock(tt_file_t *t, long start)
{
    tern_trace_rec_t r;
    uint64_t last_ticks = 0, last_ns = 0;
    int found = 0;
    unsigned char skip[4096];
    while (fread(&r, 1, sizeof(r), t->f) == sizeof(r)) {
        if (r.len < TERN_TRACE_REC_HDR || r.len > TERN_TRACE_REC_MAX || r.len % 4 != 0) {
            break;
        }
        if (r.kind == TERN_TRACE_REC_CLOCK && r.len == TERN_TRACE_REC_HDR) {
            if (r.t_enter >= t->c0_ticks && r.t_exit >= t->c0_ns) {
                last_ticks = r.t_enter;
                last_ns = r.t_exit;
                found = 1;
            }
        }
        size_t body = r.len - TERN_TRACE_REC_HDR;
        if (body <= sizeof(skip) ? fread(skip, 1, body, t->f) != body
                                 : fseek(t->f, (long)body, SEEK_CUR) != 0) {
            break;
        }
    }
    if (found && last_ticks > t->c0_ticks) {
        t->c1_ticks = last_ticks;
        t->c1_ns = last_ns;
    }
    clearerr(t->f);
    fseek(t->f, start, SEEK_SET);
}

int tt_open_stream(tt_file_t *t, FILE *f, const char *name)
{
    memset(t, 0, sizeof(*t));
    t->f = f;
    snprintf(t->name, sizeof(t->name), "%s", name);
    if (tt_read(t, &t->hdr, sizeof(t->hdr)) != 0) {
        tt_fail(t, "shorter than a trace header");
        tt_close(t);
        return -1;
    }
    if (tt_check_header(t) != 0 || tt_read_names(t) != 0) {
        tt_close(t);
        return -1;
    }
    tt_clean_text(t->hdr.host, sizeof(t->hdr.host));
    tt_clean_text(t->hdr.job, sizeof(t->hdr.job));
    t->off = TERN_TRACE_HDR_SIZE + (uint64_t)t->hdr.names_bytes;
    t->c0_ticks = t->c1_ticks = t->hdr.t0_ticks;
    t->c0_ns = t->c1_ns = t->hdr.t0_ns;
    tt_find_last_clock(t, (long)t->off);
    return 0;
}

int tt_open(tt_file_t *t, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        memset(t, 0, sizeof(*t));
        snprintf(t->err, sizeof(t->err), "%s: cannot open: %m", path);
        return -1;
    }
    return tt_open_stream(t, f, path);
}

void tt_close(tt_file_t *t)
{
    if (t->f != NULL) {
        fclose(t->f);
    }
    for (uint32_t i = 0; i < t->ncomms; i++) {
        free(t->comms[i].world);
    }
    free(t->comms);
    free(t->names);
    free(t->calls);
    free(t->algos);
    free(t->buf);
    free(t->items);
    t->f = NULL;
    t->comms = NULL;
    t->names = NULL;
    t->calls = NULL;
    t->algos = NULL;
    t->buf = NULL;
    t->items = NULL;
    t->ncomms = 0;
}

const tt_comm_t *tt_comm(const tt_file_t *t, uint32_t id)
{
    return id < t->ncomms && t->comms[id].world != NULL ? &t->comms[id] : NULL;
}

/* ------------------------------------------------------------------ items */

/* A rank value naming a member of comm (the remote group's on an
 * intercommunicator), or one of the allowed special values. */
static int tt_rank_ok(const tt_comm_t *c, int32_t r, int any, int null)
{
    if (r >= 0) {
        uint32_t n = c->def.remote_size ? c->def.remote_size : c->def.size;
        return (uint32_t)r < n;
    }
    return (any && r == TERN_TRACE_ANY) || (null && r == TERN_TRACE_PROC_NULL);
}

static int tt_tag_ok(int32_t tag, int any)
{
    return tag >= 0 || (any && tag == TERN_TRACE_ANY);
}

static int tt_def_comm(tt_file_t *t, const unsigned char *p, size_t n)
{
    tern_trace_commdef_t d;
    if (n < sizeof(d)) {
        return tt_fail(t, "communicator definition of %zu bytes", n);
    }
    memcpy(&d, p, sizeof(d));
    if (d.id == 0 || d.id >= TT_MAX_COMMS) {
        return tt_fail(t, "communicator id %u", d.id);
    }
    if (tt_comm(t, d.id) != NULL) {
        return tt_fail(t, "communicator %u defined twice", d.id);
    }
    if (d.size == 0 || d.size > TT_MAX_SIZE || d.rank >= d.size || d.remote_size > TT_MAX_SIZE ||
        (d.flags & ~(uint32_t)TERN_TRACE_COMM_INTER) != 0 ||
        ((d.flags & TERN_TRACE_COMM_INTER) != 0) != (d.remote_size != 0)) {
        return tt_fail(t, "communicator %u: rank %u of %u, %u remote, flags %#x", d.id, d.rank,
                       d.size, d.remote_size, d.flags);
    }
    size_t nr = (size_t)d.size + d.remote_size;
    if ((n - sizeof(d)) / sizeof(int32_t) < nr) {
        return tt_fail(t, "communicator %u: %zu ranks do not fit its item", d.id, nr);
    }
    int32_t *w = malloc(nr * sizeof(int32_t));
    if (w == NULL) {
        return tt_fail(t, "out of memory");
    }
    memcpy(w, p + sizeof(d), nr * sizeof(int32_t));
    for (size_t i = 0; i < nr; i++) {
        int32_t bad = w[i];
        if (bad < 0) {
            free(w);
            return tt_fail(t, "communicator %u: world rank %d", d.id, bad);
        }
    }
    int32_t mine = w[d.rank];
    if (mine != (int32_t)t->hdr.rank) {
        free(w);
        return tt_fail(t, "communicator %u: its rank %u is world rank %d, not this file's %u",
                       d.id, d.rank, mine, t->hdr.rank);
    }
    if (d.id >= t->ncomms) {
        uint32_t nc = t->ncomms ? t->ncomms : 16;
        while (nc <= d.id) {
            nc *= 2;
        }
        tt_comm_t *c = realloc(t->comms, nc * sizeof(*c));
        if (c == NULL) {
            free(w);
            return tt_fail(t, "out of memory");
        }
        memset(c + t->ncomms, 0, (nc - t->ncomms) * sizeof(*c));
        t->comms = c;
        t->ncomms = nc;
    }
    t->comms[d.id].def = d;
    t->comms[d.id].world = w;
    return 0;
}

/* The communicator an item names: defined earlier in the file. */
static const tt_comm_t *tt_need_comm(tt_file_t *t, uint32_t id)
{
    const tt_comm_t *c = tt_comm(t, id);
    if (c == NULL) {
        tt_fail(t, "communicator %u was not defined", id);
    }
    return c;
}

static int tt_decode_item(tt_file_t *t, unsigned kind, unsigned type, const unsigned char *p,
                          size_t n, tt_item_t *it)
{
    const tt_comm_t *c;
    it->type = type;
#define TT_NEED(T)                                                              \
    do {                                                                        \
        if (n < sizeof(T)) {                                                    \
            return tt_fail(t, "item %u of %zu bytes, needs %zu", type, n, sizeof(T)); \
        }                                                                       \
    } while (0)
    if ((kind == TERN_TRACE_REC_COMM) != (type == TERN_TRACE_I_COMMDEF)) {
        return tt_fail(t, "item %u in a record of kind %u", type, kind);
    }
    switch (type) {
    case TERN_TRACE_I_SEND:
        TT_NEED(tern_trace_send_t);
        memcpy(&it->u.send, p, sizeof(it->u.send));
        if ((c = tt_need_comm(t, it->u.send.comm)) == NULL) {
            return -1;
        }
        if (!tt_rank_ok(c, it->u.send.peer, 0, 1) || it->u.send.world < -1 ||
            !tt_tag_ok(it->u.send.tag, 0) || it->u.send.mode > TERN_TRACE_BUFFERED ||
            it->u.send.form > TERN_TRACE_PERSISTENT) {
            return tt_fail(t, "send to %d tag %d mode %u form %u", it->u.send.peer,
                           it->u.send.tag, it->u.send.mode, it->u.send.form);
        }
        return 0;
    case TERN_TRACE_I_RECV:
        TT_NEED(tern_trace_recv_t);
        memcpy(&it->u.recv, p, sizeof(it->u.recv));
        if ((c = tt_need_comm(t, it->u.recv.comm)) == NULL) {
            return -1;
        }
        if (!tt_rank_ok(c, it->u.recv.peer, 1, 1) || !tt_tag_ok(it->u.recv.tag, 1) ||
            it->u.recv.form > TERN_TRACE_PERSISTENT) {
            return tt_fail(t, "receive from %d tag %d form %u", it->u.recv.peer, it->u.recv.tag,
                           it->u.recv.form);
        }
        return 0;
    case TERN_TRACE_I_STATUS:
        TT_NEED(tern_trace_status_t);
        memcpy(&it->u.status, p, sizeof(it->u.status));
        if (it->u.status.source < TERN_TRACE_PROC_NULL || !tt_tag_ok(it->u.status.tag, 1) ||
            it->u.status.error < 0 || it->u.status.cancelled > 1) {
            return tt_fail(t, "status source %d tag %d error %d", it->u.status.source,
                           it->u.status.tag, it->u.status.error);
        }
        return 0;
    case TERN_TRACE_I_REQ:
    case TERN_TRACE_I_START:
    case TERN_TRACE_I_FREE:
        TT_NEED(tern_trace_req_t);
        memcpy(&it->u.req, p, sizeof(it->u.req));
        return 0;
    case TERN_TRACE_I_DONE:
        TT_NEED(tern_trace_done_t);
        memcpy(&it->u.done, p, sizeof(it->u.done));
        if (it->u.done.source < TERN_TRACE_PROC_NULL || it->u.done.error < 0 ||
            it->u.done.cancelled > 1) {
            return tt_fail(t, "completion source %d error %d", it->u.done.source,
                           it->u.done.error);
        }
        return 0;
    case TERN_TRACE_I_COLL:
        TT_NEED(tern_trace_coll_t);
        memcpy(&it->u.coll, p, sizeof(it->u.coll));
        if ((c = tt_need_comm(t, it->u.coll.comm)) == NULL) {
            return -1;
        }
        if (it->u.coll.kind == 0 || it->u.coll.kind >= TERN_TRACE_NKINDS ||
            (it->u.coll.algo != TERN_TRACE_ALGO_UNKNOWN && it->u.coll.algo >= t->hdr.nalgos) ||
            (it->u.coll.root >= 0 ? (uint32_t)it->u.coll.root >= c->def.size +
                                        c->def.remote_size
                                  : it->u.coll.root < TERN_TRACE_ROOT) ||
            (it->u.coll.op != TERN_TRACE_NONE &&
             (it->u.coll.op < 0 || it->u.coll.op >= TERN_TRACE_NOPS)) ||
            it->u.coll.form > TERN_TRACE_PERSISTENT ||
            (it->u.coll.flags & ~(TERN_TRACE_C_INPLACE | TERN_TRACE_C_VECTOR |
                                  TERN_TRACE_C_NEIGHBOR)) != 0) {
            return tt_fail(t, "collective kind %u algorithm %u root %d op %d", it->u.coll.kind,
                           it->u.coll.algo, it->u.coll.root, it->u.coll.op);
        }
        return 0;
    case TERN_TRACE_I_SCOUNTS:
    case TERN_TRACE_I_RCOUNTS:
        if (n % sizeof(uint64_t) != 0 || n / sizeof(uint64_t) > TT_MAX_SIZE) {
            return tt_fail(t, "counts item of %zu bytes", n);
        }
        it->u.counts.n = (uint32_t)(n / sizeof(uint64_t));
        it->u.counts.raw = p;
        return 0;
    case TERN_TRACE_I_NBRS:
        TT_NEED(tern_trace_nbrs_t);
        memcpy(&it->u.nbrs.h, p, sizeof(it->u.nbrs.h));
        if ((c = tt_need_comm(t, it->u.nbrs.h.comm)) == NULL) {
            return -1;
        }
        if (c->def.remote_size != 0 || (it->u.nbrs.h.flags & ~TERN_TRACE_NBRS_CART) != 0 ||
            (uint64_t)it->u.nbrs.h.indegree + it->u.nbrs.h.outdegree >
                (n - sizeof(tern_trace_nbrs_t)) / sizeof(int32_t) ||
            sizeof(tern_trace_nbrs_t) + sizeof(int32_t) * ((uint64_t)it->u.nbrs.h.indegree +
                                                         it->u.nbrs.h.outdegree) != n) {
            return tt_fail(t, "neighbours item of %zu bytes: %u in, %u out, flags %u", n,
                           it->u.nbrs.h.indegree, it->u.nbrs.h.outdegree, it->u.nbrs.h.flags);
        }
        it->u.nbrs.raw = p + sizeof(tern_trace_nbrs_t);
        for (uint32_t k = 0; k < it->u.nbrs.h.indegree + it->u.nbrs.h.outdegree; k++) {
            if (!tt_rank_ok(c, tt_nbr(it, k), 0, 1)) {
                return tt_fail(t, "neighbour %u is rank %d", k, tt_nbr(it, k));
            }
        }
        return 0;
    case TERN_TRACE_I_NEWCOMM:
        TT_NEED(tern_trace_newcomm_t);
        memcpy(&it->u.newcomm, p, sizeof(it->u.newcomm));
        if (it->u.newcomm.comm != 0 && tt_need_comm(t, it->u.newcomm.comm) == NULL) {
            return -1;
        }
        return 0;
    case TERN_TRACE_I_COMMDEF:
        if (tt_def_comm(t, p, n) != 0) {
            return -1;
        }
        memcpy(&it->u.commdef, p, sizeof(uint32_t));
        return 0;
    case TERN_TRACE_I_RMA:
        TT_NEED(tern_trace_rma_t);
        memcpy(&it->u.rma, p, sizeof(it->u.rma));
        if ((c = tt_need_comm(t, it->u.rma.comm)) == NULL) {
            return -1;
        }
        if (it->u.rma.op < TERN_TRACE_PUT || it->u.rma.op > TERN_TRACE_CAS ||
            !tt_rank_ok(c, it->u.rma.target, 0, 1)) {
            return tt_fail(t, "one-sided operation %u to %d", it->u.rma.op, it->u.rma.target);
        }
        return 0;
    case TERN_TRACE_I_EVENT:
        TT_NEED(tern_trace_event_t);
        memcpy(&it->u.event, p, sizeof(it->u.event));
        if (it->u.event.event >= TERN_TRACE_NEVENTS || it->u.event.nelems > 4 ||
            (it->u.event.nelems > 0 && (it->u.event.elems[0] < 0 ||
                                        (uint32_t)it->u.event.elems[0] >= t->hdr.size))) {
            return tt_fail(t, "event %u with %u elements, peer %d", it->u.event.event,
                           it->u.event.nelems, it->u.event.nelems > 0 ? it->u.event.elems[0] : -1);
        }
        for (unsigned k = it->u.event.nelems; k < 4; k++) {
            it->u.event.elems[k] = 0;
        }
        return 0;
    default:
        it->type = 0;                   /* a later version's item: skipped */
        return 0;
    }
#undef TT_NEED
}

int tt_next(tt_file_t *t, tt_rec_t *r)
{
    tern_trace_rec_t h;
    size_t got = fread(&h, 1, sizeof(h), t->f);
    if (got == 0 && feof(t->f)) {
        return 0;
    }
    if (got != sizeof(h)) {
        return tt_fail(t, "the file ends inside a record header");
    }
    if (h.len < TERN_TRACE_REC_HDR || h.len > TERN_TRACE_REC_MAX || h.len % 4 != 0) {
        return tt_fail(t, "record length %u", h.len);
    }
    if ((h.flags & ~(TERN_TRACE_F_ERROR | TERN_TRACE_F_DEPTH)) != 0) {
        return tt_fail(t, "record flags %#x", h.flags);
    }
    size_t body = h.len - TERN_TRACE_REC_HDR;
    if (body + 8 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < body + 8) {
            cap *= 2;
        }
        unsigned char *b = realloc(t->buf, cap);
        if (b == NULL) {
            return tt_fail(t, "out of memory");
        }
        t->buf = b;
        t->cap = cap;
    }
    if (tt_read(t, t->buf, body) != 0) {
        return tt_fail(t, "the file ends inside a record of %u bytes", h.len);
    }
    memset(r, 0, sizeof(*r));
    r->kind = h.kind;
    r->call = h.call;
    r->flags = h.flags;
    r->depth = (h.flags & TERN_TRACE_F_DEPTH) >> 1;
    r->t_enter = h.t_enter;
    r->t_exit = h.t_exit;
    r->offset = t->off;
    switch (h.kind) {
    case TERN_TRACE_REC_CALL:
        if (h.call >= t->hdr.ncalls) {
            return tt_fail(t, "call %u of %u names", h.call, t->hdr.ncalls);
        }
        break;
    case TERN_TRACE_REC_COMM:
        break;
    case TERN_TRACE_REC_CLOCK:
        if (body != 0) {
            return tt_fail(t, "a clock record with %zu bytes of items", body);
        }
        break;
    default:
        return tt_fail(t, "record kind %u", h.kind);
    }
    if (h.kind != TERN_TRACE_REC_CLOCK && h.t_exit < h.t_enter) {
        return tt_fail(t, "a record leaves (%llu) before it enters (%llu)",
                       (unsigned long long)h.t_exit, (unsigned long long)h.t_enter);
    }
    size_t off = 0;
    unsigned n = 0;
    while (off < body) {
        tern_trace_item_t ih;
        if (body - off < sizeof(ih)) {
            return tt_fail(t, "an item header is cut short");
        }
        memcpy(&ih, t->buf + off, sizeof(ih));
        if (ih.len < sizeof(ih) || ih.len % 4 != 0 || ih.len > body - off || ih.reserved != 0) {
            return tt_fail(t, "item of type %u and length %u in %zu bytes", ih.type, ih.len,
                           body - off);
        }
        if (n == t->icap) {
            unsigned ic = t->icap ? t->icap * 2 : 16;
            tt_item_t *items = realloc(t->items, ic * sizeof(*items));
            if (items == NULL) {
                return tt_fail(t, "out of memory");
            }
            t->items = items;
            t->icap = ic;
        }
        if (tt_decode_item(t, h.kind, ih.type, t->buf + off + sizeof(ih), ih.len - sizeof(ih),
                           &t->items[n]) != 0) {
            return -1;
        }
        if (t->items[n].type != 0) {
            n++;
        }
        off += ih.len;
    }
    if (h.kind == TERN_TRACE_REC_COMM && n != 1) {
        return tt_fail(t, "a communicator record with %u definitions", n);
    }
    r->nitems = n;
    r->items = t->items;
    t->off += h.len;
    return 1;
}

uint64_t tt_ns(const tt_file_t *t, uint64_t ticks)
{
    if (t->hdr.clock == TERN_TRACE_CLOCK_NS || t->c1_ticks <= t->c0_ticks) {
        return ticks;                   /* ns already, or no rate known: raw ticks */
    }
    long double rate = (long double)(t->c1_ns - t->c0_ns) / (long double)(t->c1_ticks - t->c0_ticks);
    long double d = ((long double)ticks - (long double)t->c0_ticks) * rate;
    long double ns = (long double)t->c0_ns + d;
    if (!(ns > 0)) {
        return 0;
    }
    return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;  /* forged rate: clamp */
}

const char *tt_call_name(const tt_file_t *t, unsigned call)
{
    return call < t->hdr.ncalls ? t->calls[call] : "?";
}

const char *tt_algo_name(const tt_file_t *t, unsigned algo)
{
    return algo < t->hdr.nalgos ? t->algos[algo] : "?";
}

const char *tt_event_name(unsigned event)
{
    static const char *const names[TERN_TRACE_NEVENTS] = {
        [TERN_TRACE_EV_PEER_FAILURE] = "peer_failure",
        [TERN_TRACE_EV_RETRANSMIT] = "retransmit",
        [TERN_TRACE_EV_RAIL_STATE] = "rail_state",
    };
    return event < TERN_TRACE_NEVENTS ? names[event] : "?";
}

const char *tt_coll_kind_name(unsigned kind)
{
    static const char *const names[TERN_TRACE_NKINDS] = {
        "?", "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather",
        "alltoall", "reduce_scatter", "scan", "exscan", "neighbor_allgather",
        "neighbor_alltoall",
    };
    return kind < TERN_TRACE_NKINDS ? names[kind] : "?";
}

const char *tt_op_name(int op)
{
    static const char *const names[TERN_TRACE_NOPS] = {
        "user", "max", "min", "sum", "prod", "land", "band", "lor", "bor", "lxor", "bxor",
        "minloc", "maxloc", "replace", "no_op",
    };
    return op >= 0 && op < TERN_TRACE_NOPS ? names[op] : "-";
}

/* Reading VEF text: the one decode step (trace_vef.h).  The input is
 * hostile: nothing is allocated from a count it states, arrays grow with
 * the lines actually read, and every value is checked before it is kept. */
#include "trace_vef.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VF_TOK_MAX 10                   /* tokens of an event line, one spare */
#define VF_FILE_MAX (UINT64_C(1) << 30)

static const char *const vf_op_names[VF_NOPS] = {
    [VF_OP_BROADCAST] = "broadcast", [VF_OP_REDUCE] = "reduce",
    [VF_OP_ALLREDUCE] = "allreduce", [VF_OP_GATHER] = "gather",
    [VF_OP_SCATTER] = "scatter",     [VF_OP_ALLGATHER] = "allgather",
    [VF_OP_BARRIER] = "barrier",     [VF_OP_ALLTOALL] = "alltoall",
};

static const char *const vf_dep_names[VF_NDEPS] = {
    [VF_DEP_INDEPENDENT] = "independent", [VF_DEP_COLLECTIVE] = "collective",
    [VF_DEP_SEND] = "send", [VF_DEP_RECEIVE] = "receive",
};

const char *vf_op_name(unsigned op)
{
    return op < VF_NOPS ? vf_op_names[op] : "?";
}

const char *vf_dep_name(unsigned dep)
{
    return dep < VF_NDEPS ? vf_dep_names[dep] : "?";
}

typedef struct {
    const char *p;
    size_t      n;
} vf_tok_t;

/* The parser's state besides the job it fills. */
typedef struct {
    vf_job_t  *j;
    size_t     line;
    size_t     ev_cap, msg_cap, coll_cap, roots_cap, mem_cap, sorted_cap;
    uint32_t  *sorted;                  /* members, sorted per communicator */
    uint32_t  *roots;                   /* per collective: lines with recv_size != 0 */
    uint64_t  *lines;                   /* hash set of (G id << 32 | task) + 1 */
    size_t     lines_cap, nlines;
} vf_state_t;

static int vf_fail(vf_state_t *s, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(s->j->err, sizeof(s->j->err), "line %zu: %s", s->line, msg);
    return -1;
}

/* Grow an array to hold n + 1 elements. */
static int vf_grow(void **a, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) {
        return 0;
    }
    size_t c = *cap != 0 ? *cap * 2 : 64;
    if (c > SIZE_MAX / elem) {
        return -1;
    }
    void *p = realloc(*a, c * elem);
    if (p == NULL) {
        return -1;
    }
    *a = p;
    *cap = c;
    return 0;
}

/* A decimal number, digits only, at most max. */
static int vf_num(vf_tok_t t, uint64_t max, uint64_t *v_p)
{
    if (t.n == 0 || t.n > 20) {
        return -1;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < t.n; i++) {
        unsigned d = (unsigned)(t.p[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    if (v > max) {
        return -1;
    }
    *v_p = v;
    return 0;
}

static int vf_num32(vf_tok_t t, uint32_t max, uint32_t *v_p)
{
    uint64_t v;
    if (vf_num(t, max, &v) != 0) {
        return -1;
    }
    *v_p = (uint32_t)v;
    return 0;
}

static int vf_is(vf_tok_t t, const char *s)
{
    return t.n == strlen(s) && memcmp(t.p, s, t.n) == 0;
}

/* Split [p, end) at blanks into at most max tokens; the count, or max + 1
 * when there are more. */
static size_t vf_split(const char *p, const char *end, vf_tok_t *tok, size_t max)
{
    size_t n = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t')) {
            p++;
        }
        if (p == end) {
            break;
        }
        const char *b = p;
        while (p < end && *p != ' ' && *p != '\t') {
            p++;
        }
        if (n == max) {
            return max + 1;
        }
        tok[n].p = b;
        tok[n].n = (size_t)(p - b);
        n++;
    }
    return n;
}

static uint64_t vf_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return k;
}

static uint64_t *vf_line_slot(vf_state_t *s, uint64_t key)
{
    size_t mask = s->lines_cap - 1;
    for (size_t i = vf_mix(key) & mask;; i = (i + 1) & mask) {
        if (s->lines[i] == 0 || s->lines[i] == key) {
            return &s->lines[i];
        }
    }
}

static int vf_line_has(vf_state_t *s, uint32_t g, uint32_t task)
{
    return s->lines_cap != 0 && *vf_line_slot(s, ((uint64_t)g << 32 | task) + 1) != 0;
}

static int vf_line_add(vf_state_t *s, uint32_t g, uint32_t task)
{
    if (2 * (s->nlines + 1) > s->lines_cap) {
        size_t cap = s->lines_cap != 0 ? s->lines_cap * 2 : 1024;
        uint64_t *old = s->lines;
        size_t ocap = s->lines_cap;
        s->lines = calloc(cap, sizeof(uint64_t));
        if (s->lines == NULL) {
            s->lines = old;
            return -1;
        }
        s->lines_cap = cap;
        for (size_t i = 0; i < ocap; i++) {
            if (old[i] != 0) {
                *vf_line_slot(s, old[i]) = old[i];
            }
        }
        free(old);
    }
    *vf_line_slot(s, ((uint64_t)g << 32 | task) + 1) = ((uint64_t)g << 32 | task) + 1;
    s->nlines++;
    return 0;
}

static int vf_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int vf_member(const vf_state_t *s, uint32_t comm, uint32_t task)
{
    const vf_comm_t *c = &s->j->comms[comm];
    return bsearch(&task, s->sorted + c->first, c->size, sizeof(uint32_t), vf_cmp_u32) != NULL;
}

static int vf_header(vf_state_t *s, const char *p, const char *end, uint32_t *ncomms_p)
{
    vf_tok_t t[8];
    vf_job_t *j = s->j;
    uint32_t nranks, nglobal, nlocal;
    uint64_t nmsgs;
    if (vf_split(p, end, t, 7) != 7 || !vf_is(t[0], "VEF") || !vf_is(t[6], "TRUE")) {
        return vf_fail(s, "not a VEF header (VEF nranks msgs comms global local TRUE)");
    }
    if (vf_num32(t[1], VF_MAX_RANKS, &nranks) != 0 || nranks == 0 ||
        vf_num(t[2], UINT32_MAX - 1, &nmsgs) != 0 ||
        vf_num32(t[3], UINT32_MAX - 1, ncomms_p) != 0 || *ncomms_p == 0 ||
        vf_num32(t[4], UINT32_MAX / 2, &nglobal) != 0 ||
        vf_num32(t[5], UINT32_MAX / 2, &nlocal) != 0) {
        return vf_fail(s, "header counts out of range");
    }
    j->nranks = nranks;
    j->nmsgs = (uint32_t)nmsgs;         /* the promise; checked at the end */
    j->nglobal = nglobal;
    j->nlocal = nlocal;
    return 0;
}

/* C<i> rank rank ... */
static int vf_comm_line(vf_state_t *s, const char *p, const char *end)
{
    vf_job_t *j = s->j;
    vf_tok_t t;
    uint32_t id;
    if (vf_split(p, end, &t, 1) < 1 || t.n < 2 || t.p[0] != 'C' ||
        vf_num32((vf_tok_t){ t.p + 1, t.n - 1 }, UINT32_MAX, &id) != 0 || id != j->ncomms) {
        return vf_fail(s, "expected communicator C%u", j->ncomms);
    }
    vf_comm_t *c = &j->comms[j->ncomms];
    c->first = (uint32_t)j->nmembers;
    c->size = 0;
    for (const char *q = t.p + t.n; q < end;) {
        vf_tok_t r = { NULL, 0 };
        if (vf_split(q, end, &r, 1) == 0) {
            break;
        }
        uint32_t rank;
        if (vf_num32(r, j->nranks - 1, &rank) != 0) {
            return vf_fail(s, "C%u: member '%.*s' is no rank below %u", id, (int)(r.n > 20 ? 20 : r.n),
                           r.p, j->nranks);
        }
        if (j->nmembers >= UINT32_MAX - 1 ||
            vf_grow((void **)&j->members, &s->mem_cap, j->nmembers, sizeof(uint32_t)) != 0 ||
            vf_grow((void **)&s->sorted, &s->sorted_cap, j->nmembers, sizeof(uint32_t)) != 0) {
            return vf_fail(s, "out of memory");
        }
        j->members[j->nmembers] = s->sorted[j->nmembers] = rank;
        j->nmembers++;
        c->size++;
        q = r.p + r.n;
    }
    if (c->size == 0) {
        return vf_fail(s, "C%u has no members", id);
    }
    uint32_t *sm = s->sorted + c->first;
    qsort(sm, c->size, sizeof(uint32_t), vf_cmp_u32);
    for (uint32_t i = 1; i < c->size; i++) {
        if (sm[i] == sm[i - 1]) {
            return vf_fail(s, "C%u lists rank %u twice", id, sm[i]);
        }
    }
    if (id == 0 && c->size != j->nranks) {
        return vf_fail(s, "C0 is the world: it lists %u of %u ranks", c->size, j->nranks);
    }
    j->ncomms++;
    return 0;
}

/* IDdep of a line of task (current G id g, VF_NONE for a message). */
static int vf_dep(vf_state_t *s, vf_event_t *e, vf_tok_t t, uint32_t g)
{
    const vf_job_t *j = s->j;
    uint32_t d;
    switch (e->deptype) {
    case VF_DEP_INDEPENDENT:
        if (!vf_is(t, "-1") && !vf_is(t, "0")) {
            return vf_fail(s, "an independent event's IDdep is -1 (or 0)");
        }
        e->dep = VF_NONE;
        return 0;
    case VF_DEP_COLLECTIVE:
        if (t.n < 2 || t.p[0] != 'G' || vf_num32((vf_tok_t){ t.p + 1, t.n - 1 }, UINT32_MAX, &d) != 0 ||
            d >= j->ncolls || d == g) {
            return vf_fail(s, "a collective dependency names an earlier G<n>");
        }
        if (!vf_line_has(s, d, e->task) || j->colls[d].nlines != j->comms[j->colls[d].comm].size) {
            return vf_fail(s, "task %u depends on G%u, which it has no line in or is not complete",
                           e->task, d);
        }
        break;
    default:                            /* SEND, RECEIVE */
        if (vf_num32(t, UINT32_MAX, &d) != 0 || d >= s->j->nmsgs) {
            return vf_fail(s, "IDdep names no earlier message");
        }
        const vf_event_t *m = &j->events[j->msg_event[d]];
        if ((e->deptype == VF_DEP_SEND && m->task != e->task) ||
            (e->deptype == VF_DEP_RECEIVE && m->dst != e->task)) {
            return vf_fail(s, "task %u depends on message %u, which it did not %s", e->task, d,
                           e->deptype == VF_DEP_SEND ? "send" : "receive");
        }
        break;
    }
    e->dep = d;
    return 0;
}

static int vf_event_line(vf_state_t *s, const char *p, const char *end)
{
    vf_job_t *j = s->j;
    vf_tok_t t[VF_TOK_MAX];
    size_t n = vf_split(p, end, t, VF_TOK_MAX);
    vf_event_t e;
    memset(&e, 0, sizeof(e));
    uint32_t deptype;
    if (n == 7 && t[0].p[0] != 'G') {
        uint32_t id;
        if (vf_num32(t[0], UINT32_MAX, &id) != 0 || id != j->nmsgs) {
            return vf_fail(s, "expected message %u", j->nmsgs);
        }
        if (vf_num32(t[1], j->nranks - 1, &e.task) != 0 || vf_num32(t[2], j->nranks - 1, &e.dst) != 0 ||
            vf_num(t[3], VF_MAX_SIZE, &e.size) != 0 || vf_num32(t[4], VF_NDEPS - 1, &deptype) != 0 ||
            vf_num(t[5], VF_MAX_DELAY, &e.delay_ns) != 0) {
            return vf_fail(s, "message %u: a rank, size, dependency type or delay out of range", id);
        }
        e.coll = VF_NONE;
        e.comm = VF_NONE;
        e.id = id;
        e.deptype = (uint8_t)deptype;
        if (vf_dep(s, &e, t[6], VF_NONE) != 0) {
            return -1;
        }
        if (vf_grow((void **)&j->msg_event, &s->msg_cap, j->nmsgs, sizeof(uint32_t)) != 0) {
            return vf_fail(s, "out of memory");
        }
        j->msg_event[j->nmsgs++] = (uint32_t)j->nevents;
    } else if (n == 9 && t[0].n >= 2 && t[0].p[0] == 'G') {
        uint32_t g, op;
        if (vf_num32((vf_tok_t){ t[0].p + 1, t[0].n - 1 }, UINT32_MAX - 1, &g) != 0 || g > j->ncolls) {
            return vf_fail(s, "expected G0..G%u", j->ncolls);
        }
        if (vf_num32(t[1], j->ncomms - 1, &e.comm) != 0 || vf_num32(t[2], VF_NOPS - 1, &op) != 0 ||
            vf_num32(t[3], j->nranks - 1, &e.task) != 0 || vf_num(t[4], VF_MAX_SIZE, &e.size) != 0 ||
            vf_num(t[5], VF_MAX_SIZE, &e.rsize) != 0 || vf_num32(t[6], VF_NDEPS - 1, &deptype) != 0 ||
            vf_num(t[7], VF_MAX_DELAY, &e.delay_ns) != 0) {
            return vf_fail(s, "G%u: a communicator, op, task, size, dependency type or delay out of "
                           "range", g);
        }
        if (!vf_member(s, e.comm, e.task)) {
            return vf_fail(s, "G%u: task %u is not in C%u", g, e.task, e.comm);
        }
        e.coll = g;
        e.dst = VF_NONE;
        e.id = VF_NONE;
        e.op = (uint8_t)op;
        e.deptype = (uint8_t)deptype;
        if (vf_dep(s, &e, t[8], g) != 0) {
            return -1;
        }
        if (g == j->ncolls) {
            if (vf_grow((void **)&j->colls, &s->coll_cap, j->ncolls, sizeof(vf_coll_t)) != 0 ||
                vf_grow((void **)&s->roots, &s->roots_cap, j->ncolls, sizeof(uint32_t)) != 0) {
                return vf_fail(s, "out of memory");
            }
            j->colls[g] = (vf_coll_t){ .comm = e.comm, .op = e.op, .nlines = 0,
                                       .first = (uint32_t)j->nevents };
            s->roots[g] = 0;
            j->ncolls++;
        } else if (j->colls[g].comm != e.comm || j->colls[g].op != e.op) {
            return vf_fail(s, "G%u: lines disagree on the communicator or op", g);
        }
        if (vf_line_has(s, g, e.task)) {
            return vf_fail(s, "G%u: task %u has two lines", g, e.task);
        }
        if (vf_line_add(s, g, e.task) != 0) {
            return vf_fail(s, "out of memory");
        }
        j->colls[g].nlines++;
        s->roots[g] += e.rsize != 0;
    } else {
        return vf_fail(s, "not an event line (7 fields of a message, 9 of a collective)");
    }
    if (j->nevents >= UINT32_MAX - 1 ||
        vf_grow((void **)&j->events, &s->ev_cap, j->nevents, sizeof(vf_event_t)) != 0) {
        return vf_fail(s, "out of memory");
    }
    j->events[j->nevents++] = e;
    return 0;
}

/* What only the whole file can show. */
static int vf_finish(vf_state_t *s, uint32_t ncomms, uint32_t nmsgs)
{
    vf_job_t *j = s->j;
    if (j->ncomms != ncomms) {
        return vf_fail(s, "%u communicators, the header says %u", j->ncomms, ncomms);
    }
    if (j->nmsgs != nmsgs) {
        return vf_fail(s, "%u messages, the header says %u", j->nmsgs, nmsgs);
    }
    uint32_t global = 0;
    for (uint32_t g = 0; g < j->ncolls; g++) {
        const vf_coll_t *c = &j->colls[g];
        if (c->nlines != j->comms[c->comm].size) {
            return vf_fail(s, "G%u has %u lines for the %u members of C%u", g, c->nlines,
                           j->comms[c->comm].size, c->comm);
        }
        if (c->op == VF_OP_REDUCE && s->roots[g] != 1) {
            return vf_fail(s, "G%u: a reduce with %u roots (tasks with recv_size != 0)", g,
                           s->roots[g]);
        }
        global += c->comm == 0;
    }
    if ((uint64_t)j->nglobal + j->nlocal != j->ncolls || j->nglobal != global) {
        return vf_fail(s, "%u collectives, %u on C0; the header says %u global, %u local", j->ncolls,
                       global, j->nglobal, j->nlocal);
    }
    return 0;
}

int vf_parse(const char *buf, size_t len, vf_job_t *j)
{
    memset(j, 0, sizeof(*j));
    vf_state_t s;
    memset(&s, 0, sizeof(s));
    s.j = j;
    uint32_t ncomms = 0, nmsgs = 0;
    int rc = -1;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl != NULL ? nl : end;
        const char *next = nl != NULL ? nl + 1 : end;
        size_t ll = (size_t)(le - p);
        s.line++;
        if (ll > 0 && p[ll - 1] == '\r') {
            ll--;
        }
        le = p + ll;
        if (memchr(p, '\0', ll) != NULL) {
            vf_fail(&s, "a NUL byte");
            goto out;
        }
        vf_tok_t any;
        if (vf_split(p, le, &any, 1) == 0) {
            p = next;                   /* a blank line */
            continue;
        }
        if (s.line > 0 && j->nranks == 0) {
            if (vf_header(&s, p, le, &ncomms) != 0) {
                goto out;
            }
            nmsgs = j->nmsgs;
            j->nmsgs = 0;
            j->comms = NULL;
        } else if (j->ncomms < ncomms) {
            if (j->comms == NULL) {
                /* bounded by the input: a communicator line is at least 5 bytes */
                if (ncomms > len / 5 || (j->comms = calloc(ncomms, sizeof(vf_comm_t))) == NULL) {
                    vf_fail(&s, "%u communicators cannot be in %zu bytes", ncomms, len);
                    goto out;
                }
            }
            if (vf_comm_line(&s, p, le) != 0) {
                goto out;
            }
        } else if (vf_event_line(&s, p, le) != 0) {
            goto out;
        }
        p = next;
    }
    if (j->nranks == 0) {
        snprintf(j->err, sizeof(j->err), "empty: no VEF header");
        goto out;
    }
    rc = vf_finish(&s, ncomms, nmsgs);
out:
    free(s.sorted);
    free(s.roots);
    free(s.lines);
    if (rc != 0) {
        char err[sizeof(j->err)];
        memcpy(err, j->err, sizeof(err));
        vf_free(j);
        memcpy(j->err, err, sizeof(err));
    }
    return rc;
}

int vf_load(const char *path, vf_job_t *j)
{
    memset(j, 0, sizeof(*j));
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(j->err, sizeof(j->err), "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *b = cap < VF_FILE_MAX ? realloc(buf, cap * 2) : NULL;
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    int bad = buf == NULL || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(j->err, sizeof(j->err), "%s: cannot read it (larger than 1 GiB, or an I/O error)",
                 path);
        return -1;
    }
    int rc = vf_parse(buf, len, j);
    free(buf);
    return rc;
}

void vf_free(vf_job_t *j)
{
    free(j->comms);
    free(j->members);
    free(j->events);
    free(j->msg_event);
    free(j->colls);
    memset(j, 0, sizeof(*j));
}

/* The server's live state (mon_state.h): applying frames. */
#include "mon_state.h"
#include "mon_scan.h"
#include "mon_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tern/stats.h"

void tn_mon_state_init(tn_mon_state_t *s)
{
    memset(s, 0, sizeof(*s));
    s->m_msgs_sent = s->m_bytes_sent = s->m_peer_msgs = s->m_peer_bytes = -1;
    s->m_took = s->m_took_bytes = s->m_rail_sent = s->m_rail_lost = s->m_srtt = -1;
    s->m_rails_down = -1;
}

static void rank_free(tn_mon_rankst_t *r)
{
    for (int m = 0; m < r->npv; m++) {
        free(r->pv[m]);
    }
    free(r->pv);
    free(r->recs);
    free(r->index);
    r->pv = NULL;
    r->recs = NULL;
    r->index = NULL;
    r->npv = 0;
    r->nrec = r->nrecs = r->cap_recs = r->index_cap = 0;
}

static void job_free(tn_mon_job_t *j)
{
    for (int i = 0; i < j->world_size; i++) {
        rank_free(&j->ranks[i]);
    }
    for (int k = 0; k < TN_MON_STATE_SNAPS; k++) {
        for (int a = 0; a < TN_MON_NMAT; a++) {
            free(j->snap[k][a]);
        }
    }
    free(j->ranks);
    free(j->node_names);
    free(j->links);
    free(j);
}

void tn_mon_state_fini(tn_mon_state_t *s)
{
    for (int i = 0; i < s->nmetrics; i++) {
        for (int e = 0; e < s->metrics[i].nelems; e++) {
            free(s->metrics[i].elems[e]);
        }
        free(s->metrics[i].elems);
        free(s->metrics[i].help);
    }
    for (int i = 0; i < s->nnodes; i++) {
        free(s->nodes[i]->idmap);
        free(s->nodes[i]->listed);
        free(s->nodes[i]);
    }
    for (int i = 0; i < s->njobs; i++) {
        job_free(s->jobs[i]);
    }
    free(s->metrics);
    free(s->nodes);
    free(s->jobs);
    tn_mon_index_free(&s->node_ix);
    tn_mon_index_free(&s->job_ix);
    memset(s, 0, sizeof(*s));
}

static int str_eq(const tn_mon_wire_str_t *w, const char *c)
{
    return strlen(c) == w->n && memcmp(c, w->p, w->n) == 0;
}

static void str_copy(char *dst, size_t cap, const tn_mon_wire_str_t *w)
{
    size_t n = w->n < cap - 1 ? w->n : cap - 1;
    memcpy(dst, w->p, n);
    dst[n] = '\0';
}

int tn_mon_state_metric(const tn_mon_state_t *s, const char *name)
{
    for (int i = 0; i < s->nmetrics; i++) {
        if (strcmp(s->metrics[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static const char *node_key(const void *table, uint32_t pos)
{
    return ((tn_mon_node_t *const *)table)[pos]->name;
}

static const char *job_key(const void *table, uint32_t pos)
{
    return ((tn_mon_job_t *const *)table)[pos]->id;
}

tn_mon_node_t *tn_mon_state_node(tn_mon_state_t *s, const char *name)
{
    int64_t i = tn_mon_index_find(&s->node_ix, name, s->nodes, node_key);
    return i >= 0 ? s->nodes[i] : NULL;
}

/* The newest job of that id (a reused name's newer job goes last). */
tn_mon_job_t *tn_mon_state_job(tn_mon_state_t *s, const char *id)
{
    int64_t i = tn_mon_index_find(&s->job_ix, id, s->jobs, job_key);
    return i >= 0 ? s->jobs[i] : NULL;
}

/* ---- applying a frame ---------------------------------------------------- */

typedef struct {
    tn_mon_state_t *s;
    tn_mon_node_t  *node;
    uint64_t        now;
    int             full;
    tn_mon_job_t   *job;            /* of the JOB section being applied */
    int             failed;
    tn_mon_rankst_t **listed;       /* the ranks this frame lists */
    int             nlisted, cap_listed;
} apply_t;

static void on_head(void *arg, const tn_mon_wire_head_t *h)
{
    apply_t *a = arg;
    a->node->last_t_ms = h->t_ms;
    a->full = (h->flags & TN_MON_WIRE_FULL) != 0;
    if (a->full) {
        /* the agent starts over: its ids and the ranks it lists are new */
        for (int i = 0; i < a->node->nidmap; i++) {
            a->node->idmap[i] = -1;
        }
    }
}

static void on_metric(void *arg, const tn_mon_wire_metric_t *m)
{
    apply_t *a = arg;
    tn_mon_state_t *s = a->s;
    char name[40];
    str_copy(name, sizeof(name), &m->name);
    int idx = tn_mon_state_metric(s, name);
    if (idx < 0) {
        if (s->nmetrics == s->cap_metrics) {
            int cap = s->cap_metrics ? 2 * s->cap_metrics : 128;
            tn_mon_metric_t *nm = realloc(s->metrics, (size_t)cap * sizeof(*nm));
            if (nm == NULL) {
                a->failed = 1;
                return;
            }
            s->metrics = nm;
            s->cap_metrics = cap;
        }
        tn_mon_metric_t *x = &s->metrics[s->nmetrics];
        memset(x, 0, sizeof(*x));
        snprintf(x->name, sizeof(x->name), "%s", name);
        x->cls = (int)m->cls;
        str_copy(x->unit, sizeof(x->unit), &m->unit);
        x->help = strndup(m->help.p, m->help.n);
        str_copy(x->key, sizeof(x->key), &m->key);
        x->elems = calloc(m->nelems + 1, sizeof(char *));
        const uint8_t *p = m->elems, *end = m->elems + m->elems_len;
        tn_mon_wire_str_t e;
        while (x->elems != NULL && x->nelems < (int)m->nelems &&
               tn_mon_wire_next_str(&p, end, &e) == 0) {
            x->elems[x->nelems++] = strndup(e.p, e.n);
        }
        idx = s->nmetrics++;
#define NAMED(field, str) if (strcmp(name, str) == 0) s->field = idx
        NAMED(m_msgs_sent, "mpi_msgs_sent");
        NAMED(m_bytes_sent, "mpi_bytes_sent");
        NAMED(m_peer_msgs, "peer_msgs");
        NAMED(m_peer_bytes, "peer_bytes");
        NAMED(m_took, "peer_coll_took");
        NAMED(m_took_bytes, "peer_coll_took_bytes");
        NAMED(m_rail_sent, "udp_peer_rail_sent");
        NAMED(m_rail_lost, "udp_peer_rail_lost");
        NAMED(m_srtt, "udp_peer_srtt_ns");
        NAMED(m_rails_down, "udp_peer_rails_down");
#undef NAMED
    }
    tn_mon_node_t *n = a->node;
    if (m->id >= (uint32_t)n->nidmap) {
        int cap = (int)m->id + 64;
        int *im = realloc(n->idmap, (size_t)cap * sizeof(int));
        if (im == NULL) {
            a->failed = 1;
            return;
        }
        for (int i = n->nidmap; i < cap; i++) {
            im[i] = -1;
        }
        n->idmap = im;
        n->nidmap = cap;
    }
    n->idmap[m->id] = idx;
}

static void on_nic(void *arg, const tn_mon_wire_nic_t *w)
{
    apply_t *a = arg;
    tn_mon_node_t *n = a->node;
    tn_mon_nic_state_t *x = NULL;
    for (int i = 0; i < n->nnic; i++) {
        if (str_eq(&w->name, n->nic[i].name)) {
            x = &n->nic[i];
        }
    }
    if (x == NULL) {
        if (n->nnic == TN_MON_STATE_NICS) {
            return;
        }
        x = &n->nic[n->nnic++];
        memset(x, 0, sizeof(*x));
        str_copy(x->name, sizeof(x->name), &w->name);
    }
    x->oper = (int)w->oper;
    x->speed_mbps = w->speed_mbps;
    x->mtu = w->mtu;
    x->seen = 1;
    for (uint32_t k = 0; k < w->nctr; k++) {
        if (w->idx[k] < 16) {
            x->ctr[w->idx[k]] = w->val[k];
        }
    }
}

static void on_ib(void *arg, const tn_mon_wire_ib_t *w)
{
    apply_t *a = arg;
    tn_mon_node_t *n = a->node;
    tn_mon_ib_state_t *x = NULL;
    for (int i = 0; i < n->nib; i++) {
        if (str_eq(&w->dev, n->ib[i].dev) && n->ib[i].port == w->port) {
            x = &n->ib[i];
        }
    }
    if (x == NULL) {
        if (n->nib == TN_MON_STATE_IB) {
            return;
        }
        x = &n->ib[n->nib++];
        memset(x, 0, sizeof(*x));
        str_copy(x->dev, sizeof(x->dev), &w->dev);
        x->port = w->port;
    }
    x->state = w->state;
    x->rate_mbps = w->rate_mbps;
    for (uint32_t k = 0; k < w->nctr; k++) {
        if (w->idx[k] < 16) {
            x->ctr[w->idx[k]] = w->val[k];
        }
    }
}

static void on_snmp(void *arg, uint32_t idx, uint64_t v)
{
    apply_t *a = arg;
    if (idx < 16) {
        a->node->snmp[idx] = v;
    }
}

static tn_mon_job_t *job_new(const tn_mon_wire_job_t *w, uint64_t now)
{
    tn_mon_job_t *j = calloc(1, sizeof(*j));
    if (j == NULL) {
        return NULL;
    }
    str_copy(j->id, sizeof(j->id), &w->job);
    str_copy(j->program, sizeof(j->program), &w->program);
    j->uid = w->uid;
    j->world_size = (int)w->world_size;
    j->nnodes = (int)w->nnodes;
    j->start_ms = w->start_ms != 0 ? w->start_ms : now;
    j->last_ms = now;
    j->ranks = calloc((size_t)j->world_size, sizeof(*j->ranks));
    j->node_names = calloc((size_t)j->nnodes, sizeof(*j->node_names));
    j->level_node = j->world_size > TN_MON_STATE_RANKS_MAX;
    j->n = j->level_node ? j->nnodes : j->world_size;
    if (j->ranks == NULL || j->node_names == NULL) {
        free(j->ranks);
        free(j->node_names);
        free(j);
        return NULL;
    }
    for (int i = 0; i < j->world_size; i++) {
        j->ranks[i].job = j;
        j->ranks[i].state = TN_MON_RANK_UNSEEN;
        j->ranks[i].node = -1;
        j->ranks[i].node_id = -1;
        j->ranks[i].call_ms = -1;
    }
    return j;
}

static void on_job(void *arg, const tn_mon_wire_job_t *w)
{
    apply_t *a = arg;
    tn_mon_state_t *s = a->s;
    char id[96];
    str_copy(id, sizeof(id), &w->job);
    tn_mon_job_t *j = tn_mon_state_job(s, id);
    /* the same name with another shape is another job (a reused name) */
    if (j != NULL && (j->world_size != (int)w->world_size || j->nnodes != (int)w->nnodes)) {
        j = NULL;
        a->job = NULL;
        return;
    }
    if (j == NULL) {
        tn_mon_job_t **nj = realloc(s->jobs, (size_t)(s->njobs + 1) * sizeof(*nj));
        if (nj == NULL || (j = job_new(w, a->now)) == NULL) {
            if (nj != NULL) {
                s->jobs = nj;
            }
            a->job = NULL;
            return;
        }
        s->jobs = nj;
        s->jobs[s->njobs++] = j;
        /* a reused name: the index names the newer job */
        if (tn_mon_index_rebuild(&s->job_ix, (uint32_t)s->njobs, s->jobs, job_key) != 0) {
            a->failed = 1;
        }
    }
    j->last_ms = a->now;
    if (j->state != TN_MON_JOB_RUNNING) {
        j->state = TN_MON_JOB_RUNNING;    /* ranks still report */
        j->end_ms = 0;
    }
    a->job = j;
}

static int rank_room(tn_mon_rankst_t *r, int m, int nelems, uint32_t nrec)
{
    if (m >= 0 && m >= r->npv) {
        uint64_t **pv = realloc(r->pv, (size_t)(m + 16) * sizeof(*pv));
        if (pv == NULL) {
            return -1;
        }
        for (int i = r->npv; i < m + 16; i++) {
            pv[i] = NULL;
        }
        r->pv = pv;
        r->npv = m + 16;
    }
    if (m >= 0 && r->pv[m] == NULL &&
        (r->pv[m] = calloc((size_t)(nelems > 0 ? nelems : 1), sizeof(uint64_t))) == NULL) {
        return -1;
    }
    if (nrec > r->nrec) {
        r->nrec = nrec;
    }
    return 0;
}

static uint32_t rec_hash(uint32_t rec, uint32_t cap)
{
    return (rec * 2654435761u) & (cap - 1);
}

/* The rank's entry for record rec, made when missing; NULL out of memory. */
static tn_mon_peerrec_t *rec_get(tn_mon_rankst_t *r, uint32_t rec)
{
    for (uint32_t h = r->index_cap ? rec_hash(rec, r->index_cap) : 0; r->index_cap != 0;
         h = (h + 1) & (r->index_cap - 1)) {
        uint32_t e = r->index[h];
        if (e == 0) {
            break;
        }
        if (r->recs[e - 1].rec == rec) {
            return &r->recs[e - 1];
        }
    }
    if (r->nrecs == r->cap_recs) {
        uint32_t cap = r->cap_recs ? 2 * r->cap_recs : 8;
        tn_mon_peerrec_t *nr = realloc(r->recs, (size_t)cap * sizeof(*nr));
        if (nr == NULL) {
            return NULL;
        }
        r->recs = nr;
        r->cap_recs = cap;
    }
    if (2 * (r->nrecs + 1) >= r->index_cap) {
        /* a larger index, every entry placed again */
        uint32_t cap = r->index_cap ? 2 * r->index_cap : 32;
        uint32_t *ni = calloc(cap, sizeof(*ni));
        if (ni == NULL) {
            return NULL;
        }
        for (uint32_t e = 0; e < r->nrecs; e++) {
            uint32_t h = rec_hash(r->recs[e].rec, cap);
            while (ni[h] != 0) {
                h = (h + 1) & (cap - 1);
            }
            ni[h] = e + 1;
        }
        free(r->index);
        r->index = ni;
        r->index_cap = cap;
    }
    tn_mon_peerrec_t *x = &r->recs[r->nrecs++];
    memset(x, 0, sizeof(*x));
    x->rec = rec;
    uint32_t h = rec_hash(rec, r->index_cap);
    while (r->index[h] != 0) {
        h = (h + 1) & (r->index_cap - 1);
    }
    r->index[h] = r->nrecs;
    return x;
}

/* The per-record slot a metric's element feeds, -1 if none. */
static int rv_slot(const tn_mon_state_t *s, int m, uint32_t e)
{
    if (m == s->m_peer_msgs && e < 3) return TN_MON_RV_MSGS + (int)e;
    if (m == s->m_peer_bytes && e < 3) return TN_MON_RV_BYTES + (int)e;
    if (m == s->m_took && e == 0) return TN_MON_RV_TOOK;
    if (m == s->m_took_bytes && e == 0) return TN_MON_RV_TOOK_BYTES;
    if (m == s->m_rail_sent && e < 4) return TN_MON_RV_RAIL_SENT + (int)e;
    if (m == s->m_rail_lost && e < 4) return TN_MON_RV_RAIL_LOST + (int)e;
    if (m == s->m_srtt && e == 0) return TN_MON_RV_SRTT;
    if (m == s->m_rails_down && e == 0) return TN_MON_RV_RAILS_DOWN;
    return -1;
}

static void on_rank(void *arg, const tn_mon_wire_job_t *w, const tn_mon_wire_rank_t *k)
{
    apply_t *a = arg;
    tn_mon_job_t *j = a->job;
    tn_mon_state_t *s = a->s;
    (void)w;
    if (j == NULL) {
        return;
    }
    tn_mon_rankst_t *r = &j->ranks[k->rank];
    uint32_t nrec = k->peer_count + (uint32_t)j->nnodes + 1;
    if (a->full || r->nrec != nrec) {
        rank_free(r);               /* values from zero */
    }
    int was = r->state;
    r->state = (int)k->state;
    if (r->state == TN_MON_RANK_DEAD && was != TN_MON_RANK_DEAD) {
        j->saw_dead = 1;
    }
    r->node = a->node->index;
    r->node_id = (int)k->node_id;
    snprintf(j->node_names[k->node_id], sizeof(j->node_names[0]), "%s", a->node->name);
    r->pid = (int)k->pid;
    r->in_call = (int)k->in_call;
    str_copy(r->call, sizeof(r->call), &k->call);
    r->call_ms = k->call_ms > 0 ? (int64_t)(k->call_ms - 1) : -1;
    r->peer_count = k->peer_count;
    r->last_ms = a->now;
    if (a->nlisted == a->cap_listed) {
        int cap = a->cap_listed ? 2 * a->cap_listed : 64;
        tn_mon_rankst_t **nl = realloc(a->listed, (size_t)cap * sizeof(*nl));
        if (nl == NULL) {
            a->failed = 1;
            return;
        }
        a->listed = nl;
        a->cap_listed = cap;
    }
    a->listed[a->nlisted++] = r;
    if (rank_room(r, -1, 0, nrec) != 0) {
        a->failed = 1;
        return;
    }
    const uint8_t *p = k->vals, *end = k->vals + k->vals_len;
    uint32_t rec, id, e;
    int64_t d;
    while (p < end && tn_mon_wire_next_val(&p, end, &rec, &id, &e, &d) == 0) {
        int m = id < (uint32_t)a->node->nidmap ? a->node->idmap[id] : -1;
        if (m < 0) {
            continue;               /* checked before: cannot happen */
        }
        const tn_mon_metric_t *x = &s->metrics[m];
        if (e >= (uint32_t)(x->nelems > 0 ? x->nelems : 1)) {
            continue;
        }
        if (rec == 0) {
            if (rank_room(r, m, x->nelems, 0) != 0) {
                a->failed = 1;
                return;
            }
            r->pv[m][e] += (uint64_t)d;
        } else if (rec - 1 < nrec) {
            int slot = rv_slot(s, m, e);
            tn_mon_peerrec_t *q = slot >= 0 ? rec_get(r, rec - 1) : NULL;
            if (q != NULL) {
                q->v[slot] += (uint64_t)d;
            } else if (slot >= 0) {
                a->failed = 1;
                return;
            }
        }
    }
}

/* Everything a frame names must be known before anything is applied. */
typedef struct {
    tn_mon_node_t *node;
    int full, unknown;
    uint32_t *defined;
    uint32_t ndefined, cap;
} precheck_t;

static void pre_head(void *arg, const tn_mon_wire_head_t *h)
{
    precheck_t *c = arg;
    c->full = (h->flags & TN_MON_WIRE_FULL) != 0;
}

static void pre_metric(void *arg, const tn_mon_wire_metric_t *m)
{
    precheck_t *c = arg;
    if (c->ndefined == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 256;
        uint32_t *d = realloc(c->defined, cap * sizeof(*d));
        if (d == NULL) {
            c->unknown = 1;
            return;
        }
        c->defined = d;
        c->cap = cap;
    }
    c->defined[c->ndefined++] = m->id;
}

static void pre_rank(void *arg, const tn_mon_wire_job_t *j, const tn_mon_wire_rank_t *k)
{
    precheck_t *c = arg;
    const uint8_t *p = k->vals, *end = k->vals + k->vals_len;
    uint32_t rec, id, e;
    int64_t d;
    (void)j;
    while (!c->unknown && p < end && tn_mon_wire_next_val(&p, end, &rec, &id, &e, &d) == 0) {
        int known = !c->full && c->node != NULL && id < (uint32_t)c->node->nidmap &&
                    c->node->idmap[id] >= 0;
        for (uint32_t i = 0; !known && i < c->ndefined; i++) {
            known = c->defined[i] == id;
        }
        c->unknown = !known;
    }
}

static void head_only(void *arg, const tn_mon_wire_head_t *h)
{
    *(tn_mon_wire_head_t *)arg = *h;
}

static void set_why(char *why, size_t whylen, const char *text)
{
    if (why != NULL && whylen > 0) {
        snprintf(why, whylen, "%s", text);
    }
}

int tn_mon_state_apply(tn_mon_state_t *s, const void *frame, size_t len, uint64_t now_ms,
                       char *why, size_t whylen)
{
    tn_mon_wire_head_t h;
    if (tn_mon_wire_decode(frame, len, NULL, NULL, why, whylen) != 0) {
        s->bad_frames++;
        return -1;
    }
    /* the head (a walk that stops at the first section: NULL callbacks
     * cost nothing but the walk itself, so stop it early) */
    tn_mon_wire_cb_t hc = { .head = head_only };
    tn_mon_wire_walk_head(frame, len, &hc, &h);
    char name[64];
    str_copy(name, sizeof(name), &h.node);
    tn_mon_node_t *n = tn_mon_state_node(s, name);
    int full = (h.flags & TN_MON_WIRE_FULL) != 0;
    if (n == NULL && !full) {
        set_why(why, whylen, "a node this server does not know: send a full frame");
        return TN_MON_STATE_NEED_FULL;
    }
    if (n != NULL && !full && h.seq <= n->seq) {
        s->resent_frames++;             /* applied already: the answer was lost */
        return 0;
    }
    precheck_t c = { .node = n, .full = full };
    tn_mon_wire_cb_t pc = { .head = pre_head, .metric = pre_metric, .rank = pre_rank };
    tn_mon_wire_walk(frame, len, &pc, &c);
    free(c.defined);
    if (c.unknown) {
        set_why(why, whylen, "a value of a metric the frames did not define: send a full frame");
        return TN_MON_STATE_NEED_FULL;
    }
    if (n == NULL) {
        tn_mon_node_t **nn = realloc(s->nodes, (size_t)(s->nnodes + 1) * sizeof(*nn));
        if (nn == NULL || (n = calloc(1, sizeof(*n))) == NULL) {
            if (nn != NULL) {
                s->nodes = nn;
            }
            set_why(why, whylen, "out of memory");
            return -1;
        }
        s->nodes = nn;
        n->index = s->nnodes;
        s->nodes[s->nnodes++] = n;
        snprintf(n->name, sizeof(n->name), "%s", name);
        if (tn_mon_index_add(&s->node_ix, n->name, (uint32_t)n->index, s->nodes, node_key) != 0) {
            set_why(why, whylen, "out of memory");
            return -1;
        }
        n->first_ms = now_ms;
    }
    apply_t a = { .s = s, .node = n, .now = now_ms };
    tn_mon_wire_cb_t cb = { .head = on_head, .metric = on_metric, .nic = on_nic,
                            .snmp = on_snmp, .ib = on_ib, .job = on_job, .rank = on_rank };
    tn_mon_wire_walk(frame, len, &cb, &a);
    n->seq = h.seq;
    n->last_ms = now_ms;
    n->frames++;
    /* ranks this node listed before and not now are gone: their segment
     * was removed, by the rank at exit or by its launcher after it died;
     * only a segment left behind (TERN_MONITOR_LINGER) tells which, and
     * the agent then lists the rank as exited or dead before it goes */
    int ni = n->index;
    for (int i = 0; i < n->nlisted; i++) {
        tn_mon_rankst_t *x = n->listed[i];
        if (x->node != ni || x->last_ms == now_ms || x->state == TN_MON_RANK_UNSEEN ||
            x->state == TN_MON_RANK_EXITED || x->state == TN_MON_RANK_DEAD) {
            continue;
        }
        x->state = TN_MON_RANK_EXITED;
        x->in_call = 0;
    }
    free(n->listed);
    n->listed = a.listed;
    n->nlisted = a.nlisted;
    n->cap_listed = a.cap_listed;
    s->frames++;
    if (a.failed) {
        set_why(why, whylen, "out of memory applying a frame");
        return -1;
    }
    return 0;
}

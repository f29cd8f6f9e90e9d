/* The report's numbers (trace_stats.h). */
#include "trace_stats.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ts_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* Durations are below 2^63 each; their sums saturate. */
static int64_t ts_tadd(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

unsigned ts_bin(uint64_t bytes)
{
    return bytes == 0 ? 0 : 64u - (unsigned)__builtin_clzll(bytes);
}

uint64_t ts_bin_low(unsigned bin)
{
    return bin == 0 ? 0 : (uint64_t)1 << (bin - 1);
}

static int ts_cmp_call(const void *a, const void *b)
{
    const ts_call_t *x = a, *y = b;
    if (x->total != y->total) {
        return x->total > y->total ? -1 : 1;
    }
    return x->call < y->call ? -1 : x->call > y->call;
}

/* Per rank and per call: time, counts; the histogram of collective sizes. */
static int ts_calls(const tl_job_t *j, ts_stats_t *s)
{
    ts_call_t *all = calloc(j->ncalls + 1, sizeof(*all));
    if (all == NULL) {
        return -1;
    }
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        ts_rank_t *o = &s->ranks[r];
        o->begin = rk->nrecs ? rk->recs[0].t_enter : 0;
        for (uint32_t k = 0; k < rk->nrecs; k++) {
            const tl_rec_t *rc = &rk->recs[k];
            o->begin = rc->t_enter < o->begin ? rc->t_enter : o->begin;
            o->end = rc->t_exit > o->end ? rc->t_exit : o->end;
            o->errors += (rc->flags & TERN_TRACE_F_ERROR) != 0;
            if (rc->depth != 0) {
                o->nested++;
                continue;
            }
            int64_t d = rc->t_exit - rc->t_enter;
            o->calls++;
            o->mpi = ts_tadd(o->mpi, d);
            ts_call_t *c = &all[rc->call];
            c->count++;
            c->total = ts_tadd(c->total, d);
            c->max = d > c->max ? d : c->max;
            for (uint32_t i = rc->item; i < rc->item + rc->nitems; i++) {
                const tl_item_t *it = &rk->items[i];
                if (it->type == TERN_TRACE_I_COLL) {
                    o->coll_sent = ts_add(o->coll_sent, it->bytes);
                    o->coll_recvd = ts_add(o->coll_recvd, it->rbytes);
                    o->coll_calls++;
                    s->coll_hist[ts_bin(it->bytes > it->rbytes ? it->bytes : it->rbytes)]++;
                }
            }
        }
    }
    uint32_t n = 0;
    for (uint32_t c = 0; c < j->ncalls; c++) {
        if (all[c].count != 0) {
            all[c].call = (uint16_t)c;
            all[n++] = all[c];
        }
    }
    qsort(all, n, sizeof(*all), ts_cmp_call);
    s->calls = all;
    s->ncalls = n;
    s->ntop = n < TS_TOPCALLS ? n : TS_TOPCALLS;
    for (uint32_t i = 0; i < s->ntop; i++) {
        s->top[i] = all[i].call;
    }
    /* the top calls' time per rank */
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        for (uint32_t k = 0; k < rk->nrecs; k++) {
            const tl_rec_t *rc = &rk->recs[k];
            for (uint32_t i = 0; i < s->ntop && rc->depth == 0; i++) {
                if (rc->call == s->top[i]) {
                    s->ranks[r].top[i] = ts_tadd(s->ranks[r].top[i], rc->t_exit - rc->t_enter);
                    break;
                }
            }
        }
    }
    return 0;
}

static int ts_cmp_pair(const void *a, const void *b)
{
    const ts_pair_t *x = a, *y = b;
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The pairs that talk, found through a hash (few next to the messages). */
typedef struct {
    ts_pair_t *p;
    uint32_t   n, cap;
    uint32_t  *slot;                    /* pair index + 1, 0 empty */
    uint32_t   nslot;                   /* a power of two */
} ts_pairs_t;

static uint32_t ts_pair_hash(uint32_t src, uint32_t dst, uint32_t mask)
{
    return (uint32_t)((((uint64_t)src << 32 | dst) * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

static int ts_pairs_grow(ts_pairs_t *t)
{
    uint32_t ns = t->nslot ? t->nslot * 2 : 1024;
    uint32_t nc = ns / 2;
    uint32_t *sl = calloc(ns, sizeof(*sl));
    ts_pair_t *np = sl != NULL ? realloc(t->p, nc * sizeof(*np)) : NULL;
    if (np == NULL) {
        free(sl);
        return -1;
    }
    for (uint32_t k = 0; k < t->n; k++) {
        uint32_t h = ts_pair_hash(np[k].src, np[k].dst, ns - 1);
        while (sl[h] != 0) {
            h = (h + 1) & (ns - 1);
        }
        sl[h] = k + 1;
    }
    free(t->slot);
    t->slot = sl;
    t->nslot = ns;
    t->p = np;
    t->cap = nc;
    return 0;
}

static ts_pair_t *ts_pair_get(ts_pairs_t *t, uint32_t src, uint32_t dst)
{
    if (t->n == t->cap && ts_pairs_grow(t) != 0) {
        return NULL;
    }
    uint32_t h = ts_pair_hash(src, dst, t->nslot - 1);
    for (; t->slot[h] != 0; h = (h + 1) & (t->nslot - 1)) {
        ts_pair_t *q = &t->p[t->slot[h] - 1];
        if (q->src == src && q->dst == dst) {
            return q;
        }
    }
    t->p[t->n] = (ts_pair_t){ src, dst, 0, 0 };
    t->slot[h] = ++t->n;
    return &t->p[t->n - 1];
}

/* The edges of rank rk's neighbourhood collectives (an NBRS item and the
 * SCOUNTS of its record: bytes to each destination) into the pairs. */
static int ts_nbr_edges(const tl_job_t *j, uint32_t w, ts_pairs_t *t)
{
    const tl_rank_t *rk = &j->ranks[w];
    for (uint32_t q = 0; q < rk->nrecs; q++) {
        const tl_item_t *nb = tl_rec_item(rk, q, TERN_TRACE_I_NBRS);
        const tl_item_t *sc = nb != NULL ? tl_rec_item(rk, q, TERN_TRACE_I_SCOUNTS) : NULL;
        if (nb == NULL || sc == NULL || sc->bytes != nb->rbytes || nb->comm >= j->ncomms ||
            nb->id + nb->bytes + nb->rbytes > rk->ncounts || sc->id + sc->bytes > rk->ncounts) {
            continue;
        }
        for (uint32_t k = 0; k < (uint32_t)nb->rbytes; k++) {
            int32_t d = tl_peer_world(j, nb->comm, 0, tl_nbr(rk, nb, (uint32_t)nb->bytes + k));
            if (d < 0 || (uint32_t)d >= j->size) {
                continue;                       /* MPI_PROC_NULL */
            }
            ts_pair_t *p = ts_pair_get(t, w, (uint32_t)d);
            if (p == NULL) {
                return -1;
            }
            p->bytes = ts_add(p->bytes, rk->counts[sc->id + k]);
            p->msgs++;
        }
    }
    return 0;
}

/* Messages: per rank, by pair, by size; the pairs also get the edges of
 * neighbourhood collectives. */
static int ts_msgs(const tl_job_t *j, const tm_match_t *m, ts_stats_t *s)
{
    ts_pairs_t t = { 0 };
    for (size_t i = 0; i < m->nmsgs; i++) {
        const tm_msg_t *g = &m->msgs[i];
        ts_pair_t *q = ts_pair_get(&t, g->src, g->dst);
        if (q == NULL) {
            free(t.p);
            free(t.slot);
            return -1;
        }
        q->bytes = ts_add(q->bytes, g->bytes);
        q->msgs++;
        s->p2p_hist[ts_bin(g->bytes)]++;
        s->ranks[g->src].p2p_sent = ts_add(s->ranks[g->src].p2p_sent, g->bytes);
        s->ranks[g->src].msgs_sent++;
        s->ranks[g->dst].p2p_recvd = ts_add(s->ranks[g->dst].p2p_recvd, g->bytes);
        s->ranks[g->dst].msgs_recvd++;
    }
    for (size_t i = 0; i < m->nlone_sends; i++) {
        s->p2p_hist[ts_bin(m->lone_sends[i].bytes)]++;
    }
    for (uint32_t w = 0; w < j->nranks; w++) {
        if (ts_nbr_edges(j, w, &t) != 0) {
            free(t.p);
            free(t.slot);
            return -1;
        }
    }
    free(t.slot);
    if (t.n > 1) {
        qsort(t.p, t.n, sizeof(*t.p), ts_cmp_pair);
    }
    s->pairs = t.p != NULL ? t.p : calloc(1, sizeof(*t.p));
    s->npairs = t.n;
    return s->pairs != NULL ? 0 : -1;
}

static int ts_cmp_coll(const void *a, const void *b)
{
    const ts_coll_t *x = a, *y = b;
    if (x->kind != y->kind) {
        return x->kind < y->kind ? -1 : 1;
    }
    return x->algo < y->algo ? -1 : x->algo > y->algo;
}

/* Collectives by (kind, algorithm): a dense index, kinds x (algorithms + 1). */
static int ts_colls(const tl_job_t *j, const tm_match_t *m, ts_stats_t *s)
{
    size_t na = (size_t)j->nalgos + 1;
    uint32_t *row = malloc(TERN_TRACE_NKINDS * na * sizeof(*row));
    s->colls = malloc((m->ncolls + 1) * sizeof(*s->colls));
    if (row == NULL || s->colls == NULL) {
        free(row);
        return -1;
    }
    memset(row, 0xff, TERN_TRACE_NKINDS * na * sizeof(*row));
    for (size_t i = 0; i < m->ncolls; i++) {
        const tm_coll_t *c = &m->colls[i];
        size_t a = c->algo < j->nalgos ? c->algo : j->nalgos;
        uint32_t *ix = &row[(size_t)c->kind * na + a];
        if (*ix == UINT32_MAX) {
            *ix = s->ncolls++;
            s->colls[*ix] = (ts_coll_t){ .kind = c->kind,
                                         .algo = c->algo < j->nalgos ? c->algo
                                                                     : TERN_TRACE_ALGO_UNKNOWN };
        }
        ts_coll_t *o = &s->colls[*ix];
        int64_t first = INT64_MAX, last_in = INT64_MIN, last_out = INT64_MIN;
        for (uint32_t k = c->first; k < c->first + c->n; k++) {
            const tm_member_t *mb = &m->members[k];
            const tl_rank_t *rk = &j->ranks[mb->rank];
            const tl_rec_t *rc = &rk->recs[mb->rec];
            int64_t out = rc->t_exit, d = rc->t_exit - rc->t_enter;
            if (mb->done != TL_NONE && mb->done != mb->rec) {
                const tl_rec_t *dn = &rk->recs[mb->done];
                out = dn->t_exit > out ? dn->t_exit : out;
                d = ts_tadd(d, dn->t_exit - dn->t_enter);
            }
            first = rc->t_enter < first ? rc->t_enter : first;
            last_in = rc->t_enter > last_in ? rc->t_enter : last_in;
            last_out = out > last_out ? out : last_out;
            o->time = ts_tadd(o->time, d);
            o->bytes = ts_add(o->bytes, rk->items[mb->item].bytes);
        }
        o->instances++;
        o->calls += c->n;
        o->span = ts_tadd(o->span, last_out - first);
        o->skew = ts_tadd(o->skew, last_in - first);
        s->coll_instances++;
        s->coll_partial += c->n < j->comms[c->comm].size;
    }
    free(row);
    qsort(s->colls, s->ncolls, sizeof(*s->colls), ts_cmp_coll);
    return 0;
}

/* Time inside MPI per row of ranks and column of time. */
static int ts_timeline(const tl_job_t *j, ts_stats_t *s)
{
    s->tl_rows = j->size < TS_TL_ROWS ? j->size : TS_TL_ROWS;
    s->tl = calloc((size_t)s->tl_rows * TS_TL_BINS, sizeof(double));
    if (s->tl == NULL) {
        return -1;
    }
    double width = j->t_end > 0 ? (double)j->t_end / TS_TL_BINS : 1.0;
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        uint32_t row = (uint32_t)((uint64_t)r * s->tl_rows / j->size);
        double *v = &s->tl[(size_t)row * TS_TL_BINS];
        for (uint32_t k = 0; k < rk->nrecs; k++) {
            const tl_rec_t *rc = &rk->recs[k];
            if (rc->depth != 0) {
                continue;
            }
            double a = (double)rc->t_enter / width, b = (double)rc->t_exit / width;
            if (a >= TS_TL_BINS) {
                continue;
            }
            for (uint32_t c = (uint32_t)a; c < TS_TL_BINS && c <= b; c++) {
                double lo = a > c ? a : c, hi = b < c + 1 ? b : c + 1;
                if (hi > lo) {
                    v[c] += hi - lo;
                }
            }
        }
    }
    for (uint32_t row = 0; row < s->tl_rows; row++) {
        uint64_t lo = (uint64_t)row * j->size / s->tl_rows;
        uint64_t hi = (uint64_t)(row + 1) * j->size / s->tl_rows;
        for (uint32_t c = 0; c < TS_TL_BINS; c++) {
            double f = s->tl[(size_t)row * TS_TL_BINS + c] / (double)(hi - lo);
            s->tl[(size_t)row * TS_TL_BINS + c] = f > 1 ? 1 : f;
        }
    }
    return 0;
}

/* The transport's events: totals, and packets resent per (rank, peer). */
static int ts_events(const tl_job_t *j, ts_stats_t *s)
{
    size_t n = 0, cap = 0;
    ts_pair_t *v = NULL;
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        for (uint32_t i = 0; i < rk->nitems; i++) {
            const tl_item_t *it = &rk->items[i];
            if (it->type != TERN_TRACE_I_EVENT) {
                continue;
            }
            if (it->mode == TERN_TRACE_EV_RETRANSMIT) {
                uint64_t packets = it->peer > 0 ? (uint64_t)it->peer : 0;
                s->retx_bursts++;
                if (it->v.error >= 0 && it->v.error < 3) {
                    s->retx_packets[it->v.error] = ts_add(s->retx_packets[it->v.error], packets);
                }
                if (n == cap) {
                    size_t c = cap ? cap * 2 : 64;
                    ts_pair_t *a = realloc(v, c * sizeof(*a));
                    if (a == NULL) {
                        free(v);
                        return -1;
                    }
                    v = a;
                    cap = c;
                }
                v[n++] = (ts_pair_t){ rk->rank, (uint32_t)it->world, packets, 1 };
            } else if (it->mode == TERN_TRACE_EV_RAIL_STATE) {
                *(it->v.error ? &s->rails_up : &s->rails_down) += 1;
            } else if (it->mode == TERN_TRACE_EV_PEER_FAILURE) {
                s->peers_failed++;
            }
        }
    }
    if (n > 0) {
        qsort(v, n, sizeof(*v), ts_cmp_pair);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && v[k - 1].src == v[i].src && v[k - 1].dst == v[i].dst) {
            v[k - 1].bytes = ts_add(v[k - 1].bytes, v[i].bytes);
            v[k - 1].msgs++;
        } else {
            v[k++] = v[i];
        }
    }
    s->retx = v;
    s->nretx = k;
    return 0;
}

int ts_compute(const tl_job_t *j, const tm_match_t *m, ts_stats_t *s)
{
    memset(s, 0, sizeof(*s));
    s->size = j->size;
    s->t_end = j->t_end;
    s->ranks = calloc(j->size + 1, sizeof(*s->ranks));
    if (s->ranks == NULL || ts_calls(j, s) != 0 || ts_msgs(j, m, s) != 0 ||
        ts_colls(j, m, s) != 0 || ts_timeline(j, s) != 0 || ts_events(j, s) != 0) {
        ts_free(s);
        return -1;
    }
    return 0;
}

void ts_free(ts_stats_t *s)
{
    free(s->ranks);
    free(s->calls);
    free(s->pairs);
    free(s->retx);
    free(s->colls);
    free(s->tl);
    memset(s, 0, sizeof(*s));
}

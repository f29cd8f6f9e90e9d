/* The critical path estimate (trace_cpath.h). */
#include "trace_cpath.h"

#include <stdlib.h>
#include <string.h>

enum { TC_RECV = 0, TC_SEND = 1, TC_COLL = 2 };

/* A dependency of a record: the message or collective member.  The
 * records' dependencies are kept by record, in the order of the records
 * of rank 0, then rank 1, ... (deps[off[rec] .. off[rec + 1]) with rec
 * counted across ranks from base[rank]). */
typedef struct {
    uint64_t rec;                       /* base[rank] + record */
    uint32_t kind;                      /* TC_RECV.. */
    uint32_t idx;                       /* message, or member index */
} tc_dep_t;

typedef struct {
    const tl_job_t   *j;
    const tm_match_t *m;
    tc_model_t        mod;
    tc_dep_t         *deps;
    size_t            ndeps;
    uint64_t         *base;             /* [size + 1]: a rank's first record, counted over ranks */
    uint32_t         *off;              /* [records + 1]: a record's first dependency */
    uint32_t         *coll_of;          /* member -> its collective */
    uint32_t         *last, *last2, *root;   /* per collective: members (TL_NONE) */
    uint32_t         *init;             /* per rank: its MPI_Init record (TL_NONE) */
    uint32_t          init_last, init_last2;  /* ranks that entered MPI_Init last */
} tc_state_t;

void tc_model_default(tc_model_t *mod)
{
    mod->latency_ns = 1000;
    mod->ns_per_byte = 0.1;
    mod->eager = 16384;
}


/* MPI_Init ends in a fence of all ranks: it waits for the last to enter. */
static int tc_index_init(tc_state_t *s)
{
    const tl_job_t *j = s->j;
    s->init = malloc(((size_t)j->size + 1) * sizeof(uint32_t));
    if (s->init == NULL) {
        return -1;
    }
    s->init_last = s->init_last2 = TL_NONE;
    int64_t t1 = INT64_MIN, t2 = INT64_MIN;
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        s->init[r] = TL_NONE;
        for (uint32_t k = 0; k < rk->nrecs && k < 64; k++) {
            const char *name = tl_call_name(j, rk->recs[k].call);
            if (rk->recs[k].depth == 0 &&
                (strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0)) {
                s->init[r] = k;
                break;
            }
        }
        if (s->init[r] == TL_NONE) {
            continue;
        }
        int64_t t = rk->recs[s->init[r]].t_enter;
        if (t > t1) {
            s->init_last2 = s->init_last;
            t2 = t1;
            s->init_last = r;
            t1 = t;
        } else if (t > t2) {
            s->init_last2 = r;
            t2 = t;
        }
    }
    return 0;
}

static int tc_index(tc_state_t *s)
{
    if (tc_index_init(s) != 0) {
        return -1;
    }
    const tm_match_t *m = s->m;
    const tl_job_t *j = s->j;
    if (2 * m->nmsgs + m->nmembers >= UINT32_MAX) {
        return -1;
    }
    s->deps = malloc((2 * m->nmsgs + m->nmembers + 1) * sizeof(*s->deps));
    s->base = malloc(((size_t)j->size + 1) * sizeof(*s->base));
    s->off = calloc(j->nrecs + 1, sizeof(*s->off));
    s->coll_of = malloc((m->nmembers + 1) * sizeof(uint32_t));
    s->last = malloc((m->ncolls + 1) * sizeof(uint32_t));
    s->last2 = malloc((m->ncolls + 1) * sizeof(uint32_t));
    s->root = malloc((m->ncolls + 1) * sizeof(uint32_t));
    if (s->deps == NULL || s->base == NULL || s->off == NULL || s->coll_of == NULL || s->last == NULL ||
        s->last2 == NULL || s->root == NULL) {
        return -1;
    }
    s->base[0] = 0;
    for (uint32_t r = 0; r < j->size; r++) {
        s->base[r + 1] = s->base[r] + j->ranks[r].nrecs;
    }
    for (size_t i = 0; i < m->nmsgs; i++) {
        const tm_msg_t *g = &m->msgs[i];
        if (g->recv_done != TL_NONE) {
            s->deps[s->ndeps++] = (tc_dep_t){ s->base[g->dst] + g->recv_done, TC_RECV, (uint32_t)i };
        }
        if (g->send_done != TL_NONE && (g->mode == TERN_TRACE_SYNC || g->bytes > s->mod.eager)) {
            s->deps[s->ndeps++] = (tc_dep_t){ s->base[g->src] + g->send_done, TC_SEND, (uint32_t)i };
        }
    }
    for (size_t c = 0; c < m->ncolls; c++) {
        const tm_coll_t *cl = &m->colls[c];
        s->last[c] = s->last2[c] = s->root[c] = TL_NONE;
        int64_t t1 = INT64_MIN, t2 = INT64_MIN;
        for (uint32_t k = cl->first; k < cl->first + cl->n; k++) {
            const tm_member_t *mb = &m->members[k];
            const tl_rank_t *rk = &s->j->ranks[mb->rank];
            int64_t t = rk->recs[mb->rec].t_enter;
            s->coll_of[k] = (uint32_t)c;
            if (t > t1) {
                s->last2[c] = s->last[c];
                t2 = t1;
                s->last[c] = k;
                t1 = t;
            } else if (t > t2) {
                s->last2[c] = k;
                t2 = t;
            }
            if ((int64_t)mb->rank == rk->items[mb->item].world) {
                s->root[c] = k;
            }
            if (mb->done != TL_NONE) {
                s->deps[s->ndeps++] = (tc_dep_t){ s->base[mb->rank] + mb->done, TC_COLL, k };
            }
        }
    }
    /* by record: counts, their running sums (each record's end), then each
     * dependency placed below its record's end, which ends at its start */
    tc_dep_t *by = malloc((s->ndeps + 1) * sizeof(*by));
    if (by == NULL) {
        return -1;
    }
    for (size_t d = 0; d < s->ndeps; d++) {
        s->off[s->deps[d].rec]++;
    }
    for (uint64_t k = 1; k < j->nrecs; k++) {
        s->off[k] += s->off[k - 1];
    }
    for (size_t d = s->ndeps; d-- > 0;) {
        by[--s->off[s->deps[d].rec]] = s->deps[d];
    }
    s->off[j->nrecs] = (uint32_t)s->ndeps;
    free(s->deps);
    s->deps = by;
    return 0;
}

static int64_t tc_arrive(int64_t ts, double extra)
{
    double a = (double)ts + extra;
    return a >= 9.0e18 ? INT64_MAX : (int64_t)a;
}

/* A neighbourhood collective's member k waits for the in-neighbour that
 * entered last (TL_NONE: none); 0 when its neighbours are not known
 * (a trace without them, a neighbour not among the members), *dep_p
 * untouched. */
static int tc_nbr_dep(const tc_state_t *s, const tm_coll_t *cl, uint32_t k, uint32_t *dep_p)
{
    const tm_member_t *mb = &s->m->members[k];
    const tl_rank_t *rk = &s->j->ranks[mb->rank];
    const tl_item_t *it = tl_rec_item(rk, mb->rec, TERN_TRACE_I_NBRS);
    if (it == NULL || cl->comm >= s->j->ncomms || it->comm != cl->comm || it->id + it->bytes > rk->ncounts) {
        return 0;
    }
    const tl_comm_t *cm = &s->j->comms[cl->comm];
    uint32_t best = TL_NONE;
    int64_t tb = INT64_MIN;
    for (uint32_t i = 0; i < (uint32_t)it->bytes; i++) {
        int32_t src = tl_nbr(rk, it, i);
        if (src < 0) {
            continue;                           /* MPI_PROC_NULL */
        }
        uint32_t o = (uint32_t)src < cm->size ? tm_member_of(s->m, cl, cm->world[src]) : TL_NONE;
        if (o == TL_NONE) {
            return 0;
        }
        const tm_member_t *om = &s->m->members[o];
        int64_t t = s->j->ranks[om->rank].recs[om->rec].t_enter;
        if (o != k && t > tb) {
            tb = t;
            best = o;
        }
    }
    *dep_p = best;
    return 1;
}

/* The member a collective's member k waited for, or TL_NONE. */
static uint32_t tc_coll_dep(const tc_state_t *s, uint32_t k)
{
    uint32_t c = s->coll_of[k];
    const tm_coll_t *cl = &s->m->colls[c];
    int is_root = s->root[c] == k;
    uint32_t dep;
    switch (cl->kind) {
    case TERN_TRACE_NBR_ALLGATHER:
    case TERN_TRACE_NBR_ALLTOALL:
        if (tc_nbr_dep(s, cl, k, &dep)) {
            return dep;
        }
        break;
    case TERN_TRACE_BCAST:
    case TERN_TRACE_SCATTER:
        return is_root ? TL_NONE : s->root[c];
    case TERN_TRACE_REDUCE:
    case TERN_TRACE_GATHER:
        if (!is_root) {
            return TL_NONE;
        }
        break;
    default:
        break;
    }
    return s->last[c] == k ? s->last2[c] : s->last[c];
}

typedef struct {
    uint32_t rank, rec;                 /* where the walk goes on */
    int64_t  ts, a;                     /* the other part's start, its arrival */
    uint32_t kind;
} tc_wait_t;

/* The dependency of (rank, rec) that arrives last and started before t. */
static int tc_waited(const tc_state_t *s, uint32_t rank, uint32_t rec, int64_t t, tc_wait_t *w)
{
    uint64_t at = s->base[rank] + rec;
    int found = 0;
    if (s->init[rank] == rec) {
        uint32_t o = s->init_last == rank ? s->init_last2 : s->init_last;
        if (o != TL_NONE) {
            w->kind = TC_COLL;
            w->rank = o;
            w->rec = s->init[o];
            w->ts = s->j->ranks[o].recs[w->rec].t_enter;
            w->a = tc_arrive(w->ts, s->mod.latency_ns);
            found = w->ts < t;
        }
    }
    for (uint32_t d = s->off[at]; d < s->off[at + 1]; d++) {
        tc_wait_t c = { .kind = s->deps[d].kind };
        if (c.kind == TC_COLL) {
            uint32_t k = tc_coll_dep(s, s->deps[d].idx);
            if (k == TL_NONE) {
                continue;
            }
            const tm_member_t *mb = &s->m->members[k];
            c.rank = mb->rank;
            c.rec = mb->rec;
            c.ts = s->j->ranks[mb->rank].recs[mb->rec].t_enter;
            c.a = tc_arrive(c.ts, s->mod.latency_ns);
        } else {
            const tm_msg_t *g = &s->m->msgs[s->deps[d].idx];
            double x = s->mod.latency_ns + (double)g->bytes * s->mod.ns_per_byte;
            c.rank = c.kind == TC_RECV ? g->src : g->dst;
            c.rec = c.kind == TC_RECV ? g->send_rec : g->recv_rec;
            c.ts = s->j->ranks[c.rank].recs[c.rec].t_enter;
            c.a = tc_arrive(c.ts, x);
        }
        if (c.rank != rank && c.ts < t && (!found || c.a > w->a)) {
            *w = c;
            found = 1;
        }
    }
    return found;
}

/* Where the path ends: the rank that entered MPI_Finalize last, or the
 * latest exit of any call. */
static void tc_end(const tl_job_t *j, tc_path_t *p, uint32_t *rec_p)
{
    uint32_t fin = TL_NONE;
    for (uint32_t c = 0; c < j->ncalls; c++) {
        if (strcmp(j->calls[c], "MPI_Finalize") == 0) {
            fin = c;
        }
    }
    int64_t best = INT64_MIN;
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        for (uint32_t k = rk->nrecs; k-- > 0;) {
            if (rk->recs[k].depth == 0 && rk->recs[k].call == fin) {
                if (rk->recs[k].t_enter > best) {
                    best = rk->recs[k].t_enter;
                    p->end_rank = r;
                    *rec_p = k;
                    p->finalize = 1;
                }
                break;
            }
        }
    }
    for (uint32_t r = 0; r < j->nranks && !p->finalize; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        for (uint32_t k = rk->nrecs; k-- > 0;) {
            if (rk->recs[k].depth == 0) {
                if (rk->recs[k].t_exit > best) {
                    best = rk->recs[k].t_exit;
                    p->end_rank = r;
                    *rec_p = k;
                }
                break;
            }
        }
    }
    p->end = best == INT64_MIN ? 0 : best;
}

static void tc_hop(tc_path_t *p, uint32_t from, int64_t t0, uint32_t to, int64_t t1)
{
    if (p->nhops < TC_MAX_HOPS) {
        p->hops[p->nhops++] = (tc_hop_t){ from, to, t0, t1 };
    }
}

/* The path is on rank r over [lo, hi): the columns whose middle is there. */
static void tc_mark(tc_path_t *p, double width, uint32_t r, int64_t lo, int64_t hi)
{
    double a = (double)lo / width - 0.5, b = (double)hi / width - 0.5;
    for (int64_t c = a > 0 ? (int64_t)a : 0; c < TC_COLS && c < b; c++) {
        if ((double)c >= a) {
            p->cols[c] = r;
        }
    }
}

static void tc_walk(const tc_state_t *s, tc_path_t *p, uint32_t rec)
{
    double width = s->j->t_end > 0 ? (double)s->j->t_end / TC_COLS : 1.0;
    const tl_job_t *j = s->j;
    uint32_t r = p->end_rank;
    int64_t t = p->end;
    int64_t idx = rec;
    uint64_t budget = 2 * j->nrecs + 16;
    while (idx >= 0) {
        if (budget-- == 0) {
            p->cut = 1;
            break;
        }
        const tl_rec_t *rc = &j->ranks[r].recs[idx];
        if (rc->depth != 0) {
            idx--;
            continue;
        }
        if (rc->t_exit < t) {
            tc_mark(p, width, r, rc->t_exit, t);
            p->compute += t - rc->t_exit;
            p->rank_compute[r] += t - rc->t_exit;
            t = rc->t_exit;
        }
        int64_t e = rc->t_enter < t ? rc->t_enter : t;
        tc_wait_t w = { 0 };  /* (tc_waited fills it when it finds one) */
        if (tc_waited(s, r, (uint32_t)idx, t, &w) && w.a > e) {
            int64_t a = w.a < t ? w.a : t;
            tc_mark(p, width, r, w.ts, t);
            p->mpi += t - a;
            p->rank_mpi[r] += t - a;
            p->call_mpi[rc->call] += t - a;
            p->transfer += a - w.ts;
            p->rank_transfer[r] += a - w.ts;
            p->hops_recv += w.kind == TC_RECV;
            p->hops_send += w.kind == TC_SEND;
            p->hops_coll += w.kind == TC_COLL;
            tc_hop(p, w.rank, w.ts, r, a);
            r = w.rank;
            t = w.ts;
            idx = (int64_t)w.rec - 1;
            continue;
        }
        tc_mark(p, width, r, e, t);
        p->mpi += t - e;
        p->rank_mpi[r] += t - e;
        p->call_mpi[rc->call] += t - e;
        t = e;
        idx--;
    }
    p->start = t;
    p->start_rank = r;
}

int tc_path(const tl_job_t *j, const tm_match_t *m, const tc_model_t *mod, tc_path_t *p)
{
    memset(p, 0, sizeof(*p));
    for (unsigned c = 0; c < TC_COLS; c++) {
        p->cols[c] = TL_NONE;
    }
    if (!j->finished) {
        return -1;
    }
    tc_state_t s = { .j = j, .m = m, .mod = *mod };
    int status = -1;
    p->rank_compute = calloc(j->size + 1, sizeof(int64_t));
    p->rank_mpi = calloc(j->size + 1, sizeof(int64_t));
    p->rank_transfer = calloc(j->size + 1, sizeof(int64_t));
    p->call_mpi = calloc(j->ncalls + 1, sizeof(int64_t));
    p->hops = malloc(TC_MAX_HOPS * sizeof(tc_hop_t));
    if (p->rank_compute != NULL && p->call_mpi != NULL && p->rank_mpi != NULL && p->rank_transfer != NULL &&
        p->hops != NULL && tc_index(&s) == 0) {
        uint32_t rec = TL_NONE;
        tc_end(j, p, &rec);
        if (rec != TL_NONE) {
            tc_walk(&s, p, rec);
        } else {
            p->start = p->end;
        }
        status = 0;
    }
    free(s.deps);
    free(s.base);
    free(s.off);
    free(s.coll_of);
    free(s.last);
    free(s.last2);
    free(s.root);
    free(s.init);
    if (status != 0) {
        tc_free(p);
    }
    return status;
}

void tc_free(tc_path_t *p)
{
    free(p->rank_compute);
    free(p->rank_mpi);
    free(p->rank_transfer);
    free(p->call_mpi);
    free(p->hops);
    memset(p, 0, sizeof(*p));
}

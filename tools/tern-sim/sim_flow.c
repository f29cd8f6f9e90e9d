/* The flow-level engine (sim_flow.h). */
#include "sim_flow.h"
#include "sim_mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EV_START, EV_DONE, EV_DELIVER, EV_TIMER };

_Static_assert(sizeof(tn_sim_eng_flow_t) == 64, "a flow's record is one cache line");

/* How far ahead eng_settle prefetches. */
enum { SETTLE_AHEAD = 16 };

/* Adaptive routers' view of a port: the flows on it. */
static double eng_load(void *ctx, int32_t port)
{
    const tn_sim_eng_t *e = ctx;
    return tn_sim_mm_nflows(&e->mm, port);
}

static tn_sim_status_t eng_grow_flows(tn_sim_eng_t *e)
{
    int32_t cap = e->fcap ? e->fcap * 2 : 1024;
    if (e->fcap > (1 << 26)) {
        return TN_SIM_ERR_LIMIT;
    }
    size_t c = (size_t)cap;
    struct {
        void **p;
        size_t elem;
    } arrays[] = {
        {(void **)&e->f_next, sizeof(int32_t)},   {(void **)&e->f_src, sizeof(int32_t)},
        {(void **)&e->f_dst, sizeof(int32_t)},
        {(void **)&e->f_mc, sizeof(int32_t *)},   {(void **)&e->f_mcn, sizeof(int32_t)},
        {(void **)&e->zombie, sizeof(int32_t)},
    };
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        if (tn_sim_grow(arrays[i].p, arrays[i].elem, c) != 0) {
            return TN_SIM_ERR_NOMEM;
        }
    }
    /* the flows' records stay 64-byte aligned */
    if (tn_sim_grow_aligned((void **)&e->fl, sizeof(tn_sim_eng_flow_t), (size_t)e->fcap, c) != 0) {
        return TN_SIM_ERR_NOMEM;
    }
    if (e->heat.on && tn_sim_grow((void **)&e->f_hrow, (size_t)e->rt->max_hops, c) != 0) {
        return TN_SIM_ERR_NOMEM;
    }
    tn_sim_status_t st = tn_sim_mm_reserve(&e->mm, cap);
    if (st != TN_SIM_OK) {
        return st;
    }
    /* new ids on the free list, lowest first */
    for (int32_t f = cap - 1; f >= e->fcap; f--) {
        e->f_next[f] = e->ffree;
        e->ffree = f;
    }
    e->fcap = cap;
    return TN_SIM_OK;
}

static tn_sim_status_t eng_grow_timers(tn_sim_eng_t *e)
{
    int32_t cap = e->tcap ? e->tcap * 2 : 1024;
    if (e->tcap > (1 << 26) || tn_sim_grow((void **)&e->t_job, sizeof(int32_t), (size_t)cap) ||
        tn_sim_grow((void **)&e->t_arg, sizeof(int32_t), (size_t)cap)) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = cap - 1; i >= e->tcap; i--) {
        e->t_arg[i] = e->tfree;  /* free list through t_arg */
        e->tfree = i;
    }
    e->tcap = cap;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_eng_init(tn_sim_eng_t *e, const tn_sim_topo_t *topo,
                                const tn_sim_router_t *rt, const tn_sim_job_t *jobs,
                                tn_sim_src_t **src, int njobs, const tn_sim_eng_conf_t *conf)
{
    memset(e, 0, sizeof(*e));
    e->topo = topo;
    e->rt = rt;
    e->jobs = jobs;
    e->src = src;
    e->njobs = njobs;
    e->conf = *conf;
    e->ffree = e->tfree = -1;
    tn_sim_rng_seed(&e->rng, conf->seed ^ 0x7e5e51a1u);
    tn_sim_status_t st = tn_sim_evq_init(&e->q, 4096);
    if (st == TN_SIM_OK) {
        st = tn_sim_mm_init(&e->mm, topo->n_port, topo->bw, rt->max_hops);
    }
    if (st == TN_SIM_OK) {
        st = tn_sim_stats_init(&e->stats, njobs, conf->bins, conf->bin_w, conf->w0, conf->t_end);
    }
    if (st == TN_SIM_OK) {
        st = tn_sim_heat_init(&e->heat, topo, conf->heat, conf->heat_bins, conf->heat_bin_w,
                              conf->heat_queues, conf->t_end);
    }
    if (st == TN_SIM_OK) {
        e->path = malloc(sizeof(int32_t) * (size_t)rt->max_hops * TN_SIM_ENG_START_AHEAD);
        st = e->path == NULL ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
    }
    if (st == TN_SIM_OK) {
        st = eng_grow_flows(e);
    }
    if (st == TN_SIM_OK) {
        st = eng_grow_timers(e);
    }
    if (st != TN_SIM_OK) {
        snprintf(e->why, sizeof(e->why), "engine set-up: %s", tn_sim_status_str(st));
        tn_sim_eng_fini(e);
    }
    return st;
}

void tn_sim_eng_fini(tn_sim_eng_t *e)
{
    tn_sim_evq_fini(&e->q);
    tn_sim_mm_fini(&e->mm);
    tn_sim_stats_fini(&e->stats);
    tn_sim_heat_fini(&e->heat);
    void *arrays[] = {e->fl, e->f_next, e->f_src, e->f_dst,
                      e->t_job, e->t_arg, e->path, e->f_hrow, (void *)e->f_mc, e->f_mcn,
                      e->mc_tree, e->mc_vc, e->mc_mark, e->mc_depth, e->zombie};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        free(arrays[i]);
    }
    e->fl = NULL;
    e->t_job = e->path = e->mc_tree = NULL;
    e->mc_vc = NULL;
    e->f_mc = NULL;
}

static tn_sim_status_t eng_fail(tn_sim_eng_t *e, tn_sim_status_t st, const char *what)
{
    if (e->err == TN_SIM_OK) {
        e->err = st;
        snprintf(e->why, sizeof(e->why), "t=%.17g ns: %s: %s", e->now, what, tn_sim_status_str(st));
    }
    return st;
}

/* The heatmap rows of a flow of the fixed slots, looked up once. */
static void eng_heat_rows(tn_sim_eng_t *e, int32_t f)
{
    int32_t n;
    const int32_t *hl = tn_sim_mm_links(&e->mm, f, &n);
    if (e->mm.fl[f].nhop != 0) {
        uint8_t *row = e->f_hrow + (size_t)f * (size_t)e->rt->max_hops;
        for (int32_t i = 0; i < n; i++) {
            row[i] = (uint8_t)tn_sim_heat_row(&e->heat, hl[i]);  /* a path's links are connected */
        }
    }
}


/* Flow f goes onto links[0..n) at the flow level: its share comes from
 * the next rate update.  (The caller counts it started and active.) */
static tn_sim_status_t eng_share(tn_sim_eng_t *e, int32_t f, const int32_t *links, int n, const char *what)
{
    tn_sim_status_t st = tn_sim_mm_add(&e->mm, f, links, n);
    if (st != TN_SIM_OK) {
        return eng_fail(e, st, what);
    }
    if (e->heat.on) {
        eng_heat_rows(e, f);
    }
    e->fl[f].rem = e->fl[f].bytes;
    e->fl[f].tlast = e->now;
    return TN_SIM_OK;
}

/* Store and forward (conf.store_fwd = P bytes): a switch sends a frame on
 * only once it holds all of it, so a message of B bytes in frames of P
 * reaches its destination later than its bytes drain at the bottleneck
 * rate: each link but the slowest one holds the last frame for its own
 * serialisation, min(B, P) / its bandwidth (a pipeline's fill; exact for
 * frames of P bytes with the largest first, and for one frame).  The
 * flow's own draining already counts the slowest link. */
static double eng_store_fwd(tn_sim_eng_t *e, const int32_t *path, int n, double bytes, double bw)
{
    double p = bytes < e->conf.store_fwd ? bytes : e->conf.store_fwd, extra = 0;

    for (int i = 0; i < n; i++) {
        extra += p / tn_sim_mm_cap(&e->mm, path[i]);
    }
    return extra - p / bw;
}

/* Flow f's path latency and its time on an idle fabric, from its links
 * path[0 .. n). */
static void eng_path_lat(tn_sim_eng_t *e, int32_t f, const int32_t *path, int n)
{
    /* the bandwidth as the solver holds it (a copy of the topology's):
     * on the cache line the add writes */
    double lat = 0, bw = INFINITY;
    for (int i = 0; i < n; i++) {
        double b = tn_sim_mm_cap(&e->mm, path[i]);
        lat += e->topo->lat[path[i]];
        bw = b < bw ? b : bw;
    }
    if (e->conf.store_fwd > 0 && n > 1 && e->pkt == NULL) {
        lat += eng_store_fwd(e, path, n, e->fl[f].bytes, bw);
    }
    e->fl[f].lat = lat;
    e->fl[f].ideal = n > 0 ? e->fl[f].bytes / bw + lat : 0;
}

/* The oldest routed flow goes on its links (its started and active
 * counts were taken when it was routed). */
static tn_sim_status_t eng_place(tn_sim_eng_t *e)
{
    int k = e->pend_hd;
    int32_t f = e->pend_f[k], n = e->pend_n[k];
    const int32_t *path = e->path + (size_t)k * (size_t)e->rt->max_hops;
    e->pend_hd = (k + 1) % TN_SIM_ENG_START_AHEAD;
    e->npend--;
    if (e->npend > 0) {
        /* the next one's links have come in since it was routed: their
         * lists' heads, which its add reads */
        int k2 = e->pend_hd;
        const int32_t *p2 = e->path + (size_t)k2 * (size_t)e->rt->max_hops;
        for (int32_t i = 0; i < e->pend_n[k2]; i++) {
            const int32_t *v = tn_sim_mm_slots(&e->mm, p2[i]);
            if (v != NULL) {
                __builtin_prefetch(v - 1);
            }
        }
    }
    eng_path_lat(e, f, path, n);
    return eng_share(e, f, path, n, "max-min add");
}

/* Every routed flow on its links, in the order they were routed (the
 * solver's lists, and so its results, as if each had gone on at once). */
static tn_sim_status_t eng_place_all(tn_sim_eng_t *e)
{
    while (e->npend > 0) {
        tn_sim_status_t st = eng_place(e);
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    return TN_SIM_OK;
}
/* A multicast's flow goes on the fabric now: its tree is the route to
 * each destination in turn, from the last node of the route already on
 * the tree (so each node is entered once: a tree, whose links are
 * distinct).  Where routes from the root never meet again before their
 * destinations (shortest paths with one choice per switch, as D-mod-k
 * and minimal routing make), that is the union of the routes. */
static tn_sim_status_t eng_start_mcast(tn_sim_eng_t *e, int32_t f)
{
    const tn_sim_topo_t *t = e->topo;
    tn_sim_jstats_t *js = &e->stats.job[e->fl[f].job];
    int32_t s = e->f_src[f], nd = e->f_mcn[f];
    const int32_t *dst = e->f_mc[f];
    if (e->mc_tree == NULL) {
        size_t nn = (size_t)t->n_node;
        e->mc_tree = malloc(sizeof(int32_t) * nn);
        e->mc_vc = malloc(nn);
        e->mc_mark = calloc(nn, sizeof(uint32_t));
        e->mc_depth = malloc(sizeof(double) * nn);
        if (e->mc_tree == NULL || e->mc_vc == NULL || e->mc_mark == NULL || e->mc_depth == NULL) {
            return eng_fail(e, TN_SIM_ERR_NOMEM, "multicast tree");
        }
    }
    tn_sim_status_t st = eng_place_all(e);  /* the adds in the order of the starts */
    if (st != TN_SIM_OK) {
        return st;
    }
    uint32_t ep = ++e->mc_ep;
    if (ep == 0) {
        memset(e->mc_mark, 0, sizeof(uint32_t) * (size_t)t->n_node);
        ep = e->mc_ep = 1;
    }
    int32_t nt = 0, reached = 0;
    double lat = 0, bw = INFINITY;
    uint8_t vcs[256];   /* max_hops <= 255 */
    e->mc_mark[s] = ep;
    e->mc_depth[s] = 0;
    for (int32_t k = 0; k < nd; k++) {
        int32_t d = dst[k];
        if (e->mc_mark[d] == ep) {
            continue;  /* the root, a repeat */
        }
        tn_sim_rhdr_t h;
        tn_sim_route_begin(e->rt, &h, s, d, tn_sim_rng_next(&e->rng), eng_load, e);
        int n = tn_sim_route_path(e->rt, &h, eng_load, e, e->path, vcs,
                                  e->rt->max_hops < 256 ? e->rt->max_hops : 255);
        if (n < 0) {
            char what[96];
            snprintf(what, sizeof(what), "no route from endpoint %d to %d (multicast)", s, d);
            return eng_fail(e, TN_SIM_ERR_ROUTE, what);
        }
        /* nodes of the route: v_0 = s, v_{i+1} = peer[path[i]]; the last
         * one on the tree (v_0 is) is where it grafts */
        int i = n;
        while (i > 0 && e->mc_mark[t->peer[e->path[i - 1]]] != ep) {
            i--;
        }
        int32_t v = i == 0 ? s : t->peer[e->path[i - 1]];
        reached++;
        for (; i < n; i++) {
            int32_t l = e->path[i], u = t->peer[l];
            e->mc_vc[nt] = vcs[i];
            e->mc_tree[nt++] = l;
            e->mc_mark[u] = ep;
            e->mc_depth[u] = e->mc_depth[v] + t->lat[l];
            bw = t->bw[l] < bw ? t->bw[l] : bw;
            v = u;
        }
        lat = e->mc_depth[d] > lat ? e->mc_depth[d] : lat;
    }
    e->fl[f].lat = lat;
    e->fl[f].ideal = nt > 0 ? e->fl[f].bytes / bw + lat : 0;
    if (nt == 0 || e->fl[f].bytes == 0) {
        e->fl[f].evh = tn_sim_evq_push(&e->q, e->now + lat, EV_DELIVER, f);
        return e->fl[f].evh < 0 ? eng_fail(e, TN_SIM_ERR_NOMEM, "event queue") : TN_SIM_OK;
    }
    js->active++;
    e->flow_starts++;
    if (e->pkt != NULL) {
        e->fl[f].rem = e->fl[f].bytes;
        st = tn_sim_pkt_start_mcast(e, f, e->mc_tree, e->mc_vc, nt, reached);
        return st != TN_SIM_OK ? eng_fail(e, st, "packet start (multicast)") : TN_SIM_OK;
    }
    return eng_share(e, f, e->mc_tree, nt, "max-min add (multicast)");
}

/* A posted message's flow goes on the fabric now. */
static tn_sim_status_t eng_start(tn_sim_eng_t *e, int32_t f)
{
    const tn_sim_topo_t *t = e->topo;
    tn_sim_jstats_t *js = &e->stats.job[e->fl[f].job];
    js->started++;
    e->fl[f].evh = -1;
    int32_t s = e->f_src[f], d = e->f_dst[f];
    if (d < 0) {
        return eng_start_mcast(e, f);
    }
    tn_sim_rhdr_t h;
    tn_sim_route_begin(e->rt, &h, s, d, tn_sim_rng_next(&e->rng), eng_load, e);
    tn_sim_rhdr_t h0 = h;  /* the packets' header: the source's decisions only */
    if (e->defer && e->npend == TN_SIM_ENG_START_AHEAD) {
        tn_sim_status_t st = eng_place(e);  /* its path's slot is the one to route into */
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    int k = (e->pend_hd + e->npend) % TN_SIM_ENG_START_AHEAD;
    int32_t *path = e->path + (size_t)k * (size_t)e->rt->max_hops;
    int n = tn_sim_route_path(e->rt, &h, eng_load, e, path, NULL, e->rt->max_hops);
    if (n < 0) {
        char what[96];
        snprintf(what, sizeof(what), "no route from endpoint %d to %d", s, d);
        return eng_fail(e, TN_SIM_ERR_ROUTE, what);
    }
    if (n == 0 || e->fl[f].bytes == 0) {
        /* nothing crosses the fabric (a message to itself, an empty one) */
        eng_path_lat(e, f, path, n);
        e->fl[f].evh = tn_sim_evq_push(&e->q, e->now + e->fl[f].lat, EV_DELIVER, f);
        return e->fl[f].evh < 0 ? eng_fail(e, TN_SIM_ERR_NOMEM, "event queue") : TN_SIM_OK;
    }
    if (e->defer) {
        /* its links' entries and latencies come into the cache while the
         * next flows are routed; the counts are taken now, as they would
         * be (a job's flows that end meanwhile see it active) */
        for (int i = 0; i < n; i++) {
            __builtin_prefetch(&e->mm.lk[path[i]]);
            __builtin_prefetch(&t->lat[path[i]]);
        }
        e->pend_f[k] = f;
        e->pend_n[k] = n;
        e->npend++;
        js->active++;
        e->flow_starts++;
        return TN_SIM_OK;
    }
    eng_path_lat(e, f, path, n);
    if (e->pkt != NULL) {
        e->fl[f].rem = e->fl[f].bytes;
        js->active++;
        e->flow_starts++;
        tn_sim_status_t st = tn_sim_pkt_start(e, f, &h0);
        return st != TN_SIM_OK ? eng_fail(e, st, "packet start") : TN_SIM_OK;
    }
    js->active++;
    e->flow_starts++;
    return eng_share(e, f, path, n, "max-min add");
}

/* A message's flow: posted now, started at t (dst -1: a multicast to
 * mc[0 .. mcn)). */
static tn_sim_status_t eng_post(tn_sim_eng_t *e, double t, int job, int32_t src, int32_t dst,
                                const int32_t *mc, int32_t mcn, uint64_t bytes, int64_t cookie)
{
    if (e->ffree < 0) {
        tn_sim_status_t st = eng_grow_flows(e);
        if (st != TN_SIM_OK) {
            return eng_fail(e, st, "flows");
        }
    }
    int32_t f = e->ffree;
    e->ffree = e->f_next[f];
    e->fl[f].job = job;
    e->f_src[f] = src;
    e->f_dst[f] = dst;
    e->f_mc[f] = mc;
    e->f_mcn[f] = mcn;
    e->fl[f].cookie = cookie;
    e->fl[f].bytes = (double)bytes;
    e->fl[f].post = t;
    tn_sim_jstats_t *js = &e->stats.job[job];
    js->posted++;
    if (t >= e->stats.w0 && t < e->stats.w1) {
        js->bytes_posted_win += bytes;
    }
    js->first_post = t < js->first_post ? t : js->first_post;
    if (t <= e->now) {
        return eng_start(e, f);  /* part of the current batch */
    }
    e->fl[f].evh = tn_sim_evq_push(&e->q, t, EV_START, f);
    return e->fl[f].evh < 0 ? eng_fail(e, TN_SIM_ERR_NOMEM, "event queue") : TN_SIM_OK;
}

tn_sim_status_t tn_sim_eng_post(tn_sim_eng_t *e, double t, int job, int32_t src, int32_t dst,
                                uint64_t bytes, int64_t cookie)
{
    if (!(t >= e->now) || src < 0 || dst < 0 || src >= e->topo->n_ep || dst >= e->topo->n_ep) {
        return eng_fail(e, TN_SIM_ERR_INVAL, "post");
    }
    return eng_post(e, t, job, src, dst, NULL, 0, bytes, cookie);
}

tn_sim_status_t tn_sim_eng_post_mcast(tn_sim_eng_t *e, double t, int job, int32_t src, const int32_t *dst,
                                      int32_t n, uint64_t bytes, int64_t cookie)
{
    if (!(t >= e->now) || src < 0 || src >= e->topo->n_ep) {
        return eng_fail(e, TN_SIM_ERR_INVAL, "post (multicast)");
    }
    if (n < 1 || dst == NULL) {
        return eng_fail(e, TN_SIM_ERR_INVAL, "a multicast with no destination");
    }
    for (int32_t k = 0; k < n; k++) {
        if (dst[k] < 0 || dst[k] >= e->topo->n_ep) {
            char what[96];
            snprintf(what, sizeof(what), "a multicast to endpoint %d (of %d)", dst[k], e->topo->n_ep);
            return eng_fail(e, TN_SIM_ERR_INVAL, what);
        }
    }
    return eng_post(e, t, job, src, -1, dst, n, bytes, cookie);
}

tn_sim_status_t tn_sim_eng_timer(tn_sim_eng_t *e, double t, int job, int32_t arg)
{
    if (!(t >= e->now)) {
        return eng_fail(e, TN_SIM_ERR_INVAL, "timer in the past");
    }
    if (e->tfree < 0) {
        tn_sim_status_t st = eng_grow_timers(e);
        if (st != TN_SIM_OK) {
            return eng_fail(e, st, "timers");
        }
    }
    int32_t slot = e->tfree;
    e->tfree = e->t_arg[slot];
    e->t_job[slot] = job;
    e->t_arg[slot] = arg;
    return tn_sim_evq_push(&e->q, t, EV_TIMER, slot) < 0 ? eng_fail(e, TN_SIM_ERR_NOMEM, "event queue")
                                                        : TN_SIM_OK;
}

/* Message f is delivered at t (now, or a path latency after its flow's
 * end: the source hears of it at once, with its time; what it posts in
 * answer starts at t or later).  The flow's id goes back to the free
 * list at once if it never was on the fabric, else after the rate update
 * (the solver still holds it until then). */
static tn_sim_status_t eng_deliver(tn_sim_eng_t *e, int32_t f, double t, int on_fabric)
{
    int job = e->fl[f].job;
    tn_sim_jstats_t *js = &e->stats.job[job];
    js->done++;
    js->last_done = t > js->last_done ? t : js->last_done;
    tn_sim_status_t st = tn_sim_stats_sample(&e->stats, job, e->fl[f].post, t, e->fl[f].ideal);
    if (st != TN_SIM_OK) {
        return eng_fail(e, st, "statistics");
    }
    int64_t cookie = e->fl[f].cookie;
    if (on_fabric) {
        e->zombie[e->nzombie++] = f;
    } else {
        e->f_next[f] = e->ffree;
        e->ffree = f;
    }
    tn_sim_src_t *src = e->src[job];
    if (src->ops->delivered != NULL) {
        st = src->ops->delivered(src, e, cookie, t);
    }
    return st != TN_SIM_OK ? eng_fail(e, st, "source") : TN_SIM_OK;
}

/* Flow f's rate changes by dr now: the heatmap rows of its path hear it
 * (start: 1 a new flow, -1 an ending one).  The rows were looked up when
 * it started, next to its other per-flow data. */
static void eng_heat_rate(tn_sim_eng_t *e, int32_t f, double dr, int start)
{
    if (e->mm.fl[f].nhop != 0) {
        tn_sim_heat_rate(&e->heat, e->f_hrow + (size_t)f * (size_t)e->rt->max_hops, e->mm.fl[f].nhop,
                         e->now, dr, start);
        return;
    }
    /* a tree in the solver's pool: its rows looked up now */
    int32_t n;
    const int32_t *hl = tn_sim_mm_links(&e->mm, f, &n);
    for (int32_t i = 0; i < n; i++) {
        uint8_t row = (uint8_t)tn_sim_heat_row(&e->heat, hl[i]);
        tn_sim_heat_rate(&e->heat, &row, 1, e->now, dr, start);
    }
}

/* The last byte of flow f has left: its share is freed at the next rate
 * update, the message is delivered a path latency later. */
static tn_sim_status_t eng_done(tn_sim_eng_t *e, int32_t f)
{
    tn_sim_jstats_t *js = &e->stats.job[e->fl[f].job];
    js->rate -= e->mm.fl[f].rate;
    if (e->heat.on) {
        eng_heat_rate(e, f, -e->mm.fl[f].rate, -1);
    }
    if (--js->active == 0) {
        js->rate = 0;  /* no rounding left over on an idle job */
    }
    tn_sim_status_t st = tn_sim_mm_remove(&e->mm, f);
    if (st != TN_SIM_OK) {
        return eng_fail(e, st, "max-min remove");
    }
    e->flow_ends++;
    e->fl[f].evh = -1;
    return eng_deliver(e, f, e->now + e->fl[f].lat, 1);
}

tn_sim_status_t tn_sim_eng_pkt_done(tn_sim_eng_t *e, int32_t f, double t)
{
    e->stats.job[e->fl[f].job].active--;
    e->flow_ends++;
    e->fl[f].evh = -1;
    return eng_deliver(e, f, t, 0);
}

/* Rates after the batch's starts and ends; flows whose rate moved get
 * their bytes so far counted and their end moved. */
static tn_sim_status_t eng_settle(tn_sim_eng_t *e)
{
    tn_sim_mm_t *mm = &e->mm;
    if (eng_place_all(e) != TN_SIM_OK) {
        return e->err;
    }
    if (mm->nadded == 0 && mm->nremoved == 0) {
        return TN_SIM_OK;
    }
    tn_sim_status_t st = e->conf.fifo   ? tn_sim_mm_solve_fifo(mm)
                         : e->conf.full ? tn_sim_mm_solve_full(mm)
                                        : tn_sim_mm_solve(mm);
    if (st != TN_SIM_OK) {
        return eng_fail(e, st, "max-min solve");
    }
    /* newest first, as a list through f_next would give them back, but
     * without chasing it */
    while (e->nzombie > 0) {
        int32_t f = e->zombie[--e->nzombie];
        e->f_next[f] = e->ffree;
        e->ffree = f;
    }
    double now = e->now;
    /* the affected flows' ids are scattered: what a flow a few places
     * ahead reads is fetched while this one is handled (its event's entry
     * once its handle is in cache) */
    for (int32_t i = 0; i < mm->naff; i++) {
        if (i + SETTLE_AHEAD < mm->naff) {
            int32_t g = mm->aff[i + SETTLE_AHEAD];
            __builtin_prefetch(&mm->fl[g].rate);
            __builtin_prefetch(&e->fl[g]);
        }
        if (i + SETTLE_AHEAD / 2 < mm->naff) {
            tn_sim_evq_prefetch(&e->q, e->fl[mm->aff[i + SETTLE_AHEAD / 2]].evh);
        }
        int32_t f = mm->aff[i];
        double old = mm->aff_old[i], r = mm->fl[f].rate;
        if (r == old && e->fl[f].evh >= 0) {
            continue;
        }
        if (e->heat.on) {
            eng_heat_rate(e, f, r - old, e->fl[f].evh < 0);
        }
        e->stats.job[e->fl[f].job].rate += r - old;
        double rem = e->fl[f].rem - old * (now - e->fl[f].tlast);
        e->fl[f].rem = rem > 0 ? rem : 0;
        e->fl[f].tlast = now;
        if (!(r > 0)) {
            if (!e->conf.fifo) {
                return eng_fail(e, TN_SIM_ERR_INTERNAL, "a flow got no bandwidth");
            }
            /* first come, first served: it waits for earlier flows, with
             * no end in sight until it gets a rate */
            if (e->fl[f].evh >= 0) {
                tn_sim_evq_cancel(&e->q, e->fl[f].evh);
                e->fl[f].evh = -1;
            }
            continue;
        }
        double td = now + e->fl[f].rem / r;
        if (e->fl[f].evh < 0) {
            e->fl[f].evh = tn_sim_evq_push(&e->q, td, EV_DONE, f);
            if (e->fl[f].evh < 0) {
                return eng_fail(e, TN_SIM_ERR_NOMEM, "event queue");
            }
        } else {
            if (tn_sim_evq_move(&e->q, e->fl[f].evh, td) != 0) {
                return eng_fail(e, TN_SIM_ERR_NOMEM, "event queue");
            }
        }
    }
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_eng_run(tn_sim_eng_t *e)
{
    struct timespec w0, w1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    e->now = 0;
    /* routes that do not read the loads may be taken ahead of the adds */
    e->defer = e->pkt == NULL && !tn_sim_route_adaptive(e->rt);
    for (int j = 0; j < e->njobs && e->err == TN_SIM_OK; j++) {
        if (e->src[j]->ops->start(e->src[j], e) != TN_SIM_OK) {
            eng_fail(e, TN_SIM_ERR_INVAL, "source start");
        }
    }
    tn_sim_evq_t *q = &e->q;
    while (e->err == TN_SIM_OK) {
        if (eng_settle(e) != TN_SIM_OK || tn_sim_evq_empty(q)) {
            break;
        }
        double t = tn_sim_evq_top(q);
        if (t >= e->conf.t_end) {
            break;
        }
        tn_sim_stats_advance(&e->stats, t);
        e->now = t;
        e->batches++;
        while (e->err == TN_SIM_OK && !tn_sim_evq_empty(q) && tn_sim_evq_top(q) == t) {
            tn_sim_ev_t ev;
            tn_sim_evq_pop(q, &ev);
            e->pops++;
            if (ev.ahead_kind == EV_DONE) {
                /* what the next flow end reads, while this event is handled */
                __builtin_prefetch(&e->fl[ev.ahead_id]);
                __builtin_prefetch(&e->mm.fl[ev.ahead_id]);
            }
            switch (tn_sim_ev_kind(&ev)) {
            case EV_START:
                eng_start(e, ev.id);
                break;
            case EV_DONE:
                eng_done(e, ev.id);
                break;
            case EV_DELIVER:
                eng_deliver(e, ev.id, t, 0);
                break;
            case EV_TIMER: {
                int job = e->t_job[ev.id];
                int32_t arg = e->t_arg[ev.id];
                e->t_arg[ev.id] = e->tfree;
                e->tfree = ev.id;
                tn_sim_src_t *src = e->src[job];
                if (src->ops->timer(src, e, arg, t) != TN_SIM_OK) {
                    eng_fail(e, TN_SIM_ERR_INVAL, "source timer");
                }
                break;
            }
            default:
                if (e->pkt != NULL && tn_sim_ev_kind(&ev) >= TN_SIM_PKT_EV0) {
                    if (ev.ahead_kind >= TN_SIM_PKT_EV0 && ev.ahead_kind < 16) {
                        tn_sim_pkt_prefetch(e, ev.ahead_kind, ev.ahead_id);
                    }
                    tn_sim_status_t st = tn_sim_pkt_event(e, tn_sim_ev_kind(&ev), ev.id, ev.arg);
                    if (st != TN_SIM_OK) {
                        eng_fail(e, st, "packet event");
                    }
                    break;
                }
                eng_fail(e, TN_SIM_ERR_INTERNAL, "unknown event");
                break;
            }
        }
    }
    if (e->err == TN_SIM_OK && isfinite(e->conf.t_end)) {
        tn_sim_stats_advance(&e->stats, e->conf.t_end);
        e->now = e->conf.t_end;
    }
    if (e->err == TN_SIM_OK) {
        tn_sim_heat_finish(&e->heat, e->now);
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    e->wall_s = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    e->cpu_s = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    return e->err;
}

/* DAG storage and the DAG source (sim_dag.h). */
#include "sim_dag.h"
#include "sim_mem.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tn_sim_dag_node_t) == 32, "two DAG nodes to a cache line");

void tn_sim_dag_init(tn_sim_dag_t *g)
{
    memset(g, 0, sizeof(*g));
}

void tn_sim_dag_free(tn_sim_dag_t *g)
{
    void *arrays[] = {g->nd, g->bytes, g->e_from, g->e_to, g->out_off, g->out};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        free(arrays[i]);
    }
    tn_sim_lists_free(&g->mc);
    memset(g, 0, sizeof(*g));
}

int32_t tn_sim_dag_node(tn_sim_dag_t *g, int32_t src, int32_t dst, uint64_t bytes, double delay)
{
    if (g->n == g->cap) {
        if (g->cap > INT32_MAX / 2) {
            return -1;
        }
        size_t c = g->cap ? (size_t)g->cap * 2 : 1024;
        /* the nodes 64-byte aligned: a node never straddles two cache lines */
        if (tn_sim_grow_aligned((void **)&g->nd, sizeof(tn_sim_dag_node_t), (size_t)g->n, c) != 0 ||
            tn_sim_grow((void **)&g->bytes, sizeof(uint64_t), c) != 0) {
            return -1;
        }
        g->cap = (int32_t)c;
    }
    int32_t i = g->n++;
    g->nd[i].src = src;
    g->nd[i].dst = dst;
    g->bytes[i] = bytes;
    g->nd[i].delay = delay;
    g->nd[i].deps = 0;
    g->nd[i].ready = 0;
    return i;
}

int32_t tn_sim_lists_add(tn_sim_lists_t *l, const int32_t *v, int32_t n)
{
    if (n < 1 || l->n >= INT32_MAX / 4 || l->nv > INT32_MAX / 2 - (int64_t)n) {
        return -1;
    }
    if (l->n + 2 > l->cap) {
        size_t c = l->cap ? (size_t)l->cap * 2 : 64;
        if (tn_sim_grow((void **)&l->off, sizeof(int32_t), c)) {
            return -1;
        }
        l->cap = (int32_t)c;
        l->off[0] = l->n == 0 ? 0 : l->off[0];
    }
    if (l->nv + n > l->vcap) {
        int64_t c = l->vcap ? l->vcap * 2 : 1024;
        while (c < l->nv + n) {
            c *= 2;
        }
        if (tn_sim_grow((void **)&l->v, sizeof(int32_t), (size_t)c)) {
            return -1;
        }
        l->vcap = c;
    }
    memcpy(l->v + l->nv, v, sizeof(int32_t) * (size_t)n);
    l->nv += n;
    l->off[++l->n] = (int32_t)l->nv;
    return l->n - 1;
}

void tn_sim_lists_pop(tn_sim_lists_t *l)
{
    if (l->n > 0) {
        l->n--;
        l->nv = l->off[l->n];
    }
}

void tn_sim_lists_free(tn_sim_lists_t *l)
{
    free(l->off);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

int32_t tn_sim_dag_mcast(tn_sim_dag_t *g, int32_t src, const int32_t *dst, int32_t n, uint64_t bytes,
                         double delay)
{
    int32_t k = tn_sim_lists_add(&g->mc, dst, n);
    int32_t i = k < 0 ? -1 : tn_sim_dag_node(g, src, TN_SIM_DAG_MCAST - k, bytes, delay);
    if (k >= 0 && i < 0) {
        tn_sim_lists_pop(&g->mc);
    }
    return i;
}

tn_sim_status_t tn_sim_dag_edge(tn_sim_dag_t *g, int32_t from, int32_t to)
{
    if (from < 0 || to <= from || to >= g->n) {
        return TN_SIM_ERR_INVAL;
    }
    if (g->nedge == g->ecap) {
        if (g->ecap >= INT32_MAX / 2) {
            return TN_SIM_ERR_LIMIT;
        }
        size_t c = g->ecap ? (size_t)g->ecap * 2 : 1024;
        if (tn_sim_grow((void **)&g->e_from, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&g->e_to, sizeof(int32_t), c)) {
            return TN_SIM_ERR_NOMEM;
        }
        g->ecap = (int64_t)c;
    }
    g->e_from[g->nedge] = from;
    g->e_to[g->nedge] = to;
    g->nedge++;
    g->nd[to].deps++;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_dag_pools(tn_sim_dag_t *g, int32_t npool, int32_t cores, int wait_only)
{
    if (npool < 0 || cores < 1) {
        return TN_SIM_ERR_INVAL;
    }
    g->npool = npool;
    g->cores = cores;
    g->wait_only = wait_only != 0;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_dag_seal(tn_sim_dag_t *g)
{
    for (int32_t i = 0; i < g->n; i++) {
        if (g->nd[i].dst == TN_SIM_DAG_CPU && (g->nd[i].src < 0 || g->nd[i].src >= g->npool)) {
            return TN_SIM_ERR_INVAL;    /* a CPU node on a host that is not there */
        }
    }
    g->out_off = calloc((size_t)g->n + 1, sizeof(int32_t));
    g->out = malloc(sizeof(int32_t) * ((size_t)g->nedge + 1));
    if (g->out_off == NULL || g->out == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int64_t k = 0; k < g->nedge; k++) {
        g->out_off[g->e_from[k] + 1]++;
    }
    for (int32_t i = 0; i < g->n; i++) {
        g->out_off[i + 1] += g->out_off[i];
    }
    /* stable: dependents in the order their edges were made */
    int32_t *fill = malloc(sizeof(int32_t) * ((size_t)g->n + 1));
    if (fill == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    memcpy(fill, g->out_off, sizeof(int32_t) * ((size_t)g->n + 1));
    for (int64_t k = 0; k < g->nedge; k++) {
        g->out[fill[g->e_from[k]]++] = g->e_to[k];
    }
    free(fill);
    free(g->e_from);
    free(g->e_to);
    g->e_from = g->e_to = NULL;
    return TN_SIM_OK;
}

/* A timer's argument for the release of CPU node i's core (wait_only):
 * negative, so that it is told from a node's own timer; its own inverse. */
#define DAG_RELEASE(i) (-2 - (i))
/* A timer's argument for CPU node i asking for a core at its ready time:
 * above the nodes' own (DAGs have at most 2^30 nodes). */
#define DAG_ASK(g, i) ((g)->n + (i))

/* Node i may start: a message is posted delay after ready, a join
 * completes then (through a timer if it has a delay), a CPU node takes a
 * core of its host or queues for one. */
static tn_sim_status_t dag_begin(tn_sim_dag_src_t *s, tn_sim_eng_t *e, int32_t i, double ready,
                                 int32_t *top);

static tn_sim_status_t dag_complete(tn_sim_dag_src_t *s, tn_sim_eng_t *e, int32_t i, double t)
{
    tn_sim_dag_t *g = s->dag;
    int32_t top = 0;
    s->stack[top++] = i;
    g->nd[i].ready = t;
    while (top > 0) {
        int32_t v = s->stack[--top];
        double tv = g->nd[v].ready;
        g->done++;
        g->t_last = tv > g->t_last ? tv : g->t_last;
        for (int32_t k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
            int32_t d = g->out[k];
            g->nd[d].ready = tv > g->nd[d].ready ? tv : g->nd[d].ready;
            if (--g->nd[d].deps == 0) {
                tn_sim_status_t st = dag_begin(s, e, d, g->nd[d].ready, &top);
                if (st != TN_SIM_OK) {
                    return st;
                }
            }
        }
    }
    return TN_SIM_OK;
}

/* CPU node i asks its host for a core at time t (the engine's now): it
 * takes a free one, or queues.  A wait_only message end is done when it
 * has the core: onto the caller's stack (top), or completed here when
 * there is none (a timer's). */
static tn_sim_status_t dag_cpu_ask(tn_sim_dag_src_t *s, tn_sim_eng_t *e, int32_t i, double t, int32_t *top)
{
    tn_sim_dag_t *g = s->dag;
    int32_t h = g->nd[i].src;
    if (s->pfree[h] > 0) {
        s->pfree[h]--;
        if (g->wait_only && g->bytes[i] == TN_SIM_DAG_CPU_END) {
            /* done now (as a join); the core is released by a timer of its
             * own (dag_timer) */
            tn_sim_status_t st = tn_sim_eng_timer(e, t + g->nd[i].delay, s->base.job, DAG_RELEASE(i));
            if (st != TN_SIM_OK || top == NULL) {
                return st != TN_SIM_OK ? st : dag_complete(s, e, i, t);
            }
            g->nd[i].ready = t;
            s->stack[(*top)++] = i;
            return TN_SIM_OK;
        }
        return tn_sim_eng_timer(e, t + g->nd[i].delay, s->base.job, i);
    }
    s->qnext[i] = -1;
    if (s->phead[h] < 0) {
        s->phead[h] = i;
    } else {
        s->qnext[s->ptail[h]] = i;
    }
    s->ptail[h] = i;
    return TN_SIM_OK;
}

static tn_sim_status_t dag_begin(tn_sim_dag_src_t *s, tn_sim_eng_t *e, int32_t i, double ready,
                                 int32_t *top)
{
    tn_sim_dag_t *g = s->dag;
    double t = ready + g->nd[i].delay;
    if (g->nd[i].dst >= 0) {
        return tn_sim_eng_post(e, t, s->base.job, s->job->ep[g->nd[i].src], s->job->ep[g->nd[i].dst],
                               g->bytes[i], i);
    }
    if (g->nd[i].dst == TN_SIM_DAG_CPU) {
        /* a host's cores go in the order the work is ready: a message
         * delivered later than now (the engine reports a delivery at its
         * flow's end) asks at its delivery time */
        if (ready > e->now) {
            return tn_sim_eng_timer(e, ready, s->base.job, DAG_ASK(g, i));
        }
        return dag_cpu_ask(s, e, i, e->now, top);
    }
    if (g->nd[i].dst <= TN_SIM_DAG_MCAST) {
        int32_t k = TN_SIM_DAG_MCAST - g->nd[i].dst;
        return tn_sim_eng_post_mcast(e, t, s->base.job, s->job->ep[g->nd[i].src], s->mc_ep + g->mc.off[k],
                                     g->mc.off[k + 1] - g->mc.off[k], g->bytes[i], i);
    }
    if (g->nd[i].delay > 0) {
        return tn_sim_eng_timer(e, t, s->base.job, i);
    }
    /* a join with no delay completes now: onto the stack, no recursion */
    g->nd[i].ready = t;
    s->stack[(*top)++] = i;
    return TN_SIM_OK;
}

static tn_sim_status_t dag_start(tn_sim_src_t *src, tn_sim_eng_t *e)
{
    tn_sim_dag_src_t *s = (tn_sim_dag_src_t *)src;
    tn_sim_dag_t *g = s->dag;
    double t0 = s->job->c.start;
    /* the roots first: a root join with no delay completes at once and may
     * release a node further on, which must not be taken for a root then */
    int32_t *roots = malloc(sizeof(int32_t) * ((size_t)g->n + 1));
    int32_t nroots = 0;
    if (roots == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = 0; i < g->n; i++) {
        if (g->nd[i].deps == 0) {
            roots[nroots++] = i;
        }
    }
    for (int32_t k = 0; k < nroots; k++) {
        int32_t i = roots[k];
        int32_t top = 0;
        tn_sim_status_t st = dag_begin(s, e, i, t0, &top);
        if (st == TN_SIM_OK && top > 0) {
            st = dag_complete(s, e, s->stack[0], t0);  /* a join with nothing before it */
        }
        if (st != TN_SIM_OK) {
            free(roots);
            return st;
        }
    }
    free(roots);
    return TN_SIM_OK;
}

static tn_sim_status_t dag_timer(tn_sim_src_t *src, tn_sim_eng_t *e, int32_t arg, double t)
{
    tn_sim_dag_src_t *s = (tn_sim_dag_src_t *)src;
    tn_sim_dag_t *g = s->dag;
    if (arg >= g->n) {
        return dag_cpu_ask(s, e, arg - g->n, t, NULL);
    }
    if (arg < 0 || g->nd[arg].dst == TN_SIM_DAG_CPU) {
        /* its core goes to the next in its host's queue, or is free; with
         * wait_only the work was done when it got the core, and so is the
         * next one now */
        int32_t w = arg < 0 ? DAG_RELEASE(arg) : arg;
        int32_t h = g->nd[w].src, q = s->phead[h];
        tn_sim_status_t st = TN_SIM_OK;
        if (q < 0) {
            s->pfree[h]++;
        } else {
            s->phead[h] = s->qnext[q];
            int early = g->wait_only && g->bytes[q] == TN_SIM_DAG_CPU_END;
            st = tn_sim_eng_timer(e, t + g->nd[q].delay, s->base.job, early ? DAG_RELEASE(q) : q);
            if (st == TN_SIM_OK && early) {
                st = dag_complete(s, e, q, t);
            }
        }
        if (st != TN_SIM_OK || arg < 0) {
            return st;
        }
    }
    return dag_complete(s, e, arg, t);
}

static tn_sim_status_t dag_delivered(tn_sim_src_t *src, tn_sim_eng_t *e, int64_t cookie, double t)
{
    return dag_complete((tn_sim_dag_src_t *)src, e, (int32_t)cookie, t);
}

static const tn_sim_src_ops_t dag_ops = {
    .start = dag_start,
    .timer = dag_timer,
    .delivered = dag_delivered,
};

tn_sim_status_t tn_sim_dag_src_init(tn_sim_dag_src_t *s, int jobno, const tn_sim_job_t *j,
                                    tn_sim_dag_t *g)
{
    memset(s, 0, sizeof(*s));
    s->base.ops = &dag_ops;
    s->base.job = jobno;
    s->job = j;
    s->dag = g;
    s->stack = malloc(sizeof(int32_t) * ((size_t)g->n + 1));
    s->mc_ep = malloc(sizeof(int32_t) * ((size_t)g->mc.nv + 1));
    if (s->stack == NULL || s->mc_ep == NULL) {
        tn_sim_dag_src_fini(s);
        return TN_SIM_ERR_NOMEM;
    }
    for (int64_t k = 0; k < g->mc.nv; k++) {
        int32_t r = g->mc.v[k];
        if (r < 0 || r >= j->n) {
            tn_sim_dag_src_fini(s);
            return TN_SIM_ERR_INVAL;
        }
        s->mc_ep[k] = j->ep[r];
    }
    if (g->npool > 0) {
        size_t np = (size_t)g->npool;
        s->pfree = malloc(sizeof(int32_t) * np);
        s->phead = malloc(sizeof(int32_t) * np);
        s->ptail = malloc(sizeof(int32_t) * np);
        s->qnext = malloc(sizeof(int32_t) * ((size_t)g->n + 1));
        if (s->pfree == NULL || s->phead == NULL || s->ptail == NULL || s->qnext == NULL) {
            tn_sim_dag_src_fini(s);
            return TN_SIM_ERR_NOMEM;
        }
        for (size_t h = 0; h < np; h++) {
            s->pfree[h] = g->cores;
            s->phead[h] = s->ptail[h] = -1;
        }
    }
    return TN_SIM_OK;
}

void tn_sim_dag_src_fini(tn_sim_dag_src_t *s)
{
    free(s->stack);
    free(s->pfree);
    free(s->phead);
    free(s->ptail);
    free(s->qnext);
    free(s->mc_ep);
    s->stack = s->pfree = s->phead = s->ptail = s->qnext = s->mc_ep = NULL;
}

/* The replay program: storage, its DAG, its results (sim_replay.h). */
#include "sim_replay.h"

#include "sim_plan.h"
#include "sim_replay_coll.h"
#include "sim_mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tn_sim_prog_init(tn_sim_prog_t *p)
{
    memset(p, 0, sizeof(*p));
}

void tn_sim_prog_free(tn_sim_prog_t *p)
{
    void *arrays[] = {p->src,    p->dst,     p->bytes,   p->delay,  p->e_from, p->e_to,
                      p->node,   p->trace_end, p->m_begin, p->m_end, p->m_trace, p->m_bytes,
                      p->c_begin, p->c_end, p->c_trace, p->c_kind, p->t_done, p->to_dag, p->in_dag};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        free(arrays[i]);
    }
    tn_sim_lists_free(&p->mc);
    tn_sim_plan_cache_free(p->plans);
    memset(p, 0, sizeof(*p));
}

int32_t tn_sim_prog_node(tn_sim_prog_t *p, int32_t src, int32_t dst, uint64_t bytes, double delay)
{
    if (p->n == p->cap) {
        if (p->cap > INT32_MAX / 4) {
            return -1;
        }
        size_t c = p->cap ? (size_t)p->cap * 2 : 1024;
        if (tn_sim_grow((void **)&p->src, sizeof(int32_t), c) || tn_sim_grow((void **)&p->dst, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->bytes, sizeof(uint64_t), c) ||
            tn_sim_grow((void **)&p->delay, sizeof(double), c)) {
            return -1;
        }
        p->cap = (int32_t)c;
    }
    int32_t i = p->n++;
    p->src[i] = src;
    p->dst[i] = dst;
    p->bytes[i] = bytes;
    p->delay[i] = delay > 0 ? delay : 0;
    return i;
}

int32_t tn_sim_prog_mcast(tn_sim_prog_t *p, int32_t src, const int32_t *dst, int32_t n, uint64_t bytes,
                          double delay)
{
    int32_t k = tn_sim_lists_add(&p->mc, dst, n);
    int32_t i = k < 0 ? -1 : tn_sim_prog_node(p, src, TN_SIM_PROG_MCAST - k, bytes, delay);
    if (k >= 0 && i < 0) {
        tn_sim_lists_pop(&p->mc);
    }
    return i;
}

tn_sim_status_t tn_sim_prog_edge(tn_sim_prog_t *p, int32_t from, int32_t to)
{
    if (from < 0 || to < 0 || from >= p->n || to >= p->n || from == to) {
        return TN_SIM_ERR_INVAL;
    }
    if (p->nedge == p->ecap) {
        if (p->ecap >= INT32_MAX / 4) {
            return TN_SIM_ERR_LIMIT;
        }
        size_t c = p->ecap ? (size_t)p->ecap * 2 : 1024;
        if (tn_sim_grow((void **)&p->e_from, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->e_to, sizeof(int32_t), c)) {
            return TN_SIM_ERR_NOMEM;
        }
        p->ecap = (int64_t)c;
    }
    p->e_from[p->nedge] = from;
    p->e_to[p->nedge] = to;
    p->nedge++;
    return TN_SIM_OK;
}

int tn_sim_prog_measure(tn_sim_prog_t *p, int32_t begin, int32_t end, double trace_ns, uint64_t bytes)
{
    if (p->nmsg == p->mcap) {
        size_t c = p->mcap ? p->mcap * 2 : 256;
        if (tn_sim_grow((void **)&p->m_begin, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->m_end, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->m_trace, sizeof(double), c) ||
            tn_sim_grow((void **)&p->m_bytes, sizeof(uint64_t), c)) {
            return -1;
        }
        p->mcap = c;
    }
    p->m_begin[p->nmsg] = begin;
    p->m_end[p->nmsg] = end;
    p->m_trace[p->nmsg] = trace_ns;
    p->m_bytes[p->nmsg] = bytes;
    p->nmsg++;
    return 0;
}

int tn_sim_prog_measure_call(tn_sim_prog_t *p, int32_t begin, int32_t end, double trace_ns, int kind)
{
    if (p->ncall == p->ccap) {
        size_t c = p->ccap ? p->ccap * 2 : 256;
        if (tn_sim_grow((void **)&p->c_begin, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->c_end, sizeof(int32_t), c) ||
            tn_sim_grow((void **)&p->c_trace, sizeof(double), c) ||
            tn_sim_grow((void **)&p->c_kind, sizeof(uint8_t), c)) {
            return -1;
        }
        p->ccap = c;
    }
    p->c_begin[p->ncall] = begin;
    p->c_end[p->ncall] = end;
    p->c_trace[p->ncall] = trace_ns;
    p->c_kind[p->ncall] = (uint8_t)(kind >= 0 && kind <= TN_SIM_C_OTHER ? kind : TN_SIM_C_OTHER);
    p->ncall++;
    return 0;
}

tn_sim_status_t tn_sim_prog_ranks(tn_sim_prog_t *p, int32_t nranks)
{
    p->nranks = nranks;
    p->nnodes = 1;
    p->node = calloc((size_t)nranks + 1, sizeof(int32_t));
    p->trace_end = malloc(sizeof(double) * ((size_t)nranks + 1));
    if (p->node == NULL || p->trace_end == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t r = 0; r < nranks; r++) {
        p->trace_end[r] = -1;
    }
    return TN_SIM_OK;
}

static int32_t prog_slot(const tn_sim_prog_t *p, int mode, int32_t rank)
{
    return mode == TN_SIM_SLOT_TRACE ? p->node[rank] : rank;
}

/* The host whose cores a rank's CPU work takes: its traced node, or the
 * one host of every rank. */
static int32_t prog_host(const tn_sim_prog_t *p, const tn_sim_replay_conf_t *rc, int32_t rank)
{
    if (rc->cpu_share || p->node[rank] < 0 || p->node[rank] >= p->nnodes) {
        return 0;
    }
    return p->node[rank];
}

/* A DAG node for ns of rank's work on its host's cores, a message's end
 * (cpu_charge applies) or the rank's own work; -1 on no memory. */
static int32_t prog_cpu(tn_sim_dag_t *g, const tn_sim_prog_t *p, const tn_sim_replay_conf_t *rc, int32_t rank,
                        double ns, int end)
{
    return tn_sim_dag_node(g, prog_host(p, rc, rank), TN_SIM_DAG_CPU, end ? TN_SIM_DAG_CPU_END : 0, ns);
}

int32_t tn_sim_prog_slots(const tn_sim_prog_t *p, int slot_mode)
{
    int32_t n = slot_mode == TN_SIM_SLOT_TRACE ? p->nnodes : p->nranks;
    return n < 2 ? 2 : n;  /* a placed job has two ranks at least; a spare one idles */
}

tn_sim_status_t tn_sim_prog_dag(tn_sim_prog_t *p, const tn_sim_replay_conf_t *rc, tn_sim_dag_t *g,
                                char *why, size_t whylen)
{
    tn_sim_dag_init(g);
    size_t n = (size_t)p->n;
    int32_t *indeg = calloc(n + 1, sizeof(int32_t));
    int32_t *off = calloc(n + 2, sizeof(int32_t));
    int32_t *adj = malloc(sizeof(int32_t) * ((size_t)p->nedge + 1));
    int32_t *order = malloc(sizeof(int32_t) * (n + 1));
    /* a multicast's destination slots: each once, not the root's */
    size_t nslot = (size_t)(p->nranks > p->nnodes ? p->nranks : p->nnodes) + 1;
    int32_t *smark = p->mc.n > 0 ? calloc(nslot, sizeof(int32_t)) : NULL;
    int32_t *sl = p->mc.n > 0 ? malloc(sizeof(int32_t) * nslot) : NULL;
    free(p->to_dag);
    p->to_dag = malloc(sizeof(int32_t) * (n + 1));
    tn_sim_status_t st = TN_SIM_ERR_NOMEM;
    if (indeg == NULL || off == NULL || adj == NULL || order == NULL || p->to_dag == NULL ||
        (p->mc.n > 0 && (smark == NULL || sl == NULL))) {
        snprintf(why, whylen, "replay: out of memory for %d nodes", p->n);
        goto out;
    }
    /* Kahn's sort: stable (lowest program index first among the ready),
     * so the same program gives the same DAG */
    for (int64_t k = 0; k < p->nedge; k++) {
        indeg[p->e_to[k]]++;
        off[p->e_from[k] + 1]++;
    }
    for (size_t i = 0; i < n; i++) {
        off[i + 1] += off[i];
    }
    for (int64_t k = 0; k < p->nedge; k++) {
        adj[off[p->e_from[k]]++] = p->e_to[k];
    }
    for (size_t i = n; i > 0; i--) {
        off[i] = off[i - 1];
    }
    off[0] = 0;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        if (indeg[i] == 0) {
            order[tail++] = (int32_t)i;
        }
    }
    while (head < tail) {
        int32_t v = order[head++];
        for (int32_t k = off[v]; k < off[v + 1]; k++) {
            if (--indeg[adj[k]] == 0) {
                order[tail++] = adj[k];
            }
        }
    }
    if (tail != n) {
        snprintf(why, whylen, "replay: the dependencies form a cycle (%zu of %zu nodes ordered)", tail, n);
        st = TN_SIM_ERR_PARSE;
        goto out;
    }
    int hosts = rc->cpu_o > 0 || rc->cpu_fwd > 0;
    if (hosts) {
        free(p->in_dag);
        p->in_dag = malloc(sizeof(int32_t) * (n + 1));
        if (p->in_dag == NULL ||
            tn_sim_dag_pools(g, rc->cpu_share ? 1 : (p->nnodes > 0 ? p->nnodes : 1),
                             rc->cpu_cores > 0 ? rc->cpu_cores : 1, rc->cpu_wait) != TN_SIM_OK) {
            snprintf(why, whylen, "replay: out of memory for the hosts");
            goto out;
        }
    }
    for (size_t k = 0; k < n; k++) {
        int32_t i = order[k];
        int32_t s = prog_slot(p, rc->slot_mode, p->src[i]);
        int32_t d = p->dst[i] < 0 ? -1 : prog_slot(p, rc->slot_mode, p->dst[i]);
        double delay = p->delay[i];
        if (p->dst[i] <= TN_SIM_PROG_MCAST) {
            /* the members on the root's slot have it by shared memory;
             * the others' slots get it from the fabric, each once */
            int32_t mk = TN_SIM_PROG_MCAST - p->dst[i], ns = 0, local = 0;
            for (int32_t m = p->mc.off[mk]; m < p->mc.off[mk + 1]; m++) {
                int32_t r = p->mc.v[m];
                if (r < 0 || r >= p->nranks) {
                    snprintf(why, whylen, "replay: a multicast to rank %d of %d", r, p->nranks);
                    st = TN_SIM_ERR_INVAL;
                    goto out;
                }
                int32_t sv = prog_slot(p, rc->slot_mode, r);
                local |= sv == s && r != p->src[i];
                if (sv != s && smark[sv] != mk + 1) {
                    smark[sv] = mk + 1;
                    sl[ns++] = sv;
                }
            }
            /* hosts: the root's work, the multicast, every member's work;
             * done when the last member's is */
            int32_t cs = hosts ? prog_cpu(g, p, rc, p->src[i], rc->cpu_o, 1) : -1;
            int32_t x = ns > 0 ? tn_sim_dag_mcast(g, s, sl, ns, p->bytes[i], delay)
                               : tn_sim_dag_node(g, s, TN_SIM_DAG_JOIN, 0,
                                                 delay + (local ? rc->shm_lat + (double)p->bytes[i] / rc->shm_bw : 0));
            int32_t jn = x, bad = x < 0 || (hosts && (cs < 0 || tn_sim_dag_edge(g, cs, x) != TN_SIM_OK));
            if (hosts && !bad) {
                /* the members' work nodes are made in a row, the join after them */
                int32_t first = g->n;
                for (int32_t m = p->mc.off[mk]; m < p->mc.off[mk + 1] && !bad; m++) {
                    int32_t r = p->mc.v[m];
                    if (r != p->src[i]) {
                        int32_t cr = prog_cpu(g, p, rc, r, rc->cpu_o, 1);
                        bad = cr < 0 || tn_sim_dag_edge(g, x, cr) != TN_SIM_OK;
                    }
                }
                jn = bad ? -1 : tn_sim_dag_node(g, s, TN_SIM_DAG_JOIN, 0, 0);
                for (int32_t cr = first; cr < jn && !bad; cr++) {
                    bad = tn_sim_dag_edge(g, cr, jn) != TN_SIM_OK;
                }
                bad |= jn < 0;
            }
            if (bad) {
                snprintf(why, whylen, "replay: out of memory for the DAG");
                goto out;
            }
            p->to_dag[i] = jn;
            if (hosts) {
                p->in_dag[i] = cs;
            }
            continue;
        }
        int32_t cs = -1, cr = -1;
        if (hosts && p->dst[i] >= 0) {
            cs = prog_cpu(g, p, rc, p->src[i], rc->cpu_o, 1);
        }
        if (d >= 0 && d == s) {
            /* one node: shared memory, not the fabric */
            delay += rc->shm_lat + (double)p->bytes[i] / rc->shm_bw;
            d = -1;
        }
        int32_t x = hosts && p->dst[i] == TN_SIM_PROG_CPU && delay > 0
                        ? prog_cpu(g, p, rc, p->src[i], delay, 0)
                        : tn_sim_dag_node(g, s, d, d < 0 ? 0 : p->bytes[i], delay);
        if (hosts && p->dst[i] >= 0) {
            double fwd = 0;
            if (d >= 0 && rc->cpu_fwd > 0 && rc->ss_hops != NULL) {
                /* the frames of its bytes, forwarded on the hosts' cores */
                double frames = p->bytes[i] > 0 ? ceil((double)p->bytes[i] / rc->cpu_frame) : 1;
                fwd = rc->cpu_fwd * frames * rc->ss_hops(rc->ss_ctx, s, d);
            }
            cr = prog_cpu(g, p, rc, p->dst[i], rc->cpu_o + fwd, 1);
        }
        if (x < 0 || (hosts && p->dst[i] >= 0 && (cs < 0 || cr < 0))) {
            snprintf(why, whylen, "replay: out of memory for the DAG");
            goto out;
        }
        p->to_dag[i] = x;
        if (hosts) {
            p->in_dag[i] = x;
            if (cs >= 0) {
                /* the sender's work, the message, the receiver's work */
                if (tn_sim_dag_edge(g, cs, x) != TN_SIM_OK || tn_sim_dag_edge(g, x, cr) != TN_SIM_OK) {
                    snprintf(why, whylen, "replay: out of memory for the DAG");
                    goto out;
                }
                p->in_dag[i] = cs;
                p->to_dag[i] = cr;
            }
        }
    }
    for (int64_t k = 0; k < p->nedge; k++) {
        const int32_t *into = hosts ? p->in_dag : p->to_dag;
        st = tn_sim_dag_edge(g, p->to_dag[p->e_from[k]], into[p->e_to[k]]);
        if (st != TN_SIM_OK) {
            snprintf(why, whylen, "replay: DAG edge: %s", tn_sim_status_str(st));
            goto out;
        }
    }
    st = tn_sim_dag_seal(g);
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "replay: out of memory sealing the DAG");
    }
out:
    free(indeg);
    free(off);
    free(adj);
    free(order);
    free(smark);
    free(sl);
    if (st != TN_SIM_OK) {
        tn_sim_dag_free(g);
    }
    return st;
}

tn_sim_status_t tn_sim_prog_collect(tn_sim_prog_t *p, const tn_sim_dag_t *g)
{
    free(p->t_done);
    p->t_done = malloc(sizeof(double) * ((size_t)p->n + 1));
    if (p->t_done == NULL || p->to_dag == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t i = 0; i < p->n; i++) {
        p->t_done[i] = g->nd[p->to_dag[i]].ready;
    }
    return TN_SIM_OK;
}

static int replay_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of sorted v[n] (nearest rank). */
static double replay_q(const double *v, size_t n, double q)
{
    if (n == 0) {
        return NAN;
    }
    size_t k = (size_t)ceil(q * (double)n);
    return v[k > 0 ? k - 1 : 0];
}

static double replay_err(double sim, double real)
{
    return real > 0 ? 100.0 * (sim - real) / real : NAN;
}

/* "LABELsim S us", then "   trace T us   error E %" when there is a
 * traced figure (trace >= 0; NaN: none). */
static void replay_vs(FILE *o, const char *label, double sim, double trace)
{
    fprintf(o, "%ssim %.6g us", label, sim / 1e3);
    if (trace >= 0) {
        fprintf(o, "   trace %.6g us   error %+.1f %%", trace / 1e3, replay_err(sim, trace));
    }
}

/* Per collective kind, the medians of its calls, simulated and traced (a
 * job's own collective apart from its control barriers and reductions);
 * n[kind] calls (0: none of that kind).  0, or -1 on no memory. */
static int replay_kind_medians(const tn_sim_prog_t *p, double *sim, double *trace, size_t *n)
{
    double *cs = malloc(sizeof(double) * (p->ncall + 1)), *ct = malloc(sizeof(double) * (p->ncall + 1));
    for (int kind = 0; cs != NULL && ct != NULL && kind <= TN_SIM_C_OTHER; kind++) {
        size_t ns = 0, nt = 0;
        for (size_t k = 0; k < p->ncall; k++) {
            if (p->c_kind[k] == kind) {
                cs[ns++] = p->t_done[p->c_end[k]] - p->t_done[p->c_begin[k]];
                if (p->c_trace[k] >= 0) {
                    ct[nt++] = p->c_trace[k];
                }
            }
        }
        qsort(cs, ns, sizeof(double), replay_cmp);
        qsort(ct, nt, sizeof(double), replay_cmp);
        n[kind] = ns;
        sim[kind] = replay_q(cs, ns, 0.5);
        trace[kind] = replay_q(ct, nt, 0.5);
    }
    int rc = cs != NULL && ct != NULL ? 0 : -1;
    free(cs);
    free(ct);
    return rc;
}

int tn_sim_replay_out(const tn_sim_prog_t *p, const char *dir, FILE *f, char *why, size_t whylen)
{
    char path[1200];
    int rc = -1;
    double *end = calloc((size_t)p->nranks + 1, sizeof(double));
    double *ms = malloc(sizeof(double) * (p->nmsg + 1));
    double *mt = malloc(sizeof(double) * (p->nmsg + 1));
    double *cs = malloc(sizeof(double) * (p->ncall + 1));
    double *ct = malloc(sizeof(double) * (p->ncall + 1));
    FILE *rf = NULL, *mf = NULL, *sf = NULL;
    if (end == NULL || ms == NULL || mt == NULL || cs == NULL || ct == NULL || p->t_done == NULL) {
        snprintf(why, whylen, "replay output: out of memory");
        goto out;
    }
    /* a rank ends with the last thing it did or received */
    for (int32_t i = 0; i < p->n; i++) {
        int32_t r = p->dst[i] >= 0 ? p->dst[i] : p->src[i];
        end[r] = p->t_done[i] > end[r] ? p->t_done[i] : end[r];
    }
    double job = 0, tjob = -1;
    for (int32_t r = 0; r < p->nranks; r++) {
        job = end[r] > job ? end[r] : job;
        tjob = p->trace_end[r] > tjob ? p->trace_end[r] : tjob;
    }
    size_t ns = 0, nt = 0;
    for (size_t k = 0; k < p->nmsg; k++) {
        ms[ns++] = p->t_done[p->m_end[k]] - p->t_done[p->m_begin[k]];
        if (p->m_trace[k] >= 0) {
            mt[nt++] = p->m_trace[k];
        }
    }
    size_t ncs = 0, nct = 0;
    for (size_t k = 0; k < p->ncall; k++) {
        cs[ncs++] = p->t_done[p->c_end[k]] - p->t_done[p->c_begin[k]];
        if (p->c_trace[k] >= 0) {
            ct[nct++] = p->c_trace[k];
        }
    }
    snprintf(path, sizeof(path), "%s/replay_msgs.csv", dir);
    mf = fopen(path, "w");
    snprintf(path, sizeof(path), "%s/replay_ranks.csv", dir);
    rf = fopen(path, "w");
    snprintf(path, sizeof(path), "%s/replay.txt", dir);
    sf = fopen(path, "w");
    if (mf == NULL || rf == NULL || sf == NULL) {
        snprintf(why, whylen, "%s: cannot write", dir);
        goto out;
    }
    fprintf(mf, "begin_node,end_node,bytes,sim_ns,trace_ns\n");
    for (size_t k = 0; k < p->nmsg; k++) {
        fprintf(mf, "%d,%d,%llu,%.17g,%.17g\n", p->m_begin[k], p->m_end[k], (unsigned long long)p->m_bytes[k],
                ms[k], p->m_trace[k]);
    }
    fprintf(rf, "rank,node,sim_end_ns,trace_end_ns\n");
    for (int32_t r = 0; r < p->nranks; r++) {
        fprintf(rf, "%d,%d,%.17g,%.17g\n", r, p->node[r], end[r], p->trace_end[r]);
    }
    qsort(ms, ns, sizeof(double), replay_cmp);
    qsort(mt, nt, sizeof(double), replay_cmp);
    qsort(cs, ncs, sizeof(double), replay_cmp);
    qsort(ct, nct, sizeof(double), replay_cmp);
    double ksim[TN_SIM_C_OTHER + 1], ktrace[TN_SIM_C_OTHER + 1];
    size_t kn[TN_SIM_C_OTHER + 1];
    if (replay_kind_medians(p, ksim, ktrace, kn) != 0) {
        snprintf(why, whylen, "replay output: out of memory");
        goto out;
    }
    for (int k = 0; k < 2; k++) {
        FILE *o = k == 0 ? sf : f;
        if (o == NULL) {
            continue;
        }
        fprintf(o, "replay: %d ranks on %d traced nodes, %d program nodes, %lld edges, %zu messages measured\n",
                p->nranks, p->nnodes, p->n, (long long)p->nedge, p->nmsg);
        fprintf(o, "  left out: %llu unmatched messages; %llu collectives kept as traced time\n",
                (unsigned long long)p->skipped_msgs, (unsigned long long)p->opaque_colls);
        fprintf(o, "  collectives: %llu expanded by Tern's own code (tern-coll-plan), %llu by the models "
                   "(%llu of them by the fallback)",
                (unsigned long long)p->planned_colls, (unsigned long long)p->modelled_colls,
                (unsigned long long)p->fallback_colls);
        if (p->mcast_colls > 0) {
            fprintf(o, "; %llu broadcasts as one multicast each (bcast_mcast)", (unsigned long long)p->mcast_colls);
        }
        if (p->plan_failed > 0) {
            fprintf(o, "; the planner failed on %llu (first: %s)", (unsigned long long)p->plan_failed,
                    p->plan_why);
        }
        fputc('\n', o);
        replay_vs(o, "  job time:        ", job, tjob);
        replay_vs(o, "\n  message p50:     ", replay_q(ms, ns, 0.5), replay_q(mt, nt, 0.5));
        replay_vs(o, "\n  message p99:     ", replay_q(ms, ns, 0.99), replay_q(mt, nt, 0.99));
        if (ncs > 0) {
            replay_vs(o, "\n  collective p50:  ", replay_q(cs, ncs, 0.5), replay_q(ct, nct, 0.5));
            for (int kind = 0; kind <= TN_SIM_C_OTHER; kind++) {
                if (kn[kind] > 0) {
                    char label[48];
                    snprintf(label, sizeof(label), "\n  calls %s p50: ", tn_sim_ckind_name(kind));
                    replay_vs(o, label, ksim[kind], ktrace[kind]);
                    fprintf(o, " (%zu calls)", kn[kind]);
                }
            }
        }
        fprintf(o, "\n  rank ends (sim / trace, us):");
        for (int32_t r = 0; r < p->nranks && r < 64; r++) {
            if (p->trace_end[r] >= 0) {
                fprintf(o, " %d:%.6g/%.6g", r, end[r] / 1e3, p->trace_end[r] / 1e3);
            } else {
                fprintf(o, " %d:%.6g/-", r, end[r] / 1e3);
            }
        }
        fprintf(o, "%s\n", p->nranks > 64 ? " ... (replay_ranks.csv)" : "");
    }
    rc = 0;
out:
    if ((mf != NULL && fclose(mf) != 0) || (rf != NULL && fclose(rf) != 0) || (sf != NULL && fclose(sf) != 0)) {
        rc = -1;
    }
    free(end);
    free(ms);
    free(mt);
    free(cs);
    free(ct);
    return rc;
}

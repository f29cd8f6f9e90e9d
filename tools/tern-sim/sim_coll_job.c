/* The synthetic collective workload (sim_coll_job.h). */
#include "sim_coll_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_replay_coll.h"

static const char *const kind_names[] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter",
    "reduce_scatter", "scan", "exscan",
};

/* The algorithm's name: the index-th of TN_SIM_COLL_ALGO_CHOICES. */
static void algo_name(int index, char *out, size_t len)
{
    const char *s = TN_SIM_COLL_ALGO_CHOICES;
    for (int k = 0; k < index && s != NULL; k++) {
        s = strchr(s, '|');
        s = s != NULL ? s + 1 : NULL;
    }
    size_t n = s == NULL ? 0 : strcspn(s, "|");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s == NULL ? "" : s);
}

/* What each member contributes and receives, as a trace records it, for
 * a call of kind with b bytes (the vector, or one block). */
static void coll_bytes(int kind, int32_t n, int32_t root, uint64_t b, uint64_t *sb, uint64_t *rb)
{
    for (int32_t i = 0; i < n; i++) {
        uint64_t nb = b * (uint64_t)n;
        switch (kind) {
        case TN_SIM_C_BARRIER:   sb[i] = rb[i] = 0; break;
        case TN_SIM_C_BCAST:     sb[i] = i == root ? b : 0; rb[i] = i == root ? 0 : b; break;
        case TN_SIM_C_REDUCE:    sb[i] = b; rb[i] = i == root ? b : 0; break;
        case TN_SIM_C_ALLGATHER: sb[i] = b; rb[i] = nb; break;
        case TN_SIM_C_ALLTOALL:  sb[i] = rb[i] = nb; break;
        case TN_SIM_C_GATHER:    sb[i] = b; rb[i] = i == root ? nb : 0; break;
        case TN_SIM_C_SCATTER:   sb[i] = i == root ? nb : 0; rb[i] = b; break;
        case TN_SIM_C_REDUCE_SCATTER: sb[i] = nb; rb[i] = b; break;
        default:                 sb[i] = rb[i] = b; break;   /* allreduce, scan, exscan */
        }
    }
}

/* ---- LLF / GLF ---------------------------------------------------------- */
/* Ring phases among sets of members: sets[s * m + k] is member k of set s
 * (nsets sets of m).  Reduce-scatter and allgather: m - 1 rounds of
 * bytes / m; allreduce: both. */
static void ring(tn_sim_rounds_t *x, const int32_t *sets, int32_t nsets, int32_t m, uint64_t bytes,
                 int rounds)
{
    for (int r = 0; r < rounds * (m - 1); r++) {
        for (int32_t s = 0; s < nsets; s++) {
            for (int32_t k = 0; k < m; k++) {
                tn_sim_rounds_send(x, sets[s * m + k], sets[s * m + (k + 1) % m], bytes / (uint64_t)m);
            }
        }
        tn_sim_rounds_step(x);
    }
}

/* Members by group: local[gi * m + k] is the k-th member (rank order) in
 * the gi-th group the job occupies; global[k * ng + gi] the same, by
 * index.  0, or -1 when the groups hold different numbers of members. */
static int by_group(const tn_sim_job_t *j, const tn_sim_topo_t *t, int32_t **local_p, int32_t **global_p,
                    int32_t *ng_p, int32_t *m_p)
{
    int32_t n = j->n, per = t->df.per_group, ngrp = t->df.g;
    int32_t *cnt = calloc((size_t)ngrp, sizeof(int32_t)), *idx = malloc(sizeof(int32_t) * (size_t)ngrp);
    int32_t *local = malloc(sizeof(int32_t) * (size_t)n), *global = malloc(sizeof(int32_t) * (size_t)n);
    int rc = -1;
    if (cnt == NULL || idx == NULL || local == NULL || global == NULL) {
        goto out;
    }
    for (int32_t r = 0; r < n; r++) {
        cnt[tn_sim_ep_switch(t, j->ep[r]) / per]++;
    }
    int32_t ng = 0, m = 0;
    for (int32_t gi = 0; gi < ngrp; gi++) {
        if (cnt[gi] == 0) {
            idx[gi] = -1;
            continue;
        }
        if (m != 0 && cnt[gi] != m) {
            goto out;
        }
        m = cnt[gi];
        idx[gi] = ng++;
        cnt[gi] = 0;
    }
    for (int32_t r = 0; r < n; r++) {
        int32_t gr = tn_sim_ep_switch(t, j->ep[r]) / per, gi = idx[gr], k = cnt[gr]++;
        local[gi * m + k] = r;
        global[k * ng + gi] = r;
    }
    *ng_p = ng;
    *m_p = m;
    rc = 0;
out:
    free(cnt);
    free(idx);
    if (rc != 0) {
        free(local);
        free(global);
    } else {
        *local_p = local;
        *global_p = global;
    }
    return rc;
}

/* Steps 1 .. m-1 among sets of m: in step s member k sends step_bytes
 * to member k + 1 (ring: allgather's forwarding) or k + s (shift:
 * all-to-all's pairwise exchange). */
static void steps(tn_sim_rounds_t *x, const int32_t *sets, int32_t nsets, int32_t m, uint64_t step_bytes,
                  int shift)
{
    for (int32_t s = 1; s < m; s++) {
        for (int32_t t = 0; t < nsets; t++) {
            for (int32_t k = 0; k < m; k++) {
                tn_sim_rounds_send(x, sets[t * m + k], sets[t * m + (k + (shift ? s : 1)) % m], step_bytes);
            }
        }
        tn_sim_rounds_step(x);
    }
}

/* Allgather of b bytes per rank: LLF gathers the group's m blocks over
 * local links, then the equal-index ranks exchange those m-block groups
 * across; GLF exchanges single blocks across groups first, then the
 * g-block sets inside each group.  All-to-all of b bytes per pair: LLF
 * first hands each group member the g blocks bound for its index (local),
 * then the equal-index ranks exchange m-block bundles (global); GLF the
 * other way round. */
static tn_sim_status_t hier_gather(tn_sim_rounds_t *x, const int32_t *local, const int32_t *global, int32_t ng,
                                   int32_t m, uint64_t b, int glf, int alltoall)
{
    uint64_t gb = b * (uint64_t)ng, mb = b * (uint64_t)m;
    if (alltoall) {
        if (!glf) {
            steps(x, local, ng, m, gb, 1);
            steps(x, global, m, ng, mb, 1);
        } else {
            steps(x, global, m, ng, mb, 1);
            steps(x, local, ng, m, gb, 1);
        }
    } else if (!glf) {
        steps(x, local, ng, m, b, 0);
        steps(x, global, m, ng, mb, 0);
    } else {
        steps(x, global, m, ng, b, 0);
        steps(x, local, ng, m, gb, 0);
    }
    return x->st;
}

static tn_sim_status_t hier_allreduce(tn_sim_rounds_t *x, const int32_t *local, const int32_t *global, int32_t ng,
                                      int32_t m, uint64_t b, int glf)
{
    if (!glf) {
        ring(x, local, ng, m, b, 1);                    /* reduce-scatter in the group */
        ring(x, global, m, ng, b / (uint64_t)m, 2);     /* each piece across the groups */
        ring(x, local, ng, m, b, 1);                    /* allgather in the group */
    } else {
        ring(x, global, m, ng, b, 1);                   /* reduce-scatter across groups */
        ring(x, local, ng, m, b / (uint64_t)ng, 2);     /* each piece in the group */
        ring(x, global, m, ng, b, 1);                   /* allgather across groups */
    }
    return x->st;
}

/* ---- the job ------------------------------------------------------------ */
tn_sim_status_t tn_sim_coll_dag(const tn_sim_job_t *j, const tn_sim_topo_t *t, const tn_sim_replay_conf_t *rc,
                                int jobno, tn_sim_dag_t *g, char *why, size_t whylen)
{
    int32_t n = j->n, root = j->c.root;
    int kind = j->c.coll, ca = j->c.coll_algo;
    char algo[32];
    tn_sim_prog_t p;
    tn_sim_status_t st;
    int32_t *world = malloc(sizeof(int32_t) * (size_t)n), *state = malloc(sizeof(int32_t) * (size_t)n);
    uint64_t *sb = malloc(sizeof(uint64_t) * (size_t)n), *rb = malloc(sizeof(uint64_t) * (size_t)n);
    int32_t *local = NULL, *global = NULL, ng = 0, m = 0;

    algo_name(ca, algo, sizeof(algo));
    tn_sim_prog_init(&p);
    tn_sim_dag_init(g);
    why[0] = '\0';
    st = world == NULL || state == NULL || sb == NULL || rb == NULL ? TN_SIM_ERR_NOMEM : tn_sim_prog_ranks(&p, n);
    if (st != TN_SIM_OK) {
        goto out;
    }
    if (root < 0 || root >= n) {
        snprintf(why, whylen, "job %d: root %d is not one of its %d ranks", jobno, (int)root, (int)n);
        st = TN_SIM_ERR_INVAL;
        goto out;
    }
    if (ca == TN_SIM_CA_MCAST && kind != TN_SIM_C_BCAST) {
        snprintf(why, whylen, "job %d: coll_algo mcast: a bcast only (one multicast from the root)", jobno);
        st = TN_SIM_ERR_INVAL;
        goto out;
    }
    if (ca == TN_SIM_CA_LLF || ca == TN_SIM_CA_GLF) {
        if ((kind != TN_SIM_C_ALLREDUCE && kind != TN_SIM_C_ALLGATHER && kind != TN_SIM_C_ALLTOALL) ||
            (t->kind != TN_SIM_TOPO_DRAGONFLY && t->kind != TN_SIM_TOPO_MEGAFLY)) {
            snprintf(why, whylen, "job %d: coll_algo %s: an allreduce, allgather or alltoall on a dragonfly or megafly only", jobno, algo);
            st = TN_SIM_ERR_INVAL;
            goto out;
        }
        if (by_group(j, t, &local, &global, &ng, &m) != 0) {
            snprintf(why, whylen, "job %d: coll_algo %s: every group must hold as many of its ranks", jobno, algo);
            st = TN_SIM_ERR_INVAL;
            goto out;
        }
    }
    /* every rank an endpoint and a node of its own */
    for (int32_t i = 0; i < n; i++) {
        world[i] = i;
        p.node[i] = i;
        state[i] = tn_sim_prog_node(&p, i, -1, 0, 0);
        if (state[i] < 0) {
            st = TN_SIM_ERR_NOMEM;
            goto out;
        }
    }
    p.nnodes = n;
    coll_bytes(kind, n, root, j->c.size, sb, rb);
    for (int32_t it = 0; it < j->c.iters && st == TN_SIM_OK; it++) {
        tn_sim_coll_t c = {.n = n, .world = world, .state = state, .sbytes = sb, .rbytes = rb, .root = root,
                           .one_node = 0, .shm_lat = rc->shm_lat};
        if (ca == TN_SIM_CA_MCAST) {
            st = tn_sim_coll_mcast(&p, &c);
        } else if (ca == TN_SIM_CA_LLF || ca == TN_SIM_CA_GLF) {
            tn_sim_rounds_t x;
            st = tn_sim_rounds_init(&x, &p, &c);
            if (st == TN_SIM_OK) {
                if (kind == TN_SIM_C_ALLREDUCE) {
                    hier_allreduce(&x, local, global, ng, m, j->c.size, ca == TN_SIM_CA_GLF);
                } else {
                    hier_gather(&x, local, global, ng, m, j->c.size, ca == TN_SIM_CA_GLF,
                                kind == TN_SIM_C_ALLTOALL);
                }
            }
            st = tn_sim_rounds_fini(&x);
        } else {
            int planned = 0, fb = 0;
            st = tn_sim_coll_plan(&p, (tn_sim_ckind_t)kind, algo, &c, rc, &planned);
            if (st == TN_SIM_OK && !planned) {
                /* the models: only what they know, never the fallback */
                if (!tn_sim_coll_has_model((tn_sim_ckind_t)kind, algo)) {
                    if (p.plan_failed > 0) {
                        snprintf(why, whylen, "job %d: %s", jobno, p.plan_why);
                    } else {
                        snprintf(why, whylen, "job %d: %s %s on %d ranks: no model of it, and tern-coll-plan %s",
                                 jobno, kind_names[kind], algo, (int)n,
                                 rc->coll_plan == NULL ? "is not in use (coll_plan off, or none beside tern-sim)"
                                                       : "plans up to coll_plan_max ranks");
                    }
                    st = TN_SIM_ERR_UNSUPP;
                    break;
                }
                if (st == TN_SIM_OK) {
                    st = tn_sim_coll_expand(&p, (tn_sim_ckind_t)kind, algo, &c, &fb);
                }
            }
        }
        if (st == TN_SIM_OK && j->c.delay > 0 && it + 1 < j->c.iters) {
            for (int32_t i = 0; i < n && st == TN_SIM_OK; i++) {
                int32_t d = tn_sim_prog_node(&p, i, -1, 0, j->c.delay);
                st = d < 0 ? TN_SIM_ERR_NOMEM : tn_sim_prog_edge(&p, state[i], d);
                state[i] = d;
            }
        }
    }
    if (st == TN_SIM_OK) {
        tn_sim_replay_conf_t rk = *rc;
        rk.slot_mode = TN_SIM_SLOT_RANK;
        st = tn_sim_prog_dag(&p, &rk, g, why, whylen);
    }
out:
    if (st != TN_SIM_OK && why[0] == '\0') {
        snprintf(why, whylen, "job %d: %s %s: %s", jobno, kind_names[kind], algo, tn_sim_status_str(st));
    }
    free(world);
    free(state);
    free(sb);
    free(rb);
    free(local);
    free(global);
    tn_sim_prog_free(&p);
    return st;
}

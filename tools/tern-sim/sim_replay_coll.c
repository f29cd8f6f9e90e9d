/* Collective expansions of the replay (sim_replay_coll.h). */
#include "sim_replay_coll.h"

#include "sim_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void cx_pend(tn_sim_rounds_t *x, int32_t m, int32_t node)
{
    if (x->np == x->cap) {
        size_t c = x->cap ? x->cap * 2 : 64;
        int32_t *a = realloc(x->pm, sizeof(int32_t) * c);
        if (a != NULL) {
            x->pm = a;
        }
        int32_t *b = realloc(x->pn, sizeof(int32_t) * c);
        if (b != NULL) {
            x->pn = b;
        }
        if (a == NULL || b == NULL) {
            x->st = TN_SIM_ERR_NOMEM;
            return;
        }
        x->cap = c;
    }
    x->pm[x->np] = m;
    x->pn[x->np] = node;
    x->np++;
}

/* Member i sends bytes to member j in this round. */
void tn_sim_rounds_send(tn_sim_rounds_t *x, int32_t i, int32_t j, uint64_t bytes)
{
    if (x->st != TN_SIM_OK || i == j) {
        return;
    }
    int32_t m = tn_sim_prog_node(x->p, x->c->world[i], x->c->world[j], bytes, 0);
    if (m < 0) {
        x->st = TN_SIM_ERR_NOMEM;
        return;
    }
    x->st = tn_sim_prog_edge(x->p, x->c->state[i], m);
    cx_pend(x, i, m);
    cx_pend(x, j, m);
}

/* Ends the round: every member that sent or received waits for all of it. */
void tn_sim_rounds_step(tn_sim_rounds_t *x)
{
    for (int32_t i = 0; i < x->c->n; i++) {
        x->join[i] = -1;
    }
    for (size_t k = 0; k < x->np && x->st == TN_SIM_OK; k++) {
        int32_t m = x->pm[k];
        if (x->join[m] < 0) {
            x->join[m] = tn_sim_prog_node(x->p, x->c->world[m], -1, 0, 0);
            if (x->join[m] < 0) {
                x->st = TN_SIM_ERR_NOMEM;
                break;
            }
            x->st = tn_sim_prog_edge(x->p, x->c->state[m], x->join[m]);
        }
        if (x->st == TN_SIM_OK) {
            x->st = tn_sim_prog_edge(x->p, x->pn[k], x->join[m]);
        }
    }
    for (int32_t i = 0; i < x->c->n; i++) {
        if (x->join[i] >= 0) {
            x->c->state[i] = x->join[i];
        }
    }
    x->np = 0;
}

tn_sim_status_t tn_sim_rounds_init(tn_sim_rounds_t *x, tn_sim_prog_t *p, tn_sim_coll_t *c)
{
    memset(x, 0, sizeof(*x));
    x->p = p;
    x->c = c;
    x->st = TN_SIM_OK;
    x->join = malloc(sizeof(int32_t) * ((size_t)c->n + 1));
    return x->join == NULL ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
}

tn_sim_status_t tn_sim_rounds_fini(tn_sim_rounds_t *x)
{
    free(x->pm);
    free(x->pn);
    free(x->join);
    x->pm = x->pn = x->join = NULL;
    return x->st;
}

tn_sim_status_t tn_sim_coll_mcast(tn_sim_prog_t *p, tn_sim_coll_t *c)
{
    int32_t n = c->n, root = c->root;
    if (n < 1 || root < 0 || root >= n) {
        return TN_SIM_ERR_INVAL;
    }
    if (n == 1) {
        return TN_SIM_OK;
    }
    uint64_t b = c->sbytes[root] > c->rbytes[root] ? c->sbytes[root] : c->rbytes[root];
    int32_t *dst = malloc(sizeof(int32_t) * (size_t)n);
    if (dst == NULL) {
        return TN_SIM_ERR_NOMEM;
    }
    int32_t nd = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i != root) {
            dst[nd++] = c->world[i];
        }
    }
    int32_t m = tn_sim_prog_mcast(p, c->world[root], dst, nd, b, 0);
    free(dst);
    tn_sim_status_t st = m < 0 ? TN_SIM_ERR_NOMEM : tn_sim_prog_edge(p, c->state[root], m);
    for (int32_t i = 0; i < n && st == TN_SIM_OK; i++) {
        int32_t x = tn_sim_prog_node(p, c->world[i], -1, 0, 0);
        st = x < 0 ? TN_SIM_ERR_NOMEM : tn_sim_prog_edge(p, c->state[i], x);
        if (st == TN_SIM_OK) {
            st = tn_sim_prog_edge(p, m, x);
        }
        c->state[i] = x;
    }
    if (st == TN_SIM_OK) {
        p->mcast_colls++;
    }
    return st;
}

static int32_t cx_pof2(int32_t n)
{
    int32_t p = 1;
    while (p * 2 <= n) {
        p *= 2;
    }
    return p;
}

static uint64_t cx_block(const tn_sim_coll_t *c, int32_t i)
{
    return c->rbytes[i] > 0 ? c->rbytes[i] / (uint64_t)c->n : c->sbytes[i];
}

/* The fold of a non-power-of-two recursive algorithm: rank i < 2r, even,
 * gives its data to i+1 (before) or gets it back (after).  Returns the
 * member of new rank v. */
static int32_t cx_old(int32_t v, int32_t rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

static void cx_fold(tn_sim_rounds_t *x, int32_t rem, int back, uint64_t bytes)
{
    for (int32_t i = 0; i < 2 * rem; i += 2) {
        if (back) {
            tn_sim_rounds_send(x, i + 1, i, bytes);
        } else {
            tn_sim_rounds_send(x, i, i + 1, bytes);
        }
    }
    tn_sim_rounds_step(x);
}

static void cx_allreduce_recdbl(tn_sim_rounds_t *x, int rabenseifner)
{
    int32_t n = x->c->n, pof2 = cx_pof2(n), rem = n - pof2;
    uint64_t b = x->c->sbytes[0] > x->c->rbytes[0] ? x->c->sbytes[0] : x->c->rbytes[0];
    if (rem > 0) {
        cx_fold(x, rem, 0, b);
    }
    if (!rabenseifner) {
        for (int32_t mask = 1; mask < pof2; mask *= 2) {
            for (int32_t v = 0; v < pof2; v++) {
                tn_sim_rounds_send(x, cx_old(v, rem), cx_old(v ^ mask, rem), b);
            }
            tn_sim_rounds_step(x);
        }
    } else {
        uint64_t part = b;
        for (int32_t mask = 1; mask < pof2; mask *= 2) {
            part /= 2;
            for (int32_t v = 0; v < pof2; v++) {
                tn_sim_rounds_send(x, cx_old(v, rem), cx_old(v ^ mask, rem), part);
            }
            tn_sim_rounds_step(x);
        }
        for (int32_t mask = pof2 / 2; mask >= 1; mask /= 2) {
            for (int32_t v = 0; v < pof2; v++) {
                tn_sim_rounds_send(x, cx_old(v, rem), cx_old(v ^ mask, rem), part);
            }
            tn_sim_rounds_step(x);
            part *= 2;
        }
    }
    if (rem > 0) {
        cx_fold(x, rem, 1, b);
    }
}

static void cx_fallback(tn_sim_rounds_t *x)
{
    tn_sim_coll_t *c = x->c;
    int32_t root = c->root >= 0 && c->root < c->n ? c->root : 0;
    for (int32_t i = 0; i < c->n; i++) {
        tn_sim_rounds_send(x, i, root, c->sbytes[i]);
    }
    tn_sim_rounds_step(x);
    for (int32_t i = 0; i < c->n; i++) {
        tn_sim_rounds_send(x, root, i, c->rbytes[i]);
    }
    tn_sim_rounds_step(x);
}

/* 1 when done, 0 when the algorithm is not one this file models. */
static int cx_algo(tn_sim_rounds_t *x, tn_sim_ckind_t kind, const char *a)
{
    tn_sim_coll_t *c = x->c;
    int32_t n = c->n;
    int32_t root = c->root >= 0 && c->root < n ? c->root : 0;
    switch (kind) {
    case TN_SIM_C_BARRIER:
        if (strcmp(a, "dissemination") == 0) {
            for (int32_t k = 1; k < n; k *= 2) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i + k) % n, 0);
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        if (strcmp(a, "flat") == 0) {
            for (int32_t i = 1; i < n; i++) {
                tn_sim_rounds_send(x, i, 0, 0);
            }
            tn_sim_rounds_step(x);
            for (int32_t i = 1; i < n; i++) {
                tn_sim_rounds_send(x, 0, i, 0);
            }
            tn_sim_rounds_step(x);
            return 1;
        }
        return 0;
    case TN_SIM_C_BCAST:
    case TN_SIM_C_REDUCE: {
        if (strcmp(a, "binomial") != 0) {
            return 0;
        }
        uint64_t b = c->sbytes[root] > c->rbytes[root] ? c->sbytes[root] : c->rbytes[root];
        int32_t top = cx_pof2(n) < n ? cx_pof2(n) * 2 : n;
        if (kind == TN_SIM_C_BCAST) {
            for (int32_t mask = top / 2; mask >= 1; mask /= 2) {
                for (int32_t v = 0; v + mask < n; v += 2 * mask) {
                    tn_sim_rounds_send(x, (v + root) % n, (v + mask + root) % n, b);
                }
                tn_sim_rounds_step(x);
            }
        } else {
            for (int32_t mask = 1; mask < n; mask *= 2) {
                for (int32_t v = mask; v < n; v += 2 * mask) {
                    tn_sim_rounds_send(x, (v + root) % n, (v - mask + root) % n, b);
                }
                tn_sim_rounds_step(x);
            }
        }
        return 1;
    }
    case TN_SIM_C_ALLREDUCE:
        if (strcmp(a, "recdbl") == 0 || strcmp(a, "rabenseifner") == 0) {
            cx_allreduce_recdbl(x, a[0] == 'r' && a[1] == 'a');
            return 1;
        }
        if (strcmp(a, "ring") == 0) {
            uint64_t b = c->sbytes[0] > c->rbytes[0] ? c->sbytes[0] : c->rbytes[0];
            for (int32_t k = 0; k < 2 * (n - 1); k++) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i + 1) % n, b / (uint64_t)n);
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        return 0;
    case TN_SIM_C_ALLGATHER:
        if (strcmp(a, "ring") == 0) {
            for (int32_t k = 0; k < n - 1; k++) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i + 1) % n, cx_block(c, i));
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        if (strcmp(a, "recdbl") == 0 && cx_pof2(n) == n) {
            for (int32_t mask = 1; mask < n; mask *= 2) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, i ^ mask, cx_block(c, i) * (uint64_t)mask);
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        if (strcmp(a, "bruck") == 0 || strcmp(a, "recdbl") == 0) {
            for (int32_t k = 1; k < n; k *= 2) {
                int32_t blocks = k < n - k ? k : n - k;
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i - k + n) % n, cx_block(c, i) * (uint64_t)blocks);
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        return 0;
    case TN_SIM_C_ALLTOALL:
        if (strcmp(a, "pairwise") == 0) {
            for (int32_t k = 1; k < n; k++) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i + k) % n, c->sbytes[i] / (uint64_t)n);
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        if (strcmp(a, "scattered") == 0) {
            for (int32_t i = 0; i < n; i++) {
                for (int32_t k = 1; k < n; k++) {
                    tn_sim_rounds_send(x, i, (i + k) % n, c->sbytes[i] / (uint64_t)n);
                }
            }
            tn_sim_rounds_step(x);
            return 1;
        }
        if (strcmp(a, "bruck") == 0) {
            for (int32_t k = 1; k < n; k *= 2) {
                for (int32_t i = 0; i < n; i++) {
                    tn_sim_rounds_send(x, i, (i + k) % n, c->sbytes[i] / (uint64_t)n * (uint64_t)((n + 1) / 2));
                }
                tn_sim_rounds_step(x);
            }
            return 1;
        }
        return 0;
    case TN_SIM_C_NBR_ALLGATHER:
    case TN_SIM_C_NBR_ALLTOALL:
        if (c->nbrs == NULL) {
            return 0;
        }
        for (int32_t i = 0; i < n; i++) {
            const int64_t *v = c->nbrs + c->nbr_first[i];
            const int64_t *dst = v + 2 + v[0], *sent = dst + v[1];
            for (int64_t j = 0; j < v[1]; j++) {
                tn_sim_rounds_send(x, i, (int32_t)dst[j], (uint64_t)sent[j]);
            }
        }
        tn_sim_rounds_step(x);
        return 1;
    default:
        return 0;
    }
}

int tn_sim_coll_has_model(tn_sim_ckind_t kind, const char *algo)
{
    static const char *const known[][4] = {
        [TN_SIM_C_BARRIER] = {"dissemination", "flat"},
        [TN_SIM_C_BCAST] = {"binomial"},
        [TN_SIM_C_REDUCE] = {"binomial"},
        [TN_SIM_C_ALLREDUCE] = {"recdbl", "rabenseifner", "ring"},
        [TN_SIM_C_ALLGATHER] = {"ring", "recdbl", "bruck"},
        [TN_SIM_C_ALLTOALL] = {"pairwise", "scattered", "bruck"},
    };
    if ((unsigned)kind >= sizeof(known) / sizeof(known[0])) {
        return 0;
    }
    for (int i = 0; i < 4 && known[kind][i] != NULL; i++) {
        if (strcmp(known[kind][i], algo) == 0) {
            return 1;
        }
    }
    return 0;
}

tn_sim_status_t tn_sim_coll_expand(tn_sim_prog_t *p, tn_sim_ckind_t kind, const char *algo, tn_sim_coll_t *c,
                                   int *fallback_p)
{
    *fallback_p = 0;
    if (c->n <= 1) {
        return TN_SIM_OK;
    }
    p->modelled_colls++;
    if (strcmp(algo, "shm") == 0 && c->one_node) {
        /* shared memory: no traffic; everyone leaves shm_lat after the last arrives */
        int32_t j = tn_sim_prog_node(p, c->world[0], -1, 0, c->shm_lat);
        if (j < 0) {
            return TN_SIM_ERR_NOMEM;
        }
        for (int32_t i = 0; i < c->n; i++) {
            tn_sim_status_t st = tn_sim_prog_edge(p, c->state[i], j);
            if (st != TN_SIM_OK) {
                return st;
            }
            c->state[i] = j;
        }
        return TN_SIM_OK;
    }
    tn_sim_rounds_t x;
    if (tn_sim_rounds_init(&x, p, c) != TN_SIM_OK) {
        tn_sim_rounds_fini(&x);
        return TN_SIM_ERR_NOMEM;
    }
    if (!cx_algo(&x, kind, algo)) {
        *fallback_p = 1;
        x.np = 0;
        cx_fallback(&x);
    }
    return tn_sim_rounds_fini(&x);
}

/* ---- Tern's own code (sim_plan.h) ------------------------------------ */
static const char *const plan_kinds[] = {
    [TN_SIM_C_BARRIER] = "barrier", [TN_SIM_C_BCAST] = "bcast", [TN_SIM_C_REDUCE] = "reduce",
    [TN_SIM_C_ALLREDUCE] = "allreduce", [TN_SIM_C_ALLGATHER] = "allgather",
    [TN_SIM_C_ALLTOALL] = "alltoall", [TN_SIM_C_GATHER] = "gather", [TN_SIM_C_SCATTER] = "scatter",
    [TN_SIM_C_REDUCE_SCATTER] = "reduce_scatter", [TN_SIM_C_SCAN] = "scan", [TN_SIM_C_EXSCAN] = "exscan",
    [TN_SIM_C_NBR_ALLGATHER] = "neighbor_allgather", [TN_SIM_C_NBR_ALLTOALL] = "neighbor_alltoall",
    [TN_SIM_C_OTHER] = "other",
};

const char *tn_sim_ckind_name(int kind)
{
    return kind >= 0 && kind <= TN_SIM_C_OTHER ? plan_kinds[kind] : "other";
}

static uint64_t plan_max(const uint64_t *v, int32_t n, int32_t skip)
{
    uint64_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i != skip && v[i] > m) {
            m = v[i];
        }
    }
    return m;
}

/* What tern-coll-plan's --bytes means for kind, from the bytes the trace
 * recorded each member contributing (sb) and receiving (rb). */
static uint64_t plan_bytes(tn_sim_ckind_t kind, const tn_sim_coll_t *c, int32_t root)
{
    int32_t n = c->n;
    switch (kind) {
    case TN_SIM_C_BARRIER:
        return 0;
    case TN_SIM_C_BCAST: {
        uint64_t b = c->sbytes[root] > c->rbytes[root] ? c->sbytes[root] : c->rbytes[root];
        return b > 0 ? b : plan_max(c->rbytes, n, -1);
    }
    case TN_SIM_C_GATHER:
        return n > 1 ? plan_max(c->sbytes, n, root) : c->sbytes[0];
    case TN_SIM_C_SCATTER:
        return n > 1 ? plan_max(c->rbytes, n, root) : c->rbytes[0];
    case TN_SIM_C_ALLGATHER: {
        uint64_t b = plan_max(c->sbytes, n, -1);
        return b > 0 ? b : plan_max(c->rbytes, n, -1) / (uint64_t)n;
    }
    case TN_SIM_C_ALLTOALL:
        return plan_max(c->sbytes, n, -1) / (uint64_t)n;
    case TN_SIM_C_REDUCE_SCATTER:
        return plan_max(c->rbytes, n, -1);
    default: {   /* reduce, allreduce, scan, exscan: the vector */
        uint64_t b = plan_max(c->sbytes, n, -1);
        return b > 0 ? b : plan_max(c->rbytes, n, -1);
    }
    }
}

tn_sim_status_t tn_sim_coll_plan(tn_sim_prog_t *p, tn_sim_ckind_t kind, const char *algo, tn_sim_coll_t *c,
                                 const tn_sim_replay_conf_t *rc, int *planned_p)
{
    *planned_p = 0;
    if (rc == NULL || rc->coll_plan == NULL || kind >= TN_SIM_C_OTHER || algo[0] == '\0' ||
        c->n < 2 || c->n > rc->coll_plan_max) {
        return TN_SIM_OK;
    }
    /* a vector form: its blocks go to the planner's standard input; a
     * neighbourhood collective: its lists and blocks */
    char *counts = NULL;
    int nbr = kind == TN_SIM_C_NBR_ALLGATHER || kind == TN_SIM_C_NBR_ALLTOALL;
    if (nbr) {
        if (c->nbrs == NULL || c->nbr_first[c->n] > (rc->coll_plan_ops > 0 ? rc->coll_plan_ops : 20000000)) {
            return TN_SIM_OK;
        }
        size_t nv = c->nbr_first[c->n], cl = nv * 21 + 1, co = 0;
        counts = malloc(cl);
        if (counts == NULL) {
            return TN_SIM_ERR_NOMEM;
        }
        for (int32_t i = 0; i < c->n; i++) {
            for (size_t k = c->nbr_first[i]; k < c->nbr_first[i + 1]; k++) {
                co += (size_t)snprintf(counts + co, cl - co, "%" PRId64 "%c", c->nbrs[k],
                                       k + 1 == c->nbr_first[i + 1] ? '\n' : ' ');
            }
        }
        counts[co] = '\0';
    } else if (c->vector) {
        int rows = kind == TN_SIM_C_ALLTOALL ? (int)c->n : 1;
        uint64_t ops = rc->coll_plan_ops > 0 ? rc->coll_plan_ops : (uint64_t)20000000;
        if (c->counts == NULL || (uint64_t)rows * (uint64_t)c->n > ops ||
            (kind != TN_SIM_C_ALLTOALL && kind != TN_SIM_C_GATHER && kind != TN_SIM_C_SCATTER &&
             kind != TN_SIM_C_ALLGATHER && kind != TN_SIM_C_REDUCE_SCATTER)) {
            return TN_SIM_OK;
        }
        size_t nv = (size_t)rows * (size_t)c->n, cl = nv * 21 + 1, co = 0;
        counts = malloc(cl);
        if (counts == NULL) {
            return TN_SIM_ERR_NOMEM;
        }
        for (size_t k = 0; k < nv; k++) {
            co += (size_t)snprintf(counts + co, cl - co, "%" PRIu64 "%c", c->counts[k],
                                   (k + 1) % (size_t)c->n == 0 ? '\n' : ' ');
        }
    }
    int32_t root = c->root >= 0 && c->root < c->n ? c->root : 0;
    int rooted = kind == TN_SIM_C_BCAST || kind == TN_SIM_C_REDUCE || kind == TN_SIM_C_GATHER ||
                 kind == TN_SIM_C_SCATTER;
    char nb[24], bb[24], rb[24], ob[24], why[160];
    snprintf(nb, sizeof(nb), "%d", (int)c->n);
    snprintf(bb, sizeof(bb), "%" PRIu64, plan_bytes(kind, c, root));
    snprintf(rb, sizeof(rb), "%d", rooted ? (int)root : -1);
    snprintf(ob, sizeof(ob), "%" PRIu64, rc->coll_plan_ops > 0 ? rc->coll_plan_ops : (uint64_t)20000000);
    /* the nodes the trace put the members on: Tern's choices depend on them */
    size_t nl = (size_t)c->n * 11 + 1;
    char *nodes = malloc(nl);
    if (nodes == NULL) {
        free(counts);
        return TN_SIM_ERR_NOMEM;
    }
    size_t o = 0;
    for (int32_t i = 0; i < c->n; i++) {
        int32_t nd = p->node != NULL && c->world[i] >= 0 && c->world[i] < p->nranks ? p->node[c->world[i]] : c->world[i];
        o += (size_t)snprintf(nodes + o, nl - o, "%s%d", i ? "," : "", (int)nd);
    }
    char *argv[20];
    int a = 0;
    argv[a++] = (char *)rc->coll_plan;
    argv[a++] = "--kind";
    argv[a++] = (char *)plan_kinds[kind];
    argv[a++] = "--algo";
    argv[a++] = (char *)algo;
    argv[a++] = "--ranks";
    argv[a++] = nb;
    argv[a++] = "--bytes";
    argv[a++] = bb;
    argv[a++] = "--root";
    argv[a++] = rb;
    argv[a++] = "--nodes";
    argv[a++] = nodes;
    argv[a++] = "--max-ops";
    argv[a++] = ob;
    if (c->noncommutative) {
        argv[a++] = "--noncommutative";
    }
    if (counts != NULL) {
        argv[a++] = nbr ? "--neighbors" : "--counts";
        argv[a++] = "-";
    }
    argv[a] = NULL;
    const tn_sim_plan_t *pl = tn_sim_plan_get(&p->plans, argv, counts, why, sizeof(why));
    free(nodes);
    free(counts);
    if (pl == NULL || pl->n != c->n) {
        if (p->plan_failed++ == 0) {
            snprintf(p->plan_why, sizeof(p->plan_why), "%s %.16s on %d ranks: %s", plan_kinds[kind], algo,
                     (int)c->n, pl == NULL ? why : "the plan has other ranks");
        }
        return TN_SIM_OK;
    }
    tn_sim_plan_conf_t pc = {rc->eager, rc->shm_lat, rc->shm_bw, rc->op_bw, rc->copy_bw};
    tn_sim_status_t st = tn_sim_plan_expand(p, pl, c->world, c->state, &pc);
    if (st == TN_SIM_OK) {
        *planned_p = 1;
        p->planned_colls++;
    }
    return st;
}

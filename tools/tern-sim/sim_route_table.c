/* Shortest-path routing on a graph file's fabric: a table of hop counts
 * between switches (BFS from every switch, uint16 each), and at every hop
 * the ports whose neighbour is one hop closer to the destination's switch
 * ("equal-cost ports"); among them ECMP picks by a hash of the message's
 * random bits and the switch, adaptive the least loaded.  The table is
 * n_sw^2 entries: graphs of up to 8192 switches (128 MiB). */
#include "sim_route.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim_rng.h"

#define RT_TABLE_MAX_SW 8192

tn_sim_status_t tn_sim_route_table_build(tn_sim_router_t *rt, char *why, size_t whylen)
{
    const tn_sim_topo_t *t = rt->topo;
    int32_t ns = t->n_sw;
    if (ns > RT_TABLE_MAX_SW) {
        snprintf(why, whylen, "shortest-path tables: %d switches, at most %d", ns, RT_TABLE_MAX_SW);
        return TN_SIM_ERR_LIMIT;
    }
    uint16_t *dist = malloc(sizeof(uint16_t) * (size_t)ns * (size_t)ns);
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)ns);
    if (dist == NULL || queue == NULL) {
        free(dist);
        free(queue);
        snprintf(why, whylen, "out of memory for the shortest-path tables");
        return TN_SIM_ERR_NOMEM;
    }
    int32_t diam = 0;
    for (int32_t s = 0; s < ns; s++) {
        uint16_t *row = dist + (size_t)s * ns;
        for (int32_t i = 0; i < ns; i++) {
            row[i] = UINT16_MAX;
        }
        int32_t head = 0, tail = 0;
        row[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            int32_t v = queue[head++];
            for (int32_t p = t->port_off[t->n_ep + v]; p < t->port_off[t->n_ep + v + 1]; p++) {
                int32_t u = t->peer[p] - t->n_ep;
                if (u >= 0 && row[u] == UINT16_MAX) {
                    row[u] = (uint16_t)(row[v] + 1);
                    diam = row[u] > diam ? row[u] : diam;
                    queue[tail++] = u;
                }
            }
        }
        if (tail != ns) {
            free(dist);
            free(queue);
            snprintf(why, whylen, "shortest-path tables: the switches are not all connected");
            return TN_SIM_ERR_ROUTE;
        }
    }
    free(queue);
    rt->dist = dist;
    rt->diameter = diam;
    return TN_SIM_OK;
}

static int32_t table_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                          tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_topo_t *t = rt->topo;
    int32_t ns = t->n_sw, T = tn_sim_ep_switch(t, h->dst);
    h->vc = 0;
    if (sw == T) {
        return t->peer_port[h->dst];
    }
    const uint16_t *dT = rt->dist + (size_t)T * ns;  /* symmetric: dist[T][u] = dist[u][T] */
    uint16_t want = (uint16_t)(dT[sw] - 1);
    int32_t lo = t->port_off[t->n_ep + sw], hi = t->port_off[t->n_ep + sw + 1];
    int32_t n = 0;
    for (int32_t p = lo; p < hi; p++) {
        int32_t u = t->peer[p] - t->n_ep;
        n += u >= 0 && dT[u] == want;
    }
    if (n == 0) {
        return -1;
    }
    int32_t pick = (int32_t)(tn_sim_mix64(h->hash ^ ((uint64_t)sw << 20)) % (uint64_t)n);
    int32_t best = -1, brank = 0;
    double bestq = 0;
    for (int32_t p = lo, i = 0; p < hi; p++) {
        int32_t u = t->peer[p] - t->n_ep;
        if (u < 0 || dT[u] != want) {
            continue;
        }
        if (rt->alg == TN_SIM_RT_ADAPTIVE) {
            /* least loaded; among equals, the first from the hashed start */
            double q = load(ctx, p);
            int32_t rank = (i - pick + n) % n;
            if (best < 0 || q < bestq || (q == bestq && rank < brank)) {
                best = p;
                bestq = q;
                brank = rank;
            }
        } else if (i == pick) {
            return p;
        }
        i++;
    }
    return best;
}

const tn_sim_route_ops_t tn_sim_route_table_ops = {
    .name = "table",
    .begin = NULL,
    .next = table_next,
};

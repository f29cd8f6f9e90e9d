/* Helpers of tern-sim's unit tests: fabrics by name, BFS distances. */
#ifndef TN_SIM_TEST_UTIL_H
#define TN_SIM_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "sim_topo.h"

static inline tn_sim_topo_params_t sim_test_params(tn_sim_topo_kind_t kind)
{
    tn_sim_topo_params_t p;
    memset(&p, 0, sizeof(p));
    p.kind = kind;
    p.link = (tn_sim_linkp_t){.bw = 12.5, .lat = 100, .bw_host = 12.5, .lat_host = 50,
                              .bw_global = 12.5, .lat_global = 500};
    p.df_arrange = TN_SIM_DF_ABSOLUTE;
    p.tor_c = 1;
    return p;
}

/* Ports on a shortest path from node src to every node (BFS over
 * connected ports; -1 unreachable); dist has n_node entries. */
static inline void sim_test_bfs(const tn_sim_topo_t *t, int32_t src, int32_t *dist)
{
    int32_t *q = malloc(sizeof(int32_t) * (size_t)t->n_node);
    for (int32_t v = 0; v < t->n_node; v++) {
        dist[v] = -1;
    }
    int32_t head = 0, tail = 0;
    dist[src] = 0;
    q[tail++] = src;
    while (head < tail) {
        int32_t v = q[head++];
        /* an endpoint other than the source forwards nothing */
        if (v < t->n_ep && v != src) {
            continue;
        }
        for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
            int32_t u = t->peer[p];
            if (u >= 0 && dist[u] < 0) {
                dist[u] = dist[v] + 1;
                q[tail++] = u;
            }
        }
    }
    free(q);
}

#endif

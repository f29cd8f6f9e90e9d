/* n-D torus and mesh builder (sim_topo.h): any number of dimensions up to
 * TN_SIM_MAX_DIMS, each of size 2 or more, c endpoints per router. */
#include "sim_topo.h"

#include <stdio.h>

tn_sim_status_t tn_sim_topo_torus(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen)
{
    tn_sim_torus_t tor = {.nd = prm->nd, .c = prm->tor_c, .wrap = prm->kind == TN_SIM_TOPO_TORUS};
    if (tor.nd < 1 || tor.nd > TN_SIM_MAX_DIMS || tor.c < 1 || tor.c > 4096) {
        snprintf(why, whylen, "torus: want 1 to %d dimensions and 1 to 4096 endpoints per router",
                 TN_SIM_MAX_DIMS);
        return TN_SIM_ERR_INVAL;
    }
    int64_t n = 1;
    for (int d = 0; d < tor.nd; d++) {
        tor.k[d] = prm->dims[d];
        if (tor.k[d] < 2 || tor.k[d] > 65536) {
            snprintf(why, whylen, "torus: dimension %d has size %d, want 2 to 65536", d, tor.k[d]);
            return TN_SIM_ERR_INVAL;
        }
        tor.stride[d] = n;
        n *= tor.k[d];
        if (n > TN_SIM_MAX_EP) {
            snprintf(why, whylen, "torus: more than %d routers", TN_SIM_MAX_EP);
            return TN_SIM_ERR_LIMIT;
        }
    }
    tn_sim_status_t st = tn_sim_topo_alloc(t, prm->kind, n * tor.c, n, NULL, tor.c + 2 * tor.nd, why,
                                           whylen);
    if (st != TN_SIM_OK) {
        return st;
    }
    t->tor = tor;
    const tn_sim_linkp_t *lk = &prm->link;
    for (int32_t e = 0; e < t->n_ep && st == TN_SIM_OK; e++) {
        st = tn_sim_topo_connect(t, e, tn_sim_sw_port(t, e / tor.c, e % tor.c), lk->bw_host,
                                 lk->lat_host, TN_SIM_PORT_HOST, TN_SIM_PORT_HOST);
    }
    /* each router cables its + port of every dimension to the next
     * router's - port; the last one wraps (torus) or stays open (mesh) */
    for (int32_t r = 0; r < t->n_sw && st == TN_SIM_OK; r++) {
        for (int d = 0; d < tor.nd && st == TN_SIM_OK; d++) {
            int32_t x = (int32_t)(r / tor.stride[d] % tor.k[d]);
            int32_t next;
            if (x + 1 < tor.k[d]) {
                next = r + (int32_t)tor.stride[d];
            } else if (tor.wrap) {
                next = r - (int32_t)(tor.stride[d] * (tor.k[d] - 1));
            } else {
                continue;
            }
            st = tn_sim_topo_connect(t, tn_sim_sw_port(t, r, tor.c + 2 * d),
                                     tn_sim_sw_port(t, next, tor.c + 2 * d + 1), lk->bw, lk->lat,
                                     TN_SIM_PORT_DIM, TN_SIM_PORT_DIM);
        }
    }
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "torus: inconsistent wiring");
        tn_sim_topo_free(t);
    }
    return st;
}

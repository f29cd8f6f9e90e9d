/* The fabric's flat arrays (sim_topo.h) and the checks every builder's
 * result goes through. */
#include "sim_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tn_sim_topo_kind_name(tn_sim_topo_kind_t kind)
{
    static const char *const names[] = {"fattree", "dragonfly", "megafly", "torus", "mesh", "graph"};
    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

void tn_sim_topo_free(tn_sim_topo_t *t)
{
    free(t->port_off);
    free(t->peer);
    free(t->peer_port);
    free(t->bw);
    free(t->lat);
    free(t->pclass);
    free(t->names);
    free(t->name_off);
    memset(t, 0, sizeof(*t));
}

tn_sim_status_t tn_sim_topo_alloc(tn_sim_topo_t *t, tn_sim_topo_kind_t kind, int64_t n_ep,
                                  int64_t n_sw, const int32_t *sw_deg, int32_t deg_all, char *why,
                                  size_t whylen)
{
    memset(t, 0, sizeof(*t));
    if (n_ep < 1 || n_ep > TN_SIM_MAX_EP || n_sw < 1 || n_sw > TN_SIM_MAX_EP) {
        snprintf(why, whylen, "%lld endpoints and %lld switches: want 1 to %d of each",
                 (long long)n_ep, (long long)n_sw, TN_SIM_MAX_EP);
        return TN_SIM_ERR_LIMIT;
    }
    int64_t n_port = n_ep, max_deg = 0;
    for (int64_t s = 0; s < n_sw; s++) {
        int64_t d = sw_deg != NULL ? sw_deg[s] : deg_all;
        if (d < 1 || d > 65535) {
            snprintf(why, whylen, "switch %lld has %lld ports: want 1 to 65535", (long long)s,
                     (long long)d);
            return TN_SIM_ERR_LIMIT;
        }
        n_port += d;
        max_deg = d > max_deg ? d : max_deg;
        if (n_port > TN_SIM_MAX_PORTS) {
            snprintf(why, whylen, "more than %d ports", TN_SIM_MAX_PORTS);
            return TN_SIM_ERR_LIMIT;
        }
    }
    t->kind = kind;
    t->n_ep = (int32_t)n_ep;
    t->n_sw = (int32_t)n_sw;
    t->n_node = (int32_t)(n_ep + n_sw);
    t->n_port = (int32_t)n_port;
    t->max_deg = (int32_t)max_deg;
    t->port_off = malloc(sizeof(int32_t) * (size_t)(t->n_node + 1));
    t->peer = malloc(sizeof(int32_t) * (size_t)n_port);
    t->peer_port = malloc(sizeof(int32_t) * (size_t)n_port);
    t->bw = calloc((size_t)n_port, sizeof(double));
    t->lat = calloc((size_t)n_port, sizeof(double));
    t->pclass = calloc((size_t)n_port, 1);
    if (t->port_off == NULL || t->peer == NULL || t->peer_port == NULL || t->bw == NULL ||
        t->lat == NULL || t->pclass == NULL) {
        tn_sim_topo_free(t);
        snprintf(why, whylen, "out of memory for %lld ports", (long long)n_port);
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t e = 0; e <= t->n_ep; e++) {
        t->port_off[e] = e;
    }
    int32_t p = t->n_ep;
    for (int32_t s = 0; s < t->n_sw; s++) {
        t->port_off[t->n_ep + s] = p;
        p += sw_deg != NULL ? sw_deg[s] : deg_all;
    }
    t->port_off[t->n_node] = p;
    memset(t->peer, 0xff, sizeof(int32_t) * (size_t)n_port);       /* -1: unconnected */
    memset(t->peer_port, 0xff, sizeof(int32_t) * (size_t)n_port);
    return TN_SIM_OK;
}

/* The node a port belongs to: binary search of port_off (builders and
 * checks only; routing knows its node). */
static int32_t topo_port_node(const tn_sim_topo_t *t, int32_t p)
{
    if (p < t->n_ep) {
        return p;
    }
    int32_t lo = t->n_ep, hi = t->n_node - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (t->port_off[mid] <= p) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

tn_sim_status_t tn_sim_topo_connect(tn_sim_topo_t *t, int32_t pa, int32_t pb, double bw,
                                    double lat, tn_sim_port_class_t ca, tn_sim_port_class_t cb)
{
    if (pa < 0 || pb < 0 || pa >= t->n_port || pb >= t->n_port || pa == pb || t->peer[pa] >= 0 ||
        t->peer[pb] >= 0) {
        return TN_SIM_ERR_INTERNAL;  /* a builder's bug: the same port twice */
    }
    int32_t na = topo_port_node(t, pa), nb = topo_port_node(t, pb);
    t->peer[pa] = nb;
    t->peer_port[pa] = pb;
    t->peer[pb] = na;
    t->peer_port[pb] = pa;
    t->bw[pa] = t->bw[pb] = bw;
    t->lat[pa] = t->lat[pb] = lat;
    t->pclass[pa] = (uint8_t)ca;
    t->pclass[pb] = (uint8_t)cb;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_topo_finish(tn_sim_topo_t *t, char *why, size_t whylen)
{
    int32_t links = 0;
    for (int32_t p = 0; p < t->n_port; p++) {
        if (t->peer[p] < 0) {
            continue;
        }
        int32_t q = t->peer_port[p];
        if (q < 0 || q >= t->n_port || t->peer_port[q] != p || !(t->bw[p] > 0)) {
            snprintf(why, whylen, "port %d: cable not symmetric", p);
            return TN_SIM_ERR_INTERNAL;
        }
        links++;
    }
    for (int32_t e = 0; e < t->n_ep; e++) {
        if (t->peer[e] < t->n_ep) {
            snprintf(why, whylen, "endpoint %d is not cabled to a switch", e);
            return TN_SIM_ERR_INTERNAL;
        }
    }
    t->n_link = links;
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_topo_build(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen)
{
    tn_sim_status_t st;
    memset(t, 0, sizeof(*t));
    switch (prm->kind) {
    case TN_SIM_TOPO_FATTREE:
        st = tn_sim_topo_fattree(t, prm, why, whylen);
        break;
    case TN_SIM_TOPO_DRAGONFLY:
        st = tn_sim_topo_dragonfly(t, prm, why, whylen);
        break;
    case TN_SIM_TOPO_MEGAFLY:
        st = tn_sim_topo_megafly(t, prm, why, whylen);
        break;
    case TN_SIM_TOPO_TORUS:
    case TN_SIM_TOPO_MESH:
        st = tn_sim_topo_torus(t, prm, why, whylen);
        break;
    case TN_SIM_TOPO_GRAPH:
        st = tn_sim_topo_graph(t, prm, why, whylen);
        break;
    default:
        snprintf(why, whylen, "unknown topology kind %d", (int)prm->kind);
        return TN_SIM_ERR_INVAL;
    }
    if (st != TN_SIM_OK) {
        return st;
    }
    t->link = prm->link;
    st = tn_sim_topo_finish(t, why, whylen);
    if (st != TN_SIM_OK) {
        tn_sim_topo_free(t);
    }
    return st;
}

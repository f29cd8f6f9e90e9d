/* Fat-trees as XGFTs (sim_topo.h): the k-ary n-tree, and trees whose leaf
 * switches have `down` endpoint ports and `up` up-links (down:up
 * oversubscription; the levels above have k down and k up ports). */
#include "sim_topo.h"

#include <stdio.h>
#include <stdlib.h>

tn_sim_status_t tn_sim_topo_fattree(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                    size_t whylen)
{
    int n = prm->ft_n;
    int32_t k = prm->ft_k, down = prm->ft_down > 0 ? prm->ft_down : k;
    int32_t up = prm->ft_up > 0 ? prm->ft_up : k;
    if (n < 1 || n > TN_SIM_FT_LEVELS || k < 1 || k > 4096 || down > 4096 || up > 4096) {
        snprintf(why, whylen, "fat-tree: want 1 to %d levels and k, down, up in 1..4096",
                 TN_SIM_FT_LEVELS);
        return TN_SIM_ERR_INVAL;
    }
    tn_sim_ft_t ft = {.n = n};
    for (int i = 0; i < n; i++) {
        ft.m[i] = i == 0 ? down : k;
        ft.w[i] = i == 0 ? 1 : i == 1 ? up : k;
    }
    ft.M[0] = ft.W[0] = 1;
    for (int i = 1; i <= n; i++) {
        ft.M[i] = ft.M[i - 1] * ft.m[i - 1];
        ft.W[i] = ft.W[i - 1] * ft.w[i - 1];
        if (ft.M[i] > TN_SIM_MAX_EP || ft.W[i] > TN_SIM_MAX_EP) {
            snprintf(why, whylen, "fat-tree: more than %d endpoints", TN_SIM_MAX_EP);
            return TN_SIM_ERR_LIMIT;
        }
    }
    /* level i has prod_{j>i} m_j * W_i switches = (M_n / M_i) * W_i */
    int64_t nsw = 0;
    for (int i = 1; i <= n; i++) {
        int64_t c = ft.M[n] / ft.M[i] * ft.W[i];
        if (c > TN_SIM_MAX_EP || nsw + c > TN_SIM_MAX_EP) {
            snprintf(why, whylen, "fat-tree: more than %d switches", TN_SIM_MAX_EP);
            return TN_SIM_ERR_LIMIT;
        }
        ft.off[i - 1] = (int32_t)nsw;
        ft.nsw[i - 1] = (int32_t)c;
        nsw += c;
    }
    ft.off[n] = (int32_t)nsw;
    int32_t *deg = malloc(sizeof(int32_t) * (size_t)nsw);
    if (deg == NULL) {
        snprintf(why, whylen, "out of memory");
        return TN_SIM_ERR_NOMEM;
    }
    for (int i = 1; i <= n; i++) {
        for (int32_t s = ft.off[i - 1]; s < ft.off[i]; s++) {
            deg[s] = ft.m[i - 1] + (i < n ? ft.w[i] : 0);
        }
    }
    tn_sim_status_t st = tn_sim_topo_alloc(t, TN_SIM_TOPO_FATTREE, ft.M[n], nsw, deg, 0, why, whylen);
    free(deg);
    if (st != TN_SIM_OK) {
        return st;
    }
    t->ft = ft;
    const tn_sim_linkp_t *lk = &prm->link;
    /* endpoints: endpoint e = label A = e hangs off leaf A / m_1, down port e % m_1 */
    for (int32_t e = 0; e < t->n_ep; e++) {
        int32_t leaf = e / ft.m[0];
        st = tn_sim_topo_connect(t, e, tn_sim_sw_port(t, leaf, e % ft.m[0]), lk->bw_host,
                                 lk->lat_host, TN_SIM_PORT_HOST, TN_SIM_PORT_HOST);
        if (st != TN_SIM_OK) {
            goto err;
        }
    }
    /* level i node (A, B) -> parent via up port u: (A / m_{i+1}, B + W_i u),
     * reached on the parent's down port A % m_{i+1} */
    for (int i = 1; i < n; i++) {
        int32_t mi = ft.m[i - 1], mu = ft.m[i], wu = ft.w[i];
        for (int32_t idx = 0; idx < ft.nsw[i - 1]; idx++) {
            int64_t A = idx / ft.W[i], B = idx % ft.W[i];
            for (int32_t u = 0; u < wu; u++) {
                int64_t pidx = (A / mu) * ft.W[i + 1] + B + ft.W[i] * u;
                int32_t sw = ft.off[i - 1] + idx, psw = ft.off[i] + (int32_t)pidx;
                st = tn_sim_topo_connect(t, tn_sim_sw_port(t, sw, mi + u),
                                         tn_sim_sw_port(t, psw, (int32_t)(A % mu)), lk->bw, lk->lat,
                                         TN_SIM_PORT_UP, TN_SIM_PORT_DOWN);
                if (st != TN_SIM_OK) {
                    goto err;
                }
            }
        }
    }
    return TN_SIM_OK;
err:
    snprintf(why, whylen, "fat-tree: inconsistent wiring");
    tn_sim_topo_free(t);
    return st;
}

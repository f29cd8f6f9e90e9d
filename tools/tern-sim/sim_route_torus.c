/* Dimension-order routing on a torus or mesh (port layout in sim_topo.h):
 * correct dimension 0 first, then 1, ...; on a torus take the shorter way
 * round, and when both ways are equally long (k even, half-way) go + if
 * the source router's coordinate in that dimension is even, - if odd, so
 * that the two directions carry the same load under uniform traffic.
 * Datelines: the wrap-around link of each ring (k-1 -> 0 going +, 0 ->
 * k-1 going -); a route is on VC 0 in a dimension until it takes that
 * link, on VC 1 from it on, and starts again on VC 0 in the next
 * dimension. */
#include "sim_route.h"

static int32_t tor_next(const tn_sim_router_t *rt, int32_t sw, tn_sim_rhdr_t *h,
                        tn_sim_load_fn_t load, void *ctx)
{
    const tn_sim_topo_t *t = rt->topo;
    const tn_sim_torus_t *tor = &t->tor;
    int32_t rd = h->dst / tor->c;
    (void)load;
    (void)ctx;
    for (int d = 0; d < tor->nd; d++) {
        int32_t k = tor->k[d];
        int32_t x = (int32_t)(sw / tor->stride[d] % k), xd = (int32_t)(rd / tor->stride[d] % k);
        if (x == xd) {
            continue;
        }
        if (h->dim != d + 1) {
            h->dim = (uint8_t)(d + 1);
            h->crossed = 0;
        }
        int plus;
        if (tor->wrap) {
            int32_t fwd = (xd - x + k) % k;
            if (2 * fwd == k) {
                int32_t xs = (int32_t)(h->src / tor->c / tor->stride[d] % k);
                plus = xs % 2 == 0;
            } else {
                plus = 2 * fwd < k;
            }
            if ((plus && x == k - 1) || (!plus && x == 0)) {
                h->crossed = 1;
            }
        } else {
            plus = xd > x;
        }
        h->vc = h->crossed;
        return tn_sim_sw_port(t, sw, tor->c + 2 * d + (plus ? 0 : 1));
    }
    h->vc = 0;
    return tn_sim_sw_port(t, sw, h->dst % tor->c);
}

const tn_sim_route_ops_t tn_sim_route_torus_ops = {
    .name = "torus",
    .begin = NULL,
    .next = tor_next,
};

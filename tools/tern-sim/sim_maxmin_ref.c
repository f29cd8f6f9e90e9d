/* The naive max-min reference for tests (sim_maxmin.h): progressive
 * filling straight from the definition, no heap, no incremental state.
 * Each round finds the link with the least fair share of what is left
 * among its unfrozen flows and freezes them all at that share. */
#include "sim_maxmin.h"

#include <stdlib.h>

tn_sim_status_t tn_sim_mm_reference(int32_t n_link, const double *cap, int32_t nf,
                                    const int32_t *off, const int32_t *links, double *rates)
{
    double *rem = malloc(sizeof(double) * (size_t)n_link);
    int32_t *cnt = calloc((size_t)n_link, sizeof(int32_t));
    uint8_t *frozen = calloc((size_t)nf + 1, 1);
    if (rem == NULL || cnt == NULL || frozen == NULL) {
        free(rem);
        free(cnt);
        free(frozen);
        return TN_SIM_ERR_NOMEM;
    }
    for (int32_t l = 0; l < n_link; l++) {
        rem[l] = cap[l];
    }
    for (int32_t f = 0; f < nf; f++) {
        for (int32_t k = off[f]; k < off[f + 1]; k++) {
            cnt[links[k]]++;
        }
    }
    for (int32_t left = nf; left > 0;) {
        int32_t best = -1;
        double share = 0;
        for (int32_t l = 0; l < n_link; l++) {
            if (cnt[l] > 0 && (best < 0 || rem[l] / cnt[l] < share)) {
                best = l;
                share = rem[l] / cnt[l];
            }
        }
        if (best < 0) {
            break;  /* flows on no link: cannot happen for valid input */
        }
        for (int32_t f = 0; f < nf; f++) {
            if (frozen[f]) {
                continue;
            }
            int on = 0;
            for (int32_t k = off[f]; k < off[f + 1]; k++) {
                on |= links[k] == best;
            }
            if (!on) {
                continue;
            }
            frozen[f] = 1;
            left--;
            rates[f] = share;
            for (int32_t k = off[f]; k < off[f + 1]; k++) {
                rem[links[k]] -= share;
                cnt[links[k]]--;
            }
        }
    }
    free(rem);
    free(cnt);
    free(frozen);
    return TN_SIM_OK;
}

/* Flows posted by hand (endpoint ids, bytes) and their delivery times: the
 * workload of the exact max-min checks of test_sim_valid.c and
 * test_sim_packet.c. */
#ifndef TN_TESTS_SIM_HAND_H
#define TN_TESTS_SIM_HAND_H

#include <stdint.h>
#include "sim_run.h"

typedef struct {
    tn_sim_src_t base;
    int nf;
    const int32_t *src, *dst;
    const uint64_t *bytes;
    double done[16];
} hand_src_t;

static tn_sim_status_t hand_start(tn_sim_src_t *s, tn_sim_eng_t *e)
{
    hand_src_t *h = (hand_src_t *)s;
    for (int i = 0; i < h->nf; i++) {
        tn_sim_status_t st = tn_sim_eng_post(e, 0, 0, h->src[i], h->dst[i], h->bytes[i], i);
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    return TN_SIM_OK;
}

static tn_sim_status_t hand_delivered(tn_sim_src_t *s, tn_sim_eng_t *e, int64_t cookie, double t)
{
    (void)e;
    ((hand_src_t *)s)->done[cookie] = t;
    return TN_SIM_OK;
}

static const tn_sim_src_ops_t hand_ops = {.start = hand_start, .delivered = hand_delivered};

#endif

/* What test_sim_valid.c and test_sim_packet.c share: a run configured by
 * "key=value" words, and flows posted by hand (endpoint ids, bytes) with
 * their delivery times, the workload of the exact max-min checks. */
#ifndef TN_TESTS_SIM_HAND_H
#define TN_TESTS_SIM_HAND_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_run.h"

/* Configure from "key=value" words and run once; a bad key or a failed run
 * ends the test (exit 2) naming what.  The run is static: valid until the
 * next call. */
static inline tn_sim_run_t *sim_run_words(const char *const *kv, const char *what)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t r;
    char why[512] = "";
    tn_sim_conf_defaults(&c);
    for (int i = 0; kv[i] != NULL; i++) {
        char key[64];
        const char *eq = strchr(kv[i], '=');
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
        if (tn_sim_conf_set(&c, key, eq + 1, why, sizeof(why)) != TN_SIM_OK) {
            fprintf(stderr, "%s: %s\n", what, why);
            exit(2);
        }
    }
    if (tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why)) != TN_SIM_OK ||
        tn_sim_run_once(&r, &c, -1, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "%s: %s\n", what, why);
        exit(2);
    }
    return &r;
}

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

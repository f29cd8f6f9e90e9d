/* What the simulator's tests share (test_sim_valid.c, _packet.c, _coll.c,
 * _heat.c): runs configured by "key=value" words, fabrics from graph
 * text, and flows posted by hand (endpoint ids, bytes) with their
 * delivery times, the workload of the exact max-min checks. */
#ifndef TN_TESTS_SIM_HAND_H
#define TN_TESTS_SIM_HAND_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_run.h"

/* Applies "key=value" words to c (a bare "job" opens the next job);
 * TN_SIM_OK, or the first refusal with why. */
static inline tn_sim_status_t sim_conf_words(tn_sim_conf_t *c, const char *const *kv, char *why,
                                             size_t whylen)
{
    tn_sim_status_t st = TN_SIM_OK;
    for (int i = 0; kv[i] != NULL && st == TN_SIM_OK; i++) {
        char key[64];
        const char *eq = strchr(kv[i], '=');
        snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - kv[i]) : (int)strlen(kv[i]), kv[i]);
        st = eq != NULL ? tn_sim_conf_set(c, key, eq + 1, why, whylen) : tn_sim_conf_job(c, why, whylen);
    }
    return st;
}

/* Configure from "key=value" words and run once; a bad key or a failed run
 * ends the test (exit 2) naming what.  The run is static: valid until the
 * next call. */
static inline tn_sim_run_t *sim_run_words(const char *const *kv, const char *what)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t r;
    char why[512] = "";
    tn_sim_conf_defaults(&c);
    if (sim_conf_words(&c, kv, why, sizeof(why)) != TN_SIM_OK ||
        tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why)) != TN_SIM_OK ||
        tn_sim_run_once(&r, &c, -1, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "%s: %s\n", what, why);
        exit(2);
    }
    return &r;
}

/* The fabric of a graph file's text, shortest-path routed; a refusal ends
 * the test (exit 2). */
static inline void sim_graph_fabric(const char *graph, tn_sim_topo_t *t, tn_sim_router_t *rt)
{
    tn_sim_topo_params_t p;
    memset(&p, 0, sizeof(p));
    p.kind = TN_SIM_TOPO_GRAPH;
    p.graph_text = graph;
    p.graph_len = strlen(graph);
    char why[256];
    if (tn_sim_topo_build(t, &p, why, sizeof(why)) != TN_SIM_OK ||
        tn_sim_route_init(rt, t, TN_SIM_RT_SHORTEST, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "graph: %s\n", why);
        exit(2);
    }
}

/* Graph files the exact checks share.
 * SIM_HAND_PARKING_LOT: four switches in a row (80 B/ns, 100 ns between
 * them), endpoints on 800 B/ns, 0 ns links; ids in declared order:
 * L 0, D 1, a0 2, b0 3, a1 4, b1 5, a2 6, b2 7, c0 8, e0 9.
 * SIM_HAND_VICTIM: one switch, A 0, B 1, C 2, X 3, Y 4 on 100 Gb/s,
 * 50 ns links.
 * SIM_HAND_INCAST8: one switch, R 0 and s0..s7 (1..8) on 100 Gb/s,
 * 500 ns links. */
#define SIM_HAND_PARKING_LOT                                                              \
    "graph 1\n"                                                                            \
    "switch s0\nswitch s1\nswitch s2\nswitch s3\n"                                          \
    "endpoint L\nendpoint D\nendpoint a0\nendpoint b0\nendpoint a1\nendpoint b1\n"          \
    "endpoint a2\nendpoint b2\nendpoint c0\nendpoint e0\n"                                  \
    "link s0 s1 80 100\nlink s1 s2 80 100\nlink s2 s3 80 100\n"                              \
    "link L s0 800 0\nlink D s3 800 0\n"                                                    \
    "link a0 s0 800 0\nlink b0 s1 800 0\nlink a1 s1 800 0\nlink b1 s2 800 0\n"               \
    "link a2 s2 800 0\nlink b2 s3 800 0\nlink c0 s0 800 0\nlink e0 s1 800 0\n"
#define SIM_HAND_VICTIM                                                                   \
    "graph 1\nswitch sw\nendpoint A\nendpoint B\nendpoint C\nendpoint X\nendpoint Y\n"       \
    "link A sw 100 50\nlink B sw 100 50\nlink C sw 100 50\nlink X sw 100 50\n"                \
    "link Y sw 100 50\n"
#define SIM_HAND_INCAST8                                                                  \
    "graph 1\nswitch sw\nendpoint R\nendpoint s0\nendpoint s1\nendpoint s2\n"               \
    "endpoint s3\nendpoint s4\nendpoint s5\nendpoint s6\nendpoint s7\n"                      \
    "link R sw 100 500\nlink s0 sw 100 500\nlink s1 sw 100 500\nlink s2 sw 100 500\n"          \
    "link s3 sw 100 500\nlink s4 sw 100 500\nlink s5 sw 100 500\nlink s6 sw 100 500\n"        \
    "link s7 sw 100 500\n"

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

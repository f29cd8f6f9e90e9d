/* tern-sim's parsers of user input (tools/tern-sim): graph files
 * (sim_topo_graph.c) and the configuration, as a file (sim_conf.c:
 * tn_sim_conf_parse) and as command-line arguments (tn_sim_conf_args).
 *
 * Input: a byte (0: a graph file; 1: a configuration file; 2: arguments,
 * NUL-separated, where --config reads a fixed small file), then the text.
 * Checks beyond the sanitizers:
 *  - an accepted graph is a consistent fabric: cables symmetric, every
 *    endpoint on one switch, one connected piece; on a small one every
 *    shortest-path route reaches its destination in at most the
 *    diameter's hops;
 *  - an accepted configuration, written out and read back, writes the
 *    same text again; one that describes a small fabric builds and places
 *    its jobs, or is refused with a reason, without a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_conf.h"
#include "sim_route.h"
#include "sim_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static double fz_load(void *ctx, int32_t port)
{
    (void)ctx;
    return (double)(port % 3);
}

static void fz_graph(const char *text, size_t len)
{
    tn_sim_topo_params_t p;
    memset(&p, 0, sizeof(p));
    p.kind = TN_SIM_TOPO_GRAPH;
    p.graph_text = text;
    p.graph_len = len;
    tn_sim_topo_t t;
    char why[256];
    if (tn_sim_topo_build(&t, &p, why, sizeof(why)) != TN_SIM_OK) {
        if (why[0] == '\0') {
            abort();  /* refused without a reason */
        }
        return;
    }
    for (int32_t q = 0; q < t.n_port; q++) {
        if (t.peer[q] >= 0 && (t.peer_port[t.peer_port[q]] != q || !(t.bw[q] > 0))) {
            abort();
        }
    }
    for (int32_t e = 0; e < t.n_ep; e++) {
        if (t.peer[e] < t.n_ep) {
            abort();
        }
    }
    if (t.n_sw <= 64 && t.n_ep <= 64) {
        for (int alg = 0; alg < 2; alg++) {
            tn_sim_router_t rt;
            if (tn_sim_route_init(&rt, &t, alg ? TN_SIM_RT_ADAPTIVE : TN_SIM_RT_SHORTEST, why,
                                  sizeof(why)) != TN_SIM_OK) {
                abort();  /* a connected graph always has tables */
            }
            int32_t ports[80];
            for (int32_t s = 0; s < t.n_ep; s++) {
                for (int32_t d = 0; d < t.n_ep; d++) {
                    tn_sim_rhdr_t h;
                    tn_sim_route_begin(&rt, &h, s, d, (uint64_t)(s * 131 + d), fz_load, NULL);
                    int n = tn_sim_route_path(&rt, &h, fz_load, NULL, ports, NULL, 80);
                    if ((s == d) != (n == 0) || n < 0 || n > rt.diameter + 2) {
                        abort();
                    }
                }
            }
            tn_sim_route_fini(&rt);
        }
    }
    tn_sim_topo_free(&t);
}

/* Endpoints and switches the configuration's fabric would have, roughly
 * (doubles: no overflow); the harness builds only small ones. */
static double fz_size(const tn_sim_conf_t *c)
{
    double x = 0;
    switch (c->topo) {
    case TN_SIM_TOPO_FATTREE:
        x = c->down > 0 ? c->down : c->k;
        for (int i = 1; i < c->n; i++) {
            x *= c->k > (c->up > 0 ? c->up : c->k) ? c->k : (c->up > 0 ? c->up : c->k);
        }
        x *= c->n + 1;
        break;
    case TN_SIM_TOPO_DRAGONFLY:
    case TN_SIM_TOPO_MEGAFLY: {
        double g = c->g > 0 ? c->g : (double)(c->s > 0 ? c->s : c->a) * c->h + 1;
        x = g * c->a * (c->p + (c->s > 0 ? c->s : c->a) + c->h);
        break;
    }
    case TN_SIM_TOPO_TORUS:
    case TN_SIM_TOPO_MESH:
        x = c->c + 2 * c->nd;
        for (int d = 0; d < c->nd; d++) {
            x *= c->dims[d];
        }
        break;
    default:
        x = 1e18;  /* no graph files from here */
        break;
    }
    return x;
}

static char *fz_write(const tn_sim_conf_t *c, size_t *len_p)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len_p);
    if (f == NULL || tn_sim_conf_write(c, f) != 0 || fclose(f) != 0) {
        abort();
    }
    return buf;
}

static void fz_conf_checks(tn_sim_conf_t *c)
{
    static tn_sim_conf_t back;
    char why[512];
    size_t len1, len2;
    char *t1 = fz_write(c, &len1);
    tn_sim_conf_defaults(&back);
    if (tn_sim_conf_parse(&back, t1, len1, "written", why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "written configuration refused: %s\n%s", why, t1);
        abort();
    }
    char *t2 = fz_write(&back, &len2);
    if (len1 != len2 || memcmp(t1, t2, len1) != 0) {
        fprintf(stderr, "configuration round trip differs:\n%s---\n%s", t1, t2);
        abort();
    }
    free(t1);
    free(t2);
    if (fz_size(c) <= 20000) {
        static tn_sim_run_t r;
        if (tn_sim_setup(&r, c, NULL, 0, why, sizeof(why)) == TN_SIM_OK) {
            tn_sim_teardown(&r);
        } else if (why[0] == '\0') {
            abort();
        }
    }
}

static int fz_loader(const char *path, char **text_p, size_t *len_p, char *why, size_t whylen)
{
    static const char cfg[] = "topo = torus\ndims = 4x4\n[job]\npattern = halo\n";
    if (strcmp(path, "cfg") != 0) {
        snprintf(why, whylen, "no such file");
        return -1;
    }
    *text_p = malloc(sizeof(cfg));
    memcpy(*text_p, cfg, sizeof(cfg));
    *len_p = sizeof(cfg) - 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536) {
        return 0;
    }
    static tn_sim_conf_t c;
    char why[512];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0]) {
    case 0:
        fz_graph(text, len);
        break;
    case 1:
        tn_sim_conf_defaults(&c);
        why[0] = '\0';
        if (tn_sim_conf_parse(&c, text, len, "fuzz", why, sizeof(why)) == TN_SIM_OK) {
            fz_conf_checks(&c);
        } else if (why[0] == '\0') {
            abort();
        }
        break;
    case 2: {
        /* arguments: NUL-separated words (a copy: argv strings end in NUL) */
        char *buf = malloc(len + 1);
        memcpy(buf, text, len);
        buf[len] = '\0';
        char *argv[130];
        int argc = 0;
        argv[argc++] = (char *)"tern-sim";
        for (size_t i = 0; i <= len && argc < 129;) {
            argv[argc++] = buf + i;
            i += strlen(buf + i) + 1;
        }
        argv[argc] = NULL;
        const char *out = NULL;
        tn_sim_conf_defaults(&c);
        why[0] = '\0';
        if (tn_sim_conf_args(&c, argc, argv, fz_loader, &out, why, sizeof(why)) == TN_SIM_OK) {
            fz_conf_checks(&c);
        } else if (why[0] == '\0') {
            abort();
        }
        free(buf);
        break;
    }
    default:
        break;
    }
    return 0;
}

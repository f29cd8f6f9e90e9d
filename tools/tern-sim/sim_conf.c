/* tern-sim's configuration table, its decoder and its writer
 * (sim_conf.h). */
#include "sim_conf.h"

#include "sim_coll_job.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    CT_I32,   /* int32_t */
    CT_U64,   /* uint64_t */
    CT_DBL,   /* double */
    CT_ENUM,  /* int, index into choices */
    CT_STR,   /* char[TN_SIM_PATH_MAX] */
    CT_DIMS,  /* nd + dims: "8x8x8" */
    CT_LIST,  /* nsweep + sweep: "0.1,0.5,0.9" */
    CT_GRID,  /* a job's grid_nd + grid: "2d", "3d", "16x8" */
} conf_type_t;

typedef struct {
    const char *name;
    int job;                /* 1: a job's key (tn_sim_job_conf_t), 0: the run's */
    size_t off;
    conf_type_t type;
    const char *def;
    double lo, hi;          /* numbers: range; lists: each element's */
    const char *choices;    /* enums: "a|b|c" */
    const char *help;
} conf_key_t;

#define G(f) 0, offsetof(tn_sim_conf_t, f)
#define J(f) 1, offsetof(tn_sim_job_conf_t, f)

static const conf_key_t conf_keys[] = {
    {"topo", G(topo), CT_ENUM, "fattree", 0, 0, "fattree|dragonfly|megafly|torus|mesh|graph", "fabric"},
    {"k", G(k), CT_I32, "4", 1, 4096, NULL, "fat-tree: down (and up) ports per switch"},
    {"n", G(n), CT_I32, "2", 1, TN_SIM_FT_LEVELS, NULL, "fat-tree: levels"},
    {"down", G(down), CT_I32, "0", 0, 4096, NULL, "fat-tree: endpoints per leaf switch (0: k)"},
    {"up", G(up), CT_I32, "0", 0, 4096, NULL,
     "fat-tree: up-links per leaf switch (0: k; < down: oversubscribed)"},
    {"a", G(a), CT_I32, "4", 1, 4096, NULL, "dragonfly: routers per group; megafly: leaves per group"},
    {"p", G(p), CT_I32, "2", 1, 4096, NULL, "dragonfly / megafly: endpoints per router / leaf"},
    {"h", G(h), CT_I32, "2", 0, 4096, NULL, "dragonfly / megafly: global links per router / spine"},
    {"g", G(g), CT_I32, "0", 0, TN_SIM_MAX_EP, NULL, "dragonfly / megafly: groups (0: a*h+1 / s*h+1)"},
    {"s", G(s), CT_I32, "0", 0, 4096, NULL, "megafly: spines per group (0: a)"},
    {"arrange", G(arrange), CT_ENUM, "absolute", 0, 0, "absolute|relative",
     "dragonfly / megafly: global links"},
    {"dims", G(nd), CT_DIMS, "8x8", 2, 65536, NULL, "torus / mesh: sizes, e.g. 8x8 or 16x16x16"},
    {"c", G(c), CT_I32, "1", 1, 4096, NULL, "torus / mesh: endpoints per router"},
    {"graph", G(graph), CT_STR, "", 0, 0, NULL, "graph file (docs/sim.md, \"Graph files\")"},
    {"bw", G(bw), CT_DBL, "100", 1e-6, 1e7, NULL, "switch-to-switch links, Gbit/s"},
    {"lat", G(lat), CT_DBL, "100", 0, 1e9, NULL, "switch-to-switch links, ns"},
    {"host_bw", G(host_bw), CT_DBL, "0", 0, 1e7, NULL, "endpoint links, Gbit/s (0: bw)"},
    {"host_lat", G(host_lat), CT_DBL, "-1", -1, 1e9, NULL, "endpoint links, ns (-1: lat)"},
    {"global_bw", G(global_bw), CT_DBL, "0", 0, 1e7, NULL, "dragonfly global links, Gbit/s (0: bw)"},
    {"global_lat", G(global_lat), CT_DBL, "-1", -1, 1e9, NULL, "dragonfly global links, ns (-1: lat)"},
    {"route", G(route), CT_ENUM, "auto", 0, 0,
     "auto|dmodk|ecmp|adaptive|minimal|valiant|ugal|ugal-g|dor|shortest",
     "routing (auto: the fabric's default)"},
    {"seed", G(seed), CT_U64, "1", 0, 0, NULL, "seed of every random choice"},
    {"mode", G(mode), CT_ENUM, "batch", 0, 0, "batch|open", "batch: fixed messages; open: offered load"},
    {"time", G(time), CT_DBL, "1000000", 1, 1e15, NULL, "open: simulated time, ns"},
    {"warmup", G(warmup), CT_DBL, "100000", 0, 1e15, NULL, "open: ns before the measurement window"},
    {"arrival", G(arrival), CT_ENUM, "poisson", 0, 0, "poisson|fixed", "open: arrivals"},
    {"sweep", G(nsweep), CT_LIST, "", 1e-6, 100, NULL, "open: offered loads to sweep, e.g. 0.1,0.5,0.9"},
    {"bins", G(bins), CT_I32, "100", 2, 100000, NULL, "throughput-over-time bins"},
    {"maxmin", G(maxmin), CT_ENUM, "incr", 0, 0, "incr|full", "rate updates: incremental or from scratch"},
    {"heatmap", G(heatmap), CT_ENUM, "off", 0, 0, "off|on",
     "link_util and queue heatmaps over time (not with sweep; queues: packet only)"},
    {"replay", G(replay), CT_STR, "", 0, 0, NULL,
     "batch: replay a Tern trace directory or a .vef file (docs/sim.md, \"Trace replay\")"},
    {"replay_slots", G(replay_slots), CT_ENUM, "trace", 0, 0, "trace|rank",
     "replay: trace: ranks of one traced node share an endpoint; rank: an endpoint each (map)"},
    {"eager", G(eager), CT_U64, "65536", 0, 1099511627776.0, NULL,
     "replay: sends above this many bytes wait for their receive (rendezvous)"},
    {"shm_lat", G(shm_lat), CT_DBL, "500", 0, 1e9, NULL, "replay: intra-node message latency, ns"},
    {"shm_bw", G(shm_bw), CT_DBL, "80", 1e-6, 1e7, NULL, "replay: intra-node bandwidth, Gbit/s"},
    {"coll_plan", G(coll_plan), CT_STR, "auto", 0, 0, NULL,
     "replay: tern-coll-plan expands collectives with Tern's own code (auto: the one beside "
     "tern-sim; off: the models)"},
    {"coll_plan_max", G(coll_plan_max), CT_I32, "4096", 0, 1 << 24, NULL,
     "replay: communicators above this many ranks use the models"},
    {"coll_plan_ops", G(coll_plan_ops), CT_U64, "20000000", 1, 1e12, NULL,
     "replay: a plan of more operations than this (all ranks) gives way to the models"},
    {"coll_op_bw", G(coll_op_bw), CT_DBL, "0", 0, 1e7, NULL,
     "replay: reduction speed in planned collectives, Gbit/s (0: free)"},
    {"coll_copy_bw", G(coll_copy_bw), CT_DBL, "0", 0, 1e7, NULL,
     "replay: local copy speed in planned collectives, Gbit/s (0: free)"},
    {"cpu_o", G(cpu_o), CT_DBL, "0", 0, 1e9, NULL,
     "replay: core time of each message at its sender and at its receiver, ns (0: no host model)"},
    {"cpu_cores", G(cpu_cores), CT_I32, "1", 1, 1 << 20, NULL,
     "replay: cores each host has for that work"},
    {"cpu_share", G(cpu_share), CT_ENUM, "node", 0, 0, "node|all",
     "replay: a host is a traced node, or all ranks share one (namespaces on one machine)"},
    {"cpu_charge", G(cpu_charge), CT_ENUM, "time", 0, 0, "time|wait",
     "replay: time: a message waits for its ends' work; wait: only for a free core (the fabric's "
     "latency holds the work, as a calibrated ping-pong's does)"},
    {"cpu_fwd", G(cpu_fwd), CT_DBL, "0", 0, 1e9, NULL,
     "replay: core time per frame for each switch-to-switch link a message crosses, ns, at its "
     "receiver (switches or link emulators that run on the hosts' cores; 0: none)"},
    {"cpu_frame", G(cpu_frame), CT_DBL, "1472", 1, 1e9, NULL,
     "replay: a message's bytes per frame for cpu_fwd (1472: UDP over a 1500-byte MTU)"},
    {"bcast_mcast", G(bcast_mcast), CT_ENUM, "off", 0, 0, "off|on",
     "replay: each broadcast one hardware multicast from its root to its communicator"},
    {"fidelity", G(fidelity), CT_ENUM, "flow", 0, 0, "flow|packet",
     "engine: max-min flows or MTU packets (docs/sim.md)"},
    {"store_forward", G(store_fwd), CT_DBL, "0", 0, 1e9, NULL,
     "flow: bytes a switch stores before forwarding (a frame; 0: cut-through): each link of a "
     "route but its slowest adds min(bytes, this) / its bandwidth to the message's latency"},
    {"share", G(share), CT_ENUM, "maxmin", 0, 0, "maxmin|fifo",
     "flow: how links share their bandwidth: max-min fair, or first come first served (a flow gets "
     "what the flows that started before it left; small fabrics)"},
    {"mtu", G(mtu), CT_I32, "4096", 64, 1 << 20, NULL, "packet: payload bytes per packet"},
    {"hdr", G(hdr), CT_I32, "64", 0, 4096, NULL, "packet: header bytes per packet"},
    {"buf", G(buf), CT_I32, "65536", 64, 1 << 30, NULL,
     "packet: input buffer bytes per port and VC (>= mtu + hdr)"},
    {"cc", G(cc), CT_ENUM, "none", 0, 0, "none|dcqcn|acc", "packet: congestion control"},
    {"ecn_kmin", G(ecn_kmin), CT_DBL, "5000", 0, 1e12, NULL,
     "packet, dcqcn: bytes queued for an output below which nothing is marked"},
    {"ecn_kmax", G(ecn_kmax), CT_DBL, "200000", 1, 1e12, NULL,
     "packet, dcqcn: bytes queued above which every packet is marked"},
    {"ecn_pmax", G(ecn_pmax), CT_DBL, "0.01", 0, 1, NULL, "packet, dcqcn: marking probability at ecn_kmax"},
    {"pfc", G(pfc), CT_ENUM, "off", 0, 0, "off|on",
     "packet: on: PFC pause / resume per ingress queue and VC instead of credits"},
    {"pfc_xoff", G(pfc_xoff), CT_DBL, "32768", 1, 1e12, NULL, "packet, pfc: pause at this many bytes queued"},
    {"pfc_xon", G(pfc_xon), CT_DBL, "16384", 0, 1e12, NULL, "packet, pfc: resume at this many bytes"},
    {"pattern", J(pattern), CT_ENUM, "uniform", 0, 0, "uniform|perm|tornado|incast|alltoall|halo|coll",
     "job: traffic"},
    {"ranks", J(ranks), CT_I32, "0", 0, TN_SIM_MAX_EP, NULL, "job: ranks (0: every free endpoint)"},
    {"map", J(map), CT_ENUM, "linear", 0, 0, "linear|alt-switch|alt-node|random", "job: rank placement"},
    {"size", J(size), CT_U64, "65536", 1, 1099511627776.0, NULL, "job: bytes per message"},
    {"load", J(load), CT_DBL, "0.5", 0, 100, NULL, "job, open: offered load (fraction of the endpoint link)"},
    {"count", J(count), CT_I32, "1", 1, 1 << 30, NULL, "job, batch: messages per sending rank"},
    {"window", J(window), CT_I32, "1", 1, 1 << 30, NULL, "job, batch: of those, in flight at once"},
    {"phases", J(phases), CT_I32, "0", 0, TN_SIM_MAX_EP, NULL, "job, batch all-to-all: phases (0: ranks-1)"},
    {"iters", J(iters), CT_I32, "1", 1, 1 << 20, NULL, "job, batch halo and coll: iterations"},
    {"grid", J(grid_nd), CT_GRID, "2d", 1, TN_SIM_MAX_EP, NULL, "job, halo: 2d, 3d (from ranks) or AxB[xC]"},
    {"incast", J(incast), CT_I32, "0", 0, TN_SIM_MAX_EP, NULL,
     "job, incast: senders per receiver (0: ranks-1)"},
    {"coll", J(coll), CT_ENUM, "allreduce", 0, 0,
     "barrier|bcast|reduce|allreduce|allgather|alltoall|gather|scatter|reduce_scatter|scan|exscan",
     "job, coll: the collective (size: its vector, or one block per rank)"},
    {"coll_algo", J(coll_algo), CT_ENUM, "auto", 0, 0, TN_SIM_COLL_ALGO_CHOICES,
     "job, coll: Tern's algorithm (auto: Tern's choice; nbc: the nonblocking schedule) or mcast "
     "(bcast: hardware multicast), llf, glf"},
    {"root", J(root), CT_I32, "0", 0, TN_SIM_MAX_EP, NULL, "job, coll: the root"},
    {"delay", J(delay), CT_DBL, "0", 0, 1e12, NULL, "job, batch: compute ns before each dependent step"},
    {"start", J(start), CT_DBL, "0", 0, 1e15, NULL, "job: start time, ns"},
};

#define NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

/* Strict decimal: [-]digits[.digits][(e|E)[+-]digits], as %.17g writes. */
static int conf_double(const char *s, double *v_p)
{
    const char *p = s;
    int digits = 0;
    if (*p == '-') {
        p++;
    }
    while (*p >= '0' && *p <= '9') {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            p++;
            digits++;
        }
    }
    if (digits == 0 || digits > 40) {
        return -1;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') {
            p++;
        }
        int ed = 0;
        while (*p >= '0' && *p <= '9') {
            p++;
            ed++;
        }
        if (ed == 0 || ed > 3) {
            return -1;
        }
    }
    if (*p != '\0') {
        return -1;
    }
    errno = 0;
    double v = strtod(s, NULL);
    if (errno != 0 || !isfinite(v)) {
        return -1;
    }
    *v_p = v;
    return 0;
}

/* Plain unsigned decimal, at most 20 digits, no overflow. */
static int conf_u64(const char *s, uint64_t *v_p)
{
    uint64_t v = 0;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++, n++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    if (*s != '\0' || n == 0) {
        return -1;
    }
    *v_p = v;
    return 0;
}

/* "AxBxC": 1..max numbers in [lo, hi]; returns how many, -1 if bad. */
static int conf_dims(const char *s, int32_t *out, int max, double lo, double hi)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        char buf[24];
        size_t len = strcspn(p, "x");
        if (len == 0 || len >= sizeof(buf) || n == max) {
            return -1;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        uint64_t v;
        if (conf_u64(buf, &v) != 0 || (double)v < lo || (double)v > hi) {
            return -1;
        }
        out[n++] = (int32_t)v;
        p += len;
        if (*p == '\0') {
            return n;
        }
        p++;  /* the 'x' */
    }
}

static int conf_enum(const char *choices, const char *v)
{
    size_t vl = strlen(v);
    int i = 0;
    for (const char *p = choices;; i++) {
        size_t len = strcspn(p, "|");
        if (len == vl && memcmp(p, v, len) == 0) {
            return i;
        }
        if (p[len] == '\0') {
            return -1;
        }
        p += len + 1;
    }
}

static void conf_enum_name(const char *choices, int idx, char *out, size_t outlen)
{
    const char *p = choices;
    for (int i = 0; i < idx && strchr(p, '|') != NULL; i++) {
        p = strchr(p, '|') + 1;
    }
    size_t len = strcspn(p, "|");
    snprintf(out, outlen, "%.*s", (int)len, p);
}

static const conf_key_t *conf_find(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(conf_keys[i].name, name) == 0) {
            return &conf_keys[i];
        }
    }
    return NULL;
}

static int conf_value_ok(const char *v)
{
    size_t n = strlen(v);
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e) {
            return 0;
        }
    }
    return n < TN_SIM_PATH_MAX;
}

/* Decodes v for key k into base (the run's or a job's struct). */
static tn_sim_status_t conf_apply(const conf_key_t *k, char *base, const char *v, char *why,
                                  size_t whylen)
{
    char *field = base + k->off;
    switch (k->type) {
    case CT_I32:
    case CT_U64: {
        uint64_t x;
        if (conf_u64(v, &x) != 0 || (k->type == CT_I32 && ((double)x < k->lo || (double)x > k->hi)) ||
            (k->type == CT_U64 && k->hi > 0 && ((double)x < k->lo || (double)x > k->hi))) {
            if (k->type == CT_U64 && k->hi == 0) {
                snprintf(why, whylen, "%s: \"%.40s\" is not an unsigned integer", k->name, v);
            } else {
                snprintf(why, whylen, "%s: \"%.40s\" is not an integer in %.0f..%.0f", k->name, v,
                         k->lo, k->hi);
            }
            return TN_SIM_ERR_PARSE;
        }
        if (k->type == CT_I32) {
            *(int32_t *)(void *)field = (int32_t)x;
        } else {
            *(uint64_t *)(void *)field = x;
        }
        return TN_SIM_OK;
    }
    case CT_DBL: {
        double x;
        if (conf_double(v, &x) != 0 || x < k->lo || x > k->hi) {
            snprintf(why, whylen, "%s: \"%.40s\" is not a number in %g..%g", k->name, v, k->lo, k->hi);
            return TN_SIM_ERR_PARSE;
        }
        *(double *)(void *)field = x;
        return TN_SIM_OK;
    }
    case CT_ENUM: {
        int x = conf_enum(k->choices, v);
        if (x < 0) {
            snprintf(why, whylen, "%s: \"%.40s\" is not one of %s", k->name, v, k->choices);
            return TN_SIM_ERR_PARSE;
        }
        *(int *)(void *)field = x;
        return TN_SIM_OK;
    }
    case CT_STR: {
        /* written back as "key = value": no '#', no blank at either end */
        size_t n = strlen(v);
        if (strchr(v, '#') != NULL || (n > 0 && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' ||
                                                  v[n - 1] == '\t'))) {
            snprintf(why, whylen, "%s: no '#' and no blank at either end, please", k->name);
            return TN_SIM_ERR_PARSE;
        }
        snprintf(field, TN_SIM_PATH_MAX, "%s", v);
        return TN_SIM_OK;
    }
    case CT_DIMS: {
        tn_sim_conf_t *c = (tn_sim_conf_t *)(void *)base;
        int32_t d[TN_SIM_MAX_DIMS];
        int n = conf_dims(v, d, TN_SIM_MAX_DIMS, k->lo, k->hi);
        if (n < 1) {
            snprintf(why, whylen, "%s: \"%.40s\" is not 1 to %d sizes in %.0f..%.0f joined by x", k->name,
                     v, TN_SIM_MAX_DIMS, k->lo, k->hi);
            return TN_SIM_ERR_PARSE;
        }
        c->nd = n;
        memcpy(c->dims, d, sizeof(int32_t) * (size_t)n);
        return TN_SIM_OK;
    }
    case CT_LIST: {
        tn_sim_conf_t *c = (tn_sim_conf_t *)(void *)base;
        double vals[TN_SIM_MAX_SWEEP];
        int n = 0;
        for (const char *p = v; *p != '\0';) {
            char buf[48];
            size_t len = strcspn(p, ",");
            double x;
            if (len == 0 || len >= sizeof(buf) || n == TN_SIM_MAX_SWEEP) {
                n = -1;
                break;
            }
            memcpy(buf, p, len);
            buf[len] = '\0';
            if (conf_double(buf, &x) != 0 || x < k->lo || x > k->hi) {
                n = -1;
                break;
            }
            vals[n++] = x;
            p += len;
            if (*p == ',' && *++p == '\0') {
                n = -1;  /* a trailing comma */
                break;
            }
        }
        if (n < 0) {
            snprintf(why, whylen, "%s: \"%.40s\" is not up to %d loads in %g..%g joined by commas", k->name,
                     v, TN_SIM_MAX_SWEEP, k->lo, k->hi);
            return TN_SIM_ERR_PARSE;
        }
        c->nsweep = n;
        memcpy(c->sweep, vals, sizeof(double) * (size_t)n);
        return TN_SIM_OK;
    }
    case CT_GRID: {
        tn_sim_job_conf_t *j = (tn_sim_job_conf_t *)(void *)base;
        if (strcmp(v, "2d") == 0 || strcmp(v, "3d") == 0) {
            j->grid_nd = v[0] - '0';
            memset(j->grid, 0, sizeof(j->grid));
            return TN_SIM_OK;
        }
        int32_t d[3];
        int n = conf_dims(v, d, 3, k->lo, k->hi);
        if (n < 2) {
            snprintf(why, whylen, "%s: \"%.40s\" is not 2d, 3d or 2-3 sizes joined by x", k->name, v);
            return TN_SIM_ERR_PARSE;
        }
        j->grid_nd = n;
        memset(j->grid, 0, sizeof(j->grid));
        memcpy(j->grid, d, sizeof(int32_t) * (size_t)n);
        return TN_SIM_OK;
    }
    }
    return TN_SIM_ERR_INTERNAL;
}

static void conf_job_defaults(tn_sim_job_conf_t *j)
{
    char why[128];
    memset(j, 0, sizeof(*j));
    for (size_t i = 0; i < NKEYS; i++) {
        if (conf_keys[i].job) {
            (void)conf_apply(&conf_keys[i], (char *)j, conf_keys[i].def, why, sizeof(why));
        }
    }
}

void tn_sim_conf_defaults(tn_sim_conf_t *c)
{
    char why[128];
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < NKEYS; i++) {
        if (!conf_keys[i].job) {
            (void)conf_apply(&conf_keys[i], (char *)c, conf_keys[i].def, why, sizeof(why));
        }
    }
    c->njobs = 1;
    conf_job_defaults(&c->job[0]);
}

tn_sim_status_t tn_sim_conf_job(tn_sim_conf_t *c, char *why, size_t whylen)
{
    if (!c->job_open) {
        c->job_open = 1;
        return TN_SIM_OK;
    }
    if (c->njobs == TN_SIM_MAX_JOBS) {
        snprintf(why, whylen, "more than %d jobs", TN_SIM_MAX_JOBS);
        return TN_SIM_ERR_LIMIT;
    }
    conf_job_defaults(&c->job[c->njobs++]);
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_conf_set(tn_sim_conf_t *c, const char *key, const char *value, char *why,
                                size_t whylen)
{
    const conf_key_t *k = conf_find(key);
    if (k == NULL) {
        snprintf(why, whylen, "unknown key \"%.40s\" (tern-sim --keys lists them)", key);
        return TN_SIM_ERR_PARSE;
    }
    if (!conf_value_ok(value)) {
        snprintf(why, whylen, "%s: the value is too long or not printable", k->name);
        return TN_SIM_ERR_PARSE;
    }
    if (k->job) {
        c->job_open = 1;
        return conf_apply(k, (char *)&c->job[c->njobs - 1], value, why, whylen);
    }
    return conf_apply(k, (char *)c, value, why, whylen);
}

tn_sim_status_t tn_sim_conf_parse(tn_sim_conf_t *c, const char *text, size_t len, const char *origin,
                                  char *why, size_t whylen)
{
    char line[TN_SIM_PATH_MAX + 64], sub[200];
    int lineno = 0, in_job = 0;
    if (len > (1 << 20)) {
        snprintf(why, whylen, "%s: larger than 1 MiB", origin);
        return TN_SIM_ERR_LIMIT;
    }
    for (size_t pos = 0; pos < len;) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - s) : len - pos;
        pos += n + 1;
        lineno++;
        if (n >= sizeof(line) || memchr(s, '\0', n) != NULL) {
            snprintf(why, whylen, "%s:%d: line too long or with a NUL byte", origin, lineno);
            return TN_SIM_ERR_PARSE;
        }
        memcpy(line, s, n);
        line[n] = '\0';
        char *hash = strchr(line, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        /* trim */
        char *b = line, *e = line + strlen(line);
        while (*b == ' ' || *b == '\t') {
            b++;
        }
        while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) {
            *--e = '\0';
        }
        if (*b == '\0') {
            continue;
        }
        tn_sim_status_t st;
        if (strcmp(b, "[job]") == 0) {
            in_job = 1;
            st = tn_sim_conf_job(c, sub, sizeof(sub));
        } else {
            char *eq = strchr(b, '=');
            if (eq == NULL) {
                snprintf(why, whylen, "%s:%d: want \"key = value\" or \"[job]\"", origin, lineno);
                return TN_SIM_ERR_PARSE;
            }
            char *ke = eq, *v = eq + 1;
            while (ke > b && (ke[-1] == ' ' || ke[-1] == '\t')) {
                ke--;
            }
            *ke = '\0';
            while (*v == ' ' || *v == '\t') {
                v++;
            }
            const conf_key_t *k = conf_find(b);
            if (k != NULL && !k->job && in_job) {
                snprintf(why, whylen, "%s:%d: %s belongs before the [job] sections", origin, lineno, k->name);
                return TN_SIM_ERR_PARSE;
            }
            st = tn_sim_conf_set(c, b, v, sub, sizeof(sub));
        }
        if (st != TN_SIM_OK) {
            snprintf(why, whylen, "%s:%d: %s", origin, lineno, sub);
            return st;
        }
    }
    return TN_SIM_OK;
}

tn_sim_status_t tn_sim_conf_args(tn_sim_conf_t *c, int argc, char **argv, tn_sim_read_fn_t load,
                                 const char **out_p, char *why, size_t whylen)
{
    char sub[300], key[40];
    *out_p = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        tn_sim_status_t st = TN_SIM_OK;
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            snprintf(why, whylen, "argument %d \"%.40s\": want --key=value, --key value or --job", i, a);
            return TN_SIM_ERR_PARSE;
        }
        a += 2;
        if (strcmp(a, "job") == 0) {
            st = tn_sim_conf_job(c, sub, sizeof(sub));
        } else {
            const char *eq = strchr(a, '='), *v;
            size_t kl = eq != NULL ? (size_t)(eq - a) : strlen(a);
            if (kl >= sizeof(key)) {
                snprintf(why, whylen, "argument %d: unknown key", i);
                return TN_SIM_ERR_PARSE;
            }
            memcpy(key, a, kl);
            key[kl] = '\0';
            if (eq != NULL) {
                v = eq + 1;
            } else if (i + 1 < argc) {
                v = argv[++i];
            } else {
                snprintf(why, whylen, "argument %d (--%s): a value is missing", i, key);
                return TN_SIM_ERR_PARSE;
            }
            if (strcmp(key, "out") == 0) {
                *out_p = v;
            } else if (strcmp(key, "config") == 0) {
                char *text = NULL;
                size_t len = 0;
                if (load == NULL || load(v, &text, &len, sub, sizeof(sub)) != 0) {
                    snprintf(why, whylen, "--config %.200s: %s", v, load == NULL ? "no loader" : sub);
                    return TN_SIM_ERR_IO;
                }
                st = tn_sim_conf_parse(c, text, len, v, why, whylen);
                free(text);
                if (st != TN_SIM_OK) {
                    return st;
                }
                continue;
            } else {
                st = tn_sim_conf_set(c, key, v, sub, sizeof(sub));
            }
        }
        if (st != TN_SIM_OK) {
            snprintf(why, whylen, "argument %d: %s", i, sub);
            return st;
        }
    }
    return TN_SIM_OK;
}

void tn_sim_conf_topo_params(const tn_sim_conf_t *c, tn_sim_topo_params_t *p)
{
    memset(p, 0, sizeof(*p));
    p->kind = (tn_sim_topo_kind_t)c->topo;
    double bw = c->bw / 8;
    p->link.bw = bw;
    p->link.lat = c->lat;
    p->link.bw_host = c->host_bw > 0 ? c->host_bw / 8 : bw;
    p->link.lat_host = c->host_lat >= 0 ? c->host_lat : c->lat;
    p->link.bw_global = c->global_bw > 0 ? c->global_bw / 8 : bw;
    p->link.lat_global = c->global_lat >= 0 ? c->global_lat : c->lat;
    p->ft_k = c->k;
    p->ft_n = c->n;
    p->ft_down = c->down;
    p->ft_up = c->up;
    p->df_a = c->a;
    p->df_p = c->p;
    p->df_h = c->h;
    p->df_g = c->g;
    p->df_s = c->s;
    p->df_arrange = (tn_sim_df_arrange_t)c->arrange;
    p->nd = c->nd;
    memcpy(p->dims, c->dims, sizeof(p->dims));
    p->tor_c = c->c;
}

void tn_sim_conf_resolve(tn_sim_conf_t *c, const tn_sim_topo_t *t, const tn_sim_router_t *rt,
                         const tn_sim_job_t *jobs)
{
    tn_sim_topo_params_t p;
    tn_sim_conf_topo_params(c, &p);
    c->host_bw = p.link.bw_host * 8;
    c->host_lat = p.link.lat_host;
    c->global_bw = p.link.bw_global * 8;
    c->global_lat = p.link.lat_global;
    if (t->kind == TN_SIM_TOPO_FATTREE) {
        c->down = t->ft.m[0];
        c->up = t->ft.n > 1 ? t->ft.w[1] : (c->up > 0 ? c->up : c->k);
    }
    if (t->kind == TN_SIM_TOPO_DRAGONFLY || t->kind == TN_SIM_TOPO_MEGAFLY) {
        c->g = t->df.g;
        if (t->kind == TN_SIM_TOPO_MEGAFLY) {
            c->s = t->df.s;
        }
    }
    c->route = rt->alg;
    for (int i = 0; i < c->njobs; i++) {
        tn_sim_job_conf_t *jc = &c->job[i];
        *jc = jobs[i].c;
        if (jc->pattern == TN_SIM_PAT_HALO) {
            memcpy(jc->grid, jobs[i].grid, sizeof(jc->grid));
        }
    }
}

/* One key's value in the file format. */
static void conf_format(const conf_key_t *k, const char *base, char *out, size_t outlen)
{
    const char *field = base + k->off;
    switch (k->type) {
    case CT_I32:
        snprintf(out, outlen, "%d", *(const int32_t *)(const void *)field);
        break;
    case CT_U64:
        snprintf(out, outlen, "%llu", (unsigned long long)*(const uint64_t *)(const void *)field);
        break;
    case CT_DBL:
        snprintf(out, outlen, "%.17g", *(const double *)(const void *)field);
        break;
    case CT_ENUM:
        conf_enum_name(k->choices, *(const int *)(const void *)field, out, outlen);
        break;
    case CT_STR:
        snprintf(out, outlen, "%s", field);
        break;
    case CT_DIMS: {
        const tn_sim_conf_t *c = (const tn_sim_conf_t *)(const void *)base;
        size_t n = 0;
        out[0] = '\0';
        for (int d = 0; d < c->nd && n < outlen; d++) {
            n += (size_t)snprintf(out + n, outlen - n, d ? "x%d" : "%d", c->dims[d]);
        }
        break;
    }
    case CT_LIST: {
        const tn_sim_conf_t *c = (const tn_sim_conf_t *)(const void *)base;
        size_t n = 0;
        out[0] = '\0';
        for (int i = 0; i < c->nsweep && n < outlen; i++) {
            n += (size_t)snprintf(out + n, outlen - n, i ? ",%.17g" : "%.17g", c->sweep[i]);
        }
        break;
    }
    case CT_GRID: {
        const tn_sim_job_conf_t *j = (const tn_sim_job_conf_t *)(const void *)base;
        if (j->grid[0] == 0) {
            snprintf(out, outlen, "%dd", j->grid_nd);
        } else if (j->grid_nd == 2) {
            snprintf(out, outlen, "%dx%d", j->grid[0], j->grid[1]);
        } else {
            snprintf(out, outlen, "%dx%dx%d", j->grid[0], j->grid[1], j->grid[2]);
        }
        break;
    }
    }
}

int tn_sim_conf_write(const tn_sim_conf_t *c, FILE *f)
{
    char v[TN_SIM_PATH_MAX + 64];
    fprintf(f, "# tern-sim configuration, every value as the run used it:\n"
               "# tern-sim --config THIS_FILE --out DIR repeats the run exactly\n");
    for (size_t i = 0; i < NKEYS; i++) {
        if (!conf_keys[i].job) {
            conf_format(&conf_keys[i], (const char *)c, v, sizeof(v));
            fprintf(f, "%s = %s\n", conf_keys[i].name, v);
        }
    }
    for (int j = 0; j < c->njobs; j++) {
        fprintf(f, "[job]\n");
        for (size_t i = 0; i < NKEYS; i++) {
            if (conf_keys[i].job) {
                conf_format(&conf_keys[i], (const char *)&c->job[j], v, sizeof(v));
                fprintf(f, "%s = %s\n", conf_keys[i].name, v);
            }
        }
    }
    return ferror(f) ? -1 : 0;
}

void tn_sim_conf_help(FILE *f)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const conf_key_t *k = &conf_keys[i];
        fprintf(f, "  --%-11s %-10s %s%s%s\n", k->name, k->def[0] ? k->def : "\"\"", k->help,
                k->choices ? ": " : "", k->choices ? k->choices : "");
    }
}

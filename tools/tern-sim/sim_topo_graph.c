/* Graph files: a fabric written by hand or by another tool.  The text is
 * hostile input: it is decoded whole and checked (syntax, names, numbers,
 * counts, every endpoint on exactly one link to a switch, one connected
 * fabric) before the fabric is built, and any fault is refused with its
 * line number.  Format (docs/sim.md, "Graph files"):
 *
 *     graph 1                      first line that is not blank or comment
 *     switch NAME
 *     endpoint NAME
 *     link NAME NAME GBITS NS      both names declared above; a cable of
 *                                  GBITS Gbit/s and NS ns each way
 *
 * '#' starts a comment; names are 1-63 of [A-Za-z0-9_.:/-]; numbers are
 * plain decimals (digits, at most one '.'). */
#include "sim_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GR_MAX_LINE   1024
#define GR_MAX_NODES  (1 << 20)
#define GR_MAX_LINKS  (1 << 23)
#define GR_MAX_TOK    8

typedef struct {
    const char *tok[GR_MAX_TOK];
    size_t len[GR_MAX_TOK];
    int n;
} gr_line_t;

typedef struct {
    int32_t n_node, n_ep, n_sw, n_link;
    char *names;           /* declared order */
    int32_t *name_off;     /* [n_node], declared order */
    uint8_t *is_ep;        /* [n_node], declared order */
    uint32_t *hash;        /* open addressing: declared index + 1, 0 empty */
    uint32_t hmask;
    int32_t *la, *lb;      /* [n_link], declared indices */
    double *lbw, *llat;
} gr_t;

/* Splits one line into tokens (comment cut); -1 when it has too many. */
static int gr_split(const char *s, size_t n, gr_line_t *l)
{
    l->n = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) {
            i++;
        }
        if (i == n || s[i] == '#') {
            break;
        }
        size_t j = i;
        while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '#') {
            j++;
        }
        if (l->n == GR_MAX_TOK) {
            return -1;
        }
        l->tok[l->n] = s + i;
        l->len[l->n++] = j - i;
        i = j;
    }
    return 0;
}

static int gr_is(const gr_line_t *l, int i, const char *word)
{
    return l->len[i] == strlen(word) && memcmp(l->tok[i], word, l->len[i]) == 0;
}

static int gr_name_ok(const char *s, size_t n)
{
    if (n < 1 || n > 63) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '/' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

/* A plain decimal in [lo, hi]; -1 otherwise. */
static int gr_number(const char *s, size_t n, double lo, double hi, double *v_p)
{
    if (n < 1 || n > 24) {
        return -1;
    }
    double v = 0, scale = 0;
    int digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && scale == 0) {
            scale = 1;
        } else if (s[i] >= '0' && s[i] <= '9') {
            if (scale != 0) {
                scale /= 10;
                v += (s[i] - '0') * scale;
            } else {
                v = v * 10 + (s[i] - '0');
            }
            digits++;
        } else {
            return -1;
        }
    }
    if (digits == 0 || !(v >= lo && v <= hi)) {
        return -1;
    }
    *v_p = v;
    return 0;
}

static uint32_t gr_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;  /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    }
    return h;
}

/* Declared index of a name, or -1. */
static int32_t gr_find(const gr_t *g, const char *s, size_t n)
{
    for (uint32_t i = gr_hash(s, n) & g->hmask;; i = (i + 1) & g->hmask) {
        uint32_t v = g->hash[i];
        if (v == 0) {
            return -1;
        }
        const char *nm = g->names + g->name_off[v - 1];
        if (strlen(nm) == n && memcmp(nm, s, n) == 0) {
            return (int32_t)v - 1;
        }
    }
}

static void gr_free(gr_t *g)
{
    free(g->names);
    free(g->name_off);
    free(g->is_ep);
    free(g->hash);
    free(g->la);
    free(g->lb);
    free(g->lbw);
    free(g->llat);
}

/* Pass over the lines: pass 0 checks the syntax and counts, pass 1 (the
 * arrays sized by pass 0) resolves names and records.  Returns 0 or -1
 * with why set. */
static int gr_pass(gr_t *g, const char *text, size_t len, int pass, size_t *name_bytes_p, char *why,
                   size_t whylen)
{
    int lineno = 0, seen_header = 0;
    size_t name_bytes = 0;
    int32_t nodes = 0, links = 0, eps = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
        const char *s = text + pos;
        pos += n + 1;
        lineno++;
        if (n > GR_MAX_LINE) {
            snprintf(why, whylen, "line %d: longer than %d bytes", lineno, GR_MAX_LINE);
            return -1;
        }
        if (memchr(s, '\0', n) != NULL) {
            snprintf(why, whylen, "line %d: NUL byte", lineno);
            return -1;
        }
        gr_line_t l;
        if (gr_split(s, n, &l) != 0) {
            snprintf(why, whylen, "line %d: too many fields", lineno);
            return -1;
        }
        if (l.n == 0) {
            continue;
        }
        if (!seen_header) {
            if (l.n != 2 || !gr_is(&l, 0, "graph") || !gr_is(&l, 1, "1")) {
                snprintf(why, whylen, "line %d: want \"graph 1\" first", lineno);
                return -1;
            }
            seen_header = 1;
            continue;
        }
        if (gr_is(&l, 0, "switch") || gr_is(&l, 0, "endpoint")) {
            if (l.n != 2 || !gr_name_ok(l.tok[1], l.len[1])) {
                snprintf(why, whylen, "line %d: want \"%.*s NAME\" (1-63 of A-Za-z0-9_.:/-)",
                         lineno, (int)l.len[0], l.tok[0]);
                return -1;
            }
            if (nodes == GR_MAX_NODES) {
                snprintf(why, whylen, "line %d: more than %d nodes", lineno, GR_MAX_NODES);
                return -1;
            }
            if (pass == 1) {
                if (gr_find(g, l.tok[1], l.len[1]) >= 0) {
                    snprintf(why, whylen, "line %d: %.*s declared twice", lineno, (int)l.len[1],
                             l.tok[1]);
                    return -1;
                }
                g->name_off[nodes] = (int32_t)name_bytes;
                memcpy(g->names + name_bytes, l.tok[1], l.len[1]);
                g->names[name_bytes + l.len[1]] = '\0';
                g->is_ep[nodes] = gr_is(&l, 0, "endpoint");
                uint32_t i = gr_hash(l.tok[1], l.len[1]) & g->hmask;
                while (g->hash[i] != 0) {
                    i = (i + 1) & g->hmask;
                }
                g->hash[i] = (uint32_t)nodes + 1;
            }
            eps += gr_is(&l, 0, "endpoint");
            name_bytes += l.len[1] + 1;
            nodes++;
        } else if (gr_is(&l, 0, "link")) {
            double bw, lat;
            if (l.n != 5 || !gr_name_ok(l.tok[1], l.len[1]) || !gr_name_ok(l.tok[2], l.len[2]) ||
                gr_number(l.tok[3], l.len[3], 1e-6, 1e7, &bw) != 0 ||
                gr_number(l.tok[4], l.len[4], 0, 1e9, &lat) != 0) {
                snprintf(why, whylen,
                         "line %d: want \"link NAME NAME GBITS NS\" (0 < GBITS <= 1e7, NS <= 1e9)",
                         lineno);
                return -1;
            }
            if (links == GR_MAX_LINKS) {
                snprintf(why, whylen, "line %d: more than %d links", lineno, GR_MAX_LINKS);
                return -1;
            }
            if (pass == 1) {
                int32_t a = gr_find(g, l.tok[1], l.len[1]), b = gr_find(g, l.tok[2], l.len[2]);
                if (a < 0 || b < 0) {
                    snprintf(why, whylen, "line %d: %.*s not declared above", lineno,
                             (int)(a < 0 ? l.len[1] : l.len[2]), a < 0 ? l.tok[1] : l.tok[2]);
                    return -1;
                }
                if (a == b) {
                    snprintf(why, whylen, "line %d: a link from %.*s to itself", lineno,
                             (int)l.len[1], l.tok[1]);
                    return -1;
                }
                g->la[links] = a;
                g->lb[links] = b;
                g->lbw[links] = bw / 8;  /* Gbit/s -> bytes/ns */
                g->llat[links] = lat;
            }
            links++;
        } else {
            snprintf(why, whylen, "line %d: unknown directive \"%.*s\"", lineno,
                     (int)(l.len[0] > 32 ? 32 : l.len[0]), l.tok[0]);
            return -1;
        }
    }
    if (!seen_header) {
        snprintf(why, whylen, "no \"graph 1\" line");
        return -1;
    }
    if (eps == 0 || nodes == eps) {
        snprintf(why, whylen, "%d endpoints and %d switches: want at least one of each", eps,
                 nodes - eps);
        return -1;
    }
    g->n_node = nodes;
    g->n_ep = eps;
    g->n_sw = nodes - eps;
    g->n_link = links;
    *name_bytes_p = name_bytes;
    return 0;
}

/* Counts per node, the endpoint rule, connectivity; fills deg (node id
 * order: endpoints first) and map (declared index -> node id). */
static int gr_check(const gr_t *g, int32_t *map, int32_t *deg, char *why, size_t whylen)
{
    int32_t ne = 0, ns = 0;
    for (int32_t i = 0; i < g->n_node; i++) {
        map[i] = g->is_ep[i] ? ne++ : g->n_ep + ns++;
        deg[map[i]] = 0;
    }
    for (int32_t k = 0; k < g->n_link; k++) {
        int32_t a = g->la[k], b = g->lb[k];
        if ((g->is_ep[a] && g->is_ep[b])) {
            snprintf(why, whylen, "link %s-%s joins two endpoints", g->names + g->name_off[a],
                     g->names + g->name_off[b]);
            return -1;
        }
        if (++deg[map[a]] > 65535 || ++deg[map[b]] > 65535) {
            snprintf(why, whylen, "a switch with more than 65535 ports");
            return -1;
        }
    }
    for (int32_t i = 0; i < g->n_node; i++) {
        int32_t d = deg[map[i]];
        if ((g->is_ep[i] && d != 1) || (!g->is_ep[i] && d == 0)) {
            snprintf(why, whylen, "%s %s has %d links (an endpoint has exactly one, a switch some)",
                     g->is_ep[i] ? "endpoint" : "switch", g->names + g->name_off[i], d);
            return -1;
        }
    }
    return 0;
}

/* One connected fabric: BFS over the built ports. */
static int gr_connected(const tn_sim_topo_t *t, char *why, size_t whylen)
{
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)t->n_node);
    uint8_t *seen = calloc((size_t)t->n_node, 1);
    int ok = 0;
    if (queue != NULL && seen != NULL) {
        int32_t head = 0, tail = 0;
        queue[tail++] = 0;
        seen[0] = 1;
        while (head < tail) {
            int32_t v = queue[head++];
            for (int32_t p = t->port_off[v]; p < t->port_off[v + 1]; p++) {
                int32_t u = t->peer[p];
                if (u >= 0 && !seen[u]) {
                    seen[u] = 1;
                    queue[tail++] = u;
                }
            }
        }
        ok = tail == t->n_node;
        if (!ok) {
            int32_t v = 0;
            while (seen[v]) {
                v++;
            }
            snprintf(why, whylen, "%s cannot be reached from %s: the fabric is not connected",
                     t->names + t->name_off[v], t->names + t->name_off[0]);
        }
    } else {
        snprintf(why, whylen, "out of memory");
    }
    free(queue);
    free(seen);
    return ok ? 0 : -1;
}

tn_sim_status_t tn_sim_topo_graph(tn_sim_topo_t *t, const tn_sim_topo_params_t *prm, char *why,
                                  size_t whylen)
{
    gr_t g;
    memset(&g, 0, sizeof(g));
    size_t name_bytes = 0;
    tn_sim_status_t st = TN_SIM_ERR_PARSE;
    int32_t *map = NULL, *deg = NULL, *fill = NULL;
    if (prm->graph_text == NULL || gr_pass(&g, prm->graph_text, prm->graph_len, 0, &name_bytes, why,
                                           whylen) != 0) {
        if (prm->graph_text == NULL) {
            snprintf(why, whylen, "no graph file");
        }
        return TN_SIM_ERR_PARSE;
    }
    uint32_t hsize = 16;
    while (hsize < 2u * (uint32_t)g.n_node) {
        hsize *= 2;
    }
    g.hmask = hsize - 1;
    g.names = malloc(name_bytes);
    g.name_off = malloc(sizeof(int32_t) * (size_t)g.n_node);
    g.is_ep = malloc((size_t)g.n_node);
    g.hash = calloc(hsize, sizeof(uint32_t));
    g.la = malloc(sizeof(int32_t) * ((size_t)g.n_link + 1));
    g.lb = malloc(sizeof(int32_t) * ((size_t)g.n_link + 1));
    g.lbw = malloc(sizeof(double) * ((size_t)g.n_link + 1));
    g.llat = malloc(sizeof(double) * ((size_t)g.n_link + 1));
    map = malloc(sizeof(int32_t) * (size_t)g.n_node);
    deg = malloc(sizeof(int32_t) * (size_t)g.n_node);
    fill = calloc((size_t)g.n_node, sizeof(int32_t));
    if (g.names == NULL || g.name_off == NULL || g.is_ep == NULL || g.hash == NULL ||
        g.la == NULL || g.lb == NULL || g.lbw == NULL || g.llat == NULL || map == NULL ||
        deg == NULL || fill == NULL) {
        snprintf(why, whylen, "out of memory");
        st = TN_SIM_ERR_NOMEM;
        goto out;
    }
    if (gr_pass(&g, prm->graph_text, prm->graph_len, 1, &name_bytes, why, whylen) != 0 ||
        gr_check(&g, map, deg, why, whylen) != 0) {
        goto out;
    }
    st = tn_sim_topo_alloc(t, TN_SIM_TOPO_GRAPH, g.n_ep, g.n_sw, deg + g.n_ep, 0, why, whylen);
    if (st != TN_SIM_OK) {
        goto out;
    }
    /* names in node id order, for output */
    t->names = malloc(name_bytes);
    t->name_off = malloc(sizeof(int32_t) * (size_t)g.n_node);
    if (t->names == NULL || t->name_off == NULL) {
        snprintf(why, whylen, "out of memory");
        st = TN_SIM_ERR_NOMEM;
        goto err_topo;
    }
    size_t nb = 0;
    {
        int32_t *inv = fill;  /* node id -> declared index, then reused as port fill */
        for (int32_t i = 0; i < g.n_node; i++) {
            inv[map[i]] = i;
        }
        for (int32_t v = 0; v < g.n_node; v++) {
            const char *nm = g.names + g.name_off[inv[v]];
            size_t n = strlen(nm) + 1;
            memcpy(t->names + nb, nm, n);
            t->name_off[v] = (int32_t)nb;
            nb += n;
        }
        memset(fill, 0, sizeof(int32_t) * (size_t)g.n_node);
    }
    for (int32_t k = 0; k < g.n_link; k++) {
        int32_t a = map[g.la[k]], b = map[g.lb[k]];
        int32_t pa = t->port_off[a] + fill[a]++, pb = t->port_off[b] + fill[b]++;
        st = tn_sim_topo_connect(t, pa, pb, g.lbw[k], g.llat[k],
                                 a < g.n_ep || b < g.n_ep ? TN_SIM_PORT_HOST : TN_SIM_PORT_LINK,
                                 a < g.n_ep || b < g.n_ep ? TN_SIM_PORT_HOST : TN_SIM_PORT_LINK);
        if (st != TN_SIM_OK) {
            snprintf(why, whylen, "graph: inconsistent wiring");
            goto err_topo;
        }
    }
    if (gr_connected(t, why, whylen) != 0) {
        st = TN_SIM_ERR_PARSE;
        goto err_topo;
    }
    st = TN_SIM_OK;
    goto out;
err_topo:
    tn_sim_topo_free(t);
out:
    free(map);
    free(deg);
    free(fill);
    gr_free(&g);
    return st;
}

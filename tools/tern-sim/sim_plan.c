/* Collectives from Tern's own code: the planner's output read, checked and
 * expanded (sim_plan.h). */
#include "sim_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- the decode step ------------------------------------------------- */
typedef struct {
    const char *p, *end;     /* the rest of the input */
    const char *l, *le;      /* the current line */
    size_t line;
} pp_t;

static int pp_line(pp_t *x)
{
    if (x->p >= x->end) {
        return -1;
    }
    const char *nl = memchr(x->p, '\n', (size_t)(x->end - x->p));
    if (nl == NULL) {
        return -1;           /* every line ends with a newline */
    }
    x->l = x->p;
    x->le = nl;
    x->p = nl + 1;
    x->line++;
    return 0;
}

/* A decimal number <= max (at most 20 digits). */
static int pp_digits(pp_t *x, uint64_t max, uint64_t *v)
{
    uint64_t r = 0;
    const char *s = x->l;
    while (x->l < x->le && *x->l >= '0' && *x->l <= '9') {
        unsigned d = (unsigned)(*x->l - '0');
        if (d > max || r > (max - d) / 10) {
            return -1;
        }
        r = r * 10 + d;
        x->l++;
    }
    if (x->l == s || x->l - s > 20) {
        return -1;
    }
    *v = r;
    return 0;
}

/* A space, then a decimal number <= max. */
static int pp_u64(pp_t *x, uint64_t max, uint64_t *v)
{
    if (x->l >= x->le || *x->l != ' ') {
        return -1;
    }
    x->l++;
    return pp_digits(x, max, v);
}

/* A space, then a number in [lo, hi], '-' allowed. */
static int pp_i64(pp_t *x, int64_t lo, int64_t hi, int64_t *v)
{
    uint64_t u;
    int neg;

    if (x->l >= x->le || *x->l != ' ') {
        return -1;
    }
    x->l++;
    neg = x->l < x->le && *x->l == '-';
    x->l += neg;
    if (pp_digits(x, (uint64_t)INT64_MAX, &u) != 0) {
        return -1;
    }
    *v = neg ? -(int64_t)u : (int64_t)u;
    return *v < lo || *v > hi ? -1 : 0;
}

/* A space (unless first), then a word of [a-z0-9_] of at most len - 1. */
static int pp_word(pp_t *x, int first, char *out, size_t len)
{
    if (!first) {
        if (x->l >= x->le || *x->l != ' ') {
            return -1;
        }
        x->l++;
    }
    size_t k = 0;
    while (x->l < x->le && ((*x->l >= 'a' && *x->l <= 'z') || (*x->l >= '0' && *x->l <= '9') ||
                            *x->l == '_' || *x->l == '?' || *x->l == '-')) {
        if (k + 1 >= len) {
            return -1;
        }
        out[k++] = *x->l++;
    }
    out[k] = '\0';
    return k == 0 ? -1 : 0;
}

static int pp_is(pp_t *x, int first, const char *word)
{
    char w[32];
    return pp_word(x, first, w, sizeof(w)) == 0 && strcmp(w, word) == 0 ? 0 : -1;
}

/* *a holds at least need elements of elem bytes (capacity *cap, doubled). */
static int pp_grow(void **a, size_t elem, size_t *cap, size_t need)
{
    if (need <= *cap) {
        return 0;
    }
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    void *p = realloc(*a, elem * c);
    if (p == NULL) {
        return -1;
    }
    *a = p;
    *cap = c;
    return 0;
}

void tn_sim_plan_free(tn_sim_plan_t *pl)
{
    free(pl->first);
    free(pl->ops);
    free(pl->waits);
    free(pl->msrc);
    free(pl->mdst);
    free(pl->mbytes);
    memset(pl, 0, sizeof(*pl));
}

#define PLAN_MAX_RANKS (1 << 24)

tn_sim_status_t tn_sim_plan_parse(const char *buf, size_t len, tn_sim_plan_t *pl, char *why,
                                  size_t whylen)
{
    pp_t x = {buf, buf + len, NULL, NULL, 0};
    uint64_t u;
    int64_t v;
    uint8_t *rseen = NULL;   /* [nmsg] 1: its receive was read */
    tn_sim_status_t st = TN_SIM_ERR_PARSE;

    memset(pl, 0, sizeof(*pl));
    snprintf(why, whylen, "plan: line 1: not tern-coll-plan 1 output");
    if (pp_line(&x) != 0 || x.le - x.l != 16 || memcmp(x.l, "tern-coll-plan 1", 16) != 0) {
        return TN_SIM_ERR_PARSE;
    }
    snprintf(why, whylen, "plan: line 2: a bad header");
    if (pp_line(&x) != 0 || pp_is(&x, 1, "kind") != 0 || pp_word(&x, 0, pl->kind, sizeof(pl->kind)) != 0 ||
        pp_is(&x, 0, "algo") != 0 || pp_word(&x, 0, pl->algo, sizeof(pl->algo)) != 0 ||
        pp_is(&x, 0, "ranks") != 0 || pp_u64(&x, PLAN_MAX_RANKS, &u) != 0 || u == 0) {
        return TN_SIM_ERR_PARSE;
    }
    pl->n = (int32_t)u;
    if (pp_is(&x, 0, "bytes") != 0 || pp_u64(&x, (uint64_t)1 << 50, &pl->bytes) != 0 ||
        pp_is(&x, 0, "root") != 0 || pp_i64(&x, -1, pl->n - 1, &v) != 0) {
        return TN_SIM_ERR_PARSE;
    }
    pl->root = (int32_t)v;
    /* every message takes two lines of at least 8 bytes, every group one */
    if (pp_is(&x, 0, "messages") != 0 || pp_u64(&x, len / 16, &u) != 0) {
        return TN_SIM_ERR_PARSE;
    }
    pl->nmsg = (int64_t)u;
    if (pp_is(&x, 0, "groups") != 0 || pp_u64(&x, len / 4, &u) != 0 || x.l != x.le) {
        return TN_SIM_ERR_PARSE;
    }
    pl->ngroups = (int64_t)u;
    size_t nm = (size_t)pl->nmsg;
    pl->first = malloc(sizeof(size_t) * ((size_t)pl->n + 1));
    pl->msrc = malloc(sizeof(int32_t) * (nm + 1));
    pl->mdst = malloc(sizeof(int32_t) * (nm + 1));
    pl->mbytes = malloc(sizeof(uint64_t) * (nm + 1));
    rseen = calloc(nm + 1, 1);
    if (pl->first == NULL || pl->msrc == NULL || pl->mdst == NULL || pl->mbytes == NULL || rseen == NULL) {
        st = TN_SIM_ERR_NOMEM;
        snprintf(why, whylen, "plan: out of memory");
        goto fail;
    }
    for (size_t k = 0; k < nm; k++) {
        pl->msrc[k] = -1;
        pl->mdst[k] = -1;
    }
    size_t opcap = 0, wcap = 0;
    for (int32_t i = 0; i < pl->n; i++) {
        if (pp_line(&x) != 0 || pp_is(&x, 1, "rank") != 0 || pp_u64(&x, PLAN_MAX_RANKS, &u) != 0 ||
            u != (uint64_t)i || pp_is(&x, 0, "ops") != 0 ||
            pp_u64(&x, (uint64_t)(x.end - x.p) / 2, &u) != 0 || x.l != x.le) {
            snprintf(why, whylen, "plan: line %zu: not the header of rank %d", x.line, (int)i);
            goto fail;
        }
        pl->first[i] = pl->nops;
        size_t nops = (size_t)u;
        if (pp_grow((void **)&pl->ops, sizeof(*pl->ops), &opcap, pl->nops + nops) != 0) {
            st = TN_SIM_ERR_NOMEM;
            snprintf(why, whylen, "plan: out of memory");
            goto fail;
        }
        for (size_t k = 0; k < nops; k++) {
            tn_sim_plan_op_t *o = &pl->ops[pl->nops];
            memset(o, 0, sizeof(*o));
            if (pp_line(&x) != 0 || x.l >= x.le) {
                snprintf(why, whylen, "plan: line %zu: rank %d has fewer ops than it says", x.line, (int)i);
                goto fail;
            }
            o->type = (uint8_t)*x.l++;
            int ok = 1;
            switch (o->type) {
            case 's':
            case 'r': {
                uint64_t id, peer;
                ok = nm > 0 && pp_u64(&x, nm - 1, &id) == 0 && pp_u64(&x, (uint64_t)pl->n - 1, &peer) == 0 &&
                     pp_u64(&x, (uint64_t)1 << 50, &o->bytes) == 0;
                if (!ok) {
                    break;
                }
                o->id = (int64_t)id;
                o->peer = (int32_t)peer;
                int32_t src = o->type == 's' ? i : o->peer, dst = o->type == 's' ? o->peer : i;
                if (o->type == 's') {
                    ok = pl->msrc[id] < 0 || rseen[id];
                    if (ok && pl->msrc[id] >= 0) {
                        /* the receive came first: it must agree */
                        ok = pl->msrc[id] == src && pl->mdst[id] == dst && pl->mbytes[id] == o->bytes &&
                             rseen[id] == 1;
                        rseen[id] = 3;
                    } else if (ok) {
                        rseen[id] = 2;
                    }
                } else {
                    ok = !(rseen[id] & 1);
                    if (ok && pl->msrc[id] >= 0) {
                        ok = pl->msrc[id] == src && pl->mdst[id] == dst && pl->mbytes[id] == o->bytes;
                    }
                    rseen[id] |= 1;
                }
                pl->msrc[id] = src;
                pl->mdst[id] = dst;
                pl->mbytes[id] = o->bytes;
                break;
            }
            case 'w': {
                o->wfirst = (uint32_t)pl->nwaits;
                while (ok && x.l < x.le) {
                    uint64_t id;
                    ok = nm > 0 && pp_u64(&x, nm - 1, &id) == 0 && pl->nwaits < UINT32_MAX;
                    /* only my own posts, already read */
                    ok = ok && ((pl->msrc[id] == i && (rseen[id] & 2)) || (pl->mdst[id] == i && (rseen[id] & 1)));
                    if (!ok) {
                        break;
                    }
                    if (pp_grow((void **)&pl->waits, sizeof(*pl->waits), &wcap, pl->nwaits + 1) != 0) {
                        st = TN_SIM_ERR_NOMEM;
                        snprintf(why, whylen, "plan: out of memory");
                        goto fail;
                    }
                    pl->waits[pl->nwaits++] = (int64_t)id;
                    o->wn++;
                }
                break;
            }
            case 'c':
            case 'm':
                ok = pp_u64(&x, (uint64_t)1 << 50, &o->bytes) == 0;
                break;
            case 'y': {
                uint64_t g = 0;
                ok = pl->ngroups > 0 && pp_u64(&x, (uint64_t)pl->ngroups - 1, &g) == 0 &&
                     pp_u64(&x, (uint64_t)1 << 50, &o->bytes) == 0;
                o->id = (int64_t)g;
                break;
            }
            default:
                ok = 0;
                break;
            }
            if (!ok || x.l != x.le) {
                snprintf(why, whylen, "plan: line %zu: a bad or inconsistent operation", x.line);
                goto fail;
            }
            pl->nops++;
        }
    }
    pl->first[pl->n] = pl->nops;
    if (pp_line(&x) != 0 || x.le - x.l != 3 || memcmp(x.l, "end", 3) != 0 || x.p != x.end) {
        snprintf(why, whylen, "plan: line %zu: no end where the ranks end", x.line + 1);
        goto fail;
    }
    for (size_t k = 0; k < nm; k++) {
        if (rseen[k] != 3) {
            snprintf(why, whylen, "plan: message %zu lacks its send or its receive", k);
            goto fail;
        }
    }
    free(rseen);
    return TN_SIM_OK;
fail:
    free(rseen);
    tn_sim_plan_free(pl);
    return st;
}

/* ---- expansion ------------------------------------------------------- */
tn_sim_status_t tn_sim_plan_expand(tn_sim_prog_t *p, const tn_sim_plan_t *pl, const int32_t *world,
                                   int32_t *state, const tn_sim_plan_conf_t *pc)
{
    size_t nm = (size_t)pl->nmsg, ng = (size_t)pl->ngroups;
    int32_t *m = malloc(sizeof(int32_t) * (nm + 1)), *g = malloc(sizeof(int32_t) * (ng + 1));
    tn_sim_status_t st = TN_SIM_OK;

    if (m == NULL || g == NULL) {
        free(m);
        free(g);
        return TN_SIM_ERR_NOMEM;
    }
    /* every message is a node from its sender's world rank to its receiver's */
    for (size_t k = 0; k < nm && st == TN_SIM_OK; k++) {
        m[k] = tn_sim_prog_node(p, world[pl->msrc[k]], world[pl->mdst[k]], pl->mbytes[k], 0);
        st = m[k] < 0 ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
    }
    for (size_t k = 0; k < ng; k++) {
        g[k] = -1;
    }
#define EDGE(a, b) do { if (st == TN_SIM_OK) st = tn_sim_prog_edge(p, (a), (b)); } while (0)
    for (int32_t i = 0; i < pl->n && st == TN_SIM_OK; i++) {
        int32_t s = state[i];
        for (size_t k = pl->first[i]; k < pl->first[i + 1] && st == TN_SIM_OK; k++) {
            const tn_sim_plan_op_t *o = &pl->ops[k];
            int32_t j = -1;
            switch (o->type) {
            case 's':
                EDGE(s, m[o->id]);
                break;
            case 'r':
                if (o->bytes > pc->eager) {
                    EDGE(s, m[o->id]);    /* a rendezvous waits for its receive */
                }
                break;
            case 'w':
                for (uint32_t q = 0; q < o->wn && st == TN_SIM_OK; q++) {
                    int64_t id = pl->waits[o->wfirst + q];
                    if (pl->mdst[id] == i || pl->mbytes[id] > pc->eager) {
                        if (j < 0) {
                            j = tn_sim_prog_node(p, world[i], -1, 0, 0);
                            st = j < 0 ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
                            EDGE(s, j);
                        }
                        EDGE(m[id], j);
                    }
                }
                break;
            case 'c':
            case 'm': {
                /* the rank's own work: a reduction or a copy */
                double bw = o->type == 'c' ? pc->op_bw : pc->copy_bw;
                if (bw > 0 && o->bytes > 0) {
                    j = tn_sim_prog_node(p, world[i], TN_SIM_PROG_CPU, 0, (double)o->bytes / bw);
                    st = j < 0 ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
                    EDGE(s, j);
                }
                break;
            }
            default:   /* 'y' */
                if (g[o->id] < 0) {
                    g[o->id] = tn_sim_prog_node(p, world[i], -1, 0,
                                                pc->shm_lat + (pc->shm_bw > 0 ? (double)o->bytes / pc->shm_bw : 0));
                    st = g[o->id] < 0 ? TN_SIM_ERR_NOMEM : TN_SIM_OK;
                }
                j = g[o->id];
                EDGE(s, j);
                break;
            }
            if (j >= 0) {
                s = j;
            }
        }
        state[i] = s;
    }
#undef EDGE
    free(m);
    free(g);
    return st;
}

/* ---- running the planner --------------------------------------------- */
int tn_sim_plan_beside(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL) {
        return -1;
    }
    *slash = '\0';
    if ((size_t)snprintf(buf, len, "%s/tern-coll-plan", self) >= len || access(buf, X_OK) != 0) {
        return -1;
    }
    return 0;
}

tn_sim_status_t tn_sim_plan_run(char *const argv[], const char *in, size_t inlen, size_t max, char **out,
                                size_t *len, char *why, size_t whylen)
{
    int po[2], pe[2];
    posix_spawn_file_actions_t fa;
    pid_t pid;
    char *b = NULL, err[256];
    size_t n = 0, cap = 0, ne = 0;
    tn_sim_status_t st = TN_SIM_OK;

    *out = NULL;
    *len = 0;
    if (pipe2(po, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "plan: pipe: %s", strerror(errno));
        return TN_SIM_ERR_IO;
    }
    if (pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "plan: pipe: %s", strerror(errno));
        close(po[0]);
        close(po[1]);
        return TN_SIM_ERR_IO;
    }
    /* the input from an anonymous file in memory: no pipe to keep fed
     * while the output is read, nothing left on disk */
    int fin = -1;
    if (in != NULL) {
        fin = memfd_create("tern-coll-plan-input", MFD_CLOEXEC);
        size_t w = 0;
        while (fin >= 0 && w < inlen) {
            ssize_t k = write(fin, in + w, inlen - w);
            if (k < 0 && errno == EINTR) {
                continue;
            }
            if (k <= 0) {
                close(fin);
                fin = -1;
                break;
            }
            w += (size_t)k;
        }
        if (fin < 0 || lseek(fin, 0, SEEK_SET) != 0) {
            snprintf(why, whylen, "plan: cannot hold the planner's input: %s", strerror(errno));
            if (fin >= 0) {
                close(fin);
            }
            close(po[0]);
            close(po[1]);
            close(pe[0]);
            close(pe[1]);
            return TN_SIM_ERR_IO;
        }
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    if (fin >= 0) {
        posix_spawn_file_actions_adddup2(&fa, fin, 0);
    } else {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    }
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (fin >= 0) {
        close(fin);
    }
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        snprintf(why, whylen, "plan: cannot run %.300s: %s", argv[0], strerror(rc));
        close(po[0]);
        close(pe[0]);
        return TN_SIM_ERR_IO;
    }
    /* both pipes read as they fill, so a chatty planner never blocks */
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            st = TN_SIM_ERR_IO;
            break;
        }
        if (fds[0].fd >= 0 && fds[0].revents) {
            if (n == cap) {
                size_t c = cap ? cap * 2 : 1 << 16;
                char *a = n < max ? realloc(b, c + 1) : NULL;
                if (a == NULL) {
                    st = n < max ? TN_SIM_ERR_NOMEM : TN_SIM_ERR_LIMIT;
                    break;
                }
                b = a;
                cap = c;
            }
            ssize_t r = read(fds[0].fd, b + n, cap - n);
            if (r > 0) {
                n += (size_t)r;
            } else if (r == 0 || errno != EINTR) {
                close(fds[0].fd);
                fds[0].fd = -1;
                open_fds--;
            }
        }
        if (fds[1].fd >= 0 && fds[1].revents) {
            char tmp[256];
            ssize_t r = read(fds[1].fd, tmp, sizeof(tmp));
            if (r > 0) {
                size_t c = (size_t)r < sizeof(err) - 1 - ne ? (size_t)r : sizeof(err) - 1 - ne;
                memcpy(err + ne, tmp, c);
                ne += c;
            } else if (r == 0 || errno != EINTR) {
                close(fds[1].fd);
                fds[1].fd = -1;
                open_fds--;
            }
        }
    }
    if (fds[0].fd >= 0) {
        close(fds[0].fd);
    }
    if (fds[1].fd >= 0) {
        close(fds[1].fd);
    }
    if (st != TN_SIM_OK) {
        kill(pid, SIGKILL);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    err[ne] = '\0';
    err[strcspn(err, "\n")] = '\0';
    for (char *c = err; *c; c++) {
        if (*c < 0x20 || *c > 0x7e) {
            *c = '?';
        }
    }
    if (st == TN_SIM_OK && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)) {
        snprintf(why, whylen, "plan: %.200s failed: %.200s", argv[0], ne ? err : "(no message)");
        st = TN_SIM_ERR_IO;
    } else if (st != TN_SIM_OK) {
        snprintf(why, whylen, "plan: %s reading %.300s", tn_sim_status_str(st), argv[0]);
    }
    if (st != TN_SIM_OK) {
        free(b);
        return st;
    }
    *out = b;
    *len = n;
    return TN_SIM_OK;
}

/* ---- the cache ------------------------------------------------------- */
struct tn_sim_plan_cache {
    size_t n, cap;
    char **keys;
    tn_sim_plan_t *plans;
    int *ok;              /* 0: the request failed (not asked again) */
};

#define PLAN_MAX_OUTPUT ((size_t)4 << 30)

const tn_sim_plan_t *tn_sim_plan_get(tn_sim_plan_cache_t **cache, char *const argv[], const char *in,
                                     char *why, size_t whylen)
{
    size_t klen = 1, inlen = in != NULL ? strlen(in) : 0;
    for (int a = 0; argv[a] != NULL; a++) {
        klen += strlen(argv[a]) + 1;
    }
    klen += in != NULL ? inlen + 1 : 0;
    char *key = malloc(klen);
    if (key == NULL) {
        snprintf(why, whylen, "plan: out of memory");
        return NULL;
    }
    size_t o = 0;
    for (int a = 0; argv[a] != NULL; a++) {
        size_t l = strlen(argv[a]);
        if (a > 0) {
            key[o++] = ' ';
        }
        memcpy(key + o, argv[a], l);
        o += l;
    }
    if (in != NULL) {
        key[o++] = '\n';     /* no argument holds one */
        memcpy(key + o, in, inlen);
        o += inlen;
    }
    key[o] = '\0';
    if (*cache == NULL && (*cache = calloc(1, sizeof(**cache))) == NULL) {
        free(key);
        snprintf(why, whylen, "plan: out of memory");
        return NULL;
    }
    tn_sim_plan_cache_t *c = *cache;
    for (size_t k = 0; k < c->n; k++) {
        if (strcmp(c->keys[k], key) == 0) {
            free(key);
            snprintf(why, whylen, "plan: an earlier request like it failed");
            return c->ok[k] ? &c->plans[k] : NULL;
        }
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        char **k2 = realloc(c->keys, sizeof(*k2) * cap);
        if (k2 != NULL) {
            c->keys = k2;
        }
        tn_sim_plan_t *p2 = realloc(c->plans, sizeof(*p2) * cap);
        if (p2 != NULL) {
            c->plans = p2;
        }
        int *o2 = realloc(c->ok, sizeof(*o2) * cap);
        if (o2 != NULL) {
            c->ok = o2;
        }
        if (k2 == NULL || p2 == NULL || o2 == NULL) {
            free(key);
            snprintf(why, whylen, "plan: out of memory");
            return NULL;
        }
        c->cap = cap;
    }
    char *out;
    size_t len;
    tn_sim_plan_t *pl = &c->plans[c->n];
    memset(pl, 0, sizeof(*pl));
    tn_sim_status_t st = tn_sim_plan_run(argv, in, inlen, PLAN_MAX_OUTPUT, &out, &len, why, whylen);
    if (st == TN_SIM_OK) {
        st = tn_sim_plan_parse(out, len, pl, why, whylen);
        free(out);
    }
    c->keys[c->n] = key;
    c->ok[c->n] = st == TN_SIM_OK;
    c->n++;
    return st == TN_SIM_OK ? pl : NULL;
}

void tn_sim_plan_cache_free(tn_sim_plan_cache_t *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t k = 0; k < c->n; k++) {
        free(c->keys[k]);
        tn_sim_plan_free(&c->plans[k]);
    }
    free(c->keys);
    free(c->plans);
    free(c->ok);
    free(c);
}

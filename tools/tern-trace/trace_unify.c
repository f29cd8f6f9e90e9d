/* Job-wide names and communicators (trace_unify.h). */
#include "trace_unify.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ names */

/* Names are few (hundreds) but come once per rank file: a hash keeps a
 * thousand-rank job from comparing strings a hundred million times. */
struct tl_intern {
    char    **names;
    uint32_t  n, cap;
    uint32_t *slot;                     /* index + 1, 0 empty */
    uint32_t  nslot;                    /* power of two */
};

static uint64_t tl_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ull;
    }
    return h;
}

#define TL_FNV0 0xcbf29ce484222325ull

static int tl_intern_grow(tl_intern_t *t)
{
    uint32_t ns = t->nslot ? t->nslot * 2 : 256;
    uint32_t *s = calloc(ns, sizeof(*s));
    if (s == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        uint64_t h = tl_hash_bytes(TL_FNV0, t->names[i], strlen(t->names[i]));
        uint32_t k = (uint32_t)h & (ns - 1);
        while (s[k] != 0) {
            k = (k + 1) & (ns - 1);
        }
        s[k] = i + 1;
    }
    free(t->slot);
    t->slot = s;
    t->nslot = ns;
    return 0;
}

int tl_name_index(tl_job_t *j, int algos, const char *name, uint16_t *idx_p)
{
    tl_intern_t **tp = algos ? &j->algo_names : &j->call_names;
    if (*tp == NULL && (*tp = calloc(1, sizeof(**tp))) == NULL) {
        goto err_mem;
    }
    tl_intern_t *t = *tp;
    if ((t->n + 1) * 2 > t->nslot && tl_intern_grow(t) != 0) {
        goto err_mem;
    }
    size_t len = strlen(name);
    uint32_t k = (uint32_t)tl_hash_bytes(TL_FNV0, name, len) & (t->nslot - 1);
    for (; t->slot[k] != 0; k = (k + 1) & (t->nslot - 1)) {
        if (strcmp(t->names[t->slot[k] - 1], name) == 0) {
            *idx_p = (uint16_t)(t->slot[k] - 1);
            return 0;
        }
    }
    if (t->n >= TL_MAX_JOB_NAMES) {
        snprintf(j->err, sizeof(j->err), "more than %u different %s names in the job's traces",
                 TL_MAX_JOB_NAMES, algos ? "algorithm" : "function");
        return -1;
    }
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 512;
        char **nn = realloc(t->names, nc * sizeof(*nn));
        if (nn == NULL) {
            goto err_mem;
        }
        t->names = nn;
        t->cap = nc;
    }
    if ((t->names[t->n] = strdup(name)) == NULL) {
        goto err_mem;
    }
    t->slot[k] = t->n + 1;
    *idx_p = (uint16_t)t->n++;
    if (algos) {
        j->algos = t->names;
        j->nalgos = t->n;
    } else {
        j->calls = t->names;
        j->ncalls = t->n;
    }
    return 0;
err_mem:
    snprintf(j->err, sizeof(j->err), "out of memory");
    return -1;
}

static void tl_intern_free(tl_intern_t *t)
{
    if (t == NULL) {
        return;
    }
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->names[i]);
    }
    free(t->names);
    free(t->slot);
    free(t);
}

/* ---------------------------------------------------------- communicators */

/* A (context, members) pair; its k-th definition in one rank's trace is
 * its k-th incarnation, counted per member position. */
struct tl_base {
    uint32_t  ctx, flags, size, remote_size;
    int32_t  *world;                    /* owned; the job communicators point here */
    uint64_t  hash;
    uint32_t *defs;                     /* per member position: definitions seen */
    uint32_t *incs;                     /* job communicator of each incarnation */
    uint32_t  ninc;
};

static int32_t tl_min_rank(const int32_t *w, uint32_t n)
{
    int32_t m = INT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        m = w[i] < m ? w[i] : m;
    }
    return m;
}

static int tl_base_index_grow(tl_job_t *j)
{
    uint32_t ns = j->base_index_cap ? j->base_index_cap * 2 : 64;
    uint32_t *s = calloc(ns, sizeof(*s));
    if (s == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < j->nbases; i++) {
        uint32_t k = (uint32_t)j->bases[i].hash & (ns - 1);
        while (s[k] != 0) {
            k = (k + 1) & (ns - 1);
        }
        s[k] = i + 1;
    }
    free(j->base_index);
    j->base_index = s;
    j->base_index_cap = ns;
    return 0;
}

/* The base of a canonical key, added if new; NULL when out of memory. */
static tl_base_t *tl_base_get(tl_job_t *j, const tl_base_t *key)
{
    if ((j->nbases + 1) * 2 > j->base_index_cap && tl_base_index_grow(j) != 0) {
        return NULL;
    }
    uint32_t n = key->size + key->remote_size;
    uint32_t k = (uint32_t)key->hash & (j->base_index_cap - 1);
    for (; j->base_index[k] != 0; k = (k + 1) & (j->base_index_cap - 1)) {
        tl_base_t *b = &j->bases[j->base_index[k] - 1];
        if (b->hash == key->hash && b->ctx == key->ctx && b->flags == key->flags &&
            b->size == key->size && b->remote_size == key->remote_size &&
            memcmp(b->world, key->world, n * sizeof(int32_t)) == 0) {
            return b;
        }
    }
    if (j->nbases == j->base_cap) {
        uint32_t nc = j->base_cap ? j->base_cap * 2 : 16;
        tl_base_t *nb = realloc(j->bases, nc * sizeof(*nb));
        if (nb == NULL) {
            return NULL;
        }
        j->bases = nb;
        j->base_cap = nc;
    }
    tl_base_t *b = &j->bases[j->nbases];
    *b = *key;
    b->world = malloc(n * sizeof(int32_t));
    b->defs = calloc(n, sizeof(uint32_t));
    b->incs = NULL;
    b->ninc = 0;
    if (b->world == NULL || b->defs == NULL) {
        free(b->world);
        free(b->defs);
        return NULL;
    }
    memcpy(b->world, key->world, n * sizeof(int32_t));
    j->base_index[k] = ++j->nbases;
    return b;
}

/* The job communicator of a base's incarnation inc (made if new). */
static int tl_comm_of(tl_job_t *j, tl_base_t *b, uint32_t inc, uint32_t *comm_p)
{
    if (inc < b->ninc) {
        *comm_p = b->incs[inc];
        return 0;
    }
    /* incarnations come in order: a rank's k-th definition follows its k-1 */
    uint32_t *ni = realloc(b->incs, (inc + 1) * sizeof(*ni));
    if (ni == NULL) {
        return -1;
    }
    b->incs = ni;
    for (; b->ninc <= inc; b->ninc++) {
        if (j->ncomms == j->comm_cap) {
            uint32_t nc = j->comm_cap ? j->comm_cap * 2 : 16;
            tl_comm_t *c = realloc(j->comms, nc * sizeof(*c));
            if (c == NULL) {
                return -1;
            }
            j->comms = c;
            j->comm_cap = nc;
        }
        tl_comm_t *c = &j->comms[j->ncomms];
        c->ctx = b->ctx;
        c->flags = b->flags;
        c->size = b->size;
        c->remote_size = b->remote_size;
        c->world = b->world;
        c->incarnation = b->ninc;
        c->nseen = 0;
        b->incs[b->ninc] = j->ncomms++;
    }
    *comm_p = b->incs[inc];
    return 0;
}

int tl_comm_unify(tl_job_t *j, const tt_comm_t *c, uint32_t rank, uint32_t *comm_p,
                  unsigned *side_p)
{
    const tern_trace_commdef_t *d = &c->def;
    uint32_t n = d->size + d->remote_size;
    for (uint32_t i = 0; i < n; i++) {
        if ((uint32_t)c->world[i] >= j->size) {
            snprintf(j->err, sizeof(j->err), "communicator %u names world rank %d of %u",
                     d->id, c->world[i], j->size);
            return -1;
        }
    }
    int32_t *w = malloc(((size_t)n + 1) * sizeof(int32_t));
    if (w == NULL) {
        goto err_mem;
    }
    tl_base_t key = { .ctx = d->ctx, .flags = d->flags, .size = d->size,
                      .remote_size = d->remote_size, .world = w };
    unsigned side = 0;
    uint32_t pos = d->rank;
    memcpy(w, c->world, n * sizeof(int32_t));
    if (d->remote_size != 0 &&
        tl_min_rank(c->world + d->size, d->remote_size) < tl_min_rank(c->world, d->size)) {
        /* the other side's view: its group first */
        memcpy(w, c->world + d->size, d->remote_size * sizeof(int32_t));
        memcpy(w + d->remote_size, c->world, d->size * sizeof(int32_t));
        key.size = d->remote_size;
        key.remote_size = d->size;
        side = 1;
        pos = d->remote_size + d->rank;
    }
    uint32_t hk[4] = { key.ctx, key.flags, key.size, key.remote_size };
    key.hash = tl_hash_bytes(tl_hash_bytes(TL_FNV0, hk, sizeof(hk)), w, n * sizeof(int32_t));
    tl_base_t *b = tl_base_get(j, &key);
    free(w);
    if (b == NULL || tl_comm_of(j, b, b->defs[pos], comm_p) != 0) {
        goto err_mem;
    }
    b->defs[pos]++;
    j->comms[*comm_p].nseen++;
    *side_p = side;
    return 0;
err_mem:
    snprintf(j->err, sizeof(j->err), "out of memory");
    return -1;
}

void tl_unify_free(tl_job_t *j)
{
    tl_intern_free(j->call_names);
    tl_intern_free(j->algo_names);
    for (uint32_t i = 0; i < j->nbases; i++) {
        free(j->bases[i].world);
        free(j->bases[i].defs);
        free(j->bases[i].incs);
    }
    free(j->bases);
    free(j->base_index);
    free(j->comms);
    j->call_names = j->algo_names = NULL;
    j->bases = NULL;
    j->base_index = NULL;
    j->comms = NULL;
    j->calls = j->algos = NULL;
    j->ncalls = j->nalgos = j->ncomms = j->nbases = 0;
}

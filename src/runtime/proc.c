/* The process table beyond the world (proc.h). */
#include "runtime/proc.h"
#include "runtime/rt.h"
#include "runtime/pmi.h"
#include "xport/sock/sock.h"
#include "base/log.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TN_PROC_SECRET_KEY "tn-dynsecret"

static struct {
    int  ready;
    char card[TN_PROC_CARD_MAX];
    int  cap;                        /* room in the tn_rt per-peer arrays */
    char secret_hex[TN_PROC_SECRET_HEX];
    /* nodes of other jobs: "<kvsname>!<node>" -> our node index, so that
     * every process agrees on which processes share a node (a job's own
     * map inside a job, never across jobs): collectives pick by it */
    char **node_keys;
    int   *node_idx;
    int    nnode_keys;
} tn_proc;

extern tn_rt_hooks_t tn_rt_hooks_in_use;

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_to(const char *s, uint8_t *b, size_t n)
{
    if (strlen(s) != 2 * n) {
        return 0;
    }
    for (size_t i = 0; i < 2 * n; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) {
            return 0;
        }
        b[i / 2] = (uint8_t)(i % 2 ? (b[i / 2] << 4) | v : v);
    }
    return 1;
}

tn_status_t tn_rt_proc_secret_put(void)
{
    uint8_t s[TN_SOCK_SECRET_BYTES];
    char hex[2 * TN_SOCK_SECRET_BYTES + 1];
    if (tn_rt.world_rank != 0 || tn_rt.world_size == 1) {
        return TN_OK;                 /* a one-process job draws it when needed */
    }
    if (sodium_init() < 0) {
        return TN_ERR_INTERNAL;
    }
    randombytes_buf(s, sizeof(s));
    hex_of(s, sizeof(s), hex);
    tn_status_t st = tn_rt_kv_put(TN_PROC_SECRET_KEY, hex);
    sodium_memzero(s, sizeof(s));
    sodium_memzero(hex, sizeof(hex));
    return st;
}

tn_status_t tn_rt_proc_preput(const char *key, char *value, int len)
{
    if (tn_rt.singleton) {
        return TN_ERR_NOTFOUND;
    }
    return tn_pmi_get(0, key, value, len);
}

static tn_status_t proc_secret(uint8_t s[TN_SOCK_SECRET_BYTES])
{
    char hex[2 * TN_SOCK_SECRET_BYTES + 8];
    tn_status_t st = tn_rt_proc_preput(TN_PROC_PARENT_SECRET, hex, sizeof(hex));
    if (st != TN_OK && tn_rt.world_size > 1) {
        st = tn_pmi_get(0, TN_PROC_SECRET_KEY, hex, sizeof(hex));
    }
    if (st == TN_OK) {
        st = hex_to(hex, s, TN_SOCK_SECRET_BYTES) ? TN_OK : TN_ERR_PROTO;
    } else if (tn_rt.world_size == 1) {
        if (sodium_init() < 0) {
            return TN_ERR_INTERNAL;
        }
        randombytes_buf(s, TN_SOCK_SECRET_BYTES);
        st = TN_OK;
    }
    sodium_memzero(hex, sizeof(hex));
    if (st != TN_OK) {
        tn_log_error("rt", "no secret for dynamic processes in the job's key/value space");
    }
    return st;
}

static void proc_fatal(const char *msg)
{
    tn_rt_abort(1, msg);
}

tn_status_t tn_rt_proc_setup(void)
{
    uint8_t s[TN_SOCK_SECRET_BYTES];
    char key[TN_SOCK_KEY_MAX + 1], addrs[TN_SOCK_ADDRS_MAX];
    tn_status_t st;

    if (tn_proc.ready) {
        return TN_OK;
    }
    if ((st = proc_secret(s)) != TN_OK) {
        return st;
    }
    int kn = snprintf(key, sizeof(key), "%.200s#%d", tn_rt.kvsname, tn_rt.world_rank);
    if (kn < 0 || strlen(tn_rt.kvsname) > 200) {
        tn_log_error("rt", "the kvsname is too long for dynamic processes");
        return TN_ERR_INVAL;
    }
    hex_of(s, sizeof(s), tn_proc.secret_hex);
    st = tn_xport_sock_init(s, key, tn_rt_hooks_in_use.am_handler, proc_fatal);
    sodium_memzero(s, sizeof(s));
    if (st != TN_OK || (st = tn_xport_sock_listen(addrs, sizeof(addrs))) != TN_OK) {
        return st;
    }
    if ((size_t)snprintf(tn_proc.card, sizeof(tn_proc.card), "%s@%s!%d", key, addrs,
                         tn_rt.node_id) >=
        sizeof(tn_proc.card)) {
        return TN_ERR_INVAL;
    }
    tn_proc.ready = 1;
    return TN_OK;
}

tn_status_t tn_rt_proc_card(char *buf, size_t len)
{
    tn_status_t st = tn_rt_proc_setup();
    if (st == TN_OK) {
        snprintf(buf, len, "%s", tn_proc.card);
    }
    return st;
}

/* Arrays replaced by proc_grow: the transports keep pointers to the
 * world's (xport job description), whose entries never change, so the old
 * arrays stay alive until finalize. */
static void *tn_proc_old[64];
static int tn_proc_nold;

/* A copy of old (n entries of size bytes) with room for cap. */
static void *grow_copy(void *old, size_t size, int n, int cap)
{
    if (tn_proc_nold == 64) {
        return NULL;
    }
    void *p = malloc(size * (size_t)cap);
    if (p != NULL) {
        memcpy(p, old, size * (size_t)n);
        tn_proc_old[tn_proc_nold++] = old;
    }
    return p;
}

/* Room for one more process in every per-peer array of tn_rt. */
static tn_status_t proc_grow(void)
{
    int n = tn_rt.nprocs + 1;
    if (n <= tn_proc.cap) {
        return TN_OK;
    }
    int cap = n < 2 * tn_rt.nprocs ? 2 * tn_rt.nprocs : n + 8;
    const tn_xport_ops_t **x = grow_copy(tn_rt.xport_of, sizeof(*x), tn_rt.nprocs, cap);
    int *no = grow_copy(tn_rt.node_of_world, sizeof(int), tn_rt.nprocs, cap);
    int *lo = grow_copy(tn_rt.local_of_world, sizeof(int), tn_rt.nprocs, cap);
    if (x != NULL) {
        tn_rt.xport_of = x;
    }
    if (no != NULL) {
        tn_rt.node_of_world = no;
    }
    if (lo != NULL) {
        tn_rt.local_of_world = lo;
    }
    if (x == NULL || no == NULL || lo == NULL) {
        return TN_ERR_NOMEM;
    }
    tn_proc.cap = cap;
    return TN_OK;
}

/* Our node index for node node of job kvs (klen bytes). */
static int proc_node(const char *kvs, size_t klen, long node)
{
    char k[TN_SOCK_KEY_MAX + 32];
    snprintf(k, sizeof(k), "%.*s!%ld", (int)klen, kvs, node);
    for (int i = 0; i < tn_proc.nnode_keys; i++) {
        if (strcmp(tn_proc.node_keys[i], k) == 0) {
            return tn_proc.node_idx[i];
        }
    }
    char **nk = realloc(tn_proc.node_keys, sizeof(char *) * (size_t)(tn_proc.nnode_keys + 1));
    if (nk != NULL) {
        tn_proc.node_keys = nk;
    }
    int *ni = realloc(tn_proc.node_idx, sizeof(int) * (size_t)(tn_proc.nnode_keys + 1));
    if (ni != NULL) {
        tn_proc.node_idx = ni;
    }
    char *d = strdup(k);
    if (nk == NULL || ni == NULL || d == NULL) {
        free(d);
        return tn_rt.nnodes++;          /* a node of its own: still a valid map */
    }
    tn_proc.node_keys[tn_proc.nnode_keys] = d;
    tn_proc.node_idx[tn_proc.nnode_keys++] = tn_rt.nnodes;
    return tn_rt.nnodes++;
}

tn_status_t tn_rt_proc_add(const char *card_in, int *gpi_p)
{
    char key[TN_SOCK_KEY_MAX + 1], card[TN_PROC_CARD_MAX];
    if (strlen(card_in) >= sizeof(card)) {
        return TN_ERR_INVAL;
    }
    snprintf(card, sizeof(card), "%s", card_in);
    char *bang = strrchr(card, '!');
    char *nend = NULL;
    long node = bang != NULL ? strtol(bang + 1, &nend, 10) : -1;
    if (bang == NULL || nend == bang + 1 || *nend != '\0' || node < 0) {
        return TN_ERR_INVAL;
    }
    *bang = '\0';
    const char *at = strchr(card, '@');
    const char *hash = strrchr(card, '#');
    tn_status_t st;

    if (at == NULL || hash == NULL || hash > at || (size_t)(at - card) > TN_SOCK_KEY_MAX ||
        at[1] == '\0' || strlen(at + 1) >= TN_SOCK_ADDRS_MAX) {
        return TN_ERR_INVAL;
    }
    memcpy(key, card, (size_t)(at - card));
    key[at - card] = '\0';
    char *end = NULL;
    long rank = strtol(hash + 1, &end, 10);
    if (end != at || rank < 0) {
        return TN_ERR_INVAL;
    }
    /* our own job: the world rank */
    size_t klen = (size_t)(hash - card);
    if (klen == strlen(tn_rt.kvsname) && memcmp(card, tn_rt.kvsname, klen) == 0) {
        if (rank >= tn_rt.world_size) {
            return TN_ERR_INVAL;
        }
        *gpi_p = (int)rank;
        return TN_OK;
    }
    if ((st = tn_rt_proc_setup()) != TN_OK) {
        return st;
    }
    /* known already? */
    for (int g = tn_rt.world_size; g < tn_rt.nprocs; g++) {
        if (tn_xport_sock_add_peer(g, key, at + 1) == TN_OK) {
            *gpi_p = g;                     /* same key at g */
            return TN_OK;
        }
    }
    if ((st = proc_grow()) != TN_OK) {
        return st;
    }
    int g = tn_rt.nprocs;
    if ((st = tn_xport_sock_add_peer(g, key, at + 1)) != TN_OK) {
        return st;
    }
    tn_rt.xport_of[g] = &tn_xport_sock_ops;
    tn_rt.local_of_world[g] = -1;
    if (tn_rt_hooks_in_use.peers_grow != NULL &&
        (st = tn_rt_hooks_in_use.peers_grow(g + 1)) != TN_OK) {
        return st;
    }
    tn_rt.node_of_world[g] = proc_node(card, klen, node);
    tn_rt.nprocs = g + 1;
    *gpi_p = g;
    return TN_OK;
}

tn_status_t tn_rt_proc_secret_hex(char *buf, size_t len)
{
    tn_status_t st = tn_rt_proc_setup();
    if (st == TN_OK) {
        snprintf(buf, len, "%s", tn_proc.secret_hex);
    }
    return st;
}

void tn_rt_proc_finalize(void)
{
    sodium_memzero(tn_proc.secret_hex, sizeof(tn_proc.secret_hex));
    for (int i = 0; i < tn_proc.nnode_keys; i++) {
        free(tn_proc.node_keys[i]);
    }
    free(tn_proc.node_keys);
    free(tn_proc.node_idx);
    /* tn_rt_finalize frees the arrays in use after this */
    for (int i = 0; i < tn_proc_nold; i++) {
        free(tn_proc_old[i]);
    }
    tn_proc_nold = 0;
    tn_xport_sock_finalize();
    memset(&tn_proc, 0, sizeof(tn_proc));
}

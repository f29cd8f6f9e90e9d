/* Host lists and the rank-to-host map; see run_hosts.h. */
#include "run_hosts.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host name: letters, digits, '-', '.', '_' (and ':' is taken by the
 * slots suffix, so IPv6 literals are not accepted). */
static int hosts_name_ok(const char *name, size_t len)
{
    if (len == 0 || len > TN_RUN_HOST_NAME_MAX || name[0] == '-') {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        char c = name[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')) {
            return 0;
        }
    }
    return 1;
}

/* A slot count: decimal, 1..TN_RUN_HOST_SLOTS_MAX. */
static int hosts_slots(const char *s, size_t len, int *slots_p)
{
    long v = 0;

    if (len == 0 || len > 9) {
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > TN_RUN_HOST_SLOTS_MAX) {
        return -1;
    }
    *slots_p = (int)v;
    return 0;
}

/* FNV-1a of a name. */
static size_t hosts_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    }
    return h;
}

/* The slot of name in hl->index: where it is, or the empty one where it
 * would go.  The table is never full. */
static size_t hosts_find(const tn_run_hostlist_t *hl, const char *name,
                         size_t len)
{
    size_t mask = hl->index_cap - 1;
    size_t i    = hosts_hash(name, len) & mask;

    while (hl->index[i] != 0) {
        const char *n = hl->hosts[hl->index[i] - 1].name;

        if (strncmp(n, name, len) == 0 && n[len] == '\0') {
            break;
        }
        i = (i + 1) & mask;
    }
    return i;
}

/* Make room in the index for one more host: a host list of 65536 names
 * (a hostfile, an allocation) must not take quadratic time. */
static void hosts_index_grow(tn_run_hostlist_t *hl)
{
    if (hl->index != NULL && (size_t)(hl->nhosts + 1) * 2 <= hl->index_cap) {
        return;
    }
    free(hl->index);
    hl->index_cap = hl->index_cap == 0 ? 64 : hl->index_cap * 2;
    hl->index     = tn_run_xmalloc(hl->index_cap * sizeof(*hl->index));
    memset(hl->index, 0, hl->index_cap * sizeof(*hl->index));
    for (int h = 0; h < hl->nhosts; h++) {
        const char *n = hl->hosts[h].name;

        hl->index[hosts_find(hl, n, strlen(n))] = h + 1;
    }
}

int tn_run_hosts_add(tn_run_hostlist_t *hl, const char *name, size_t namelen,
                     int slots, char *err, size_t errlen)
{
    tn_run_host_t *h = NULL;
    size_t         at;

    if (!hosts_name_ok(name, namelen)) {
        snprintf(err, errlen, "bad host name '%.*s'",
                 (int)(namelen > 64 ? 64 : namelen), name);
        return -1;
    }
    hosts_index_grow(hl);
    at = hosts_find(hl, name, namelen);
    if (hl->index[at] != 0) {
        h = &hl->hosts[hl->index[at] - 1];
    } else {
        if (hl->nhosts >= TN_RUN_HOSTS_MAX) {
            snprintf(err, errlen, "more than %d hosts", TN_RUN_HOSTS_MAX);
            return -1;
        }
        hl->hosts = tn_run_xrealloc(hl->hosts, (size_t)(hl->nhosts + 1) *
                                               sizeof(*hl->hosts));
        h = &hl->hosts[hl->nhosts++];
        h->name = tn_run_xmalloc(namelen + 1);
        memcpy(h->name, name, namelen);
        h->name[namelen] = '\0';
        h->slots = 0;
        h->given = 0;
        hl->index[at] = hl->nhosts;
    }
    h->slots += slots > 0 ? slots : 1;
    h->given |= slots > 0;
    if (h->slots > TN_RUN_HOST_SLOTS_MAX) {
        snprintf(err, errlen, "host '%s': more than %d slots", h->name,
                 TN_RUN_HOST_SLOTS_MAX);
        return -1;
    }
    return 0;
}

/* "name" or "name:slots" (len bytes). */
static int hosts_add_word(tn_run_hostlist_t *hl, const char *w, size_t len,
                          char *err, size_t errlen)
{
    const char *colon = memchr(w, ':', len);
    int         slots = 0;

    if (colon != NULL) {
        size_t nlen = (size_t)(colon - w);

        if (hosts_slots(colon + 1, len - nlen - 1, &slots) != 0) {
            snprintf(err, errlen, "bad slot count in '%.*s' (want name:N, "
                     "N from 1 to %d)", (int)(len > 64 ? 64 : len), w,
                     TN_RUN_HOST_SLOTS_MAX);
            return -1;
        }
        len = nlen;
    }
    return tn_run_hosts_add(hl, w, len, slots, err, errlen);
}

int tn_run_hosts_add_arg(tn_run_hostlist_t *hl, const char *arg, char *err,
                         size_t errlen)
{
    const char *p = arg;

    if (*arg == '\0') {
        snprintf(err, errlen, "empty host list");
        return -1;
    }
    while (1) {
        size_t len = strcspn(p, ",");

        if (hosts_add_word(hl, p, len, err, errlen) != 0) {
            return -1;
        }
        if (p[len] == '\0') {
            return 0;
        }
        p += len + 1;
    }
}

/* One hostfile line without its comment: "name[:N] [slots=N] [max_slots=M]". */
static int hosts_file_line(tn_run_hostlist_t *hl, const char *line, size_t len,
                           char *err, size_t errlen)
{
    const char *p   = line;
    const char *end = line + len;
    const char *name;
    size_t      nlen;
    int         slots = 0;

    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
        p++;
    }
    if (p == end) {
        return 0;                       /* blank */
    }
    name = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r') {
        p++;
    }
    nlen = (size_t)(p - name);
    while (p < end) {
        const char *w;
        size_t      wlen;

        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
            p++;
        }
        if (p == end) {
            break;
        }
        w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r') {
            p++;
        }
        wlen = (size_t)(p - w);
        if (wlen > 6 && memcmp(w, "slots=", 6) == 0) {
            if (memchr(name, ':', nlen) != NULL ||
                hosts_slots(w + 6, wlen - 6, &slots) != 0) {
                snprintf(err, errlen, "bad '%.*s' (want slots=N, N from 1 "
                         "to %d, and no name:N)", (int)(wlen > 64 ? 64 : wlen),
                         w, TN_RUN_HOST_SLOTS_MAX);
                return -1;
            }
        } else if (wlen > 10 && memcmp(w, "max_slots=", 10) == 0) {
            /* Open MPI's limit for oversubscription: slots are what count */
        } else {
            snprintf(err, errlen, "unknown field '%.*s' (want slots=N)",
                     (int)(wlen > 64 ? 64 : wlen), w);
            return -1;
        }
    }
    if (slots > 0) {
        return tn_run_hosts_add(hl, name, nlen, slots, err, errlen);
    }
    return hosts_add_word(hl, name, nlen, err, errlen);
}

int tn_run_hosts_add_file(tn_run_hostlist_t *hl, const char *text, size_t len,
                          const char *fname, char *err, size_t errlen)
{
    size_t off    = 0;
    int    lineno = 0;
    int    before = hl->nhosts;

    while (off < len) {
        const char *line = text + off;
        const char *nl   = memchr(line, '\n', len - off);
        size_t      llen = nl != NULL ? (size_t)(nl - line) : len - off;
        const char *hash = memchr(line, '#', llen);
        char        why[200];

        lineno++;
        off += llen + (nl != NULL);
        if (memchr(line, '\0', llen) != NULL) {
            snprintf(err, errlen, "%s:%d: a NUL byte", fname, lineno);
            return -1;
        }
        if (hash != NULL) {
            llen = (size_t)(hash - line);
        }
        if (hosts_file_line(hl, line, llen, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "%s:%d: %s", fname, lineno, why);
            return -1;
        }
    }
    if (hl->nhosts == before) {
        snprintf(err, errlen, "%s: no hosts", fname);
        return -1;
    }
    return 0;
}

void tn_run_hosts_free(tn_run_hostlist_t *hl)
{
    for (int i = 0; i < hl->nhosts; i++) {
        free(hl->hosts[i].name);
    }
    free(hl->hosts);
    free(hl->index);
    hl->hosts     = NULL;
    hl->nhosts    = 0;
    hl->index     = NULL;
    hl->index_cap = 0;
}

long tn_run_hosts_slots(const tn_run_hostlist_t *hl)
{
    long n = 0;

    for (int i = 0; i < hl->nhosts; i++) {
        n += hl->hosts[i].slots > 0 ? hl->hosts[i].slots : 1;
    }
    return n;
}

int tn_run_hosts_map(const tn_run_hostlist_t *hl, int nranks, int ppn,
                     tn_run_map_t map, int *host_of, int *oversub_p,
                     char *err, size_t errlen)
{
    int  nh = hl->nhosts;
    int *used;
    int  r = 0;

    *oversub_p = 0;
    if (nh == 0) {
        snprintf(err, errlen, "no hosts");
        return -1;
    }
    if (ppn > 0) {
        if ((long)ppn * nh < nranks) {
            snprintf(err, errlen, "%d ranks do not fit %d per host on %d "
                     "host%s", nranks, ppn, nh, nh == 1 ? "" : "s");
            return -1;
        }
        for (r = 0; r < nranks; r++) {
            host_of[r] = map == TN_RUN_MAP_NODE ? r % nh : r / ppn;
        }
        for (int h = 0; h < nh; h++) {
            int n = map == TN_RUN_MAP_NODE ? nranks / nh + (h < nranks % nh)
                    : (nranks - h * ppn < 0 ? 0 : nranks - h * ppn > ppn ? ppn
                       : nranks - h * ppn);

            *oversub_p |= hl->hosts[h].given && n > hl->hosts[h].slots;
        }
        return 0;
    }
    used = tn_run_xmalloc((size_t)nh * sizeof(*used));
    memset(used, 0, (size_t)nh * sizeof(*used));
    if (map == TN_RUN_MAP_NODE) {
        /* one per host in turn while some host has a free slot */
        while (r < nranks) {
            int placed = 0;

            for (int h = 0; h < nh && r < nranks; h++) {
                if (used[h] < hl->hosts[h].slots) {
                    used[h]++;
                    host_of[r++] = h;
                    placed = 1;
                }
            }
            if (!placed) {
                break;
            }
        }
        for (int h = 0; r < nranks; h = (h + 1) % nh) {
            host_of[r++] = h;
            *oversub_p = 1;
        }
    } else {
        /* fill each host's slots in order, then round again */
        for (int round = 0; r < nranks; round++) {
            for (int h = 0; h < nh && r < nranks; h++) {
                for (int s = 0; s < hl->hosts[h].slots && r < nranks; s++) {
                    host_of[r++] = h;
                }
            }
            *oversub_p |= round > 0;
        }
    }
    free(used);
    return 0;
}

typedef struct {
    int host, nhosts, per;
} hosts_tuple_t;

void tn_run_hosts_mapping_str(const int *host_of, int nranks, tn_run_buf_t *out)
{
    hosts_tuple_t *t = tn_run_xmalloc((size_t)(nranks > 0 ? nranks : 1) *
                                      sizeof(*t));
    int            nt = 0;
    int            period;

    /* runs of consecutive ranks on one host, then runs of equal length on
     * consecutive hosts */
    for (int r = 0; r < nranks;) {
        int len = 1;

        while (r + len < nranks && host_of[r + len] == host_of[r]) {
            len++;
        }
        if (nt > 0 && t[nt - 1].per == len &&
            t[nt - 1].host + t[nt - 1].nhosts == host_of[r]) {
            t[nt - 1].nhosts++;
        } else {
            t[nt].host   = host_of[r];
            t[nt].nhosts = 1;
            t[nt].per    = len;
            nt++;
        }
        r += len;
    }
    /* clients apply the vector cyclically: keep the shortest period */
    for (period = 1; period < nt; period++) {
        int same = nt % period == 0;

        for (int i = period; i < nt && same; i++) {
            same = t[i].host == t[i % period].host &&
                   t[i].nhosts == t[i % period].nhosts &&
                   t[i].per == t[i % period].per;
        }
        if (same) {
            break;
        }
    }
    tn_run_buf_printf(out, "(vector");
    for (int i = 0; i < period && i < nt; i++) {
        tn_run_buf_printf(out, ",(%d,%d,%d)", t[i].host, t[i].nhosts, t[i].per);
    }
    tn_run_buf_printf(out, ")");
    free(t);
}

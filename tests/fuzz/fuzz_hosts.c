/* Fuzz harness of tern-run's host lists: Slurm's hostlist expressions and
 * per-node counts (tools/tern-run/run_slurm.c, from the environment of an
 * allocation), -host arguments and hostfiles (run_hosts.c), then the rank
 * map over what was accepted.
 *
 * Input: a byte b, then text.  The text up to its first NUL byte is A, what
 * follows up to the next NUL is B.  A is a hostlist expression
 * (tn_run_slurm_nodelist), a count list (tn_run_slurm_counts) and a -host
 * argument (tn_run_hosts_add_arg); B a count list; A with B an allocation
 * (tn_run_slurm_hosts); the whole text a hostfile (tn_run_hosts_add_file,
 * NUL bytes and all).  Each host list accepted is mapped
 * (tn_run_hosts_map) for (b & 63) + 1 ranks, by slot or by node (b & 64),
 * with 2 per host when b & 128.  Every string is copied to an allocation
 * of its exact size, so that ASan sees a read past its end.
 *
 * Checked: an error leaves a message; an expansion is exactly n
 * NUL-ended names of 1..255 bytes without brackets or commas, at most
 * TN_RUN_HOSTS_MAX of them; counts are within 1..TN_RUN_HOST_SLOTS_MAX and
 * at most TN_RUN_HOSTS_MAX; an allocation's slots add up to its counts;
 * every host list holds 1..TN_RUN_HOSTS_MAX hosts of 1..TN_RUN_HOST_SLOTS_MAX
 * slots; a map puts every rank on a host of the list, and by slot fills
 * the slots in order. */
#include "run_slurm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_hosts: %s\n", what);
    abort();
}

static char *fz_str(const uint8_t *p, size_t len)
{
    char *s = malloc(len + 1);

    if (s == NULL) {
        fz_fail("out of memory");
    }
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

static void fz_err(int rc, const char *err)
{
    if (rc != 0 && (err[0] == '\0' || strlen(err) >= 320)) {
        fz_fail("an error without a message");
    }
}

/* A host list that was accepted, and its map. */
static void fz_list(const tn_run_hostlist_t *hl, uint8_t b)
{
    int  nranks = (b & 63) + 1;
    int  host_of[64];
    int  oversub = 0;
    char err[320] = "";
    int  rc;

    if (hl->nhosts < 1 || hl->nhosts > TN_RUN_HOSTS_MAX) {
        fz_fail("a host list of no hosts or too many");
    }
    for (int h = 0; h < hl->nhosts; h++) {
        size_t len = strlen(hl->hosts[h].name);

        if (len < 1 || len > TN_RUN_HOST_NAME_MAX || hl->hosts[h].slots < 1 ||
            hl->hosts[h].slots > TN_RUN_HOST_SLOTS_MAX) {
            fz_fail("a host of a bad name or slot count");
        }
    }
    rc = tn_run_hosts_map(hl, nranks, b & 128 ? 2 : 0,
                          b & 64 ? TN_RUN_MAP_NODE : TN_RUN_MAP_SLOT, host_of,
                          &oversub, err, sizeof(err));
    fz_err(rc, err);
    if (rc != 0) {
        return;
    }
    for (int r = 0; r < nranks; r++) {
        if (host_of[r] < 0 || host_of[r] >= hl->nhosts) {
            fz_fail("a rank mapped outside the host list");
        }
    }
    if (!(b & 128) && !(b & 64) && !oversub) {
        /* by slot without going round: hosts in order, each up to its slots */
        for (int r = 1, used = 1; r < nranks; r++) {
            used = host_of[r] == host_of[r - 1] ? used + 1 : 1;
            if (host_of[r] < host_of[r - 1] ||
                used > hl->hosts[host_of[r]].slots) {
                fz_fail("a map by slot out of order");
            }
        }
    }
}

static void fz_nodelist(const char *a)
{
    tn_run_buf_t names = { 0 };
    char         err[320] = "";
    int          n = -1;
    int          rc = tn_run_slurm_nodelist(a, &names, &n, err, sizeof(err));
    size_t       off = 0;

    fz_err(rc, err);
    if (rc == 0) {
        if (n < 1 || n > TN_RUN_HOSTS_MAX) {
            fz_fail("expansion: a count out of range");
        }
        for (int i = 0; i < n; i++) {
            const char *name;
            size_t      len;

            if (off >= names.len) {
                fz_fail("expansion: fewer names than its count");
            }
            name = names.data + off;
            len  = strnlen(name, names.len - off);
            if (len == names.len - off || len < 1 || len > TN_RUN_HOST_NAME_MAX ||
                strpbrk(name, "[],") != NULL) {
                fz_fail("expansion: a bad name");
            }
            off += len + 1;
        }
        if (off != names.len) {
            fz_fail("expansion: more bytes than its names");
        }
    }
    tn_run_buf_free(&names);
}

/* Returns the sum of the counts, or -1. */
static long fz_counts(const char *s)
{
    int  *counts = NULL;
    int   n = -1;
    char  err[320] = "";
    int   rc = tn_run_slurm_counts(s, &counts, &n, err, sizeof(err));
    long  sum = 0;

    fz_err(rc, err);
    if (rc != 0) {
        return -1;
    }
    if (n < 1 || n > TN_RUN_HOSTS_MAX) {
        fz_fail("counts: a number out of range");
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 1 || counts[i] > TN_RUN_HOST_SLOTS_MAX) {
            fz_fail("counts: a count out of range");
        }
        sum += counts[i];
    }
    free(counts);
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tn_run_hostlist_t hl = { 0 };
    char              err[320];
    const uint8_t    *text, *nul, *bend;
    size_t            tlen, alen;
    char             *a, *b, *file;
    uint8_t           sel;
    long              sum;
    int               rc;

    if (size < 1) {
        return 0;
    }
    sel  = data[0];
    text = data + 1;
    tlen = size - 1;
    nul  = memchr(text, '\0', tlen);
    alen = nul != NULL ? (size_t)(nul - text) : tlen;
    a    = fz_str(text, alen);
    bend = nul != NULL ? memchr(nul + 1, '\0', tlen - alen - 1) : NULL;
    b    = nul != NULL ? fz_str(nul + 1, bend != NULL ? (size_t)(bend - nul - 1)
                                                      : tlen - alen - 1)
                       : fz_str(text, 0);
    file = fz_str(text, tlen);

    fz_nodelist(a);
    fz_counts(a);
    sum = fz_counts(b);

    err[0] = '\0';
    rc = tn_run_slurm_hosts(&hl, a, b, err, sizeof(err));
    fz_err(rc, err);
    if (rc == 0) {
        if (tn_run_hosts_slots(&hl) != sum) {
            fz_fail("allocation: slots do not add up to the counts");
        }
        fz_list(&hl, sel);
    }
    tn_run_hosts_free(&hl);

    err[0] = '\0';
    rc = tn_run_hosts_add_arg(&hl, a, err, sizeof(err));
    fz_err(rc, err);
    if (rc == 0) {
        fz_list(&hl, sel);
    }
    tn_run_hosts_free(&hl);

    err[0] = '\0';
    rc = tn_run_hosts_add_file(&hl, file, tlen, "fuzz", err, sizeof(err));
    fz_err(rc, err);
    if (rc == 0) {
        fz_list(&hl, sel);
    }
    tn_run_hosts_free(&hl);

    free(file);
    free(b);
    free(a);
    return 0;
}

/* Fuzz harness of tern-run's collection of a PMI-1 spawn request (the
 * "mcmd=spawn" blocks, one per command, each ended by "endcmd"; spawn_line
 * and spawn_block_end in tools/tern-run/pmi_srv.c, reached through
 * tn_pmi_srv_input), and of what the launcher then reads of it: the
 * request run_spawn.c turns into the nested launcher's command line.  The
 * lines a rank sends are hostile.
 *
 * Input: a byte b: ranks ((b & 1) + 1), lines cut into chunks of
 * ((b >> 1) & 7) + 1 bytes (whole lines when that is 8), whether the
 * launcher fails the spawn (b & 16: rc -1), when it looks for a ready
 * request (b & 32: only after every 4th line and at the end, as when one
 * read brings several lines; else after every chunk), then text; line i
 * comes from rank i % ranks.  A request the server marked ready is checked
 * and carried out as tn_run_spawn_serve does (spawn_start is static there
 * and forks: its reading of the request is repeated here), then answered
 * (tn_pmi_srv_spawn_done).
 *
 * Checked: a ready request has 1 to 1024 commands, as many as totspawns
 * said; each command an execname, 1 to 2^20 processes, argc within 0..4096
 * and equal to its argcnt line when it sent one, every argument present,
 * info pairs as many as its info_num (at most 64), all present; preput
 * pairs as many as the first block's preput_num (at most 64), all present;
 * every string NUL-ended (ASan catches a read past one); while collected,
 * a request holds at most TN_PMI_SPAWN_BYTES_MAX bytes of strings and
 * its counts stay within those bounds; the command line
 * built from it fits the size spawn_argv allocates; a request is only
 * collected from one rank at a time; the answer is one cmd=spawn_result
 * line to the rank that asked, with one error code per process.  Replies
 * on every connection are whole lines starting with cmd=. */
#include "pmi_srv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_BLOCKS 1024

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_spawn: %s\n", what);
    abort();
}

/* What the lines of the collecting rank's blocks declared (-1: nothing),
 * by block (the server's command index), read here from the text. */
typedef struct {
    long argcnt, info_num, preput_num;
} fz_decl_t;

static fz_decl_t fz_decl[FZ_MAX_BLOCKS + 1];
static int fz_decl_hi;                  /* entries [0, hi) may be set */

static void fz_decl_reset(void)
{
    for (int b = 0; b < fz_decl_hi; b++) {
        fz_decl[b].argcnt = fz_decl[b].info_num = fz_decl[b].preput_num = -1;
    }
    fz_decl_hi = 0;
}

/* The value of "key=<number>" in line, when it is one (else -2). */
static long fz_num(const char *line, size_t n, const char *key)
{
    size_t kl = strlen(key);
    char buf[32];
    char *end;
    if (n <= kl || memcmp(line, key, kl) != 0 || line[kl] != '=' || n - kl - 1 >= sizeof(buf) ||
        n - kl - 1 == 0) {
        return -2;
    }
    memcpy(buf, line + kl + 1, n - kl - 1);
    buf[n - kl - 1] = '\0';
    long v = strtol(buf, &end, 10);
    return *end == '\0' && buf[0] >= '0' && buf[0] <= '9' ? v : -2;
}

static void fz_strings(char **v, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        if (v == NULL || v[i] == NULL) {
            fz_fail(what);
        }
        (void)strlen(v[i]);
    }
}

/* The launcher's reading of a ready request (run_spawn.c). */
static void fz_carry_out(const tn_pmi_spawn_t *sp)
{
    if (sp->napps < 1 || sp->napps > FZ_MAX_BLOCKS || sp->napps != sp->total) {
        fz_fail("a ready request with a wrong number of commands");
    }
    if (sp->npre < 0 || sp->npre > 64) {
        fz_fail("preput count out of bounds");
    }
    if (fz_decl[0].preput_num >= 0 && sp->npre != fz_decl[0].preput_num) {
        fz_fail("preput pairs not as many as preput_num");
    }
    fz_strings(sp->pre_key, sp->npre, "a preput key missing");
    fz_strings(sp->pre_val, sp->npre, "a preput value missing");
    size_t n = 4, k = 1 + 2 + 2;      /* self, --netns ns, -host h */
    for (int a = 0; a < sp->napps; a++) {
        const tn_pmi_spawn_app_t *app = &sp->apps[a];
        if (app->exec == NULL || app->nprocs < 1 || app->nprocs > 1 << 20) {
            fz_fail("a command without execname or with a bad process count");
        }
        if (app->argc < 0 || app->argc > 4096) {
            fz_fail("argc out of bounds");
        }
        if (fz_decl[a].argcnt >= 0 && app->argc != fz_decl[a].argcnt) {
            fz_fail("arguments not as many as argcnt");
        }
        if (app->ninfo < 0 || app->ninfo > 64) {
            fz_fail("info count out of bounds");
        }
        if (fz_decl[a].info_num >= 0 && app->ninfo != fz_decl[a].info_num) {
            fz_fail("info pairs not as many as info_num");
        }
        fz_strings(app->argv, app->argc, "an argument missing");
        fz_strings(app->info_key, app->ninfo, "an info key missing");
        fz_strings(app->info_val, app->ninfo, "an info value missing");
        (void)strlen(app->exec);
        n += 6 + (size_t)app->argc;
        k += (a > 0) + 3 + (size_t)app->argc;
    }
    if (k + 1 > n) {
        fz_fail("the command line does not fit what spawn_argv allocates");
    }
}

static size_t fz_held(char **v, int n)
{
    size_t b = 0;
    for (int i = 0; v != NULL && i < n; i++) {
        b += v[i] != NULL ? strlen(v[i]) + 1 : 0;
    }
    return b;
}

/* The request being collected: within its bounds, from one rank only. */
static void fz_bounds(const tn_pmi_srv_t *srv)
{
    const tn_pmi_spawn_t *sp = &srv->spawn;
    size_t b = fz_held(sp->pre_key, sp->npre) + fz_held(sp->pre_val, sp->npre);
    if (sp->napps < 0 || sp->napps > FZ_MAX_BLOCKS || sp->npre < 0 || sp->npre > 64) {
        fz_fail("a request's counts out of bounds");
    }
    for (int a = 0; a < sp->napps; a++) {
        const tn_pmi_spawn_app_t *app = &sp->apps[a];
        if (app->argc < 0 || app->argc > 4096 || app->ninfo < 0 || app->ninfo > 64) {
            fz_fail("a command's counts out of bounds");
        }
        b += fz_held(app->argv, app->argc) + fz_held(app->info_key, app->ninfo) +
             fz_held(app->info_val, app->ninfo) + (app->exec ? strlen(app->exec) + 1 : 0);
    }
    if (b > TN_PMI_SPAWN_BYTES_MAX || b > sp->bytes) {
        fz_fail("a request holds more bytes than its bound");
    }
    for (int r = 0; r < srv->nconns; r++) {
        if (srv->conns[r].spawning && (r != sp->rank || !srv->conns[r].in_mcmd)) {
            fz_fail("a block collected for a rank that does not own the request");
        }
    }
}

/* Rank r's replies: whole lines starting with cmd=; count spawn_result. */
static int fz_replies(tn_pmi_srv_t *srv, int r, long *errcodes_p)
{
    tn_run_buf_t *out = &srv->conns[r].out;
    int results = 0;
    size_t off = 0;
    while (off < out->len) {
        const char *s = out->data + off;
        const char *nl = memchr(s, '\n', out->len - off);
        if (nl == NULL) {
            fz_fail("a reply that is not a whole line");
        }
        size_t n = (size_t)(nl - s);
        if (n < 4 || memcmp(s, "cmd=", 4) != 0) {
            fz_fail("a reply that does not start with cmd=");
        }
        if (n >= 16 && memcmp(s, "cmd=spawn_result", 16) == 0) {
            const char *codes = memmem(s, n, "errcodes=", 9);
            long c = 0;
            if (codes != NULL) {
                c = 1;
                for (const char *p = codes; p < nl; p++) {
                    c += *p == ',';
                }
            }
            *errcodes_p = c;
            results++;
        }
        off += n + 1;
    }
    tn_run_buf_consume(out, out->len);
    return results;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    int ranks = (data[0] & 1) + 1;
    size_t chunk = (size_t)(data[0] >> 1 & 7) + 1;
    if (chunk == 8) {
        chunk = SIZE_MAX;
    }
    int fail = (data[0] & 16) != 0;
    int late = (data[0] & 32) != 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    tn_pmi_srv_t srv;
    tn_pmi_srv_init(&srv, ranks, "tern-fuzz-kvs");
    srv.backlog_max = 1 << 16;
    fz_decl_hi = FZ_MAX_BLOCKS + 1;
    fz_decl_reset();

    size_t off = 0;
    for (int i = 0; off < len; i++) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (text + off)) + 1 : len - off;
        size_t ln = nl != NULL ? n - 1 : n;      /* without its newline */
        int r = i % ranks;
        int was_in = srv.conns[r].in_mcmd, napps = srv.spawn.napps;
        int collecting = was_in && srv.conns[r].spawning && napps >= 1;

        /* what this line declares for the block it belongs to */
        if (collecting && nl != NULL) {
            fz_decl_t *d = &fz_decl[napps - 1];
            fz_decl_hi = napps > fz_decl_hi ? napps : fz_decl_hi;
            long v;
            if ((v = fz_num(text + off, ln, "argcnt")) >= 0) {
                d->argcnt = v;
            } else if ((v = fz_num(text + off, ln, "info_num")) >= 0) {
                d->info_num = v;
            } else if ((v = fz_num(text + off, ln, "preput_num")) >= 0 && napps == 1) {
                d->preput_num = v;
            }
        }
        for (size_t done = 0; done < n;) {
            size_t c = n - done < chunk ? n - done : chunk;
            long codes = -1;
            if (!srv.conns[r].closed && tn_pmi_srv_input(&srv, r, text + off + done, c) != 0) {
                (void)fz_replies(&srv, r, &codes);
                tn_pmi_srv_closed(&srv, r);
            }
            done += c;
            fz_bounds(&srv);
            if (srv.spawn.napps > napps && srv.spawn.rank == r) {
                /* a new block: it declares nothing yet */
                for (int b = napps; b < srv.spawn.napps && b <= FZ_MAX_BLOCKS; b++) {
                    fz_decl[b].argcnt = fz_decl[b].info_num = fz_decl[b].preput_num = -1;
                }
                napps = srv.spawn.napps;
                fz_decl_hi = napps > fz_decl_hi ? napps : fz_decl_hi;
            }
            if (srv.spawn.napps == 0) {
                fz_decl_reset();
                napps = 0;
            }
            if (srv.spawn.ready && (!late || (done == n && (i % 4 == 3 || off + n == len)))) {
                int asker = srv.spawn.rank;
                long procs = 0;
                if (asker < 0 || asker >= ranks) {
                    fz_fail("a ready request from no rank");
                }
                fz_carry_out(&srv.spawn);
                for (int a = 0; a < srv.spawn.napps; a++) {
                    procs += srv.spawn.apps[a].nprocs;
                }
                for (int q = 0; q < ranks; q++) {
                    (void)fz_replies(&srv, q, &codes);
                }
                tn_pmi_srv_spawn_done(&srv, fail ? -1 : 0);
                if (srv.spawn.ready || srv.spawn.napps != 0 || srv.spawn.rank != -1) {
                    fz_fail("a request left over after its answer");
                }
                codes = -1;
                if (!srv.conns[asker].closed &&
                    (fz_replies(&srv, asker, &codes) != 1 ||
                     (!fail && procs <= 4096 && codes != procs) || (fail && codes != 0))) {
                    fz_fail("the answer is not one spawn_result with a code per process");
                }
                fz_decl_reset();
                napps = 0;
            }
            for (int q = 0; q < ranks; q++) {
                (void)fz_replies(&srv, q, &codes);
            }
        }
        off += n;
    }
    for (int r = 0; r < ranks; r++) {
        long codes;
        if (!srv.conns[r].closed) {
            tn_pmi_srv_eof(&srv, r);
        }
        (void)fz_replies(&srv, r, &codes);
    }
    tn_pmi_srv_fini(&srv);
    return 0;
}

/* tern-monitor's database: open, schema, transactions, errors; see
 * mon_store.h and, for the parts, mon_store_int.h. */
#include "mon_store_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const store_level_t tn_mon_store_levels[LEVEL_COUNT] = {
    [LEVEL_RAW] = { STMT_RAW_GET, STMT_RAW_INS, STMT_RAW_PUT, STMT_RAW_DEL, STORE_MINUTE_MS, 0, 1 },
    [LEVEL_1M]  = { STMT_M1_GET, STMT_M1_INS, STMT_M1_PUT, STMT_M1_DEL, STORE_HOUR_MS,
                    STORE_MINUTE_MS, 4 },
    [LEVEL_1H]  = { STMT_H1_GET, STMT_H1_INS, STMT_H1_PUT, STMT_H1_DEL, STORE_DAY_MS,
                    STORE_HOUR_MS, 4 },
};

static const char *const store_sql[STMT_COUNT] = {
#define STORE_STMT_SQL(name, sql) [STMT_##name] = sql,
    STORE_STMTS(STORE_STMT_SQL)
#undef STORE_STMT_SQL
};

static void store_log_stderr(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "tern-monitor: %s\n", msg);
}

static void store_log(tn_mon_store_t *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void store_log(tn_mon_store_t *st, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    st->policy.log(st->policy.log_ctx, msg);
}

void tn_mon_store_fail(tn_mon_store_t *st, const char *what, int sqlite)
{
    int code = sqlite && st->db != NULL ? sqlite3_extended_errcode(st->db) : -1;

    st->stats.errors++;
    /* a full disk fails every write: say it once, count the rest */
    if (st->err_code != 0 && code == st->err_code) {
        st->err_repeats++;
        return;
    }
    tn_mon_store_ok(st);
    if (sqlite && st->db != NULL) {
        store_log(st, "store: %s: %s", what, sqlite3_errmsg(st->db));
    } else {
        store_log(st, "store: %s", what);
    }
    st->err_code = code;
}

void tn_mon_store_ok(tn_mon_store_t *st)
{
    if (st->err_repeats > 0) {
        store_log(st, "store: %llu more failures like the last one",
                  (unsigned long long)st->err_repeats);
    }
    st->err_code    = 0;
    st->err_repeats = 0;
}

int tn_mon_store_recs_room(tn_mon_store_t *st, size_t n)
{
    if (n <= st->recs_cap) {
        return 0;
    }
    size_t        cap = st->recs_cap ? st->recs_cap : 256;
    tn_mon_rec_t *r;
    while (cap < n) {
        cap *= 2;
    }
    r = realloc(st->recs, cap * sizeof(*r));
    if (r == NULL) {
        tn_mon_store_fail(st, "out of memory", 0);
        return -1;
    }
    st->recs     = r;
    st->recs_cap = cap;
    return 0;
}

int tn_mon_store_blob_room(tn_mon_store_t *st, size_t n)
{
    if (n <= st->blob_cap) {
        return 0;
    }
    size_t   cap = st->blob_cap ? st->blob_cap : 4096;
    uint8_t *b;
    while (cap < n) {
        cap *= 2;
    }
    b = realloc(st->blob, cap);
    if (b == NULL) {
        tn_mon_store_fail(st, "out of memory", 0);
        return -1;
    }
    st->blob     = b;
    st->blob_cap = cap;
    return 0;
}

int tn_mon_store_exec(tn_mon_store_t *st, int stmt, const char *what, int *rc_p)
{
    sqlite3_stmt *s = st->stmt[stmt];
    int           rc;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    sqlite3_reset(s);
    if (rc_p != NULL) {
        *rc_p = rc;
    }
    if (rc != SQLITE_DONE) {
        /* the caller decides whether this one is an error (a key taken) */
        if (rc_p == NULL) {
            tn_mon_store_fail(st, what, 1);
        }
        return -1;
    }
    return 0;
}

long tn_mon_store_row_decode(tn_mon_store_t *st, int level, int64_t k, const void *data, size_t len,
                             size_t at)
{
    const store_level_t *l    = &tn_mon_store_levels[level];
    int64_t              base = (k >> 32) * l->slot_ms;
    size_t               n;

    if (len > STORE_ROW_MAX || tn_mon_store_recs_room(st, at + len) != 0 ||
        tn_mon_rec_decode(data, len, l->nfields, base, l->slot_ms, st->recs + at, len, &n) != 0) {
        char what[96];
        snprintf(what, sizeof(what), "damaged row %lld of level %d (%zu bytes): ignored",
                 (long long)k, level, len);
        tn_mon_store_fail(st, what, 0);
        return -1;
    }
    return (long)n;
}

void tn_mon_store_policy_default(tn_mon_store_policy_t *policy)
{
    memset(policy, 0, sizeof(*policy));
    policy->raw_s    = 6 * 3600;
    policy->minute_s = 14 * 86400;
    policy->hour_s   = 400 * 86400;
}

int tn_mon_store_open(const char *path, const tn_mon_store_policy_t *policy, tn_mon_store_t **st_p)
{
    tn_mon_store_t *st = calloc(1, sizeof(*st));
    char            what[512];
    int             rc;

    if (st == NULL) {
        return -1;
    }
    if (policy != NULL) {
        st->policy = *policy;
    } else {
        tn_mon_store_policy_default(&st->policy);
    }
    if (st->policy.log == NULL) {
        st->policy.log = store_log_stderr;
    }
    rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                         SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(what, sizeof(what), "cannot open %s", path);
        tn_mon_store_fail(st, what, st->db != NULL);
        goto err_close;
    }
    sqlite3_extended_result_codes(st->db, 1);
    /* another process holding the write lock (the sqlite3 shell) makes a
     * write wait this long before it fails: the server must not stall */
    sqlite3_busy_timeout(st->db, 200);
    if (tn_mon_store_schema(st, path) != 0) {
        goto err_close;
    }
    /* secure_delete FAST: Debian builds SQLite to zero what is deleted,
     * which doubles the writes of retention; FAST zeroes only what costs
     * no extra I/O */
    if (sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL; PRAGMA secure_delete = FAST", NULL, NULL,
                     NULL) != SQLITE_OK) {
        tn_mon_store_fail(st, "PRAGMA synchronous", 1);
        goto err_close;
    }
    for (int i = 0; i < STMT_COUNT; i++) {
        if (sqlite3_prepare_v3(st->db, store_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                               NULL) != SQLITE_OK) {
            snprintf(what, sizeof(what), "preparing %.200s", store_sql[i]);
            tn_mon_store_fail(st, what, 1);
            goto err_close;
        }
    }
    if (tn_mon_store_int(st, "SELECT coalesce(max(id), 0) + 1 FROM series", &st->next_id) != 0) {
        goto err_close;
    }
    /* the store's clock starts at the latest row: a query right after a
     * restart sees the history */
    static const char *const latest[LEVEL_COUNT] = {
        "SELECT coalesce(max(k), 0) FROM samples_raw", "SELECT coalesce(max(k), 0) FROM samples_1m",
        "SELECT coalesce(max(k), 0) FROM samples_1h",
    };
    for (int l = 0; l < LEVEL_COUNT; l++) {
        int64_t k, end;
        if (tn_mon_store_int(st, latest[l], &k) != 0) {
            goto err_close;
        }
        end = k > 0 ? ((k >> 32) + 1) * tn_mon_store_levels[l].slot_ms - 1 : 0;
        /* a later slot of a coarser level holds nothing later than this */
        if (end > st->max_t && st->max_t == 0) {
            st->max_t = end;
        }
    }
    *st_p = st;
    return 0;

err_close:
    for (int i = 0; i < STMT_COUNT; i++) {
        sqlite3_finalize(st->stmt[i]);
    }
    sqlite3_close_v2(st->db);
    free(st);
    return -1;
}

void tn_mon_store_close(tn_mon_store_t *st)
{
    if (st == NULL) {
        return;
    }
    /* the minutes still in memory are written: a clean stop loses nothing */
    if (st->in_tx || tn_mon_store_begin(st) == 0) {
        tn_mon_store_close_minutes(st, 0, 1);
        tn_mon_store_drain(st, SIZE_MAX);
        tn_mon_store_exec(st, STMT_COMMIT, "commit at close", NULL);
        st->in_tx = 0;
    }
    for (int i = 0; i < STMT_COUNT; i++) {
        sqlite3_finalize(st->stmt[i]);
    }
    if (sqlite3_close_v2(st->db) != SQLITE_OK) {
        tn_mon_store_fail(st, "close", 1);
    }
    tn_mon_store_series_free_all(st);
    free(st->recs);
    free(st->blob);
    free(st);
}

int tn_mon_store_begin(tn_mon_store_t *st)
{
    if (st->in_tx) {
        tn_mon_store_fail(st, "begin inside a transaction", 0);
        return -1;
    }
    if (tn_mon_store_exec(st, STMT_BEGIN, "begin", NULL) != 0) {
        return -1;
    }
    st->in_tx = 1;
    return 0;
}

int tn_mon_store_commit(tn_mon_store_t *st)
{
    int status = 0;

    if (!st->in_tx) {
        tn_mon_store_fail(st, "commit without begin", 0);
        return -1;
    }
    /* a part of the minutes that ended: the writes of a minute's end are
     * spread over the seconds after it instead of stalling one */
    if (tn_mon_store_drain_paced(st, st->now_ms > st->max_t ? st->now_ms : st->max_t) != 0) {
        status = -1;
    }
    st->in_tx = 0;
    if (sqlite3_get_autocommit(st->db)) {
        /* a failure (disk full, I/O) rolled the transaction back */
        tn_mon_store_fail(st, "the transaction was rolled back by a failure", 0);
        tn_mon_store_series_lost(st);
        return -1;
    }
    if (tn_mon_store_exec(st, STMT_COMMIT, "commit", NULL) != 0) {
        tn_mon_store_exec(st, STMT_ROLLBACK, "rollback", NULL);
        tn_mon_store_series_lost(st);
        return -1;
    }
    if (status == 0) {
        tn_mon_store_ok(st);
    }
    return status;
}

int tn_mon_store_rollback(tn_mon_store_t *st)
{
    if (!st->in_tx) {
        tn_mon_store_fail(st, "rollback without begin", 0);
        return -1;
    }
    st->in_tx = 0;
    tn_mon_store_series_lost(st);
    if (!sqlite3_get_autocommit(st->db) &&
        tn_mon_store_exec(st, STMT_ROLLBACK, "rollback", NULL) != 0) {
        return -1;
    }
    return 0;
}

void tn_mon_store_stats(const tn_mon_store_t *st, tn_mon_store_stats_t *stats)
{
    *stats        = st->stats;
    stats->series = st->tab_count;
}

int tn_mon_store_size(tn_mon_store_t *st, uint64_t *bytes_p)
{
    sqlite3_stmt *s = st->stmt[STMT_SIZE];
    int           rc = sqlite3_step(s);

    if (rc == SQLITE_ROW) {
        *bytes_p = (uint64_t)sqlite3_column_int64(s, 0);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW) {
        tn_mon_store_fail(st, "size", 1);
        return -1;
    }
    return 0;
}

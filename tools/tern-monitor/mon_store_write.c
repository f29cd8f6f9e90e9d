/* tern-monitor's store: writing a minute of a series (mon_store.h's
 * design note; rows: mon_store_int.h).  Three rows: its samples
 * (samples_raw, usually a plain insert; merged into the row there when
 * late samples or a restart made one), its aggregate merged into the
 * hour's row of minutes (samples_1m) and into the day's row of hours
 * (samples_1h).  A merge reads the row, decodes it, adds, encodes it
 * again: rows are small (at most 60 or 24 aggregates, a minute of
 * samples), and nothing of them is kept in memory between minutes. */
#include "mon_store_int.h"

#include <string.h>

/* Encode n records of a level's row based at base into st->blob. */
static long rows_encode(tn_mon_store_t *st, int level, int64_t base, const tn_mon_rec_t *recs, size_t n)
{
    const store_level_t *l = &tn_mon_store_levels[level];
    tn_mon_rec_state_t   s;
    size_t               len = 0;

    if (tn_mon_store_blob_room(st, 1 + n * TN_MON_REC_BYTES_MAX) != 0) {
        return -1;
    }
    tn_mon_rec_start(&s, l->nfields, base, l->slot_ms);
    for (size_t i = 0; i < n; i++) {
        int m = tn_mon_rec_put(&s, &recs[i], st->blob + len);
        if (m < 0) {
            tn_mon_store_fail(st, "records out of order", 0);
            return -1;
        }
        len += (size_t)m;
    }
    return (long)len;
}

/* Write row k of level with data, replacing what is there. */
static int row_put(tn_mon_store_t *st, int level, int64_t k, const void *data, size_t len)
{
    sqlite3_stmt *s = st->stmt[tn_mon_store_levels[level].put];

    sqlite3_bind_int64(s, 1, k);
    sqlite3_bind_blob(s, 2, data, (int)len, SQLITE_STATIC);
    return tn_mon_store_exec(st, tn_mon_store_levels[level].put, "writing samples", NULL);
}

/* Read row k of level into st->recs from index at on.  Count (0: no
 * row, or a damaged one, which the write that follows replaces), or -1. */
static long row_get(tn_mon_store_t *st, int level, int64_t k, size_t at)
{
    int           stmt = tn_mon_store_levels[level].get;
    sqlite3_stmt *s    = st->stmt[stmt];
    long          n    = 0;
    int           rc;

    sqlite3_bind_int64(s, 1, k);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        /* the column's memory lasts until the reset below */
        const void *data = sqlite3_column_blob(s, 0);
        n = tn_mon_store_row_decode(st, level, k, data, (size_t)sqlite3_column_bytes(s, 0), at);
        n = n < 0 ? 0 : n;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading samples", 1);
        return -1;
    }
    return n;
}

/* Merge an aggregate record into row k of a rollup level. */
static int agg_merge(tn_mon_store_t *st, int level, int64_t k, const tn_mon_rec_t *r)
{
    int64_t base = (k >> 32) * tn_mon_store_levels[level].slot_ms;
    long    n    = row_get(st, level, k, 0), i, len;

    if (n < 0 || tn_mon_store_recs_room(st, (size_t)n + 1) != 0) {
        return -1;
    }
    for (i = 0; i < n && st->recs[i].t < r->t; i++) {
    }
    if (i < n && st->recs[i].t == r->t) {
        tn_mon_rec_t *a = &st->recs[i];
        a->f[0] += r->f[0];
        a->f[1] += r->f[1];
        a->f[2] = r->f[2] < a->f[2] ? r->f[2] : a->f[2];
        a->f[3] = r->f[3] > a->f[3] ? r->f[3] : a->f[3];
    } else {
        memmove(&st->recs[i + 1], &st->recs[i], (size_t)(n - i) * sizeof(*r));
        st->recs[i] = *r;
        n++;
    }
    len = rows_encode(st, level, base, st->recs, (size_t)n);
    return len < 0 ? -1 : row_put(st, level, k, st->blob, (size_t)len);
}

int tn_mon_store_minute_write(tn_mon_store_t *st, store_series_t *s, int64_t minute, const void *data,
                        size_t len, const tn_mon_rec_t *agg)
{
    int64_t       k = tn_mon_store_key_of(minute / STORE_MINUTE_MS, s->id);
    sqlite3_stmt *ins = st->stmt[STMT_RAW_INS];
    tn_mon_rec_t  r = *agg;
    int           rc;

    sqlite3_bind_int64(ins, 1, k);
    sqlite3_bind_blob(ins, 2, data, (int)len, SQLITE_STATIC);
    if (tn_mon_store_exec(st, STMT_RAW_INS, "writing samples", &rc) != 0) {
        long a, b, m;
        if (rc != SQLITE_CONSTRAINT_PRIMARYKEY) {
            tn_mon_store_fail(st, "writing samples", 1);
            return -1;
        }
        /* the minute has a row already (late samples, a restart): merge */
        st->stats.late++;
        a = row_get(st, LEVEL_RAW, k, 0);
        if (a < 0 || (b = tn_mon_store_row_decode(st, LEVEL_RAW, k, data, len, (size_t)a)) < 0) {
            return -1;
        }
        tn_mon_store_recs_sort(st->recs, (size_t)(a + b));
        m = rows_encode(st, LEVEL_RAW, minute, st->recs, (size_t)(a + b));
        if (m < 0 || row_put(st, LEVEL_RAW, k, st->blob, (size_t)m) != 0) {
            return -1;
        }
    }
    r.t = minute;
    if (agg_merge(st, LEVEL_1M, tn_mon_store_key_of(minute / STORE_HOUR_MS, s->id), &r) != 0) {
        return -1;
    }
    r.t = minute - minute % STORE_HOUR_MS;
    if (agg_merge(st, LEVEL_1H, tn_mon_store_key_of(minute / STORE_DAY_MS, s->id), &r) != 0) {
        return -1;
    }
    st->stats.minutes++;
    /* series.last_ms only says when all rows are past retention: hourly
     * is precise enough */
    if (s->touched_ms < 0 || minute >= s->touched_ms + STORE_HOUR_MS) {
        return tn_mon_store_series_put(st, s, minute);
    }
    return 0;
}

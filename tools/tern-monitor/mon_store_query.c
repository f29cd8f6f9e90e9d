/* tern-monitor's store: reading a series back at the resolution a range
 * needs (mon_store.h, tn_mon_store_query). */
#include "mon_store_int.h"

#include <math.h>
#include <string.h>

/* Points go out one by one, or merged into buckets of step ms. */
typedef struct {
    int64_t                 step;
    int                     have, stop;
    double                  sum;
    tn_mon_store_point_t    p;
    tn_mon_store_point_fn_t cb;
    void                   *arg;
    int                     count;
} emit_t;

static void emit_point(emit_t *e, const tn_mon_store_point_t *p)
{
    if (!e->stop) {
        e->count++;
        e->stop = e->cb(e->arg, p) != 0;
    }
}

static void emit_flush(emit_t *e)
{
    if (e->have) {
        e->p.avg = e->sum / (double)e->p.n;
        emit_point(e, &e->p);
        e->have = 0;
    }
}

/* Records of [t, t + res): n values, their sum, min and max. */
static void emit(emit_t *e, int64_t t, int64_t res, double n, double sum, double min, double max)
{
    if (e->step <= res) {
        tn_mon_store_point_t p = { .t_ms = t, .res_ms = res, .n = (uint64_t)n,
                                   .avg = sum / n, .min = min, .max = max };
        emit_point(e, &p);
        return;
    }
    int64_t b = t - t % e->step;
    if (e->have && b != e->p.t_ms) {
        emit_flush(e);
    }
    if (!e->have) {
        e->have     = 1;
        e->sum      = 0;
        e->p        = (tn_mon_store_point_t){ .t_ms = b, .res_ms = e->step, .min = INFINITY,
                                              .max = -INFINITY };
    }
    e->p.n += (uint64_t)n;
    e->sum += sum;
    e->p.min = min < e->p.min ? min : e->p.min;
    e->p.max = max > e->p.max ? max : e->p.max;
}

/* The id of key's series: from memory, else from the database without
 * adding it.  1 found, 0 not, -1 error. */
static int series_id(tn_mon_store_t *st, const char *key, int64_t *id_p, store_series_t **s_p)
{
    size_t          len = strlen(key);
    store_series_t *s   = tn_mon_store_series_find(st, key, len);
    sqlite3_stmt   *q   = st->stmt[STMT_SERIES_GET];
    int             rc;

    *s_p = s;
    if (s != NULL) {
        *id_p = s->id;
        return 1;
    }
    sqlite3_bind_text(q, 1, key, (int)len, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *id_p = sqlite3_column_int64(q, 0);
    }
    sqlite3_reset(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading series", 1);
        return -1;
    }
    return rc == SQLITE_ROW;
}

/* Row k of level appended to st->recs from at on; count or -1. */
static long query_row(tn_mon_store_t *st, int level, int64_t k, size_t at)
{
    sqlite3_stmt *s = st->stmt[tn_mon_store_levels[level].get];
    long          n = 0;
    int           rc;

    sqlite3_bind_int64(s, 1, k);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        n = tn_mon_store_row_decode(st, level, k, sqlite3_column_blob(s, 0),
                                    (size_t)sqlite3_column_bytes(s, 0), at);
        n = n < 0 ? 0 : n;     /* a damaged row is logged and skipped */
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading samples", 1);
        return -1;
    }
    return n;
}

static int query_level(tn_mon_store_t *st, int64_t clock, int64_t from, int64_t step)
{
    const int64_t keep[LEVEL_COUNT] = { st->policy.raw_s, st->policy.minute_s, st->policy.hour_s };
    int           level = -1;

    /* the coarsest kept at from that is no coarser than step ... */
    for (int l = 0; l < LEVEL_COUNT; l++) {
        if (from >= clock - keep[l] * 1000 && tn_mon_store_levels[l].res_ms <= step) {
            level = l;
        }
    }
    /* ... else the finest kept, else hours */
    for (int l = 0; level < 0 && l < LEVEL_COUNT; l++) {
        if (from >= clock - keep[l] * 1000) {
            level = l;
        }
    }
    return level < 0 ? LEVEL_1H : level;
}

int tn_mon_store_query(tn_mon_store_t *st, const char *key, int64_t from_ms, int64_t to_ms,
                       int64_t step_ms, tn_mon_store_point_fn_t cb, void *arg)
{
    int64_t         clock = st->now_ms > st->max_t ? st->now_ms : st->max_t;
    int64_t         id, slot_ms, res;
    store_series_t *s;
    emit_t          e = { .step = step_ms > 0 ? step_ms : 0, .cb = cb, .arg = arg };
    int             level, found = series_id(st, key, &id, &s);

    if (found <= 0) {
        return found;
    }
    level   = query_level(st, clock, from_ms, e.step);
    slot_ms = tn_mon_store_levels[level].slot_ms;
    res     = tn_mon_store_levels[level].res_ms;
    /* nothing lies past the latest sample, or before what the coarsest
     * level keeps: the loop over slots stays bounded */
    if (from_ms < clock - st->policy.hour_s * 1000 - STORE_DAY_MS) {
        from_ms = clock - st->policy.hour_s * 1000 - STORE_DAY_MS;
    }
    from_ms = from_ms < 0 ? 0 : from_ms;
    to_ms   = to_ms > clock + slot_ms ? clock + slot_ms : to_ms;
    for (int64_t slot = from_ms / slot_ms; slot * slot_ms < to_ms && !e.stop; slot++) {
        long n = query_row(st, level, tn_mon_store_key_of(slot, id), 0);
        if (n < 0) {
            return -1;
        }
        /* the minutes still in memory */
        for (int c = 0; level == LEVEL_RAW && s != NULL && c < 2; c++) {
            const store_chunk_t *ch = c == 0 ? &s->prev : &s->cur;
            if (ch->minute == slot * slot_ms) {
                long m = tn_mon_store_row_decode(st, LEVEL_RAW, tn_mon_store_key_of(slot, 0),
                                                 ch->buf.data, ch->buf.len, (size_t)n);
                n += m > 0 ? m : 0;
            }
        }
        tn_mon_store_recs_sort(st->recs, (size_t)n);
        for (long i = 0; i < n && !e.stop; i++) {
            const tn_mon_rec_t *r = &st->recs[i];
            if ((res == 0 ? r->t < from_ms : r->t + res <= from_ms) || r->t >= to_ms) {
                continue;
            }
            if (level == LEVEL_RAW) {
                emit(&e, r->t, 0, 1, r->f[0], r->f[0], r->f[0]);
            } else {
                emit(&e, r->t, res, r->f[0], r->f[1], r->f[2], r->f[3]);
            }
        }
    }
    emit_flush(&e);
    return e.count;
}

/* tern-monitor's store: series in memory and the writing of their
 * minutes (mon_store.h's design note; rows: mon_store_int.h).
 *
 * Each series holds at most two minutes in memory: the one its samples go
 * to (cur), and the one before (prev), written (mon_store_write.c) when
 * the queue of ended minutes reaches it.  A minute ends when the series'
 * first sample of a later minute comes, or when maintain finds it past.
 * The map from keys to series is mon_store_map.c. */
#include "mon_store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tn_mon_store_recs_sort(tn_mon_rec_t *recs, size_t n)
{
    /* rows are sorted runs (a row and a late piece): insertion sort is
     * linear in them */
    for (size_t i = 1; i < n; i++) {
        tn_mon_rec_t r = recs[i];
        size_t       j = i;
        while (j > 0 && recs[j - 1].t > r.t) {
            recs[j] = recs[j - 1];
            j--;
        }
        recs[j] = r;
    }
}

/* ------------------------------------------------------------- chunks */

static void chunk_start(store_chunk_t *c, int64_t minute)
{
    c->minute = minute;
    tn_mon_rec_start(&c->enc, 1, minute, STORE_MINUTE_MS);
    tn_mon_buf_reset(&c->buf);
    c->n   = 0;
    c->sum = 0;
    c->min = INFINITY;
    c->max = -INFINITY;
}

static void chunk_agg(store_chunk_t *c, double v)
{
    c->n++;
    c->sum += v;
    c->min = v < c->min ? v : c->min;
    c->max = v > c->max ? v : c->max;
}

/* Append a sample at or after the chunk's last. */
static int chunk_add(tn_mon_store_t *st, store_chunk_t *c, int64_t t, double v)
{
    tn_mon_rec_t r = { .t = t, .f = { v } };
    int          m;

    if (tn_mon_buf_reserve(&c->buf, TN_MON_REC_BYTES_MAX + 1) != 0) {
        tn_mon_store_fail(st, "out of memory", 0);
        return -1;
    }
    m = tn_mon_rec_put(&c->enc, &r, (uint8_t *)c->buf.data + c->buf.len);
    if (m < 0) {
        tn_mon_store_fail(st, "a sample outside its minute", 0);
        return -1;
    }
    c->buf.len += (size_t)m;
    chunk_agg(c, v);
    return 0;
}

/* Insert a sample earlier than the chunk's last: decode, insert, encode
 * again (rare: samples of one series come in order). */
static int chunk_insert(tn_mon_store_t *st, store_chunk_t *c, int64_t t, double v)
{
    long     n = tn_mon_store_row_decode(st, LEVEL_RAW, tn_mon_store_key_of(c->minute / STORE_MINUTE_MS, 0),
                                         c->buf.data, c->buf.len, 0);
    uint64_t agg_n = c->n;
    double   sum = c->sum, min = c->min, max = c->max;

    if (n < 0 || tn_mon_store_recs_room(st, (size_t)n + 1) != 0) {
        return -1;
    }
    st->recs[n] = (tn_mon_rec_t){ .t = t, .f = { v } };
    tn_mon_store_recs_sort(st->recs, (size_t)n + 1);
    chunk_start(c, c->minute);
    for (long i = 0; i <= n; i++) {
        if (chunk_add(st, c, st->recs[i].t, st->recs[i].f[0]) != 0) {
            return -1;
        }
    }
    /* the aggregate as it was, and the new sample */
    c->n = agg_n, c->sum = sum, c->min = min, c->max = max;
    chunk_agg(c, v);
    return 0;
}

/* Write chunk c of s and empty it, whatever the outcome: a minute that
 * cannot be written is dropped, not tried again and again. */
static int chunk_write(tn_mon_store_t *st, store_series_t *s, store_chunk_t *c)
{
    tn_mon_rec_t agg = { .f = { (double)c->n, c->sum, c->min, c->max } };
    int          rc  = tn_mon_store_minute_write(st, s, c->minute, c->buf.data, c->buf.len, &agg);

    c->minute = -1;
    tn_mon_buf_reset(&c->buf);
    return rc;
}

static void queue_push(tn_mon_store_t *st, store_series_t *s)
{
    if (s->queued) {
        return;
    }
    s->queued = 1;
    s->next_q = NULL;
    if (st->q_tail != NULL) {
        st->q_tail->next_q = s;
    } else {
        st->q_head = s;
    }
    st->q_tail = s;
    st->q_len++;
}

/* cur's minute is over: it waits in prev (the one there is written first). */
static int chunk_end(tn_mon_store_t *st, store_series_t *s)
{
    store_chunk_t tmp;
    int           rc = 0;

    if (s->prev.minute >= 0) {
        rc = chunk_write(st, s, &s->prev);
    }
    tmp     = s->prev;
    s->prev = s->cur;
    s->cur  = tmp;      /* its buffer is reused for the next minute */
    queue_push(st, s);
    return rc;
}

int tn_mon_store_drain(tn_mon_store_t *st, size_t max)
{
    while (max > 0 && st->q_head != NULL) {
        store_series_t *s = st->q_head;
        st->q_head = s->next_q;
        if (st->q_head == NULL) {
            st->q_tail = NULL;
        }
        s->queued = 0;
        st->q_len--;
        if (s->prev.minute >= 0) {
            max--;
            if (chunk_write(st, s, &s->prev) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

int tn_mon_store_drain_paced(tn_mon_store_t *st, int64_t now)
{
    int64_t elapsed = st->drain_t > 0 && now > st->drain_t ? now - st->drain_t : 0;
    size_t  quota   = TN_MON_STORE_FLUSH_MIN;

    /* the head's minute is the oldest waiting (series written early, at
     * a second ending of their minute, leave an empty entry: skipped) */
    while (st->q_head != NULL && st->q_head->prev.minute < 0) {
        if (tn_mon_store_drain(st, 1) != 0) {
            return -1;
        }
    }
    if (now > st->drain_t) {
        st->drain_t = now;
    }
    if (st->q_head == NULL) {
        return 0;
    }
    int64_t left = st->q_head->prev.minute + STORE_MINUTE_MS + TN_MON_STORE_FLUSH_S * 1000 - now;
    if (left <= elapsed) {
        quota = st->q_len;
    } else if (elapsed > 0) {
        /* the rate that empties the queue by the head's target */
        size_t q = (size_t)((double)st->q_len * (double)elapsed / (double)left) + 1;
        quota    = q > quota ? q : quota;
    }
    return tn_mon_store_drain(st, quota);
}

int tn_mon_store_close_minutes(tn_mon_store_t *st, int64_t now, int all)
{
    int status = 0;

    for (size_t i = 0; i < st->tab_cap; i++) {
        store_series_t *s = st->tab[i];
        if (s != NULL && s->cur.minute >= 0 &&
            (all || s->cur.minute + STORE_MINUTE_MS + TN_MON_STORE_GRACE_MS <= now) &&
            chunk_end(st, s) != 0) {
            status = -1;
        }
    }
    return status;
}

int tn_mon_store_sample(tn_mon_store_t *st, const char *key, int64_t t_ms, double v)
{
    size_t          len = strlen(key);
    int64_t         minute = t_ms - t_ms % STORE_MINUTE_MS;
    store_series_t *s;

    if (t_ms < 0 || t_ms >= STORE_T_MAX || len == 0 || len > TN_MON_KEY_MAX) {
        char what[96];
        snprintf(what, sizeof(what), "sample refused: time %lld or key length %zu out of range",
                 (long long)t_ms, len);
        tn_mon_store_fail(st, what, 0);
        return -1;
    }
    /* what retention would delete at once is not kept, nor what lies so
     * far ahead that it would move the store's clock (a node's clock
     * gone wrong) */
    if (!isfinite(v) || (st->now_ms > 0 && (t_ms < st->now_ms - st->policy.raw_s * 1000 ||
                                            t_ms > st->now_ms + STORE_AHEAD_MS))) {
        st->stats.dropped++;
        return 0;
    }
    s = tn_mon_store_series_get(st, key, len, t_ms);
    if (s == NULL) {
        return -1;
    }
    st->max_t = t_ms > st->max_t ? t_ms : st->max_t;
    s->last_t = t_ms > s->last_t ? t_ms : s->last_t;
    store_chunk_t *c = NULL;
    if (minute == s->prev.minute) {
        c = &s->prev;
    } else if (minute == s->cur.minute) {
        c = &s->cur;
    } else if (minute > s->top_minute) {
        if (s->cur.minute >= 0 && chunk_end(st, s) != 0) {
            return -1;
        }
        chunk_start(&s->cur, minute);
        s->top_minute = minute;
        c = &s->cur;
    }
    if (c != NULL) {
        if (c->n >= STORE_MINUTE_SAMPLES) {
            st->stats.dropped++;
            return 0;
        }
        st->stats.samples++;
        return t_ms >= c->enc.t ? chunk_add(st, c, t_ms, v) : chunk_insert(st, c, t_ms, v);
    }
    /* a minute already written (or in the queue of minutes to write
     * while a later one is open): merged into its rows */
    uint8_t            one[TN_MON_REC_BYTES_MAX + 1];
    tn_mon_rec_state_t enc;
    tn_mon_rec_t       r = { .t = t_ms, .f = { v } }, agg = { .f = { 1, v, v, v } };
    int                m;

    tn_mon_rec_start(&enc, 1, minute, STORE_MINUTE_MS);
    m = tn_mon_rec_put(&enc, &r, one);
    st->stats.samples++;
    return m < 0 ? -1 : tn_mon_store_minute_write(st, s, minute, one, (size_t)m, &agg);
}

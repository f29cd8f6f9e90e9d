/* tern-monitor's store: the series known in memory, by key (open
 * addressing, linear probing, FNV-1a), their ids and their rows in the
 * series table.  A series leaves memory after STORE_IDLE_MS without
 * samples, and comes back from the database when it sends again. */
#include "mon_store_int.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a */

    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint8_t)k[i]) * 0x100000001b3ULL;
    }
    return h;
}

static int tab_put(store_series_t **tab, size_t cap, store_series_t *s)
{
    size_t i = s->hash & (cap - 1);

    while (tab[i] != NULL) {
        i = (i + 1) & (cap - 1);
    }
    tab[i] = s;
    return 0;
}

/* A table of cap slots holding the series of the old one that keep(). */
static int tab_rebuild(tn_mon_store_t *st, size_t cap, int64_t evict_before)
{
    store_series_t **tab = calloc(cap, sizeof(*tab));
    size_t           count = 0;

    if (tab == NULL) {
        tn_mon_store_fail(st, "out of memory", 0);
        return -1;
    }
    for (size_t i = 0; i < st->tab_cap; i++) {
        store_series_t *s = st->tab[i];
        if (s == NULL) {
            continue;
        }
        if (!s->queued && s->cur.minute < 0 && s->prev.minute < 0 && s->last_t < evict_before) {
            tn_mon_buf_free(&s->cur.buf);
            tn_mon_buf_free(&s->prev.buf);
            free(s);
            continue;
        }
        tab_put(tab, cap, s);
        count++;
    }
    free(st->tab);
    st->tab       = tab;
    st->tab_cap   = cap;
    st->tab_count = count;
    return 0;
}

void tn_mon_store_evict(tn_mon_store_t *st, int64_t now)
{
    size_t idle = 0;

    for (size_t i = 0; i < st->tab_cap; i++) {
        store_series_t *s = st->tab[i];
        idle += s != NULL && !s->queued && s->cur.minute < 0 && s->prev.minute < 0 &&
                s->last_t < now - STORE_IDLE_MS;
    }
    if (idle > 0) {
        tab_rebuild(st, st->tab_cap, now - STORE_IDLE_MS);
    }
}

void tn_mon_store_series_free_all(tn_mon_store_t *st)
{
    for (size_t i = 0; i < st->tab_cap; i++) {
        store_series_t *s = st->tab[i];
        if (s != NULL) {
            tn_mon_buf_free(&s->cur.buf);
            tn_mon_buf_free(&s->prev.buf);
            free(s);
        }
    }
    free(st->tab);
    st->tab = NULL;
    st->tab_cap = st->tab_count = 0;
}

store_series_t *tn_mon_store_series_find(tn_mon_store_t *st, const char *key, size_t len)
{
    uint64_t h = key_hash(key, len);

    for (size_t i = st->tab_cap ? h & (st->tab_cap - 1) : 0; st->tab_cap && st->tab[i] != NULL;
         i = (i + 1) & (st->tab_cap - 1)) {
        store_series_t *s = st->tab[i];
        if (s->hash == h && s->key_len == len && memcmp(s->key, key, len) == 0) {
            return s;
        }
    }
    return NULL;
}

int tn_mon_store_series_put(tn_mon_store_t *st, store_series_t *s, int64_t t)
{
    sqlite3_stmt *q = st->stmt[STMT_SERIES_PUT];

    sqlite3_bind_int64(q, 1, s->id);
    sqlite3_bind_text(q, 2, s->key, (int)s->key_len, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, t);
    if (tn_mon_store_exec(st, STMT_SERIES_PUT, "writing a series", NULL) != 0) {
        return -1;
    }
    s->touched_ms = t;
    return 0;
}

void tn_mon_store_series_lost(tn_mon_store_t *st)
{
    for (size_t i = 0; i < st->tab_cap; i++) {
        if (st->tab[i] != NULL) {
            st->tab[i]->touched_ms = -1;
        }
    }
}

/* The series of key, from memory, else from the database, else new;
 * touched at t.  Ids are given here, never reused in a process (not
 * after a rolled-back transaction either: that one's series rows are
 * written again, tn_mon_store_series_lost). */
store_series_t *tn_mon_store_series_get(tn_mon_store_t *st, const char *key, size_t len, int64_t t)
{
    store_series_t *s = tn_mon_store_series_find(st, key, len);
    sqlite3_stmt   *q = st->stmt[STMT_SERIES_GET];
    int64_t         id = -1;
    int             rc;

    if (s != NULL) {
        return s;
    }
    if ((st->tab_count + 1) * 10 > st->tab_cap * 7 &&
        tab_rebuild(st, st->tab_cap ? st->tab_cap * 2 : 1024, INT64_MIN) != 0) {
        return NULL;
    }
    sqlite3_bind_text(q, 1, key, (int)len, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        id = sqlite3_column_int64(q, 0);
    }
    sqlite3_reset(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading series", 1);
        return NULL;
    }
    if (id < 0) {
        id = st->next_id;
    }
    if (id < 1 || id > STORE_SERIES_MAX) {
        tn_mon_store_fail(st, "series ids are used up (2^32)", 0);
        return NULL;
    }
    s = calloc(1, sizeof(*s) + len + 1);
    if (s == NULL) {
        tn_mon_store_fail(st, "out of memory", 0);
        return NULL;
    }
    s->key = (char *)(s + 1);
    memcpy(s->key, key, len);
    s->key_len    = len;
    s->hash       = key_hash(key, len);
    s->id         = id;
    s->cur.minute = s->prev.minute = s->top_minute = -1;
    s->last_t     = t;
    /* written (or touched, when found again) at once, so that the hourly
     * clean-up cannot take it while its first minute is in memory */
    if (tn_mon_store_series_put(st, s, t) != 0) {
        free(s);
        return NULL;
    }
    if (id == st->next_id) {
        st->next_id++;
    }
    tab_put(st->tab, st->tab_cap, s);
    st->tab_count++;
    return s;
}

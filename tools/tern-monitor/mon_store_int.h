/* Inside tern-monitor's store (mon_store.h): the shared state of its
 * files.  mon_store.c opens, closes and logs, mon_store_schema.c makes
 * and checks the schema; mon_store_map.c maps keys to series,
 * mon_store_series.c keeps their minutes in memory, mon_store_write.c
 * writes the minutes to the database, mon_store_query.c reads them back;
 * mon_store_maint.c deletes what the policy no longer keeps;
 * mon_store_job.c holds jobs, matrices and alerts.
 *
 * Rows of samples are keyed k = slot << 32 | series id, slot being the
 * row's minute (samples_raw), hour (samples_1m) or day (samples_1h) since
 * the epoch: time first, so that the rows written each minute append at
 * the end of the B-tree and retention deletes a prefix; a series' range
 * is read with one lookup per slot. */
#ifndef TN_MON_STORE_INT_H
#define TN_MON_STORE_INT_H

#include "mon_buf.h"
#include "mon_store.h"

#include <sqlite3.h>

#define STORE_MINUTE_MS   60000LL
#define STORE_HOUR_MS     3600000LL
#define STORE_DAY_MS      86400000LL
#define STORE_T_MAX       (1LL << 46)       /* times at or past this are refused (year 4199) */
#define STORE_SERIES_MAX  0xffffffffLL      /* ids fit the low 32 bits of a key */
#define STORE_MINUTE_SAMPLES 6000           /* samples a series keeps per minute (100/s) */
#define STORE_ROW_MAX     (1 << 20)         /* a sample row's bytes; past it: damaged */
#define STORE_IDLE_MS     600000LL          /* series idle this long leave memory */
#define STORE_AHEAD_MS    3600000LL         /* samples further ahead of the clock are dropped */

/* The statements, prepared once at open.  Every value is a parameter. */
#define STORE_STMTS(X) \
    X(BEGIN, "BEGIN") \
    X(COMMIT, "COMMIT") \
    X(ROLLBACK, "ROLLBACK") \
    X(SERIES_GET, "SELECT id FROM series WHERE key = ?1") \
    X(SERIES_PUT, "INSERT INTO series(id, key, first_ms, last_ms) VALUES (?1, ?2, ?3, ?3) " \
                  "ON CONFLICT(id) DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)") \
    X(SERIES_GC, "DELETE FROM series WHERE id IN " \
                 "(SELECT id FROM series WHERE last_ms < ?1 ORDER BY last_ms LIMIT ?2)") \
    X(RAW_GET, "SELECT data FROM samples_raw WHERE k = ?1") \
    X(RAW_INS, "INSERT INTO samples_raw(k, data) VALUES (?1, ?2)") \
    X(RAW_PUT, "INSERT OR REPLACE INTO samples_raw(k, data) VALUES (?1, ?2)") \
    X(RAW_DEL, "DELETE FROM samples_raw WHERE k IN " \
               "(SELECT k FROM samples_raw WHERE k < ?1 ORDER BY k LIMIT ?2)") \
    X(M1_GET, "SELECT data FROM samples_1m WHERE k = ?1") \
    X(M1_INS, "INSERT INTO samples_1m(k, data) VALUES (?1, ?2)") \
    X(M1_PUT, "INSERT OR REPLACE INTO samples_1m(k, data) VALUES (?1, ?2)") \
    X(M1_DEL, "DELETE FROM samples_1m WHERE k IN " \
              "(SELECT k FROM samples_1m WHERE k < ?1 ORDER BY k LIMIT ?2)") \
    X(H1_GET, "SELECT data FROM samples_1h WHERE k = ?1") \
    X(H1_INS, "INSERT INTO samples_1h(k, data) VALUES (?1, ?2)") \
    X(H1_PUT, "INSERT OR REPLACE INTO samples_1h(k, data) VALUES (?1, ?2)") \
    X(H1_DEL, "DELETE FROM samples_1h WHERE k IN " \
              "(SELECT k FROM samples_1h WHERE k < ?1 ORDER BY k LIMIT ?2)") \
    X(JOB_PUT, "INSERT OR REPLACE INTO job(id, program, uid, ranks, nodes, state, start_ms, " \
               "end_ms, bytes, msgs) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)") \
    X(JOB_GET, "SELECT id, program, uid, ranks, nodes, state, start_ms, end_ms, bytes, msgs " \
               "FROM job WHERE id = ?1") \
    X(JOBS, "SELECT id, program, uid, ranks, nodes, state, start_ms, end_ms, bytes, msgs " \
            "FROM job WHERE start_ms < ?1 ORDER BY start_ms DESC, id DESC LIMIT ?2") \
    X(JOB_GC_MAT, "DELETE FROM job_matrix WHERE job_id IN (SELECT id FROM job WHERE end_ms > 0 " \
                  "AND end_ms < ?1 ORDER BY end_ms, id LIMIT ?2)") \
    X(JOB_GC, "DELETE FROM job WHERE id IN (SELECT id FROM job WHERE end_ms > 0 " \
              "AND end_ms < ?1 ORDER BY end_ms, id LIMIT ?2)") \
    X(MAT_PUT, "INSERT OR REPLACE INTO job_matrix(job_id, level, n, labels, cells) " \
               "VALUES (?1, ?2, ?3, ?4, ?5)") \
    X(MAT_GET, "SELECT n, labels, cells FROM job_matrix WHERE job_id = ?1 AND level = ?2") \
    X(ALERT_PUT, "INSERT OR REPLACE INTO alert(id, rule, severity, target, state, since_ms, " \
                 "resolved_ms, value, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)") \
    X(ALERTS, "SELECT id, rule, severity, target, state, since_ms, resolved_ms, value, message " \
              "FROM alert ORDER BY since_ms DESC, id DESC LIMIT ?1") \
    X(ALERT_GC, "DELETE FROM alert WHERE id IN (SELECT id FROM alert WHERE resolved_ms > 0 " \
                "AND resolved_ms < ?1 ORDER BY resolved_ms LIMIT ?2)") \
    X(SIZE, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")

enum {
#define STORE_STMT_ENUM(name, sql) STMT_##name,
    STORE_STMTS(STORE_STMT_ENUM)
#undef STORE_STMT_ENUM
    STMT_COUNT
};

/* The three tables of samples, by level. */
enum { LEVEL_RAW, LEVEL_1M, LEVEL_1H, LEVEL_COUNT };
typedef struct {
    int     get, ins, put, del;   /* statements */
    int64_t slot_ms;              /* a row's span of time */
    int64_t res_ms;               /* a record's: 0 raw samples */
    int     nfields;
} store_level_t;
extern const store_level_t tn_mon_store_levels[LEVEL_COUNT];

/* A minute of one series' samples, encoded as samples_raw stores them,
 * with its aggregate. */
typedef struct {
    int64_t            minute;    /* its start, ms; -1: empty */
    tn_mon_rec_state_t enc;       /* where the encoding stands */
    tn_mon_buf_t       buf;       /* the encoded samples */
    uint64_t           n;
    double             sum, min, max;
} store_chunk_t;

typedef struct store_series store_series_t;
struct store_series {
    uint64_t        hash;
    int64_t         id;
    char           *key;
    size_t          key_len;
    store_chunk_t   cur;          /* the minute samples go to */
    store_chunk_t   prev;         /* the minute before, waiting to be written */
    int64_t         top_minute;   /* the latest minute begun; -1: none yet */
    int64_t         last_t;       /* the latest sample's time */
    int64_t         touched_ms;   /* series.last_ms as last written; -1: to write */
    store_series_t *next_q;       /* in the queue of minutes to write */
    int             queued;
};

struct tn_mon_store {
    sqlite3               *db;
    sqlite3_stmt          *stmt[STMT_COUNT];
    tn_mon_store_policy_t  policy;
    int                    in_tx;
    int64_t                next_id;     /* the next new series' id */
    int64_t                now_ms;      /* maintain's clock */
    int64_t                max_t;       /* the latest sample seen */

    store_series_t       **tab;         /* open addressing, power of two */
    size_t                 tab_cap, tab_count;
    store_series_t        *q_head, *q_tail;   /* series with a minute to write */
    size_t                 q_len;
    int64_t                drain_t;     /* the clock at the last paced drain */

    tn_mon_rec_t          *recs;        /* scratch for decoded rows */
    size_t                 recs_cap;
    uint8_t               *blob;        /* scratch for encoded rows */
    size_t                 blob_cap;

    tn_mon_store_stats_t   stats;
    int                    err_code;    /* of the failure logged last; 0: none pending */
    uint64_t               err_repeats; /* failures like it not logged */
};

/* Make the schema of a new file, or check an old one's (mon_store_schema.c).
 * 0 or -1 (logged). */
int tn_mon_store_schema(tn_mon_store_t *st, const char *path);
/* The integer answer of a fixed query.  0 or -1 (logged). */
int tn_mon_store_int(tn_mon_store_t *st, const char *sql, int64_t *v_p);

/* Log a failure of what (SQLite's message added when sqlite is set);
 * repeats of one failure are counted until tn_mon_store_ok(). */
void tn_mon_store_fail(tn_mon_store_t *st, const char *what, int sqlite);
void tn_mon_store_ok(tn_mon_store_t *st);
/* Make sure the scratch holds n records / n bytes.  0 or -1. */
int tn_mon_store_recs_room(tn_mon_store_t *st, size_t n);
int tn_mon_store_blob_room(tn_mon_store_t *st, size_t n);
/* Run a statement to its end (bound by the caller, reset here).  0 or -1
 * (logged with what); *rc_p (may be NULL) gets SQLite's result. */
int tn_mon_store_exec(tn_mon_store_t *st, int stmt, const char *what, int *rc_p);

/* Write series s's row (created, or its last_ms moved on to t).  0 or -1. */
int tn_mon_store_series_put(tn_mon_store_t *st, store_series_t *s, int64_t t);
/* A transaction was lost: the series rows it made or moved are written
 * again by their next minute. */
void tn_mon_store_series_lost(tn_mon_store_t *st);

/* Write a minute of series s: its samples (encoded as samples_raw holds
 * them) and its aggregate (count, sum, min, max in agg->f; agg->t is
 * not used).  0 or -1 (mon_store_write.c). */
int tn_mon_store_minute_write(tn_mon_store_t *st, store_series_t *s, int64_t minute,
                              const void *data, size_t len, const tn_mon_rec_t *agg);

/* The map of series (mon_store_map.c): find one in memory; get one from
 * memory, else the database, else a new one (touched at t; NULL and
 * logged on failure). */
store_series_t *tn_mon_store_series_find(tn_mon_store_t *st, const char *key, size_t len);
store_series_t *tn_mon_store_series_get(tn_mon_store_t *st, const char *key, size_t len, int64_t t);
/* Forget idle series (not queued, nothing in memory).  */
void tn_mon_store_evict(tn_mon_store_t *st, int64_t now);
void tn_mon_store_series_free_all(tn_mon_store_t *st);

/* Minutes (mon_store_series.c). */
/* Write the waiting minutes of up to max queued series.  0 or -1. */
int tn_mon_store_drain(tn_mon_store_t *st, size_t max);
/* Write waiting minutes at the pace that writes each by
 * TN_MON_STORE_FLUSH_S after its end, given the time now (and the time of
 * the previous call).  0 or -1. */
int tn_mon_store_drain_paced(tn_mon_store_t *st, int64_t now);
/* Queue the minutes over at now (all: every open minute).  0 or -1. */
int tn_mon_store_close_minutes(tn_mon_store_t *st, int64_t now, int all);
/* Decode a row of a level (k's slot gives its base) into st->recs from
 * index at on.  Count, or -1 (logged: damaged). */
long tn_mon_store_row_decode(tn_mon_store_t *st, int level, int64_t k, const void *data, size_t len,
                             size_t at);
/* Sort n records by time, keeping the order of equal times. */
void tn_mon_store_recs_sort(tn_mon_rec_t *recs, size_t n);

static inline int64_t tn_mon_store_key_of(int64_t slot, int64_t id)
{
    return (int64_t)((uint64_t)slot << 32 | (uint64_t)id);
}

#endif

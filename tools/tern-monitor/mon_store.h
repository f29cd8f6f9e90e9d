/* tern-monitor's history: an embedded SQLite database that needs no
 * set-up (one file, created on first use), for `tern-monitor serve`.
 * It holds time series (each series a metric name and its labels), the
 * jobs seen with their final communication matrices, and the alerts log.
 * Live state is the server's; this module keeps what is asked of it
 * later.  Single-threaded: one connection, used by the caller's thread;
 * callbacks must not call the store.
 *
 * Design.  A row per sample does not keep up: SQLite inserting (series,
 * time, value) rows in one transaction a second (bench_store -m rows)
 * managed 94 000 rows/s over 6 M rows and 58 000 rows/s over 12 M rows
 * (20 000 series x 5 and 10 min), falling as the inserts scatter over a
 * B-tree larger than its cache, at 18-20 bytes a sample: 100 000 series
 * (2 000 nodes x 50) would not keep up after minutes, and 6 hours of
 * their samples would take 40 GB.  So:
 *   - Samples of the current minute stay in memory, per series, already
 *     encoded (mon_store_codec.h: 1 byte of time a sample, no more for a
 *     value that repeats, 1-3 for an integer, 9 for a fraction that is not
 *     a float); tn_mon_store_sample() does no SQL.
 *   - When a series' minute is over (its first sample of a later minute,
 *     or maintain TN_MON_STORE_GRACE_MS after its end) the minute waits in
 *     a queue that commits and maintain write at a pace that ends each
 *     within TN_MON_STORE_FLUSH_S, so the work of a minute's end is spread
 *     over the next seconds.  Writing it: one row of samples_raw, and its
 *     aggregate (count, sum, min, max) merged into the series' row of
 *     samples_1m for the hour (60 minutes) and of samples_1h for the day
 *     (24 hours).  Rollups are made as the data arrives, never by
 *     scanning it again; 3 row writes a series-minute, whatever the rate.
 *   - Rows are keyed slot << 32 | series id (INTEGER PRIMARY KEY): time
 *     first, so each minute's rows append at the end of the B-tree and
 *     retention deletes a prefix; a range of a series is one lookup per
 *     slot (at most 360 minutes, 336 hours, 400 days at the defaults).
 *   - A sample for a minute already written (late, or after a restart) is
 *     merged into the rows it belongs to: nothing is counted twice or
 *     lost, except the minutes in memory when the process dies (close
 *     writes them).  Duplicate times are kept.
 * Retention: maintain deletes up to TN_MON_STORE_MAINT_ROWS expired rows
 * of each level per call, oldest first; rows live until their whole slot
 * (minute, hour, day) is past the policy.
 *
 * Numbers (bench_store; 2-core development VM shared with other builds,
 * load 4-6, so ranges; gcc -O2, file database in WAL on the VM's disk).
 * Values: 60 % mostly-zero rates, 20 % small integer gauges, 20 %
 * fractional rates that change every second (see bench_store.c).
 *   - Rate, everything included, one transaction a simulated second:
 *     100 000 series: 2.0-3.2 M samples/s; after the first second (which
 *     creates the 100 000 series: 0.4-1.1 s) the slowest second of
 *     100 000 samples took 0.07 s, maintain 8-30 ms on average.
 *     20 000 series x 300 s: 4.05 M samples/s, against 94 000 rows/s for
 *     the per-row baseline on the same run (43 x).
 *   - Size (1 000 series x 24 h simulated, pages used, B-tree included),
 *     per 1 000 series-hours: raw 10.4 MB (2.9 bytes a sample; 8.2 MB
 *     when the fractional rates are rounded to integers: bench_store -i),
 *     1-minute rollups 0.69 MB, 1-hour rollups 0.011 MB.  Growth after
 *     rollup: 0.70 MB per 1 000 series-hours.  At the default policy a
 *     series costs about 400 KB (raw 62, minutes 232, hours 106): 4 GB
 *     for 10 000 series, 40 GB for 100 000.
 * Reproduce:
 *     ninja -C build bench_store
 *     build/bin/bench_store -s 100000 -t 180          # rate
 *     build/bin/bench_store -s 20000 -t 300 [-m rows] # against rows
 *     build/bin/bench_store -s 1000 -t 86400 [-i]     # size
 *
 * Errors: functions return 0 (or a count, or 1 for found) and -1 on
 * failure.  A failure is logged once where it happens, with SQLite's
 * message, through the policy's log function (stderr by default);
 * repeats of one failure are counted, not logged again, until something
 * succeeds.  Strings reach SQL only as bound parameters. */
#ifndef TN_MON_STORE_H
#define TN_MON_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "mon_store_codec.h"

#define TN_MON_STORE_SCHEMA       1            /* meta.schema_version written and understood */
#define TN_MON_STORE_APP_ID       0x54524e4d   /* PRAGMA application_id: "TRNM" */
#define TN_MON_STORE_GRACE_MS     5000     /* maintain writes a minute this long after its end */
#define TN_MON_STORE_FLUSH_S      40       /* ended minutes are written within this (s)... */
#define TN_MON_STORE_FLUSH_MIN    64       /* ...at least this many a commit */
#define TN_MON_STORE_MAINT_ROWS   50000    /* expired rows one maintain call deletes per level */

typedef void (*tn_mon_store_log_fn_t)(void *ctx, const char *msg);

/* What is kept and for how long (seconds; 0 days: forever), and where
 * errors go.  tn_mon_store_policy_default() fills in the defaults. */
typedef struct {
    int64_t raw_s;        /* samples as sent: 6 h */
    int64_t minute_s;     /* 1-minute aggregates: 14 days */
    int64_t hour_s;       /* 1-hour aggregates: 400 days */
    int64_t job_days;     /* finished jobs and their matrices: 0, forever */
    int64_t alert_days;   /* resolved alerts: 0, forever */
    tn_mon_store_log_fn_t log;   /* NULL: stderr */
    void   *log_ctx;
} tn_mon_store_policy_t;

typedef struct tn_mon_store tn_mon_store_t;

void tn_mon_store_policy_default(tn_mon_store_policy_t *policy);

/* Open or create the database at path (":memory:" for one in memory),
 * with policy (copied; NULL: the defaults).  A new file gets the schema
 * and schema_version TN_MON_STORE_SCHEMA; a file of a newer schema, or
 * one that is not a tern-monitor database, is refused with an error that
 * says so.  WAL journal, synchronous=NORMAL: a crash of the machine may
 * lose the last commits, never the file's consistency.  0 and *st_p, or
 * -1. */
int tn_mon_store_open(const char *path, const tn_mon_store_policy_t *policy, tn_mon_store_t **st_p);
/* Write the minutes still open, and close.  NULL is a no-op. */
void tn_mon_store_close(tn_mon_store_t *st);

/* A transaction around a batch of calls (the samples of a second, a
 * job's updates): without one every write commits on its own, which is
 * slow.  Not nested: begin inside a transaction is -1. */
int tn_mon_store_begin(tn_mon_store_t *st);
/* Commit, after writing a part of the minutes that ended (the rest in
 * later commits and maintain calls, within TN_MON_STORE_FLUSH_S of their
 * end).  0, or -1: the transaction is rolled back, its writes lost. */
int tn_mon_store_commit(tn_mon_store_t *st);
/* Undo the transaction: its jobs, alerts and matrices, and the ended
 * minutes written in it (lost; samples still in memory are kept). */
int tn_mon_store_rollback(tn_mon_store_t *st);

/* ------------------------------------------------------------- series */

/* A series key is the canonical text tn_mon_key_canon() or
 * tn_mon_key_make() give (mon_store_codec.h), e.g.
 *   udp_retransmit_rate{dst="n1",jobid="x",rail="0",src="n0"}
 * The store compares keys as bytes: the caller makes them canonical. */

/* Record value v of series key at t_ms (ms since the epoch, >= 0, below
 * 2^46).  Memory only, except when the sample ends the series' minute
 * (the minute is written) or belongs to one already written (merged
 * there).  A NaN or infinite value, a sample older than the raw
 * retention before maintain's clock or more than an hour after it, is
 * dropped (counted in stats).  Times should come from one clock (the
 * server's, at receipt, or synchronized nodes): a series whose times lag
 * maintain's by more than a minute has its minutes written in pieces,
 * which costs a merge each.
 * 0, or -1 (key longer than TN_MON_KEY_MAX, t out of range, an SQL
 * failure). */
int tn_mon_store_sample(tn_mon_store_t *st, const char *key, int64_t t_ms, double v);

/* A point of a query's answer: the samples of [t_ms, t_ms + res_ms) (a
 * raw sample: res_ms 0, n 1, avg = min = max = its value). */
typedef struct {
    int64_t  t_ms;
    int64_t  res_ms;      /* 0 raw, 60 000 minutes, 3 600 000 hours, or the step */
    uint64_t n;
    double   avg, min, max;
} tn_mon_store_point_t;
/* Return nonzero to stop. */
typedef int (*tn_mon_store_point_fn_t)(void *arg, const tn_mon_store_point_t *p);

/* The points of series key in [from_ms, to_ms), in time order, at one
 * resolution: among those the policy still keeps at from_ms (counted
 * from the store's clock: the latest of maintain's now and the samples'
 * times), the coarsest whose interval is at most step_ms (0: raw); when
 * each kept one is coarser than step_ms, the finest kept; hours when
 * none is kept.  With step_ms above the resolution, points are merged
 * into buckets [k * step_ms, (k+1) * step_ms) and res_ms is step_ms.
 * Raw points include the minutes still in memory; minute and hour points
 * only what was written (within TN_MON_STORE_FLUSH_S of a minute's end).
 * An aggregate point is given when its interval overlaps the range.
 * Returns the number of points given, or -1. */
int tn_mon_store_query(tn_mon_store_t *st, const char *key, int64_t from_ms, int64_t to_ms,
                       int64_t step_ms, tn_mon_store_point_fn_t cb, void *arg);

/* Housekeeping; call every few seconds with the current time, which
 * moves the store's clock: queues the minutes still in memory that ended
 * TN_MON_STORE_GRACE_MS ago (series that stopped) and writes ended
 * minutes at the queue's pace, forgets series idle for 10 minutes,
 * deletes up to TN_MON_STORE_MAINT_ROWS expired rows per level, series
 * whose every row is gone, up to 100 expired jobs (with their matrices)
 * and 100 expired resolved alerts.  Inside the caller's transaction if
 * one is open, else in its own.  bench_store prints what it costs: 8-30
 * ms at 100 000 series.  0 or -1. */
int tn_mon_store_maintain(tn_mon_store_t *st, int64_t now_ms);

/* --------------------------------------------------------------- jobs */

/* A job.  Strings may be NULL except id; in callbacks they are valid
 * only during the call.  bytes and msgs are stored as 64-bit integers
 * (bit for bit). */
typedef struct {
    const char *id;
    const char *program;
    uint32_t    uid, ranks, nodes;
    const char *state;        /* "running", "finished", "failed", ... */
    int64_t     start_ms;
    int64_t     end_ms;       /* 0: still running */
    uint64_t    bytes, msgs;
} tn_mon_store_job_t;
typedef int (*tn_mon_store_job_fn_t)(void *arg, const tn_mon_store_job_t *job);

/* Insert or replace job j (by id).  0 or -1. */
int tn_mon_store_job_put(tn_mon_store_t *st, const tn_mon_store_job_t *j);
/* Up to limit jobs that started before before_ms (0: any), newest start
 * first, each given to cb.  Returns how many were given, or -1. */
int tn_mon_store_jobs(tn_mon_store_t *st, int limit, int64_t before_ms, tn_mon_store_job_fn_t cb,
                      void *arg);
/* Give job id to cb.  1 found, 0 not, -1 error. */
int tn_mon_store_job_get(tn_mon_store_t *st, const char *id, tn_mon_store_job_fn_t cb, void *arg);

/* The communication matrices of a job at one level ("rank" or "node"):
 * n labels (rank numbers, host names), and six n x n matrices, row i
 * column j for i -> j: bytes point-to-point, collective, one-sided, then
 * messages in the same classes. */
enum { TN_MON_MAT_BYTES_P2P, TN_MON_MAT_BYTES_COLL, TN_MON_MAT_BYTES_RMA,
       TN_MON_MAT_MSGS_P2P, TN_MON_MAT_MSGS_COLL, TN_MON_MAT_MSGS_RMA };
typedef struct {
    uint32_t  n;
    char    **labels;                       /* n strings */
    uint64_t *cells[TN_MON_MAT_KINDS];      /* each n * n, row-major */
    void     *mem_;                         /* one allocation holds it all */
} tn_mon_store_matrix_t;

/* Insert or replace (job_id, level)'s matrices; 1 <= n <=
 * TN_MON_MAT_N_MAX.  Only nonzero cells take room (about 2-11 bytes
 * each).  0 or -1. */
int tn_mon_store_job_matrix_put(tn_mon_store_t *st, const char *job_id, const char *level,
                                uint32_t n, const char *const *labels,
                                const uint64_t *const cells[TN_MON_MAT_KINDS]);
/* Read (job_id, level)'s matrices into *m, allocated for the caller, who
 * frees them with tn_mon_store_matrix_free().  1 found, 0 not (m
 * untouched), -1 error (a damaged row included). */
int tn_mon_store_job_matrix_get(tn_mon_store_t *st, const char *job_id, const char *level,
                                tn_mon_store_matrix_t *m);
void tn_mon_store_matrix_free(tn_mon_store_matrix_t *m);

/* ------------------------------------------------------------- alerts */

typedef struct {
    const char *id;           /* the one field that may not be NULL */
    const char *rule, *severity, *target, *state, *message;
    int64_t     since_ms;
    int64_t     resolved_ms;  /* 0: still active */
    double      value;
} tn_mon_store_alert_t;
typedef int (*tn_mon_store_alert_fn_t)(void *arg, const tn_mon_store_alert_t *a);

/* Insert or replace alert a (by id).  0 or -1. */
int tn_mon_store_alert_put(tn_mon_store_t *st, const tn_mon_store_alert_t *a);
/* Up to limit alerts, the latest since_ms first.  Count given, or -1. */
int tn_mon_store_alerts(tn_mon_store_t *st, int limit, tn_mon_store_alert_fn_t cb, void *arg);

/* -------------------------------------------------------------- state */

typedef struct {
    uint64_t samples;       /* accepted */
    uint64_t dropped;       /* NaN, infinite, too old */
    uint64_t late;          /* minutes merged into a row already written */
    uint64_t minutes;       /* series-minutes written */
    uint64_t series;        /* series known in memory now */
    uint64_t errors;        /* failures (logged or counted) */
} tn_mon_store_stats_t;
void tn_mon_store_stats(const tn_mon_store_t *st, tn_mon_store_stats_t *stats);

/* The database's size: page_count * page_size (free pages included: the
 * file does not shrink, deleted rows' pages are reused).  0 or -1. */
int tn_mon_store_size(tn_mon_store_t *st, uint64_t *bytes_p);

#endif

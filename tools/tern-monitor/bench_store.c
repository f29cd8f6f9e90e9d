/* bench_store: what tern-monitor's history database (mon_store.h) costs,
 * on a simulated clock (no sleeping): S series sampled once a second for
 * T seconds, each second one batch (begin, a sample of every series,
 * commit), maintain every 10 s, as `tern-monitor serve` does.  Not a
 * ctest: run by hand, on a quiet machine.
 *
 *   bench_store [-m store|rows] [-s series] [-t seconds] [-f file] [-c cache_kib] [-i] [-v]
 *
 * -m store   the store (default)
 * -i         the rates rounded to integers (bytes/s): what that saves
 * -v         print each second that took more than 50 ms
 * -m rows    the baseline the store's design was measured against: one
 *            SQLite row (series, t, value) a sample, WITHOUT ROWID,
 *            prepared statement, one transaction a second
 *
 * Values are a mix meant to look like the server's series: 60 % error and
 * retransmission rates, mostly 0 with a nonzero value one second in 50;
 * 20 % small integer gauges (queue depths) that change now and then; 20 %
 * rates as doubles (bandwidths) that change every second.  Times carry
 * each node's offset and up to 20 ms of jitter.
 *
 * Printed: samples/s over the whole run (wall clock, all of the store's
 * work included), the first second (every series created), the slowest
 * second after it and the slowest maintain, the file's size, and per level the bytes of rows (dbstat: pages used, B-tree
 * overhead included) per 1000 series-hours. */
#include "mon_store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define T0 1699920000000LL   /* a day boundary */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static int      integral;   /* -i: rates rounded to integers */

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The value of series i at second s (see the header). */
static double value(long i, long s, double *state)
{
    uint64_t r = next_rand();

    switch (i % 5) {
    case 0:
    case 1:
    case 2:
        return r % 50 == 0 ? (double)(r % 7) * 0.25 : 0.0;
    case 3:
        if (r % 10 == 0) {
            state[i] = (double)(r % 16);
        }
        return state[i];
    default:
        state[i] = 1.25e9 * (1.0 + (double)(r % 1000) / 1e4) + (double)s / 3;
        return integral ? (double)(int64_t)state[i] : state[i];
    }
}

/* What each table holds at the end, per 1000 series-hours of the time it
 * covers (its retention, or the whole run when shorter). */
static void level_bytes(const char *path, long series, long seconds)
{
    static const char *const tables[] = { "samples_raw", "samples_1m", "samples_1h" };
    tn_mon_store_policy_t    p;
    sqlite3                 *db;

    tn_mon_store_policy_default(&p);
    const int64_t keep[3] = { p.raw_s, p.minute_s, p.hour_s };
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        return;
    }
    for (int i = 0; i < 3; i++) {
        char          sql[256];
        sqlite3_stmt *s;
        double        hours = (double)(seconds < keep[i] ? seconds : keep[i]) / 3600;
        snprintf(sql, sizeof(sql),
                 "SELECT (SELECT sum(pgsize) FROM dbstat WHERE name = '%s'),"
                 " (SELECT sum(length(data)) FROM %s), (SELECT count(*) FROM %s)",
                 tables[i], tables[i], tables[i]);
        if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
            double pages = (double)sqlite3_column_int64(s, 0), data = (double)sqlite3_column_int64(s, 1);
            long   rows  = (long)sqlite3_column_int64(s, 2);
            printf("  %-12s %8ld rows over %5.2f h: %10.0f bytes of pages (%10.0f of BLOBs), "
                   "%8.0f bytes (%8.0f of BLOBs) per 1000 series-hours\n",
                   tables[i], rows, hours, pages, data, pages / (double)series / hours * 1000,
                   data / (double)series / hours * 1000);
        }
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
}

static int run_rows(const char *path, long series, long seconds, int cache_kib)
{
    sqlite3      *db;
    sqlite3_stmt *ins;
    double       *state = calloc((size_t)series, sizeof(double)), t0, worst = 0;
    char          pragma[64];

    if (sqlite3_open(path, &db) != SQLITE_OK) {
        return 1;
    }
    snprintf(pragma, sizeof(pragma), "PRAGMA cache_size = -%d", cache_kib);
    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
    sqlite3_exec(db, pragma, NULL, NULL, NULL);
    sqlite3_exec(db, "CREATE TABLE r(s INTEGER, t INTEGER, v REAL, PRIMARY KEY(s, t)) WITHOUT ROWID",
                 NULL, NULL, NULL);
    sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?1, ?2, ?3)", -1, &ins, NULL);
    t0 = now_s();
    for (long s = 0; s < seconds; s++) {
        double a = now_s();
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        for (long i = 0; i < series; i++) {
            sqlite3_bind_int64(ins, 1, i);
            sqlite3_bind_int64(ins, 2, T0 + s * 1000 + i % 997 + (long)(next_rand() % 20));
            sqlite3_bind_double(ins, 3, value(i, s, state));
            if (sqlite3_step(ins) != SQLITE_DONE) {
                fprintf(stderr, "insert: %s\n", sqlite3_errmsg(db));
                return 1;
            }
            sqlite3_reset(ins);
        }
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        worst = now_s() - a > worst ? now_s() - a : worst;
    }
    double dt = now_s() - t0;
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    sqlite3_finalize(ins);
    sqlite3_close(db);
    FILE *f = fopen(path, "rb");
    long  size = 0;
    if (f != NULL) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    printf("rows: %ld series x %ld s = %ld samples in %.2f s: %.0f samples/s; slowest second %.3f s;"
           " file %ld bytes, %.1f bytes a sample\n", series, seconds, series * seconds, dt,
           (double)series * (double)seconds / dt, worst, size, (double)size / (double)series / (double)seconds);
    free(state);
    return 0;
}

static int verbose;

static int run_store(const char *path, long series, long seconds)
{
    tn_mon_store_policy_t p;
    tn_mon_store_t       *st;
    tn_mon_store_stats_t  stats;
    char                **keys = calloc((size_t)series, sizeof(char *));
    double               *state = calloc((size_t)series, sizeof(double));
    double                t0, first = 0, worst = 0, maint = 0, maint_worst = 0;
    uint64_t              size = 0;
    long                  nmaint = 0;

    for (long i = 0; i < series; i++) {
        static const char *const metrics[] = { "udp_retransmit_rate", "udp_dup_rate", "shm_errors",
                                               "p2p_unexp_depth", "nic_rx_bytes_rate" };
        char k[TN_MON_KEY_MAX + 1];
        /* 50 series a node: 5 metrics, 10 peers */
        snprintf(k, sizeof(k), "%s{jobid=\"job-%ld\",node=\"node%05ld\",peer=\"%ld\"}",
                 metrics[i % 5], i / 4000, i / 50, (i % 50) / 5);
        keys[i] = strdup(k);
    }
    tn_mon_store_policy_default(&p);
    if (tn_mon_store_open(path, &p, &st) != 0) {
        return 1;
    }
    t0 = now_s();
    for (long s = 0; s < seconds; s++) {
        double a = now_s();
        tn_mon_store_begin(st);
        for (long i = 0; i < series; i++) {
            /* a node's samples leave at its own offset in the second */
            int64_t t = T0 + s * 1000 + (i / 50) % 997 + (int64_t)(next_rand() % 20);
            if (tn_mon_store_sample(st, keys[i], t, value(i, s, state)) != 0) {
                return 1;
            }
        }
        if (tn_mon_store_commit(st) != 0) {
            return 1;
        }
        double b = now_s();
        if (s % 10 == 9) {
            if (tn_mon_store_maintain(st, T0 + (s + 1) * 1000 + 999) != 0) {
                return 1;
            }
            double m = now_s() - b;
            maint += m;
            nmaint++;
            maint_worst = m > maint_worst ? m : maint_worst;
        }
        double took = now_s() - a;
        if (s == 0) {
            first = took;       /* every series is new: created in the database */
        } else {
            worst = took > worst ? took : worst;
        }
        if (verbose && took > 0.05) {
            printf("  second %ld took %.3f s\n", s, took);
        }
    }
    double dt = now_s() - t0;
    tn_mon_store_stats(st, &stats);
    tn_mon_store_maintain(st, T0 + seconds * 1000 + 70000);
    tn_mon_store_size(st, &size);
    tn_mon_store_close(st);
    printf("store: %ld series x %ld s = %ld samples in %.2f s: %.0f samples/s; first second %.3f s,"
           " slowest after it %.3f s; maintain %.1f ms on average, %.1f ms at most; %llu minutes"
           " written; file %llu bytes\n",
           series, seconds, series * seconds, dt, (double)series * (double)seconds / dt, first, worst,
           nmaint ? maint / (double)nmaint * 1e3 : 0.0, maint_worst * 1e3,
           (unsigned long long)stats.minutes, (unsigned long long)size);
    level_bytes(path, series, seconds);
    for (long i = 0; i < series; i++) {
        free(keys[i]);
    }
    free(keys);
    free(state);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = "store", *path = "/tmp/bench_store.db";
    long        series = 10000, seconds = 600;
    int         cache_kib = 2000, opt;
    char        side[600];

    while ((opt = getopt(argc, argv, "m:s:t:f:c:ivh")) != -1) {
        switch (opt) {
        case 'v': verbose = 1; break;
        case 'i': integral = 1; break;
        case 'm': mode = optarg; break;
        case 's': series = atol(optarg); break;
        case 't': seconds = atol(optarg); break;
        case 'f': path = optarg; break;
        case 'c': cache_kib = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: %s [-m store|rows] [-s series] [-t seconds] [-f file] "
                            "[-c cache_kib (rows)] [-i] [-v]\n", argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    /* a fresh file each run */
    unlink(path);
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
    return strcmp(mode, "rows") == 0 ? run_rows(path, series, seconds, cache_kib)
                                     : run_store(path, series, seconds);
}

/* tern-monitor's history database (tools/tern-monitor/mon_store.*), on
 * SQLite, with an injected clock (nothing sleeps): jobs, matrices (a
 * 512 x 512 sparse one), alerts; series read back raw, by minute and by
 * hour, bucketed, with late and out-of-order samples; retention of every
 * level, of jobs and alerts, rows counted through a second connection;
 * a file closed and reopened (the open minute kept, a restart merging
 * into it, a rolled-back transaction's series); refusal of a newer schema, of a foreign database and of a
 * file that is not one; a damaged row skipped. */
#include "mon_store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

#define T0   1699920000000LL    /* a day boundary, ms */
#define SEC  1000LL
#define MIN  60000LL
#define HOUR 3600000LL
#define DAY  86400000LL

static char last_log[1024];
static int  logs;

static void test_log(void *ctx, const char *msg)
{
    (void)ctx;
    snprintf(last_log, sizeof(last_log), "%s", msg);
    logs++;
}

static tn_mon_store_t *open_store(const char *path, tn_mon_store_policy_t *p)
{
    tn_mon_store_policy_t def;
    tn_mon_store_t       *st = NULL;

    if (p == NULL) {
        tn_mon_store_policy_default(&def);
        p = &def;
    }
    p->log = test_log;
    CHECK(tn_mon_store_open(path, p, &st) == 0 && st != NULL);
    return st;
}

/* ---------------------------------------------------------------- jobs */

typedef struct {
    int  n;
    char ids[16][32];
    tn_mon_store_job_t last;
    char program[64];
} jobs_seen_t;

static int job_cb(void *arg, const tn_mon_store_job_t *j)
{
    jobs_seen_t *s = arg;

    if (s->n < 16) {
        snprintf(s->ids[s->n], sizeof(s->ids[0]), "%s", j->id);
    }
    s->n++;
    s->last = *j;
    snprintf(s->program, sizeof(s->program), "%s", j->program ? j->program : "(null)");
    s->last.program = s->program;
    s->last.id = s->last.state = NULL;
    return 0;
}

static void test_jobs(tn_mon_store_t *st)
{
    tn_mon_store_job_t j = { .id = "job-a", .program = "./a.out", .uid = 1000, .ranks = 64,
                             .nodes = 4, .state = "running", .start_ms = T0, .bytes = UINT64_MAX,
                             .msgs = 12 };
    jobs_seen_t s = { 0 };

    CHECK(tn_mon_store_job_put(st, &j) == 0);
    j.id = "job-b'; DROP TABLE job; --", j.start_ms = T0 + 10, j.program = NULL;
    CHECK(tn_mon_store_job_put(st, &j) == 0);
    j.id = "job-c", j.start_ms = T0 + 20;
    CHECK(tn_mon_store_job_put(st, &j) == 0);
    /* an update by id */
    j.id = "job-a", j.program = "./a.out", j.start_ms = T0, j.end_ms = T0 + 5000, j.state = "finished";
    j.msgs = 13;
    CHECK(tn_mon_store_job_put(st, &j) == 0);
    j.id = NULL;
    CHECK(tn_mon_store_job_put(st, &j) == -1);

    CHECK(tn_mon_store_jobs(st, 10, 0, job_cb, &s) == 3 && s.n == 3);
    CHECK(strcmp(s.ids[0], "job-c") == 0 && strcmp(s.ids[1], "job-b'; DROP TABLE job; --") == 0 &&
          strcmp(s.ids[2], "job-a") == 0);
    CHECK(s.last.end_ms == T0 + 5000 && s.last.msgs == 13 && s.last.bytes == UINT64_MAX &&
          s.last.uid == 1000 && s.last.ranks == 64 && s.last.nodes == 4);
    memset(&s, 0, sizeof(s));
    CHECK(tn_mon_store_jobs(st, 1, T0 + 20, job_cb, &s) == 1 && strncmp(s.ids[0], "job-b", 5) == 0 &&
          strcmp(s.program, "(null)") == 0);
    memset(&s, 0, sizeof(s));
    CHECK(tn_mon_store_job_get(st, "job-a", job_cb, &s) == 1 && s.last.msgs == 13 &&
          strcmp(s.program, "./a.out") == 0);
    CHECK(tn_mon_store_job_get(st, "job-z", job_cb, &s) == 0);
}

static void test_matrices(tn_mon_store_t *st)
{
    enum { N = 512 };
    uint64_t             *cells[TN_MON_MAT_KINDS];
    const char          **labels = calloc(N, sizeof(*labels));
    char                  names[N][12];
    tn_mon_store_matrix_t m = { 0 };
    size_t                nn = (size_t)N * N;

    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        cells[k] = calloc(nn, sizeof(uint64_t));
    }
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "%d", i);
        labels[i] = names[i];
        /* neighbours and a reduction tree to 0: sparse */
        cells[TN_MON_MAT_BYTES_P2P][(size_t)i * N + (size_t)(i + 1) % N] = 4096u * (unsigned)i + 1;
        cells[TN_MON_MAT_MSGS_P2P][(size_t)i * N + (size_t)(i + 1) % N] = 1;
        cells[TN_MON_MAT_BYTES_COLL][(size_t)i * N + (size_t)i / 2] = 8;
    }
    cells[TN_MON_MAT_BYTES_RMA][nn - 1] = UINT64_MAX;
    CHECK(tn_mon_store_job_matrix_put(st, "job-a", "rank", N, labels,
                                      (const uint64_t *const *)cells) == 0);
    CHECK(tn_mon_store_job_matrix_get(st, "job-a", "rank", &m) == 1 && m.n == N);
    for (int k = 0; k < TN_MON_MAT_KINDS && m.n == N; k++) {
        CHECK(memcmp(m.cells[k], cells[k], nn * sizeof(uint64_t)) == 0);
    }
    CHECK(m.n == N && strcmp(m.labels[0], "0") == 0 && strcmp(m.labels[N - 1], "511") == 0);
    tn_mon_store_matrix_free(&m);
    CHECK(m.mem_ == NULL);

    /* a small one at node level, replaced */
    const char *hosts[2] = { "node-0", "" };
    uint64_t    c2[TN_MON_MAT_KINDS][4] = { { 0, 5, 6, 0 } };
    const uint64_t *p2[TN_MON_MAT_KINDS];
    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        p2[k] = c2[k];
    }
    CHECK(tn_mon_store_job_matrix_put(st, "job-a", "node", 2, hosts, p2) == 0);
    c2[0][3] = 9;
    CHECK(tn_mon_store_job_matrix_put(st, "job-a", "node", 2, hosts, p2) == 0);
    CHECK(tn_mon_store_job_matrix_get(st, "job-a", "node", &m) == 1 && m.n == 2 &&
          m.cells[0][1] == 5 && m.cells[0][3] == 9 && m.cells[1][0] == 0 &&
          strcmp(m.labels[0], "node-0") == 0 && m.labels[1][0] == '\0');
    tn_mon_store_matrix_free(&m);
    CHECK(tn_mon_store_job_matrix_get(st, "job-a", "cabinet", &m) == 0 && m.mem_ == NULL);
    CHECK(tn_mon_store_job_matrix_put(st, "job-a", "rank", 0, labels, p2) == -1);
    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        free(cells[k]);
    }
    free(labels);
}

/* -------------------------------------------------------------- alerts */

typedef struct {
    int  n;
    char ids[8][16];
    double value;
} alerts_seen_t;

static int alert_cb(void *arg, const tn_mon_store_alert_t *a)
{
    alerts_seen_t *s = arg;

    if (s->n < 8) {
        snprintf(s->ids[s->n], sizeof(s->ids[0]), "%s", a->id);
    }
    if (strcmp(a->id, "a1") == 0) {
        s->value = a->value;
    }
    s->n++;
    return 0;
}

static void test_alerts(tn_mon_store_t *st)
{
    tn_mon_store_alert_t a = { .id = "a1", .rule = "retransmits", .severity = "warning",
                               .target = "n0->n1", .state = "firing", .since_ms = T0,
                               .value = 0.25, .message = "udp retransmits 25 %" };
    alerts_seen_t        s = { 0 };

    CHECK(tn_mon_store_alert_put(st, &a) == 0);
    a.id = "a2", a.since_ms = T0 + 1;
    CHECK(tn_mon_store_alert_put(st, &a) == 0);
    a.id = "a1", a.since_ms = T0, a.state = "resolved", a.resolved_ms = T0 + 60000, a.value = 0.5;
    CHECK(tn_mon_store_alert_put(st, &a) == 0);
    CHECK(tn_mon_store_alerts(st, 10, alert_cb, &s) == 2 && strcmp(s.ids[0], "a2") == 0 &&
          strcmp(s.ids[1], "a1") == 0 && s.value == 0.5);
    memset(&s, 0, sizeof(s));
    CHECK(tn_mon_store_alerts(st, 1, alert_cb, &s) == 1);
}

/* -------------------------------------------------------------- series */

typedef struct {
    int                  n, cap;
    tn_mon_store_point_t p[8192];
} points_t;

static int point_cb(void *arg, const tn_mon_store_point_t *p)
{
    points_t *s = arg;

    if (s->n < (int)(sizeof(s->p) / sizeof(s->p[0]))) {
        s->p[s->n] = *p;
    }
    s->n++;
    return s->cap > 0 && s->n >= s->cap;
}

static points_t pts;

static int query(tn_mon_store_t *st, const char *key, int64_t from, int64_t to, int64_t step)
{
    memset(&pts, 0, sizeof(pts));
    return tn_mon_store_query(st, key, from, to, step, point_cb, &pts);
}

#define KEY_A "udp_retransmit_rate{dst=\"n1\",jobid=\"x\",rail=\"0\",src=\"n0\"}"
#define KEY_B "node_cpu{node=\"n0\"}"

/* value of series A at second i: an integer ramp; of B: a fraction */
static double val_a(int64_t i) { return (double)(i % 100); }
static double val_b(int64_t i) { return 0.5 + (double)(i % 7) / 8; }

/* Samples of A and B at T0 + i s + 250 ms for i in [from, to), a commit a
 * second, maintain every 10 s. */
static void feed(tn_mon_store_t *st, int64_t from, int64_t to)
{
    for (int64_t i = from; i < to; i++) {
        int64_t t = T0 + i * SEC + 250;
        CHECK(tn_mon_store_begin(st) == 0);
        CHECK(tn_mon_store_sample(st, KEY_A, t, val_a(i)) == 0);
        CHECK(tn_mon_store_sample(st, KEY_B, t, val_b(i)) == 0);
        CHECK(tn_mon_store_commit(st) == 0);
        if (i % 10 == 9) {
            CHECK(tn_mon_store_maintain(st, t + 1) == 0);
        }
    }
}

/* Expected aggregate of A over seconds [a, b). */
static void expect_a(int64_t a, int64_t b, const tn_mon_store_point_t *p)
{
    double sum = 0, min = INFINITY, max = -INFINITY;

    for (int64_t i = a; i < b; i++) {
        sum += val_a(i);
        min = fmin(min, val_a(i));
        max = fmax(max, val_a(i));
    }
    CHECK(p->n == (uint64_t)(b - a) && fabs(p->avg - sum / (double)(b - a)) < 1e-9 && p->min == min &&
          p->max == max);
}

static void test_series(tn_mon_store_t *st)
{
    tn_mon_store_stats_t stats;
    int64_t              end = 3 * 3600;   /* seconds fed */

    feed(st, 0, end);
    /* raw, including the minute still in memory: the last 5 minutes */
    CHECK(query(st, KEY_A, T0 + (end - 300) * SEC, T0 + end * SEC, 0) == 300);
    CHECK(pts.p[0].t_ms == T0 + (end - 300) * SEC + 250 && pts.p[0].res_ms == 0 && pts.p[0].n == 1 &&
          pts.p[0].avg == val_a(end - 300) && pts.p[299].avg == val_a(end - 1));
    CHECK(query(st, KEY_B, T0 + (end - 2) * SEC, T0 + end * SEC + 1, 0) == 2 &&
          pts.p[1].avg == val_b(end - 1));
    /* raw in 10 s buckets */
    CHECK(query(st, KEY_A, T0 + (end - 60) * SEC, T0 + end * SEC, 10 * SEC) == 6);
    CHECK(pts.p[0].res_ms == 10 * SEC && pts.p[0].t_ms == T0 + (end - 60) * SEC);
    expect_a(end - 60, end - 50, &pts.p[0]);
    /* the callback stops a query */
    memset(&pts, 0, sizeof(pts));
    pts.cap = 3;
    CHECK(tn_mon_store_query(st, KEY_A, T0, T0 + end * SEC, 0, point_cb, &pts) == 3);

    /* write every minute out: now past the last minute's grace */
    CHECK(tn_mon_store_maintain(st, T0 + end * SEC + MIN) == 0);
    /* minutes over the first 2 hours (raw is kept 2 hours: not from T0) */
    CHECK(query(st, KEY_A, T0, T0 + 2 * HOUR, MIN) == 120);
    CHECK(pts.p[0].res_ms == MIN && pts.p[0].t_ms == T0 && pts.p[119].t_ms == T0 + 119 * MIN);
    expect_a(0, 60, &pts.p[0]);
    expect_a(119 * 60, 120 * 60, &pts.p[119]);
    /* step 0 where raw is not kept: the finest kept, minutes */
    CHECK(query(st, KEY_A, T0, T0 + 10 * MIN, 0) == 10 && pts.p[0].res_ms == MIN);
    /* minutes in 5-minute buckets */
    CHECK(query(st, KEY_A, T0 + HOUR, T0 + 2 * HOUR, 5 * MIN) == 12);
    CHECK(pts.p[3].t_ms == T0 + HOUR + 15 * MIN && pts.p[3].res_ms == 5 * MIN);
    expect_a(3600 + 900, 3600 + 1200, &pts.p[3]);
    /* hours */
    CHECK(query(st, KEY_A, T0, T0 + DAY, HOUR) == 3);
    expect_a(0, 3600, &pts.p[0]);
    expect_a(7200, 10800, &pts.p[2]);
    CHECK(query(st, KEY_B, T0, T0 + DAY, DAY) == 1 && pts.p[0].n == 10800 && pts.p[0].res_ms == DAY);
    /* a series never seen */
    CHECK(query(st, "nothing", T0, T0 + DAY, 0) == 0);

    /* a late sample (its minute written long ago) and out of order ones */
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + 2 * HOUR + 30 * MIN + 100, 1000) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + end * SEC + 2 * MIN + 500, 1) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + end * SEC + 2 * MIN + 200, 2) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + end * SEC + 2 * MIN + 200, 3) == 0);
    CHECK(query(st, KEY_A, T0 + 2 * HOUR + 30 * MIN, T0 + 2 * HOUR + 30 * MIN + SEC, 0) == 2 &&
          pts.p[0].avg == 1000 && pts.p[1].avg == val_a(9000));
    CHECK(query(st, KEY_A, T0 + end * SEC + 2 * MIN, T0 + end * SEC + 3 * MIN, 0) == 3 &&
          pts.p[0].avg == 2 && pts.p[1].avg == 3 && pts.p[2].avg == 1);
    CHECK(query(st, KEY_A, T0 + 2 * HOUR + 30 * MIN, T0 + 2 * HOUR + 31 * MIN, MIN) == 1 &&
          pts.p[0].n == 61 && pts.p[0].max == 1000);
    /* dropped: NaN, infinite, older than raw retention; refused: bad time */
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + end * SEC, NAN) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, T0 + end * SEC, INFINITY) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, T0 - DAY, 1) == 0);
    CHECK(tn_mon_store_sample(st, KEY_A, -1, 1) == -1);
    tn_mon_store_stats(st, &stats);
    CHECK(stats.samples == 2 * (uint64_t)end + 4 && stats.dropped == 3 && stats.late >= 1 &&
          stats.series == 2 && stats.minutes >= 2 * 180);
}

/* ---------------------------------------------------------- retention */

static int64_t count_rows(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    int64_t       n = -1;

    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        n = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return n;
}

static void test_retention(const char *dir)
{
    char                  path[512];
    tn_mon_store_policy_t p;
    tn_mon_store_t       *st;
    sqlite3              *db;
    tn_mon_store_job_t    j = { .id = "old", .start_ms = T0, .end_ms = T0 + HOUR };
    tn_mon_store_alert_t  a = { .id = "old", .since_ms = T0, .resolved_ms = T0 + HOUR };
    const char           *lab[1] = { "0" };
    uint64_t              one = 1;
    const uint64_t       *c[TN_MON_MAT_KINDS] = { &one, &one, &one, &one, &one, &one };

    snprintf(path, sizeof(path), "%s/retention.db", dir);
    tn_mon_store_policy_default(&p);
    p.raw_s = 600, p.minute_s = 2 * 3600, p.hour_s = 3 * 86400, p.job_days = 1, p.alert_days = 2;
    st = open_store(path, &p);
    if (st == NULL) {
        return;
    }
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(tn_mon_store_job_put(st, &j) == 0);
    CHECK(tn_mon_store_job_matrix_put(st, "old", "rank", 1, lab, c) == 0);
    j.id = "running", j.end_ms = 0;
    CHECK(tn_mon_store_job_put(st, &j) == 0);
    CHECK(tn_mon_store_alert_put(st, &a) == 0);
    a.id = "active", a.resolved_ms = 0;
    CHECK(tn_mon_store_alert_put(st, &a) == 0);

    feed(st, 0, 3 * 3600);
    CHECK(tn_mon_store_maintain(st, T0 + 3 * HOUR + MIN) == 0);
    /* raw: 10 minutes kept, the rows of minutes wholly before them gone:
     * minutes 171-179 (the data ends at minute 180) */
    CHECK(count_rows(db, "SELECT count(*) FROM samples_raw") == 2 * 9);
    CHECK(count_rows(db, "SELECT count(*) FROM samples_1m") == 2 * 2);   /* hours 1 and 2 */
    CHECK(count_rows(db, "SELECT count(*) FROM samples_1h") == 2);       /* day 0 */
    CHECK(query(st, KEY_A, T0 + 3 * HOUR - 5 * MIN, T0 + 3 * HOUR, 0) == 300);
    /* from before what raw keeps (10 minutes back from the clock, T0 + 3 h
     * + 1 min): minutes */
    CHECK(query(st, KEY_A, T0 + 3 * HOUR - 10 * MIN, T0 + 3 * HOUR, 0) == 10 && pts.p[0].res_ms == MIN);
    CHECK(count_rows(db, "SELECT count(*) FROM job") == 2 && count_rows(db, "SELECT count(*) FROM alert") == 2);

    /* a day and an hour on: the finished job goes, with its matrix */
    CHECK(tn_mon_store_maintain(st, T0 + DAY + 2 * HOUR) == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM samples_raw") == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM samples_1m") == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM job") == 1 &&
          count_rows(db, "SELECT count(*) FROM job_matrix") == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM alert") == 2);
    CHECK(query(st, KEY_A, T0, T0 + DAY, HOUR) == 3);
    /* two days on: the resolved alert; four: the hours; 5: the series */
    CHECK(tn_mon_store_maintain(st, T0 + 2 * DAY + 2 * HOUR) == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM alert") == 1);
    CHECK(tn_mon_store_maintain(st, T0 + 4 * DAY) == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM samples_1h") == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM series") == 2);
    CHECK(tn_mon_store_maintain(st, T0 + 5 * DAY) == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM series") == 0);
    CHECK(count_rows(db, "SELECT count(*) FROM job") == 1);
    sqlite3_close(db);
    tn_mon_store_close(st);
}

/* ---------------------------------------------- files, schema, damage */

static void test_file(const char *dir)
{
    char            path[512], sql[256];
    tn_mon_store_t *st;
    sqlite3        *db;
    uint64_t        size = 0;
    jobs_seen_t     js = { 0 };

    snprintf(path, sizeof(path), "%s/file.db", dir);
    st = open_store(path, NULL);
    if (st == NULL) {
        return;
    }
    test_jobs(st);
    test_matrices(st);
    test_alerts(st);
    feed(st, 0, 90);     /* a minute and a half: the second is in memory */
    CHECK(tn_mon_store_size(st, &size) == 0 && size > 0 && size % 4096 == 0);
    tn_mon_store_close(st);

    /* reopened: everything there, the open minute too */
    st = open_store(path, NULL);
    CHECK(tn_mon_store_job_get(st, "job-a", job_cb, &js) == 1 && js.last.msgs == 13);
    CHECK(query(st, KEY_A, T0, T0 + 2 * MIN, 0) == 90);
    /* the rest of the second minute after the restart: merged into its row */
    feed(st, 90, 150);
    CHECK(tn_mon_store_maintain(st, T0 + 150 * SEC + MIN) == 0);
    CHECK(query(st, KEY_A, T0, T0 + 3 * MIN, 0) == 150);
    CHECK(query(st, KEY_A, T0, T0 + 3 * MIN, MIN) == 3);
    expect_a(60, 120, &pts.p[1]);
    /* a rolled-back transaction: the id of the series it made is not
     * given again, and its row comes back with the series' next minute */
    CHECK(tn_mon_store_begin(st) == 0);
    CHECK(tn_mon_store_sample(st, "lost", T0 + 200 * SEC, 1) == 0);
    CHECK(tn_mon_store_rollback(st) == 0 && tn_mon_store_rollback(st) == -1);
    CHECK(tn_mon_store_begin(st) == 0);
    CHECK(tn_mon_store_sample(st, "kept", T0 + 200 * SEC, 2) == 0);
    CHECK(tn_mon_store_commit(st) == 0);
    /* a sample an hour and more ahead of maintain's clock is dropped */
    CHECK(tn_mon_store_sample(st, "kept", T0 + 210 * SEC + HOUR + 1, 3) == 0);
    tn_mon_store_close(st);
    st = open_store(path, NULL);
    CHECK(query(st, "lost", T0, T0 + HOUR, 0) == 1 && pts.p[0].avg == 1);
    CHECK(query(st, "kept", T0, T0 + 2 * HOUR, 0) == 1 && pts.p[0].avg == 2);
    tn_mon_store_close(st);

    /* a damaged row is logged and skipped */
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE samples_raw SET data = x'11ff' WHERE k = (SELECT min(k) FROM samples_raw)",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(count_rows(db, "SELECT count(DISTINCT id) FROM series WHERE key IN ('lost', 'kept')") == 2);
    sqlite3_close(db);
    st = open_store(path, NULL);
    logs = 0;
    CHECK(query(st, KEY_A, T0, T0 + 3 * MIN, 0) == 90 && logs == 1 && strstr(last_log, "damaged") != NULL);
    tn_mon_store_close(st);

    /* a newer schema is refused, saying why */
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "UPDATE meta SET value = 2 WHERE key = 'schema_version'", NULL, NULL, NULL) ==
          SQLITE_OK);
    sqlite3_close(db);
    tn_mon_store_policy_t p;
    tn_mon_store_policy_default(&p);
    p.log = test_log;
    st    = NULL;
    CHECK(tn_mon_store_open(path, &p, &st) == -1 && st == NULL);
    CHECK(strstr(last_log, "schema version 2") != NULL && strstr(last_log, "up to 1") != NULL);

    /* someone else's database, and a file that is not one */
    snprintf(path, sizeof(path), "%s/other.db", dir);
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    CHECK(tn_mon_store_open(path, &p, &st) == -1 && strstr(last_log, "not a tern-monitor database"));
    snprintf(path, sizeof(path), "%s/text.db", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (int i = 0; f != NULL && i < 100; i++) {
        fputs("this is not a database\n", f);
    }
    if (f != NULL) {
        fclose(f);
    }
    CHECK(tn_mon_store_open(path, &p, &st) == -1 && strstr(last_log, "not a database"));
    snprintf(sql, sizeof(sql), "%s/no/such/dir/x.db", dir);
    CHECK(tn_mon_store_open(sql, &p, &st) == -1);
}

int main(void)
{
    char            dir[] = "/tmp/test_mon_store.XXXXXX";
    tn_mon_store_t *st;

    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    tn_mon_store_policy_t p;
    tn_mon_store_policy_default(&p);
    p.raw_s = 2 * 3600;
    st = open_store(":memory:", &p);
    if (st != NULL) {
        test_jobs(st);
        test_matrices(st);
        test_alerts(st);
        test_series(st);
        /* transactions do not nest; commit needs a begin */
        CHECK(tn_mon_store_begin(st) == 0 && tn_mon_store_begin(st) == -1 && tn_mon_store_commit(st) == 0);
        CHECK(tn_mon_store_commit(st) == -1);
        tn_mon_store_close(st);
    }
    test_retention(dir);
    test_file(dir);

    static const char *const files[] = { "retention.db", "file.db", "other.db", "text.db" };
    static const char *const ends[]  = { "", "-wal", "-shm" };
    for (size_t i = 0; i < 4; i++) {
        for (size_t e = 0; e < 3; e++) {
            char path[600];
            snprintf(path, sizeof(path), "%s/%s%s", dir, files[i], ends[e]);
            unlink(path);
        }
    }
    CHECK(rmdir(dir) == 0);
    return tn_check_report("test_mon_store");
}

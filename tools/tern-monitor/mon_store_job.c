/* tern-monitor's store: jobs, their communication matrices, the alerts
 * log (mon_store.h). */
#include "mon_store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_BLOB_MAX 1000000000   /* SQLite's default SQLITE_MAX_LENGTH */

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v != NULL) {
        sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(s, i);
    }
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

int tn_mon_store_job_put(tn_mon_store_t *st, const tn_mon_store_job_t *j)
{
    sqlite3_stmt *s = st->stmt[STMT_JOB_PUT];

    if (j->id == NULL) {
        tn_mon_store_fail(st, "a job without an id", 0);
        return -1;
    }
    bind_text(s, 1, j->id);
    bind_text(s, 2, j->program);
    sqlite3_bind_int64(s, 3, j->uid);
    sqlite3_bind_int64(s, 4, j->ranks);
    sqlite3_bind_int64(s, 5, j->nodes);
    bind_text(s, 6, j->state);
    sqlite3_bind_int64(s, 7, j->start_ms);
    sqlite3_bind_int64(s, 8, j->end_ms);
    sqlite3_bind_int64(s, 9, (int64_t)j->bytes);
    sqlite3_bind_int64(s, 10, (int64_t)j->msgs);
    return tn_mon_store_exec(st, STMT_JOB_PUT, "writing a job", NULL);
}

/* Give each row of a job query to cb; count given, or -1. */
static int jobs_run(tn_mon_store_t *st, int stmt, tn_mon_store_job_fn_t cb, void *arg)
{
    sqlite3_stmt *s = st->stmt[stmt];
    int           rc, count = 0;

    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        tn_mon_store_job_t j = {
            .id = col_text(s, 0), .program = col_text(s, 1),
            .uid = (uint32_t)sqlite3_column_int64(s, 2), .ranks = (uint32_t)sqlite3_column_int64(s, 3),
            .nodes = (uint32_t)sqlite3_column_int64(s, 4), .state = col_text(s, 5),
            .start_ms = sqlite3_column_int64(s, 6), .end_ms = sqlite3_column_int64(s, 7),
            .bytes = (uint64_t)sqlite3_column_int64(s, 8), .msgs = (uint64_t)sqlite3_column_int64(s, 9),
        };
        if (j.id == NULL) {     /* SQLite lets a TEXT PRIMARY KEY be NULL */
            continue;
        }
        count++;
        if (cb(arg, &j) != 0) {
            break;
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading jobs", 1);
        return -1;
    }
    return count;
}

int tn_mon_store_jobs(tn_mon_store_t *st, int limit, int64_t before_ms, tn_mon_store_job_fn_t cb,
                      void *arg)
{
    sqlite3_stmt *s = st->stmt[STMT_JOBS];

    sqlite3_bind_int64(s, 1, before_ms > 0 ? before_ms : INT64_MAX);
    sqlite3_bind_int64(s, 2, limit);
    return jobs_run(st, STMT_JOBS, cb, arg);
}

int tn_mon_store_job_get(tn_mon_store_t *st, const char *id, tn_mon_store_job_fn_t cb, void *arg)
{
    sqlite3_bind_text(st->stmt[STMT_JOB_GET], 1, id, -1, SQLITE_STATIC);
    return jobs_run(st, STMT_JOB_GET, cb, arg);
}

int tn_mon_store_job_matrix_put(tn_mon_store_t *st, const char *job_id, const char *level,
                                uint32_t n, const char *const *labels,
                                const uint64_t *const cells[TN_MON_MAT_KINDS])
{
    sqlite3_stmt *s = st->stmt[STMT_MAT_PUT];
    size_t        cells_len = tn_mon_mat_size(n, cells), labels_len = 0;
    uint8_t      *mem;
    int           status;

    if (job_id == NULL || level == NULL || cells_len == 0) {
        tn_mon_store_fail(st, "a matrix without a job, a level, or of order 0 or past 4096", 0);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        labels_len += strlen(labels[i]) + 1;
    }
    if (cells_len > STORE_BLOB_MAX || labels_len > STORE_BLOB_MAX ||
        (mem = malloc(cells_len + labels_len)) == NULL) {
        tn_mon_store_fail(st, "a matrix too large to store", 0);
        return -1;
    }
    tn_mon_mat_encode(n, cells, mem);
    for (size_t i = 0, at = cells_len; i < n; i++) {
        size_t l = strlen(labels[i]) + 1;
        memcpy(mem + at, labels[i], l);
        at += l;
    }
    sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, level, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, n);
    sqlite3_bind_blob(s, 4, mem + cells_len, (int)labels_len, SQLITE_STATIC);
    sqlite3_bind_blob(s, 5, mem, (int)cells_len, SQLITE_STATIC);
    status = tn_mon_store_exec(st, STMT_MAT_PUT, "writing a matrix", NULL);
    free(mem);
    return status;
}

/* Decode a matrix row into *m: one allocation, cells first (aligned),
 * then the label pointers, then the labels' bytes. */
static int matrix_decode(sqlite3_stmt *s, tn_mon_store_matrix_t *m)
{
    int64_t        n = sqlite3_column_int64(s, 0);
    const uint8_t *labels = sqlite3_column_blob(s, 1), *cells = sqlite3_column_blob(s, 2);
    size_t         labels_len = (size_t)sqlite3_column_bytes(s, 1);
    size_t         cells_len = (size_t)sqlite3_column_bytes(s, 2), nn, size;
    char          *mem;

    if (n < 1 || n > TN_MON_MAT_N_MAX || cells == NULL) {
        return -1;
    }
    nn   = (size_t)n * (size_t)n;
    size = TN_MON_MAT_KINDS * nn * sizeof(uint64_t) + (size_t)n * sizeof(char *) + labels_len;
    mem  = calloc(1, size);
    if (mem == NULL) {
        return -1;
    }
    char **lab = (char **)(mem + TN_MON_MAT_KINDS * nn * sizeof(uint64_t));
    char  *txt = (char *)(lab + n);
    if (labels_len > 0) {
        memcpy(txt, labels, labels_len);
    }
    if (tn_mon_labels_decode((const uint8_t *)txt, labels_len, (uint32_t)n, (const char **)lab) != 0 ||
        tn_mon_mat_decode(cells, cells_len, (uint32_t)n, (uint64_t *)mem) != 0) {
        free(mem);
        return -1;
    }
    m->n      = (uint32_t)n;
    m->labels = lab;
    for (int k = 0; k < TN_MON_MAT_KINDS; k++) {
        m->cells[k] = (uint64_t *)mem + (size_t)k * nn;
    }
    m->mem_ = mem;
    return 0;
}

int tn_mon_store_job_matrix_get(tn_mon_store_t *st, const char *job_id, const char *level,
                                tn_mon_store_matrix_t *m)
{
    sqlite3_stmt *s = st->stmt[STMT_MAT_GET];
    int           rc, found = 0;

    sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, level, -1, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        found = 1;
        if (matrix_decode(s, m) != 0) {
            char what[160];
            snprintf(what, sizeof(what), "the %.16s matrix of job %.100s is damaged or too large",
                     level, job_id);
            tn_mon_store_fail(st, what, 0);
            found = -1;
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading a matrix", 1);
        return -1;
    }
    return found;
}

void tn_mon_store_matrix_free(tn_mon_store_matrix_t *m)
{
    free(m->mem_);
    memset(m, 0, sizeof(*m));
}

int tn_mon_store_alert_put(tn_mon_store_t *st, const tn_mon_store_alert_t *a)
{
    sqlite3_stmt *s = st->stmt[STMT_ALERT_PUT];

    if (a->id == NULL) {
        tn_mon_store_fail(st, "an alert without an id", 0);
        return -1;
    }
    bind_text(s, 1, a->id);
    bind_text(s, 2, a->rule);
    bind_text(s, 3, a->severity);
    bind_text(s, 4, a->target);
    bind_text(s, 5, a->state);
    sqlite3_bind_int64(s, 6, a->since_ms);
    sqlite3_bind_int64(s, 7, a->resolved_ms);
    sqlite3_bind_double(s, 8, a->value);
    bind_text(s, 9, a->message);
    return tn_mon_store_exec(st, STMT_ALERT_PUT, "writing an alert", NULL);
}

int tn_mon_store_alerts(tn_mon_store_t *st, int limit, tn_mon_store_alert_fn_t cb, void *arg)
{
    sqlite3_stmt *s = st->stmt[STMT_ALERTS];
    int           rc, count = 0;

    sqlite3_bind_int64(s, 1, limit);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        tn_mon_store_alert_t a = {
            .id = col_text(s, 0), .rule = col_text(s, 1), .severity = col_text(s, 2),
            .target = col_text(s, 3), .state = col_text(s, 4),
            .since_ms = sqlite3_column_int64(s, 5), .resolved_ms = sqlite3_column_int64(s, 6),
            .value = sqlite3_column_double(s, 7), .message = col_text(s, 8),
        };
        if (a.id == NULL) {
            continue;
        }
        count++;
        if (cb(arg, &a) != 0) {
            break;
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        tn_mon_store_fail(st, "reading alerts", 1);
        return -1;
    }
    return count;
}

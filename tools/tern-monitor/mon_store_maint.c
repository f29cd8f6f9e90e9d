/* tern-monitor's store: housekeeping (mon_store.h, tn_mon_store_maintain).
 *
 * Every step is bounded, so that a call every few seconds costs little
 * and a backlog (the server was down, the policy was shortened) is worked
 * off over several calls: ended minutes written at the pace of
 * commits (tn_mon_store_drain_paced), expired rows deleted (TN_MON_STORE_MAINT_ROWS per table: sample rows
 * are keyed time first, so these are a prefix of each table), series,
 * jobs and alerts (STORE_GC_ROWS). */
#include "mon_store_int.h"

#define STORE_GC_ROWS 100

/* Run a statement deleting at most limit rows older than cut. */
static int maint_delete(tn_mon_store_t *st, int stmt, int64_t cut, int64_t limit, const char *what)
{
    sqlite3_stmt *s = st->stmt[stmt];

    sqlite3_bind_int64(s, 1, cut);
    sqlite3_bind_int64(s, 2, limit);
    return tn_mon_store_exec(st, stmt, what, NULL);
}

int tn_mon_store_maintain(tn_mon_store_t *st, int64_t now_ms)
{
    const int64_t keep[LEVEL_COUNT] = { st->policy.raw_s, st->policy.minute_s, st->policy.hour_s };
    int64_t       longest = 0;
    int           own = !st->in_tx, status = 0;

    if (now_ms > st->now_ms) {
        st->now_ms = now_ms;
    }
    if (own && tn_mon_store_begin(st) != 0) {
        return -1;
    }
    if (tn_mon_store_close_minutes(st, now_ms, 0) != 0 ||
        tn_mon_store_drain_paced(st, now_ms) != 0) {
        status = -1;
    }
    tn_mon_store_evict(st, now_ms);
    for (int l = 0; l < LEVEL_COUNT; l++) {
        const store_level_t *lv = &tn_mon_store_levels[l];
        /* rows whose whole slot ended before the cut */
        int64_t cut = now_ms - keep[l] * 1000;
        longest     = keep[l] > longest ? keep[l] : longest;
        if (cut > 0 && maint_delete(st, lv->del, tn_mon_store_key_of(cut / lv->slot_ms, 0),
                                    TN_MON_STORE_MAINT_ROWS, "deleting expired samples") != 0) {
            status = -1;
        }
    }
    /* series with nothing left: their last minute (known within an hour)
     * is past every level's retention, with a day to spare */
    int64_t cut = now_ms - longest * 1000 - STORE_DAY_MS;
    if (cut > 0 && maint_delete(st, STMT_SERIES_GC, cut, STORE_GC_ROWS, "deleting old series") != 0) {
        status = -1;
    }
    if (st->policy.job_days > 0) {
        cut = now_ms - st->policy.job_days * STORE_DAY_MS;
        /* the matrices first: the same jobs are still there to select */
        if (maint_delete(st, STMT_JOB_GC_MAT, cut, STORE_GC_ROWS, "deleting old matrices") != 0 ||
            maint_delete(st, STMT_JOB_GC, cut, STORE_GC_ROWS, "deleting old jobs") != 0) {
            status = -1;
        }
    }
    if (st->policy.alert_days > 0) {
        cut = now_ms - st->policy.alert_days * STORE_DAY_MS;
        if (maint_delete(st, STMT_ALERT_GC, cut, STORE_GC_ROWS, "deleting old alerts") != 0) {
            status = -1;
        }
    }
    if (own && tn_mon_store_commit(st) != 0) {
        status = -1;
    }
    return status;
}

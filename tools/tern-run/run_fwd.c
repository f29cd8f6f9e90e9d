/* Line forwarding of rank output; see run_fwd.h. */
#include "run_fwd.h"

#include <string.h>
#include <time.h>

void tn_run_fwd_init(tn_run_fwd_t *fwd, int rank, int flags, int raw)
{
    memset(fwd, 0, sizeof(*fwd));
    fwd->rank = rank;
    fwd->tag  = (flags & TN_RUN_FWD_TAG) != 0;
    fwd->time = (flags & TN_RUN_FWD_TIME) != 0;
    fwd->raw  = raw != 0 && !fwd->tag && !fwd->time;
}

void tn_run_fwd_fini(tn_run_fwd_t *fwd)
{
    tn_run_buf_free(&fwd->partial);
}

/* "[2026-11-27 07:31:02.123] ": the seconds are formatted once per second. */
static void fwd_stamp(tn_run_fwd_t *fwd, int64_t now_ms, tn_run_buf_t *out)
{
    int64_t sec = now_ms / 1000;

    if (fwd->stamp[0] == '\0' || sec != fwd->stamp_sec) {
        time_t    t = (time_t)sec;
        struct tm tm;

        if (localtime_r(&t, &tm) == NULL ||
            strftime(fwd->stamp, sizeof(fwd->stamp), "[%Y-%m-%d %H:%M:%S",
                     &tm) == 0) {
            strcpy(fwd->stamp, "[?");
        }
        fwd->stamp_sec = sec;
    }
    tn_run_buf_printf(out, "%s.%03d] ", fwd->stamp, (int)(now_ms % 1000));
}

/* Append one piece of a line (ending in '\n' or not) to out, with the
 * prefixes when it starts a line. */
static void fwd_emit(tn_run_fwd_t *fwd, const char *p, size_t n,
                     int64_t now_ms, tn_run_buf_t *out)
{
    if (n == 0) {
        return;
    }
    if (!fwd->midline) {
        if (fwd->time) {
            fwd_stamp(fwd, now_ms, out);
        }
        if (fwd->tag) {
            tn_run_buf_printf(out, "[%d] ", fwd->rank);
        }
    }
    tn_run_buf_append(out, p, n);
    fwd->midline = p[n - 1] != '\n';
}

void tn_run_fwd_feed(tn_run_fwd_t *fwd, const char *data, size_t len,
                     int64_t now_ms, tn_run_buf_t *out)
{
    const char *end = data + len;
    const char *nl;

    if (fwd->raw) {
        tn_run_buf_append(out, data, len);
        return;
    }
    while ((nl = memchr(data, '\n', (size_t)(end - data))) != NULL) {
        size_t n = (size_t)(nl - data) + 1;

        if (fwd->partial.len > 0) {
            tn_run_buf_append(&fwd->partial, data, n);
            fwd_emit(fwd, fwd->partial.data, fwd->partial.len, now_ms, out);
            fwd->partial.len = 0;
        } else if (!fwd->tag && !fwd->time) {
            /* no prefix: all whole lines up to the last newline in one copy */
            const char *last = data + n - 1;
            const char *p;

            for (p = end - 1; p > last; p--) {
                if (*p == '\n') {
                    last = p;
                    break;
                }
            }
            n = (size_t)(last - data) + 1;
            fwd_emit(fwd, data, n, now_ms, out);
        } else {
            fwd_emit(fwd, data, n, now_ms, out);
        }
        data += n;
    }
    tn_run_buf_append(&fwd->partial, data, (size_t)(end - data));
    if (fwd->partial.len >= TN_RUN_FWD_LINE_MAX) {
        fwd_emit(fwd, fwd->partial.data, fwd->partial.len, now_ms, out);
        fwd->partial.len = 0;
    }
}

void tn_run_fwd_flush(tn_run_fwd_t *fwd, int64_t now_ms, tn_run_buf_t *out)
{
    fwd_emit(fwd, fwd->partial.data, fwd->partial.len, now_ms, out);
    fwd->partial.len = 0;
    if ((fwd->tag || fwd->time) && fwd->midline) {
        tn_run_buf_append(out, "\n", 1);
    }
    fwd->midline = 0;
}

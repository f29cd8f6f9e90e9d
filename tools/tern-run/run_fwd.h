/* Line forwarding of one output stream (stdout or stderr) of one rank,
 * without I/O: bytes read from the rank's pty or pipe go in, whole lines
 * come out in a caller's buffer, which the caller writes to tern-run's own
 * stream in one go.  Since tern-run writes only whole lines, lines of
 * different ranks never interleave.
 *
 * Modes (TN_RUN_FWD_* flags, combined as the options are):
 *   - default: only whole lines leave; a partial last line waits for its
 *     newline or for tn_run_fwd_flush() at end of stream;
 *   - TAG (--tag-output): each line is prefixed "[rank] ";
 *   - TIME (--timestamp-output): each line is prefixed with the local time
 *     at which its newline reached tern-run, "[2026-11-27 07:31:02.123] ",
 *     before the rank's tag when both are asked for;
 *   - with a prefix, a partial line flushed at end of stream gets a newline
 *     so the next rank's prefix starts a line;
 *   - raw (single-rank jobs, no prefix): bytes leave as they come, since
 *     there is no other rank to interleave with (prompts show up at once).
 * A line that grows past TN_RUN_FWD_LINE_MAX is let out in pieces (the
 * first with the prefix); those pieces may interleave with other ranks'
 * lines.
 *
 * Time is an input (now_ms: milliseconds since the epoch, CLOCK_REALTIME),
 * so that the forwarder stays free of I/O and testable. */
#ifndef TN_RUN_FWD_H
#define TN_RUN_FWD_H

#include "run_util.h"

#include <stdint.h>

#define TN_RUN_FWD_LINE_MAX (1u << 20)

#define TN_RUN_FWD_TAG  1
#define TN_RUN_FWD_TIME 2

typedef struct {
    tn_run_buf_t partial;   /* start of a line not yet ended */
    int          rank;
    unsigned     tag     : 1;
    unsigned     time    : 1;
    unsigned     raw     : 1;
    unsigned     midline : 1;   /* out already holds the start of this line */
    int64_t      stamp_sec;     /* the second stamp[] was made for */
    char         stamp[32];     /* "[2026-11-27 07:31:02", "" when none */
} tn_run_fwd_t;

/* flags: TN_RUN_FWD_*; raw: the job has this one rank only. */
void tn_run_fwd_init(tn_run_fwd_t *fwd, int rank, int flags, int raw);
void tn_run_fwd_fini(tn_run_fwd_t *fwd);

/* Take len bytes from the rank, read at now_ms; append what may leave to
 * out. */
void tn_run_fwd_feed(tn_run_fwd_t *fwd, const char *data, size_t len,
                     int64_t now_ms, tn_run_buf_t *out);

/* End of stream: append the partial last line, if any, to out. */
void tn_run_fwd_flush(tn_run_fwd_t *fwd, int64_t now_ms, tn_run_buf_t *out);

#endif

/* Line forwarding of one output stream (stdout or stderr) of one rank,
 * without I/O: bytes read from the rank's pipe go in, whole lines come out
 * in a caller's buffer, which the caller writes to tern-run's own stream in
 * one go.  Since tern-run writes only whole lines, lines of different ranks
 * never interleave.
 *
 * Modes:
 *   - default: only whole lines leave; a partial last line waits for its
 *     newline or for tn_run_fwd_flush() at end of stream;
 *   - tag: each line is prefixed "[rank] "; a partial line flushed at end of
 *     stream gets a newline so the next rank's tag starts a line;
 *   - raw (single-rank jobs, no tag): bytes leave as they come, since there
 *     is no other rank to interleave with (prompts show up at once).
 * A line that grows past TN_RUN_FWD_LINE_MAX is let out in pieces. */
#ifndef TN_RUN_FWD_H
#define TN_RUN_FWD_H

#include "run_util.h"

#define TN_RUN_FWD_LINE_MAX (1u << 20)

typedef struct {
    tn_run_buf_t partial;   /* start of a line not yet ended */
    int          rank;
    unsigned     tag     : 1;
    unsigned     raw     : 1;
    unsigned     midline : 1;   /* out already holds the start of this line */
} tn_run_fwd_t;

void tn_run_fwd_init(tn_run_fwd_t *fwd, int rank, int tag, int raw);
void tn_run_fwd_fini(tn_run_fwd_t *fwd);

/* Take len bytes from the rank; append what may leave to out. */
void tn_run_fwd_feed(tn_run_fwd_t *fwd, const char *data, size_t len,
                     tn_run_buf_t *out);

/* End of stream: append the partial last line, if any, to out. */
void tn_run_fwd_flush(tn_run_fwd_t *fwd, tn_run_buf_t *out);

#endif

/* Small helpers shared by the tern-run files: growable byte buffers, logging
 * to stderr in single writes, the monotonic clock and signal names.
 *
 * tern-run is a stand-alone program: it links nothing of the MPI library.
 * Allocation failure ends tern-run (there is nothing sensible to fall back
 * to in a launcher), so the allocating helpers never return NULL. */
#ifndef TN_RUN_UTIL_H
#define TN_RUN_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer.  Zero-initialised is empty and valid. */
typedef struct {
    char   *data;
    size_t  len;
    size_t  cap;
} tn_run_buf_t;

void tn_run_buf_append(tn_run_buf_t *buf, const void *data, size_t len);
void tn_run_buf_printf(tn_run_buf_t *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Drop the first len bytes (len <= buf->len). */
void tn_run_buf_consume(tn_run_buf_t *buf, size_t len);
void tn_run_buf_free(tn_run_buf_t *buf);

void *tn_run_xmalloc(size_t size);
void *tn_run_xrealloc(void *ptr, size_t size);
char *tn_run_xstrdup(const char *str);

/* Verbosity (number of -v given); read by tn_run_debug. */
extern int tn_run_verbose;

/* Print "tern-run: <message>\n" on stderr in one write(2), so that it never
 * lands inside a forwarded line. */
void tn_run_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* When set and returning 0, takes each message (without its newline)
 * instead of stderr: a proxy sends its messages to the head. */
extern int (*tn_run_log_hook)(const char *line, size_t len);
/* Same, only when tn_run_verbose >= level. */
void tn_run_debug(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Write all of buf to fd, waiting with poll() if fd is non-blocking.
 * Returns 0, or -1 with errno set (EPIPE when the reader went away). */
int tn_run_write_all(int fd, const void *buf, size_t len);

/* Append the indexes i < n with flag[i] != 0 to buf as ranges, "0-3,5,7-9";
 * once the list has reached max bytes, append ",..." instead of the rest. */
void tn_run_ranges(tn_run_buf_t *buf, const unsigned char *flag, int n,
                   size_t max);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t tn_run_now_ms(void);

/* Fixed name of a signal ("SIGSEGV", "SIGRTMIN+3"); never NULL.  Not
 * strsignal(): the message format must not depend on the C library. */
const char *tn_run_signame(int sig);

#endif

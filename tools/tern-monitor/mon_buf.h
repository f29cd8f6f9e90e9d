/* A growable byte buffer with a size bound, shared by the tern-monitor
 * modules (HTTP connections' input and output, response bodies, JSON).
 *
 * tern-monitor is a stand-alone program: it links nothing of the MPI
 * library.  Unlike tern-run's buffers, these do not end the program when
 * memory runs out: a monitoring server answers many clients, and one
 * request that asks for too much must cost only its own answer.  So every
 * append may fail, and a failure is sticky: `failed` stays set until
 * tn_mon_buf_reset(), and later appends do nothing, which lets a writer
 * make many appends and check once at the end.
 *
 * Growth stops at `max` bytes of content (set by tn_mon_buf_init; 0 is no
 * bound): an append that would pass it fails as running out of memory
 * does. */
#ifndef TN_MON_BUF_H
#define TN_MON_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
    char   *data;
    size_t  len;
    size_t  cap;
    size_t  max;        /* bound on len; 0: none */
    int     failed;     /* an append failed since the last reset */
} tn_mon_buf_t;

/* An empty buffer holding at most max bytes (0: no bound).  Zero-filled
 * memory is an empty unbounded buffer too. */
void tn_mon_buf_init(tn_mon_buf_t *buf, size_t max);
/* Room for extra more bytes after len (data + len may then be written up
 * to len + extra, and len raised by what was written).  0, or -1 (and
 * failed set) when that passes max or memory runs out. */
int tn_mon_buf_reserve(tn_mon_buf_t *buf, size_t extra);
/* 0, or -1 (and failed set, the buffer as it was). */
int tn_mon_buf_append(tn_mon_buf_t *buf, const void *data, size_t len);
int tn_mon_buf_str(tn_mon_buf_t *buf, const char *str);
int tn_mon_buf_printf(tn_mon_buf_t *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int tn_mon_buf_vprintf(tn_mon_buf_t *buf, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Drop the first len bytes (all of them if len >= buf->len). */
void tn_mon_buf_consume(tn_mon_buf_t *buf, size_t len);
/* Empty and not failed; the memory is kept for the next use. */
void tn_mon_buf_reset(tn_mon_buf_t *buf);
/* Release the memory; the buffer is empty (bound kept) and usable again. */
void tn_mon_buf_free(tn_mon_buf_t *buf);

#endif

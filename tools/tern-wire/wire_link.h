/* wire_link: one direction of an emulated point-to-point link, without
 * I/O (tern-wire's scheduling; docs/benchmarks.md "Emulated links").
 *
 * A link of RATE bits/s serialises its frames one after the other: a frame
 * of LEN bytes that arrives at t starts when the link is free,
 * start = max(t, busy_until), occupies it for (LEN + overhead) * 8 / RATE,
 * and reaches the far end a fixed DELAY after its last bit left:
 *
 *     delivered = start + serialisation + DELAY
 *
 * so a lone frame on an idle link pays its own serialisation, as on a wire
 * (a token bucket would pass it at once and make the next one wait).
 * Frames leave in arrival order.  A frame that would wait more than QUEUE
 * ns before its first bit leaves is dropped, as by a switch whose buffer
 * is full (tail drop).  RATE 0: no limit (only DELAY).
 *
 * The queue holds what is on the link: each frame's delivery time and its
 * bytes, in two rings (wire_link_t owns them).  Times are ns of any one
 * monotonic clock; the caller passes "now" in.  Not thread-safe. */
#ifndef TERN_WIRE_LINK_H
#define TERN_WIRE_LINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t rate_bps;        /* bits per second; 0: unlimited */
    uint64_t delay_ns;        /* propagation delay after the last bit */
    uint64_t queue_ns;        /* longest wait before the first bit; drop beyond */
    uint32_t overhead;        /* bytes added to every frame on the wire (preamble,
                               * FCS, gap: 24 on Ethernet; 0 by default) */
} wire_link_conf_t;

typedef struct {
    uint64_t due_ns;          /* when it reaches the far end */
    uint32_t off, len;        /* its bytes in the data ring */
} wire_frame_t;

typedef struct {
    wire_link_conf_t conf;
    uint64_t busy_until;      /* when the last queued frame's last bit leaves */
    wire_frame_t *frames;     /* ring of frame_cap, head..head+count */
    uint32_t frame_cap, head, count;
    uint8_t *data;            /* ring of data_cap bytes; a frame never wraps */
    uint32_t data_cap, data_head, data_tail;
    uint64_t sent, dropped, bytes;  /* frames delivered, dropped; bytes delivered */
} wire_link_t;

/* Allocates rings for FRAMES frames and DATA bytes (a frame is at most
 * DATA / 2 bytes; DATA at most 1 GiB, the overhead at most 1024 bytes).
 * 0, or -1 with errno set. */
int wire_link_init(wire_link_t *l, const wire_link_conf_t *conf, uint32_t frames, uint32_t data);
void wire_link_fini(wire_link_t *l);

/* A frame of LEN bytes arrived at NOW: it is copied into the queue and its
 * delivery time set.  0 queued; 1 dropped (the queue's time or the rings'
 * room is exceeded, or LEN is 0 or over DATA / 2).  Sets nothing on a drop
 * but the drop counter. */
int wire_link_push(wire_link_t *l, uint64_t now, const void *frame, uint32_t len);

/* The frame at the head of the queue if it is due at NOW (due_ns <= now),
 * else NULL; *next_p is then the head's due time (UINT64_MAX when empty).
 * The bytes stay valid until wire_link_pop. */
const wire_frame_t *wire_link_due(const wire_link_t *l, uint64_t now, uint64_t *next_p);
static inline const uint8_t *wire_link_bytes(const wire_link_t *l, const wire_frame_t *f)
{
    return l->data + f->off;
}
/* Removes the head frame (after wire_link_due gave it). */
void wire_link_pop(wire_link_t *l);

/* Parsers of the command line's values, tc's units; 0, or -1 on anything
 * else (no value is taken on a failure):
 *   rate:  "none" (0), or a decimal number with bit, kbit, mbit, gbit
 *          (powers of 1000), at least 1 bit/s, at most 10^13;
 *   time:  "none" (0), or a decimal number with ns, us, ms or s, at most
 *          an hour. */
int wire_parse_rate(const char *s, uint64_t *bps_p);
int wire_parse_time(const char *s, uint64_t *ns_p);

#endif

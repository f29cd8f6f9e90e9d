/* tern-wire's input (tools/tern-wire): the command line's rates and times
 * (wire_parse_rate, wire_parse_time) and the frames it queues, whose
 * lengths and arrival times come from the network (wire_link_push).
 *
 * Input: a byte (0: a rate, 1: a time, as text; 2: a link's frames), then
 * the rest.  For 2: a rate, a delay, a queue time and an overhead from the
 * first 8 bytes, then pairs of (time step, length) bytes; frames of that
 * length are pushed, and what is due is popped as the time goes on.
 * Checks beyond the sanitizers: an accepted value is within its bounds;
 * frames leave in arrival order with their own bytes, never two at once on
 * the link, never before arrival + serialisation + delay; every frame is
 * either delivered or counted as a drop. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_parse(const uint8_t *data, size_t size, int time)
{
    char s[64];
    uint64_t v = 12345;
    size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

    memcpy(s, data, n);
    s[n] = '\0';
    if (time ? wire_parse_time(s, &v) == 0 : wire_parse_rate(s, &v) == 0) {
        if (time ? v > 3600000000000ull : (v != 0 && v > 10000000000000ull))
            abort();
    } else if (v != 12345) {
        abort();
    }
}

static void fz_link(const uint8_t *data, size_t size)
{
    static const uint64_t rates[] = {0, 1, 1000, 100000000, 400000000, 10000000000ull};
    wire_link_conf_t c;
    wire_link_t l;
    uint8_t frame[2048];
    uint64_t now = 0, next, prev_end = 0, pushed = 0;
    uint32_t want_seq = 0, seq = 0;

    if (size < 8)
        return;
    c.rate_bps = rates[data[0] % 6];
    c.delay_ns = (uint64_t)data[1] * 1000;
    c.queue_ns = (uint64_t)data[2] * 10000;
    c.overhead = data[3] % 32;
    if (wire_link_init(&l, &c, 1 + data[4] % 16, 64 + (uint32_t)data[5] * 16) < 0)
        return;
    for (size_t i = 8; i + 1 < size; i += 2) {
        uint32_t len = (uint32_t)data[i + 1] * 8;
        const wire_frame_t *f;

        now += (uint64_t)data[i] * 997;
        /* a frame's first 4 bytes: its number, to check the order */
        memset(frame, (int)len, sizeof(frame));
        if (len >= 4)
            memcpy(frame, &seq, 4);
        uint64_t d0 = l.dropped;
        wire_link_push(&l, now, frame, len);
        pushed++;
        if (l.dropped == d0 && len >= 4)
            seq++;
        else if (l.dropped == d0)
            abort();                 /* an empty frame is never queued */
        while ((f = wire_link_due(&l, now, &next)) != NULL) {
            uint64_t ser = c.rate_bps == 0 ? 0 :
                ((uint64_t)(f->len + c.overhead) * 8 * 1000000000ull + c.rate_bps - 1) / c.rate_bps;
            uint64_t end = f->due_ns - c.delay_ns;
            uint32_t got;
            memcpy(&got, wire_link_bytes(&l, f), 4);
            if (got != want_seq++ || end - ser < prev_end || f->due_ns > now)
                abort();
            prev_end = end;
            wire_link_pop(&l);
        }
    }
    if (l.sent + l.count + l.dropped != pushed)
        abort();
    wire_link_fini(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % 3) {
    case 0: fz_parse(data + 1, size - 1, 0); break;
    case 1: fz_parse(data + 1, size - 1, 1); break;
    default: fz_link(data + 1, size - 1); break;
    }
    return 0;
}

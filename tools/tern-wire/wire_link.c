/* wire_link: one direction of an emulated link, without I/O (wire_link.h). */
#include "wire_link.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int wire_link_init(wire_link_t *l, const wire_link_conf_t *conf, uint32_t frames, uint32_t data)
{
    memset(l, 0, sizeof(*l));
    /* the bounds keep a frame's bits times 1e9 inside 64 bits (push) */
    if (frames == 0 || data < 2 || data > (1u << 30) || conf->overhead > 1024) {
        errno = EINVAL;
        return -1;
    }
    l->frames = calloc(frames, sizeof(*l->frames));
    l->data = malloc(data);
    if (l->frames == NULL || l->data == NULL) {
        free(l->frames);
        free(l->data);
        l->frames = NULL;
        l->data = NULL;
        errno = ENOMEM;
        return -1;
    }
    l->conf = *conf;
    l->frame_cap = frames;
    l->data_cap = data;
    return 0;
}

void wire_link_fini(wire_link_t *l)
{
    free(l->frames);
    free(l->data);
    memset(l, 0, sizeof(*l));
}

/* where LEN bytes go in the data ring, or -1 if there is no room: frames
 * never wrap, so the tail end is skipped when a frame does not fit there;
 * head == tail with frames queued cannot happen (a wrapped tail stays
 * strictly below the head) */
static int64_t link_place(const wire_link_t *l, uint32_t len)
{
    if (l->count == 0)
        return 0;
    if (l->data_tail > l->data_head) {
        if (len <= l->data_cap - l->data_tail)
            return l->data_tail;
        return len < l->data_head ? 0 : -1;
    }
    return len < l->data_head - l->data_tail ? (int64_t)l->data_tail : -1;
}

int wire_link_push(wire_link_t *l, uint64_t now, const void *frame, uint32_t len)
{
    const wire_link_conf_t *c = &l->conf;
    uint64_t start = now > l->busy_until ? now : l->busy_until;
    uint64_t ser = 0;
    int64_t off;
    wire_frame_t *f;

    if (len == 0 || len > l->data_cap / 2 || l->count == l->frame_cap ||
        (c->queue_ns != 0 && start - now > c->queue_ns) || (off = link_place(l, len)) < 0) {
        l->dropped++;
        return 1;
    }
    if (c->rate_bps != 0) {
        /* under 8 * (2^29 + 1024) bits, times 1e9 < 2^63 (init's bounds) */
        uint64_t bits = ((uint64_t)len + c->overhead) * 8;
        ser = (bits * 1000000000ull + c->rate_bps - 1) / c->rate_bps;
    }
    l->busy_until = start + ser;
    f = &l->frames[(l->head + l->count) % l->frame_cap];
    f->due_ns = l->busy_until + c->delay_ns;
    f->off = (uint32_t)off;
    f->len = len;
    memcpy(l->data + off, frame, len);
    l->data_tail = (uint32_t)off + len;
    if (l->count == 0)
        l->data_head = (uint32_t)off;
    l->count++;
    return 0;
}

const wire_frame_t *wire_link_due(const wire_link_t *l, uint64_t now, uint64_t *next_p)
{
    const wire_frame_t *f;

    if (l->count == 0) {
        *next_p = UINT64_MAX;
        return NULL;
    }
    f = &l->frames[l->head];
    *next_p = f->due_ns;
    return f->due_ns <= now ? f : NULL;
}

void wire_link_pop(wire_link_t *l)
{
    if (l->count == 0)
        return;
    l->sent++;
    l->bytes += l->frames[l->head].len;
    l->head = (l->head + 1) % l->frame_cap;
    l->count--;
    if (l->count == 0)
        l->data_head = l->data_tail = 0;
    else
        l->data_head = l->frames[l->head].off;
}

/* "none" (0), or a decimal number (digits, at most one '.', digits), then
 * a unit from NAMES (NULL-terminated) with its scale; the value * scale,
 * rounded, must lie in [lo, hi] */
static int parse_units(const char *s, const char *const *names, const double *scales, double lo,
                       double hi, uint64_t *v_p)
{
    double v = 0, frac = 0.1;
    int digits = 0, dot = 0;
    const char *p = s;

    if (s == NULL)
        return -1;
    if (strcmp(s, "none") == 0) {
        *v_p = 0;
        return 0;
    }
    for (; *p != '\0'; p++) {
        if (*p >= '0' && *p <= '9') {
            if (dot) {
                v += (*p - '0') * frac;
                frac /= 10;
            } else {
                v = v * 10 + (*p - '0');
            }
            if (++digits > 15)
                return -1;
        } else if (*p == '.' && !dot) {
            dot = 1;
        } else {
            break;
        }
    }
    if (digits == 0)
        return -1;
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(p, names[i]) == 0) {
            double x = v * scales[i] + 0.5;
            uint64_t r;
            if (!(x >= lo && x < hi + 1))      /* before the cast: in range */
                return -1;
            r = (uint64_t)x;                     /* rounded to nearest */
            if ((double)r < lo)
                return -1;
            *v_p = r;
            return 0;
        }
    }
    return -1;
}

int wire_parse_rate(const char *s, uint64_t *bps_p)
{
    static const char *const names[] = {"bit", "kbit", "mbit", "gbit", NULL};
    static const double scales[] = {1, 1e3, 1e6, 1e9};

    return parse_units(s, names, scales, 1, 1e13, bps_p);
}

int wire_parse_time(const char *s, uint64_t *ns_p)
{
    static const char *const names[] = {"ns", "us", "ms", "s", NULL};
    static const double scales[] = {1, 1e3, 1e6, 1e9};

    return parse_units(s, names, scales, 0, 3600e9, ns_p);
}

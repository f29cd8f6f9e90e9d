/* A bounded set of psn ranges [start, end), kept sorted, disjoint and
 * non-adjacent (touching ranges merge).
 *
 * The receiver keeps the psns that arrived above its cumulative ack here and
 * reports the highest ranges as SACK blocks; the sender keeps the ranges it
 * has already processed as sacked, so that a SACK block repeated in every
 * ack costs only its new part.  Both uses are hints: when the set is full
 * the highest ranges are dropped, which at worst costs a report or a rescan,
 * never correctness.
 *
 * The set is a fixed array inside the struct: no allocation.  Adding at or
 * above the highest range (the common case: arrivals in order after a gap)
 * is O(1); elsewhere it moves at most TN_UDP_RANGES_CAP entries. */
#ifndef TN_XPORT_UDP_UDP_RANGES_H
#define TN_XPORT_UDP_UDP_RANGES_H

#include <stdint.h>

#define TN_UDP_RANGES_CAP 32

typedef struct {
    uint64_t start, end;            /* [start, end), start < end */
} tn_udp_range_t;

typedef struct {
    uint32_t       n;
    tn_udp_range_t r[TN_UDP_RANGES_CAP];   /* ascending */
} tn_udp_ranges_t;

static inline void tn_udp_ranges_init(tn_udp_ranges_t *rs)
{
    rs->n = 0;
}

static inline int tn_udp_ranges_empty(const tn_udp_ranges_t *rs)
{
    return rs->n == 0;
}

/* Add [start, end), merging with what it overlaps or touches.  When the set
 * would exceed its capacity the highest range is dropped (possibly the one
 * being added). */
void tn_udp_ranges_add(tn_udp_ranges_t *rs, uint64_t start, uint64_t end);

/* Forget every psn below psn (ranges are cut, not only dropped). */
void tn_udp_ranges_remove_below(tn_udp_ranges_t *rs, uint64_t psn);

int tn_udp_ranges_contains(const tn_udp_ranges_t *rs, uint64_t psn);

/* The first sub-range [*gs_p, *ge_p) of [from, to) not in the set; returns 0
 * when [from, to) is covered entirely. */
int tn_udp_ranges_next_gap(const tn_udp_ranges_t *rs, uint64_t from, uint64_t to,
                           uint64_t *gs_p, uint64_t *ge_p);

/* Copy up to max ranges, highest first, into out; returns how many. */
uint32_t tn_udp_ranges_highest(const tn_udp_ranges_t *rs, tn_udp_range_t *out, uint32_t max);

#endif

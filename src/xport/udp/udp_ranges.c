/* Bounded sorted psn range set; see udp_ranges.h. */
#include "xport/udp/udp_ranges.h"

#include <string.h>

/* Index of the first range whose end >= psn (the one psn could touch). */
static uint32_t tn_udp_ranges_lower(const tn_udp_ranges_t *rs, uint64_t psn)
{
    uint32_t lo = 0, hi = rs->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (rs->r[mid].end < psn) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

void tn_udp_ranges_add(tn_udp_ranges_t *rs, uint64_t start, uint64_t end)
{
    if (start >= end) {
        return;
    }
    /* fast paths: extend or append at the top */
    if (rs->n != 0) {
        tn_udp_range_t *top = &rs->r[rs->n - 1];
        if (start >= top->start && start <= top->end) {
            if (end > top->end) {
                top->end = end;
            }
            return;
        }
        if (start > top->end && rs->n < TN_UDP_RANGES_CAP) {
            rs->r[rs->n++] = (tn_udp_range_t){ start, end };
            return;
        }
    }
    uint32_t i = tn_udp_ranges_lower(rs, start);
    /* ranges i..j-1 overlap or touch [start, end) */
    uint32_t j = i;
    while (j < rs->n && rs->r[j].start <= end) {
        j++;
    }
    if (j > i) {
        if (rs->r[i].start < start) {
            start = rs->r[i].start;
        }
        if (rs->r[j - 1].end > end) {
            end = rs->r[j - 1].end;
        }
        rs->r[i] = (tn_udp_range_t){ start, end };
        memmove(&rs->r[i + 1], &rs->r[j], (rs->n - j) * sizeof(rs->r[0]));
        rs->n -= j - i - 1;
        return;
    }
    /* a new range at position i */
    if (rs->n == TN_UDP_RANGES_CAP) {
        if (i == rs->n) {
            return;                         /* it would be the highest: drop it */
        }
        rs->n--;                            /* drop the highest */
    }
    memmove(&rs->r[i + 1], &rs->r[i], (rs->n - i) * sizeof(rs->r[0]));
    rs->r[i] = (tn_udp_range_t){ start, end };
    rs->n++;
}

void tn_udp_ranges_remove_below(tn_udp_ranges_t *rs, uint64_t psn)
{
    if (rs->n == 0 || rs->r[0].start >= psn) {
        return;
    }
    uint32_t i = 0;
    while (i < rs->n && rs->r[i].end <= psn) {
        i++;
    }
    if (i < rs->n && rs->r[i].start < psn) {
        rs->r[i].start = psn;
    }
    if (i != 0) {
        memmove(&rs->r[0], &rs->r[i], (rs->n - i) * sizeof(rs->r[0]));
        rs->n -= i;
    }
}

int tn_udp_ranges_contains(const tn_udp_ranges_t *rs, uint64_t psn)
{
    uint32_t i = tn_udp_ranges_lower(rs, psn + 1);
    return i < rs->n && rs->r[i].start <= psn && psn < rs->r[i].end;
}

int tn_udp_ranges_next_gap(const tn_udp_ranges_t *rs, uint64_t from, uint64_t to,
                           uint64_t *gs_p, uint64_t *ge_p)
{
    if (from >= to) {
        return 0;
    }
    /* the first range that ends after from */
    uint32_t i = tn_udp_ranges_lower(rs, from + 1);
    if (i < rs->n && rs->r[i].start <= from) {
        from = rs->r[i].end;                /* from is covered: skip the range */
        i++;
        if (from >= to) {
            return 0;
        }
    }
    uint64_t ge = to;
    if (i < rs->n && rs->r[i].start < ge) {
        ge = rs->r[i].start;
    }
    *gs_p = from;
    *ge_p = ge;
    return 1;
}

uint32_t tn_udp_ranges_highest(const tn_udp_ranges_t *rs, tn_udp_range_t *out, uint32_t max)
{
    uint32_t k = 0;
    for (uint32_t i = rs->n; i > 0 && k < max; i--) {
        out[k++] = rs->r[i - 1];
    }
    return k;
}

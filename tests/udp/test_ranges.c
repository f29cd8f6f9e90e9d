/* udp_ranges: merging, cutting, gaps and the highest-first report, checked
 * against a bitmap model under random operations; and the overflow rule
 * (when full, the highest ranges are dropped, the low ones stay exact). */
#include "xport/udp/udp_ranges.h"

#include <stdio.h>
#include <string.h>

#include "../check.h"

static uint64_t rng = 12345;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#define SPACE 400
static unsigned char model[SPACE];

/* The set is well formed and equals the model (below the first dropped psn). */
static int consistent(const tn_udp_ranges_t *rs, uint64_t limit)
{
    for (uint32_t i = 0; i < rs->n; i++) {
        if (rs->r[i].start >= rs->r[i].end) {
            return 0;
        }
        if (i > 0 && rs->r[i].start <= rs->r[i - 1].end) {
            return 0;                       /* overlapping or touching */
        }
    }
    for (uint64_t p = 0; p < limit && p < SPACE; p++) {
        if (tn_udp_ranges_contains(rs, p) != model[p]) {
            return 0;
        }
    }
    return 1;
}

static void test_basic(void)
{
    tn_udp_ranges_t rs;
    tn_udp_ranges_init(&rs);
    CHECK(tn_udp_ranges_empty(&rs));
    tn_udp_ranges_add(&rs, 10, 12);
    tn_udp_ranges_add(&rs, 14, 15);
    tn_udp_ranges_add(&rs, 12, 14);          /* fills the hole: one range */
    CHECK(rs.n == 1 && rs.r[0].start == 10 && rs.r[0].end == 15);
    tn_udp_ranges_add(&rs, 20, 21);
    tn_udp_ranges_add(&rs, 5, 6);
    CHECK(rs.n == 3);
    tn_udp_range_t out[8];
    CHECK(tn_udp_ranges_highest(&rs, out, 2) == 2);
    CHECK(out[0].start == 20 && out[1].start == 10);
    uint64_t gs, ge;
    CHECK(tn_udp_ranges_next_gap(&rs, 10, 30, &gs, &ge) && gs == 15 && ge == 20);
    CHECK(tn_udp_ranges_next_gap(&rs, 0, 30, &gs, &ge) && gs == 0 && ge == 5);
    CHECK(!tn_udp_ranges_next_gap(&rs, 11, 14, &gs, &ge));
    CHECK(tn_udp_ranges_next_gap(&rs, 21, 30, &gs, &ge) && gs == 21 && ge == 30);
    tn_udp_ranges_remove_below(&rs, 12);
    CHECK(rs.n == 2 && rs.r[0].start == 12 && rs.r[0].end == 15);
    tn_udp_ranges_remove_below(&rs, 100);
    CHECK(rs.n == 0);
    tn_udp_ranges_add(&rs, 3, 3);            /* empty: ignored */
    CHECK(rs.n == 0);
}

static void test_random(void)
{
    tn_udp_ranges_t rs;
    for (int round = 0; round < 200; round++) {
        tn_udp_ranges_init(&rs);
        memset(model, 0, sizeof(model));
        uint64_t floor = 0;
        for (int op = 0; op < 300; op++) {
            uint64_t r = next_rand() % 100;
            if (r < 70) {
                /* few enough distinct ranges never to overflow: space 0..SPACE,
                 * lengths up to 8, psns multiples of 1 */
                uint64_t s = floor + next_rand() % 60, e = s + 1 + next_rand() % 8;
                if (e > SPACE) {
                    continue;
                }
                tn_udp_ranges_add(&rs, s, e);
                memset(model + s, 1, e - s);
            } else if (r < 80) {
                uint64_t f = floor + next_rand() % 10;
                tn_udp_ranges_remove_below(&rs, f);
                memset(model, 0, f);
                floor = f;
            } else {
                uint64_t from = next_rand() % SPACE, to = from + next_rand() % 50, gs, ge;
                if (to > SPACE) {
                    to = SPACE;
                }
                /* the gaps of [from, to) together with the set cover it exactly */
                uint64_t p = from;
                int ok = 1;
                while (tn_udp_ranges_next_gap(&rs, p, to, &gs, &ge)) {
                    if (gs < p || ge > to || gs >= ge) {
                        ok = 0;
                        break;
                    }
                    for (uint64_t q = p; q < gs; q++) {
                        ok &= model[q] == 1;
                    }
                    for (uint64_t q = gs; q < ge; q++) {
                        ok &= model[q] == 0;
                    }
                    if (ge < to) {
                        ok &= model[ge] == 1;
                    }
                    p = ge;
                }
                for (uint64_t q = p; q < to; q++) {
                    ok &= model[q] == 1;
                }
                CHECK(ok);
            }
            if (rs.n >= TN_UDP_RANGES_CAP) {
                break;                      /* overflow is tested separately */
            }
            if (!consistent(&rs, SPACE)) {
                CHECK(!"ranges differ from the model");
                return;
            }
        }
    }
}

static void test_overflow(void)
{
    tn_udp_ranges_t rs;
    tn_udp_ranges_init(&rs);
    for (uint64_t i = 0; i < TN_UDP_RANGES_CAP + 10; i++) {
        tn_udp_ranges_add(&rs, 100 + 2 * i, 101 + 2 * i);  /* ascending: the new ones drop */
    }
    CHECK(rs.n == TN_UDP_RANGES_CAP);
    CHECK(rs.r[TN_UDP_RANGES_CAP - 1].start == 100 + 2 * (TN_UDP_RANGES_CAP - 1));
    tn_udp_ranges_add(&rs, 10, 11);          /* a low one evicts the highest */
    CHECK(rs.n == TN_UDP_RANGES_CAP);
    CHECK(rs.r[0].start == 10);
    CHECK(rs.r[TN_UDP_RANGES_CAP - 1].start == 100 + 2 * (TN_UDP_RANGES_CAP - 2));
    tn_udp_ranges_add(&rs, 101, 102);        /* merges two: frees a place */
    CHECK(rs.n == TN_UDP_RANGES_CAP - 1);
    CHECK(tn_udp_ranges_contains(&rs, 100) && tn_udp_ranges_contains(&rs, 102));
    tn_udp_range_t out[8];
    CHECK(tn_udp_ranges_highest(&rs, out, 8) == 8);
    for (int i = 1; i < 8; i++) {
        CHECK(out[i].end < out[i - 1].start);
    }
}

int main(void)
{
    test_basic();
    test_random();
    test_overflow();
    return tn_check_report("test_ranges");
}

/* tern-wire's link (tools/tern-wire/wire_link.c): delivery times worked
 * out by hand (a lone frame pays its own serialisation, a queued one waits
 * for the link, the delay comes after the last bit), tail drop on the
 * queue's time and on the rings' room, the data ring's wrap with every
 * frame's bytes intact and in order, random arrivals against the link's
 * invariants, and the command line's rate and time parsers. */
#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "wire_link.h"

static void fill(uint8_t *b, uint32_t len, uint8_t seed)
{
    for (uint32_t i = 0; i < len; i++)
        b[i] = (uint8_t)(seed + i * 7);
}

/* the head frame is due at exactly WANT: not a ns before, with LEN bytes
 * made by fill(SEED) */
static void check_due(wire_link_t *l, uint64_t want, uint32_t len, uint8_t seed)
{
    uint8_t b[4096];
    uint64_t next;
    const wire_frame_t *f;

    if (want > 0)
        CHECK(wire_link_due(l, want - 1, &next) == NULL && next == want);
    f = wire_link_due(l, want, &next);
    CHECK(f != NULL && f->len == len);
    if (f == NULL || f->len != len)
        return;
    fill(b, len, seed);
    CHECK(memcmp(wire_link_bytes(l, f), b, len) == 0);
    wire_link_pop(l);
}

static void test_times(void)
{
    wire_link_conf_t c = {.rate_bps = 100000000, .delay_ns = 1000};
    wire_link_t l;
    uint8_t b[2000];
    uint64_t next;

    CHECK(wire_link_init(&l, &c, 16, 1 << 16) == 0);
    /* 1250 B at 100 Mbit/s: 100 us on the link */
    fill(b, 1250, 1);
    CHECK(wire_link_push(&l, 0, b, 1250) == 0);
    fill(b, 1250, 2);
    CHECK(wire_link_push(&l, 10000, b, 1250) == 0);      /* waits for the first */
    fill(b, 125, 3);
    CHECK(wire_link_push(&l, 500000, b, 125) == 0);      /* idle again: 10 us */
    check_due(&l, 101000, 1250, 1);
    check_due(&l, 201000, 1250, 2);
    check_due(&l, 511000, 125, 3);
    CHECK(wire_link_due(&l, UINT64_MAX - 1, &next) == NULL && next == UINT64_MAX);
    CHECK(l.sent == 3 && l.dropped == 0 && l.bytes == 2625);
    /* rounding up: 1 B at 3 bit/s is 2666666666.67 ns, so 2666666667 */
    wire_link_fini(&l);
    c.rate_bps = 3;
    c.delay_ns = 0;
    CHECK(wire_link_init(&l, &c, 4, 64) == 0);
    CHECK(wire_link_push(&l, 5, b, 1) == 0);
    CHECK(wire_link_due(&l, 0, &next) == NULL && next == 5 + 2666666667ull);
    wire_link_fini(&l);
    /* no rate: the delay only, in arrival order */
    c.rate_bps = 0;
    c.delay_ns = 700;
    c.overhead = 24;
    CHECK(wire_link_init(&l, &c, 4, 64) == 0);
    fill(b, 20, 4);
    CHECK(wire_link_push(&l, 100, b, 20) == 0);
    fill(b, 10, 5);
    CHECK(wire_link_push(&l, 100, b, 10) == 0);
    check_due(&l, 800, 20, 4);
    check_due(&l, 800, 10, 5);
    wire_link_fini(&l);
    /* the overhead counts on the wire: (100 + 24) B at 8 Mbit/s, 124 us */
    c.rate_bps = 8000000;
    c.delay_ns = 0;
    CHECK(wire_link_init(&l, &c, 4, 1024) == 0);
    fill(b, 100, 6);
    CHECK(wire_link_push(&l, 0, b, 100) == 0);
    check_due(&l, 124000, 100, 6);
    wire_link_fini(&l);
}

static void test_drops(void)
{
    wire_link_conf_t c = {.rate_bps = 100000000, .queue_ns = 150000};
    wire_link_t l;
    uint8_t b[4096];
    uint64_t next;

    /* a frame may wait 150 us: the third of four at once would wait 200 */
    CHECK(wire_link_init(&l, &c, 16, 1 << 16) == 0);
    memset(b, 0, sizeof(b));
    for (int i = 0; i < 4; i++)
        CHECK(wire_link_push(&l, 0, b, 1250) == (i < 2 ? 0 : 1));
    CHECK(l.count == 2 && l.dropped == 2);
    CHECK(wire_link_due(&l, 0, &next) == NULL && next == 100000);
    /* a drop leaves the link's time alone: the next frame after the two */
    CHECK(wire_link_push(&l, 60000, b, 1250) == 0);
    CHECK(l.frames[(l.head + 2) % l.frame_cap].due_ns == 300000);
    /* empty and oversized frames; a full frame ring */
    CHECK(wire_link_push(&l, 0, b, 0) == 1);
    CHECK(wire_link_push(&l, 0, b, (1 << 15) + 1) == 1);
    wire_link_fini(&l);
    c.queue_ns = 0;                  /* no limit on the wait */
    CHECK(wire_link_init(&l, &c, 2, 1 << 16) == 0);
    CHECK(wire_link_push(&l, 0, b, 10) == 0 && wire_link_push(&l, 0, b, 10) == 0);
    CHECK(wire_link_push(&l, 0, b, 10) == 1 && l.dropped == 1);
    wire_link_fini(&l);
    /* bounds of the rings and the overhead */
    CHECK(wire_link_init(&l, &c, 0, 64) == -1);
    CHECK(wire_link_init(&l, &c, 4, 1) == -1);
    CHECK(wire_link_init(&l, &c, 4, (1u << 30) + 1) == -1);
    c.overhead = 1025;
    CHECK(wire_link_init(&l, &c, 4, 64) == -1);
}

/* the data ring (4000 bytes): frames never wrap; the tail end is skipped
 * when a frame does not fit there; a full ring drops */
static void test_ring(void)
{
    wire_link_conf_t c = {0};
    wire_link_t l;
    uint8_t b[2000];

    CHECK(wire_link_init(&l, &c, 16, 4000) == 0);
    fill(b, 1500, 10);
    CHECK(wire_link_push(&l, 0, b, 1500) == 0);          /* 0..1500 */
    fill(b, 1500, 11);
    CHECK(wire_link_push(&l, 0, b, 1500) == 0);          /* 1500..3000 */
    CHECK(wire_link_push(&l, 0, b, 1500) == 1);          /* 1000 at the end, head at 0 */
    check_due(&l, 0, 1500, 10);                          /* head now 1500 */
    fill(b, 1000, 12);
    CHECK(wire_link_push(&l, 0, b, 1000) == 0);          /* 3000..4000 */
    CHECK(l.frames[(l.head + 1) % l.frame_cap].off == 3000);
    fill(b, 1000, 13);
    CHECK(wire_link_push(&l, 0, b, 1000) == 0);          /* wraps: 0..1000 */
    CHECK(l.frames[(l.head + 2) % l.frame_cap].off == 0);
    CHECK(wire_link_push(&l, 0, b, 500) == 1);           /* would meet the head */
    fill(b, 499, 14);
    CHECK(wire_link_push(&l, 0, b, 499) == 0);           /* 1000..1499 */
    check_due(&l, 0, 1500, 11);
    check_due(&l, 0, 1000, 12);
    check_due(&l, 0, 1000, 13);
    check_due(&l, 0, 499, 14);
    CHECK(l.count == 0 && l.data_head == 0 && l.data_tail == 0);
    wire_link_fini(&l);
}

/* random arrivals: frames leave in order, one at a time on the link, none
 * before its arrival plus its serialisation plus the delay, and a frame
 * that found the link idle pays exactly that */
static void test_random(void)
{
    wire_link_conf_t c = {.rate_bps = 400000000, .delay_ns = 5000, .queue_ns = 2000000};
    wire_link_t l;
    uint8_t b[1600];
    uint64_t rng = 12345, now = 0, prev_end = 0, next;
    uint64_t arr[64];
    uint32_t len[64];
    int n = 0;

    CHECK(wire_link_init(&l, &c, 64, 1 << 20) == 0);
    memset(b, 0, sizeof(b));
    for (int step = 0; step < 100000; step++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        now += (rng >> 33) % 40000;
        uint32_t ln = 60 + (uint32_t)((rng >> 17) % 1455);
        if (n < 64) {
            uint64_t busy = l.busy_until;
            uint64_t d0 = l.dropped;
            wire_link_push(&l, now, b, ln);
            if (l.dropped == d0) {
                arr[n] = now;
                len[n] = ln;
                n++;
                uint64_t ser = ((uint64_t)ln * 8 * 1000000000ull + c.rate_bps - 1) / c.rate_bps;
                const wire_frame_t *f = &l.frames[(l.head + l.count - 1) % l.frame_cap];
                CHECK(f->due_ns == (busy > now ? busy : now) + ser + c.delay_ns);
            }
        }
        const wire_frame_t *f;
        int k = 0;
        while ((f = wire_link_due(&l, now, &next)) != NULL) {
            uint64_t ser = ((uint64_t)f->len * 8 * 1000000000ull + c.rate_bps - 1) / c.rate_bps;
            uint64_t end = f->due_ns - c.delay_ns;
            CHECK(f->len == len[k]);
            CHECK(end >= arr[k] + ser && end - ser >= prev_end);
            prev_end = end;
            wire_link_pop(&l);
            k++;
        }
        memmove(arr, arr + k, (size_t)(n - k) * sizeof(arr[0]));
        memmove(len, len + k, (size_t)(n - k) * sizeof(len[0]));
        n -= k;
    }
    CHECK(l.sent > 50000);
    wire_link_fini(&l);
}

static void test_parse(void)
{
    static const char *bad_rates[] = {"", "mbit", "10", "10 mbit", "-1mbit", "1e3mbit",
                                      "0bit", "0.4bit", "1.2.3mbit", "10Mbit", "10mbps",
                                      "1234567890123456bit", "10001gbit", "400mbit ", NULL};
    static const char *bad_times[] = {"", "us", "5", "5 us", "-5us", "1.5.1ms", "3601s",
                                      "5usec", "5S", "none ", NULL};
    uint64_t v = 77;

    CHECK(wire_parse_rate("400mbit", &v) == 0 && v == 400000000);
    CHECK(wire_parse_rate("1.5gbit", &v) == 0 && v == 1500000000);
    CHECK(wire_parse_rate("64kbit", &v) == 0 && v == 64000);
    CHECK(wire_parse_rate("1bit", &v) == 0 && v == 1);
    CHECK(wire_parse_rate("10000gbit", &v) == 0 && v == 10000000000000ull);
    CHECK(wire_parse_rate("none", &v) == 0 && v == 0);
    CHECK(wire_parse_time("100us", &v) == 0 && v == 100000);
    CHECK(wire_parse_time("1.5ms", &v) == 0 && v == 1500000);
    CHECK(wire_parse_time("200ms", &v) == 0 && v == 200000000);
    CHECK(wire_parse_time("2s", &v) == 0 && v == 2000000000);
    CHECK(wire_parse_time("0us", &v) == 0 && v == 0);
    CHECK(wire_parse_time("3600s", &v) == 0 && v == 3600000000000ull);
    CHECK(wire_parse_time("none", &v) == 0 && v == 0);
    for (int i = 0; bad_rates[i] != NULL; i++) {
        v = 77;
        CHECK(wire_parse_rate(bad_rates[i], &v) == -1 && v == 77);
    }
    for (int i = 0; bad_times[i] != NULL; i++) {
        v = 77;
        CHECK(wire_parse_time(bad_times[i], &v) == -1 && v == 77);
    }
    CHECK(wire_parse_rate(NULL, &v) == -1 && wire_parse_time(NULL, &v) == -1);
}

int main(void)
{
    test_times();
    test_drops();
    test_ring();
    test_random();
    test_parse();
    return tn_check_report("wire_link");
}

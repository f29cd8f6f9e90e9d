/* The udp transport's clock; see udp_clock.h. */
#include "xport/udp/udp_clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

uint64_t tn_udp_clock_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Does the kernel keep time with the cycle counter? */
static int tn_clock_kernel_uses_tsc(void)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL) {
        return 0;
    }
    char name[32] = "";
    int ok = fgets(name, sizeof(name), f) != NULL && strncmp(name, "tsc\n", 4) == 0;
    fclose(f);
    return ok;
}

void tn_udp_clock_init(tn_udp_clock_t *c)
{
    memset(c, 0, sizeof(*c));
#if defined(__x86_64__)
    unsigned a, b, cx, d;
    /* CPUID 0x80000007 EDX bit 8: invariant TSC */
    if (__get_cpuid(0x80000007u, &a, &b, &cx, &d) && (d & (1u << 8)) != 0) {
        c->use_tsc = tn_clock_kernel_uses_tsc();
    }
#endif
}

/* ns, or the last value returned if that was later. */
static uint64_t tn_clock_give(tn_udp_clock_t *c, uint64_t ns)
{
    if (ns > c->last) {
        c->last = ns;
    }
    return c->last;
}

uint64_t tn_udp_clock_anchor(tn_udp_clock_t *c, uint64_t tsc1, uint64_t ns, uint64_t tsc2)
{
    if (tsc2 < tsc1 || tsc2 - tsc1 > TN_UDP_CLOCK_PAIR_TICKS) {
        return tn_clock_give(c, ns);
    }
    uint64_t tsc = tsc1 + (tsc2 - tsc1) / 2;
    if (c->cal_ns == 0) {
        c->cal_tsc = tsc;
        c->cal_ns = ns;
    } else if (ns - c->cal_ns >= TN_UDP_CLOCK_CAL_NS && tsc > c->cal_tsc) {
        /* over the whole time since the first reading: the longer, the
         * better the scale */
        c->ns_per_tick = (double)(ns - c->cal_ns) / (double)(tsc - c->cal_tsc);
        c->span = (uint64_t)((double)TN_UDP_CLOCK_SPAN_NS / c->ns_per_tick);
    }
    c->tsc0 = tsc;
    c->ns0 = ns;
    return tn_clock_give(c, ns);
}

uint64_t tn_udp_clock_scaled(tn_udp_clock_t *c, uint64_t tsc)
{
    if (c->ns_per_tick == 0 || tsc < c->tsc0 || tsc - c->tsc0 > c->span) {
        return 0;
    }
    return tn_clock_give(c, c->ns0 + (uint64_t)((double)(tsc - c->tsc0) * c->ns_per_tick));
}

uint64_t tn_udp_clock_now(tn_udp_clock_t *c)
{
#if defined(__x86_64__)
    if (c->use_tsc) {
        uint64_t tsc = __rdtsc();
        uint64_t ns = tn_udp_clock_scaled(c, tsc);
        if (ns != 0) {
            return ns;
        }
        ns = tn_udp_clock_real();
        return tn_udp_clock_anchor(c, tsc, ns, __rdtsc());
    }
#endif
    return tn_udp_clock_real();
}

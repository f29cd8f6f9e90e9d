/* Fuzz harness of tern-monitor's decoders of network counter files
 * (tools/tern-monitor/mon_nic_parse.c) and of the rates between two
 * samples (mon_nic_rate.c): what the kernel writes in /sys and /proc is
 * trusted by nobody.
 *
 * Input: a byte b, then the text of a file.  b & 7 picks the decoders:
 *   0    a counter (tn_mon_nic_parse_u64, and _parse_speed on it)
 *   1-4  the small files: speed, operstate, an IB port's state and rate
 *        (_parse_speed, _oper, _ib_state, _ib_rate), all four
 *   5    /proc/net/snmp (_parse_snmp)
 *   6    two snmp files, split at the first NUL, as two samples a second
 *        apart, and the rates between them (tn_mon_nic_delta)
 *   7    every decoder on the same text
 * The seeds (corpus/nic/) start with the digit of their decoder, '0'..'7'.
 * The text is copied to an allocation of its exact size, so that ASan sees
 * a read past its end.
 *
 * Checked: a failure leaves the output as it was; a decoded counter prints
 * back as the text's digits (leading zeros aside); an operstate is the
 * word of the text; an IB rate's description is NUL-ended within its
 * buffer; a decoded snmp file sets only known bits, and written out again
 * as header and values lines decodes to the same counters; rates are
 * finite and not negative. */
#include "mon_nic.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_fail(const char *what)
{
    fprintf(stderr, "fuzz_nic: %s\n", what);
    abort();
}

static size_t chomp(const char *t, size_t n)
{
    return n > 0 && t[n - 1] == '\n' ? n - 1 : n;
}

static void fz_u64(const char *t, size_t n)
{
    uint64_t v = 42;
    char     back[32];
    size_t   z = 0, m = chomp(t, n);

    if (tn_mon_nic_parse_u64(t, n, &v) != 0) {
        if (v != 42) {
            fz_fail("u64: output written on failure");
        }
        return;
    }
    while (z + 1 < m && t[z] == '0') {
        z++;
    }
    int len = snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
    if ((size_t)len != m - z || memcmp(back, t + z, m - z) != 0) {
        fz_fail("u64: the value does not print back as the text");
    }
    if (tn_mon_nic_parse_speed(t, n, &v) != 0) {
        fz_fail("speed: refused a counter");
    }
}

static void fz_small(const char *t, size_t n)
{
    uint64_t v = 42;
    uint32_t st = 42;
    int      oper = -42;
    char     desc[TN_MON_NIC_DESC_LEN + 4];

    if (tn_mon_nic_parse_speed(t, n, &v) != 0 && v != 42) {
        fz_fail("speed: output written on failure");
    }
    if (tn_mon_nic_parse_oper(t, n, &oper) == 0) {
        const char *w = tn_mon_nic_oper_name(oper);
        if (w == NULL || strlen(w) != chomp(t, n) || memcmp(w, t, strlen(w)) != 0) {
            fz_fail("oper: not the word of the text");
        }
    } else if (oper != -42) {
        fz_fail("oper: output written on failure");
    }
    if (tn_mon_nic_parse_ib_state(t, n, &st) == 0 ? st > 255 : st != 42) {
        fz_fail("ib state: out of range, or written on failure");
    }
    memset(desc, 'x', sizeof(desc));
    v = 42;
    if (tn_mon_nic_parse_ib_rate(t, n, &v, desc, TN_MON_NIC_DESC_LEN) == 0) {
        if (memchr(desc, '\0', TN_MON_NIC_DESC_LEN) == NULL || desc[TN_MON_NIC_DESC_LEN] != 'x' ||
            v > 999999999999999u) {
            fz_fail("ib rate: description not ended in its buffer, or rate out of range");
        }
    } else if (v != 42) {
        fz_fail("ib rate: output written on failure");
    }
}

/* Decode; on success write the counters out again and decode that. */
static int fz_snmp(const char *t, size_t n, tn_mon_nic_snmp_t *sn)
{
    static const char *const secs[] = { "Udp", "Ip" };
    tn_mon_nic_snmp_t        again;
    char                     out[2048];
    size_t                   len = 0;

    memset(sn, 0x5a, sizeof(*sn));
    if (tn_mon_nic_parse_snmp(t, n, sn) != 0) {
        if (sn->have != 0x5a5a5a5a) {
            fz_fail("snmp: output written on failure");
        }
        return 0;
    }
    if (sn->have >> TN_MON_NIC_SNMP_NCTR) {
        fz_fail("snmp: unknown bits in have");
    }
    for (int s = 0; s < 2; s++) {
        size_t sl = strlen(secs[s]);
        for (int line = 0; line < 2; line++) {
            len += (size_t)snprintf(out + len, sizeof(out) - len, "%s:", secs[s]);
            for (int i = 0; i < TN_MON_NIC_SNMP_NCTR; i++) {
                const char *name = tn_mon_nic_snmp_ctr_name(i);
                if (!(sn->have & 1u << i) || strncmp(name, secs[s], sl) != 0 || name[sl] != '.') {
                    continue;
                }
                if (line == 0) {
                    len += (size_t)snprintf(out + len, sizeof(out) - len, " %s", name + sl + 1);
                } else {
                    len += (size_t)snprintf(out + len, sizeof(out) - len, " %llu",
                                            (unsigned long long)sn->ctr[i]);
                }
            }
            len += (size_t)snprintf(out + len, sizeof(out) - len, "\n");
        }
    }
    if (tn_mon_nic_parse_snmp(out, len, &again) != 0 || again.have != sn->have) {
        fz_fail("snmp: written out again, not decoded the same");
    }
    for (int i = 0; i < TN_MON_NIC_SNMP_NCTR; i++) {
        if ((sn->have & 1u << i) && again.ctr[i] != sn->ctr[i]) {
            fz_fail("snmp: written out again, another value");
        }
    }
    return 1;
}

/* Two snmp files as two samples a second apart, and the rates. */
static void fz_rates(const char *t, size_t n)
{
    static tn_mon_nic_sample_t a, b;
    static tn_mon_nic_rates_t  r;
    const char                *nul = memchr(t, '\0', n);
    size_t                     an = nul != NULL ? (size_t)(nul - t) : n;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.t_ns = 1000000000;
    b.t_ns = 2000000000;
    if (!fz_snmp(t, an, &a.snmp)) {
        memset(&a.snmp, 0, sizeof(a.snmp));
    }
    if (nul == NULL || !fz_snmp(nul + 1, n - an - 1, &b.snmp)) {
        memset(&b.snmp, 0, sizeof(b.snmp));
    }
    if (tn_mon_nic_delta(&a, &b, &r) != 0) {
        fz_fail("delta: refused two good samples");
    }
    for (int i = 0; i < TN_MON_NIC_SNMP_NCTR; i++) {
        if (!isfinite(r.snmp[i]) || r.snmp[i] < 0) {
            fz_fail("delta: a rate negative or not finite");
        }
        if ((r.snmp_have & 1u << i) && !(a.snmp.have & b.snmp.have & 1u << i)) {
            fz_fail("delta: a rate of a counter not in both samples");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tn_mon_nic_snmp_t sn;

    if (size == 0) {
        return 0;
    }
    size_t n = size - 1;
    char  *t = malloc(n ? n : 1);
    if (t == NULL) {
        fz_fail("out of memory");
    }
    memcpy(t, data + 1, n);
    switch (data[0] & 7) {
    case 0:
        fz_u64(t, n);
        break;
    case 1: case 2: case 3: case 4:
        fz_small(t, n);
        break;
    case 5:
        fz_snmp(t, n, &sn);
        break;
    case 6:
        fz_rates(t, n);
        break;
    default:
        fz_u64(t, n);
        fz_small(t, n);
        fz_snmp(t, n, &sn);
        break;
    }
    free(t);
    return 0;
}

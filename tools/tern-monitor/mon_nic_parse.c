/* Decoders of the files the node agent reads for network counters, and
 * the rates between two samples (mon_nic.h).  No I/O: everything here
 * works on a buffer and its length, so fuzz_nic and test_mon_nic drive it
 * without a /sys. */
#include "mon_nic.h"

#include <errno.h>
#include <string.h>

#define NAME1(id, name) name,
#define NAME2(id, sec, name) sec "." name,
static const char *const if_ctr_names[] = { TN_MON_NIC_IF_CTRS(NAME1) };
static const char *const snmp_ctr_names[] = { TN_MON_NIC_SNMP_CTRS(NAME2) };
static const char *const ib_ctr_names[] = { TN_MON_NIC_IB_CTRS(NAME1) };
static const char *const oper_names[] = { TN_MON_NIC_OPERS(NAME1) };
#undef NAME1
#undef NAME2

/* The snmp columns kept, split as the file is: section, column. */
#define SNMP_ROW(id, sec, name) { sec, name },
static const struct {
    const char *sec, *col;
} snmp_cols[] = { TN_MON_NIC_SNMP_CTRS(SNMP_ROW) };
#undef SNMP_ROW

const char *tn_mon_nic_if_ctr_name(int i)
{
    return i >= 0 && i < TN_MON_NIC_IF_NCTR ? if_ctr_names[i] : NULL;
}

const char *tn_mon_nic_snmp_ctr_name(int i)
{
    return i >= 0 && i < TN_MON_NIC_SNMP_NCTR ? snmp_ctr_names[i] : NULL;
}

const char *tn_mon_nic_ib_ctr_name(int i)
{
    return i >= 0 && i < TN_MON_NIC_IB_NCTR ? ib_ctr_names[i] : NULL;
}

const char *tn_mon_nic_oper_name(int oper)
{
    return oper >= 0 && oper < TN_MON_NIC_NOPER ? oper_names[oper] : NULL;
}

/* The length without one trailing '\n'. */
static size_t chomp(const char *buf, size_t len)
{
    return len > 0 && buf[len - 1] == '\n' ? len - 1 : len;
}

/* Digits only, at least one, into a u64. */
static int digits_u64(const char *p, size_t n, uint64_t *v_p)
{
    uint64_t v = 0;

    if (n == 0) {
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return -EINVAL;
        }
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return -ERANGE;
        }
        v = v * 10 + d;
    }
    *v_p = v;
    return 0;
}

int tn_mon_nic_parse_u64(const char *buf, size_t len, uint64_t *v_p)
{
    return digits_u64(buf, chomp(buf, len), v_p);
}

int tn_mon_nic_parse_speed(const char *buf, size_t len, uint64_t *mbps_p)
{
    size_t   n = chomp(buf, len);
    uint64_t v;

    if (n == 2 && buf[0] == '-' && buf[1] == '1') {
        *mbps_p = 0;
        return 0;
    }
    int rc = digits_u64(buf, n, &v);
    if (rc == 0) {
        *mbps_p = v == 65535 || v == 4294967295u ? 0 : v;
    }
    return rc;
}

int tn_mon_nic_parse_oper(const char *buf, size_t len, int *oper_p)
{
    size_t n = chomp(buf, len);

    for (int i = 0; i < TN_MON_NIC_NOPER; i++) {
        if (strlen(oper_names[i]) == n && memcmp(buf, oper_names[i], n) == 0) {
            *oper_p = i;
            return 0;
        }
    }
    return -EINVAL;
}

int tn_mon_nic_parse_ib_state(const char *buf, size_t len, uint32_t *state_p)
{
    size_t   n = chomp(buf, len), i = 0, w;
    uint64_t v;

    while (i < n && i < 4 && buf[i] >= '0' && buf[i] <= '9') {
        i++;
    }
    if (i == 0 || i > 3 || digits_u64(buf, i, &v) != 0 || v > 255) {
        return -EINVAL;
    }
    if (n - i < 3 || buf[i] != ':' || buf[i + 1] != ' ') {
        return -EINVAL;
    }
    for (w = i + 2; w < n; w++) {
        if (!((buf[w] >= 'A' && buf[w] <= 'Z') || buf[w] == '_')) {
            return -EINVAL;
        }
    }
    if (n - (i + 2) > 15) {
        return -EINVAL;
    }
    *state_p = (uint32_t)v;
    return 0;
}

int tn_mon_nic_parse_ib_rate(const char *buf, size_t len, uint64_t *mbps_p,
                             char *desc, size_t desclen)
{
    static const char unit[] = " Gb/sec";
    size_t   n = chomp(buf, len), i = 0, f = 0, d0;
    uint64_t whole, frac = 0;

    while (i < n && i < 10 && buf[i] >= '0' && buf[i] <= '9') {
        i++;
    }
    if (i == 0 || i > 9 || digits_u64(buf, i, &whole) != 0) {
        return -EINVAL;
    }
    if (i < n && buf[i] == '.') {
        /* thousandths of a Gb/s are Mb/s: ".5" is 500 */
        for (i++; f < 4 && i + f < n && buf[i + f] >= '0' && buf[i + f] <= '9'; f++) {
            frac = frac * 10 + (uint64_t)(buf[i + f] - '0');
        }
        if (f == 0 || f > 3) {
            return -EINVAL;
        }
        for (size_t k = f; k < 3; k++) {
            frac *= 10;
        }
        i += f;
    }
    if (n - i < sizeof(unit) - 1 || memcmp(buf + i, unit, sizeof(unit) - 1) != 0) {
        return -EINVAL;
    }
    i += sizeof(unit) - 1;
    d0 = i;
    if (i < n) {
        /* " (4X EDR)": the text between the parentheses */
        if (n - i < 4 || buf[i] != ' ' || buf[i + 1] != '(' || buf[n - 1] != ')') {
            return -EINVAL;
        }
        d0 = i + 2;
        for (i = d0; i < n - 1; i++) {
            char c = buf[i];
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == ' ')) {
                return -EINVAL;
            }
        }
        if (i - d0 >= TN_MON_NIC_DESC_LEN || i - d0 >= desclen) {
            return -EINVAL;
        }
    }
    if (desclen == 0) {
        return -EINVAL;
    }
    memcpy(desc, buf + d0, i - d0);
    desc[i - d0] = '\0';
    *mbps_p = whole * 1000 + frac;
    return 0;
}

/* The end of the line starting at p (its '\n', or the end of the text). */
static size_t line_end(const char *buf, size_t len, size_t p)
{
    const char *nl = memchr(buf + p, '\n', len - p);
    return nl != NULL ? (size_t)(nl - buf) : len;
}

/* The next field of buf[*p, end): skips spaces; 0 at the end of the line. */
static size_t field(const char *buf, size_t end, size_t *p, const char **f_p)
{
    size_t s = *p, e;

    while (s < end && buf[s] == ' ') {
        s++;
    }
    for (e = s; e < end && buf[e] != ' '; e++) {
    }
    *f_p = buf + s;
    *p = e;
    return e - s;
}

/* A section's header line [h, he) and values line [v, ve), both past
 * "Sec:", field by field. */
static int snmp_pair(const char *buf, const char *sec, size_t h, size_t he, size_t v,
                     size_t ve, tn_mon_nic_snmp_t *out)
{
    for (;;) {
        const char *hf, *vf;
        size_t      hn = field(buf, he, &h, &hf), vn = field(buf, ve, &v, &vf);

        if (hn == 0 || vn == 0) {
            return hn == vn ? 0 : -EINVAL; /* not as many names as values */
        }
        for (int i = 0; i < TN_MON_NIC_SNMP_NCTR; i++) {
            if (strcmp(snmp_cols[i].sec, sec) != 0 || strlen(snmp_cols[i].col) != hn ||
                memcmp(snmp_cols[i].col, hf, hn) != 0) {
                continue;
            }
            if (out->have & (1u << i)) {
                return -EINVAL; /* a column twice */
            }
            int rc = digits_u64(vf, vn, &out->ctr[i]);
            if (rc != 0) {
                return rc;
            }
            out->have |= 1u << i;
        }
    }
}

int tn_mon_nic_parse_snmp(const char *buf, size_t len, tn_mon_nic_snmp_t *snmp_p)
{
    static const char *const secs[] = { "Udp", "Ip" };
    tn_mon_nic_snmp_t out = { 0 };
    int               done[2] = { 0, 0 };
    size_t            p = 0;

    while (p < len) {
        size_t e = line_end(buf, len, p), next = e + 1;

        for (int s = 0; s < 2; s++) {
            size_t sl = strlen(secs[s]);
            if (done[s] || e - p <= sl || memcmp(buf + p, secs[s], sl) != 0 || buf[p + sl] != ':') {
                continue;
            }
            if (next >= len) {
                return -EINVAL; /* a header without its values */
            }
            size_t ve = line_end(buf, len, next);
            if (ve - next <= sl || memcmp(buf + next, secs[s], sl) != 0 || buf[next + sl] != ':') {
                return -EINVAL;
            }
            int rc = snmp_pair(buf, secs[s], p + sl + 1, e, next + sl + 1, ve, &out);
            if (rc != 0) {
                return rc;
            }
            done[s] = 1;
            next = ve + 1;
            break;
        }
        p = next;
    }
    if (!done[0] && !done[1]) {
        return -ENODATA;
    }
    *snmp_p = out;
    return 0;
}

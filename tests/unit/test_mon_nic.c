/* tern-monitor's reader of network counters (tools/tern-monitor/mon_nic.h):
 * the decoders on good and bad text, a fake /sys and /proc built under a
 * temporary directory read through the I/O layer, rates across a counter
 * reset and interfaces that come and go, and one sample of this machine
 * (lo and the Udp line must be there), with what a sample costs here.
 * fuzz_nic drives the same decoders with hostile input. */
#include "mon_nic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"

#define S(lit) lit, sizeof(lit) - 1

static void numbers(void)
{
    uint64_t v = 7;
    int      oper = -1;

    CHECK(tn_mon_nic_parse_u64(S("0\n"), &v) == 0 && v == 0);
    CHECK(tn_mon_nic_parse_u64(S("12345"), &v) == 0 && v == 12345);
    CHECK(tn_mon_nic_parse_u64(S("18446744073709551615\n"), &v) == 0 && v == UINT64_MAX);
    CHECK(tn_mon_nic_parse_u64(S("18446744073709551616\n"), &v) == -ERANGE);
    CHECK(tn_mon_nic_parse_u64(S("99999999999999999999999"), &v) == -ERANGE);
    CHECK(v == UINT64_MAX); /* untouched by the failures */
    CHECK(tn_mon_nic_parse_u64(S(""), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("\n"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("-1\n"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("+1"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S(" 1"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("1 \n"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("1\n\n"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64(S("0x10"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_u64("12\0" "3", 4, &v) == -EINVAL);

    CHECK(tn_mon_nic_parse_speed(S("25000\n"), &v) == 0 && v == 25000);
    CHECK(tn_mon_nic_parse_speed(S("-1\n"), &v) == 0 && v == 0);
    CHECK(tn_mon_nic_parse_speed(S("4294967295\n"), &v) == 0 && v == 0);
    CHECK(tn_mon_nic_parse_speed(S("-2\n"), &v) == -EINVAL);
    CHECK(tn_mon_nic_parse_speed(S(""), &v) == -EINVAL);

    CHECK(tn_mon_nic_parse_oper(S("up\n"), &oper) == 0 && oper == TN_MON_NIC_OPER_UP);
    CHECK(tn_mon_nic_parse_oper(S("lowerlayerdown"), &oper) == 0 &&
          oper == TN_MON_NIC_OPER_LOWERLAYERDOWN);
    CHECK(tn_mon_nic_parse_oper(S("upx\n"), &oper) == -EINVAL);
    CHECK(tn_mon_nic_parse_oper(S("u"), &oper) == -EINVAL);
    CHECK(tn_mon_nic_parse_oper(S(""), &oper) == -EINVAL);
    CHECK(strcmp(tn_mon_nic_oper_name(TN_MON_NIC_OPER_DOWN), "down") == 0);
    CHECK(strcmp(tn_mon_nic_if_ctr_name(TN_MON_NIC_IF_COLLISIONS), "collisions") == 0);
    CHECK(strcmp(tn_mon_nic_snmp_ctr_name(TN_MON_NIC_IP_OUT_DISCARDS), "Ip.OutDiscards") == 0);
    CHECK(strcmp(tn_mon_nic_ib_ctr_name(TN_MON_NIC_IB_XMIT_BYTES), "port_xmit_data") == 0);
    CHECK(tn_mon_nic_ib_ctr_name(TN_MON_NIC_IB_NCTR) == NULL && tn_mon_nic_oper_name(-1) == NULL);
}

static void ib_text(void)
{
    uint32_t st = 9;
    uint64_t r = 9;
    char     desc[TN_MON_NIC_DESC_LEN];

    CHECK(tn_mon_nic_parse_ib_state(S("4: ACTIVE\n"), &st) == 0 && st == 4);
    CHECK(tn_mon_nic_parse_ib_state(S("5: ACTIVE_DEFER"), &st) == 0 && st == 5);
    CHECK(tn_mon_nic_parse_ib_state(S("4:ACTIVE\n"), &st) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_state(S("4: \n"), &st) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_state(S("256: DOWN\n"), &st) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_state(S("1: down\n"), &st) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_state(S(": DOWN"), &st) == -EINVAL);
    CHECK(st == 5);

    CHECK(tn_mon_nic_parse_ib_rate(S("100 Gb/sec (4X EDR)\n"), &r, desc, sizeof(desc)) == 0);
    CHECK(r == 100000 && strcmp(desc, "4X EDR") == 0);
    CHECK(tn_mon_nic_parse_ib_rate(S("2.5 Gb/sec (1X SDR)\n"), &r, desc, sizeof(desc)) == 0);
    CHECK(r == 2500 && strcmp(desc, "1X SDR") == 0);
    CHECK(tn_mon_nic_parse_ib_rate(S("40 Gb/sec\n"), &r, desc, sizeof(desc)) == 0);
    CHECK(r == 40000 && desc[0] == '\0');
    CHECK(tn_mon_nic_parse_ib_rate(S("100 Gb/sec (4X EDR"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("100 Gb/sec ()"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("100 Gb/sec (4X EDR) "), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("100 Gb/sec (0123456789abcdef)"), &r, desc, sizeof(desc)) ==
          -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("2. Gb/sec"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("2.5555 Gb/sec"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("1234567890 Gb/sec"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S("100 Mb/sec"), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(tn_mon_nic_parse_ib_rate(S(""), &r, desc, sizeof(desc)) == -EINVAL);
    CHECK(r == 40000);
}

#define UDP_HDR "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors " \
                "InCsumErrors IgnoredMulti MemErrors\n"
#define IP_PAIR "Ip: Forwarding DefaultTTL InReceives InDiscards OutDiscards\n" \
                "Ip: 2 64 100 7 8\n"

static void snmp(void)
{
    tn_mon_nic_snmp_t sn;
    const uint32_t    udp_all = (1u << (TN_MON_NIC_UDP_MEM_ERRORS + 1)) - 1;
    const uint32_t    ip_both = (1u << TN_MON_NIC_IP_IN_DISCARDS) | (1u << TN_MON_NIC_IP_OUT_DISCARDS);

    /* good: the columns by name, UdpLite and Tcp (a -1 in it) left alone */
    CHECK(tn_mon_nic_parse_snmp(S(IP_PAIR "Tcp: MaxConn\nTcp: -1\n" UDP_HDR
                                  "Udp: 1 2 3 4 5 6 7 8 9\n"
                                  "UdpLite: InDatagrams\nUdpLite: x\n"), &sn) == 0);
    CHECK(sn.have == (udp_all | ip_both));
    CHECK(sn.ctr[TN_MON_NIC_UDP_IN_DATAGRAMS] == 1 && sn.ctr[TN_MON_NIC_UDP_MEM_ERRORS] == 9);
    CHECK(sn.ctr[TN_MON_NIC_UDP_RCVBUF_ERRORS] == 5);
    CHECK(sn.ctr[TN_MON_NIC_IP_IN_DISCARDS] == 7 && sn.ctr[TN_MON_NIC_IP_OUT_DISCARDS] == 8);
    /* missing columns (an older kernel), another order, no final newline */
    CHECK(tn_mon_nic_parse_snmp(S("Udp: OutDatagrams InDatagrams\nUdp: 5 6"), &sn) == 0);
    CHECK(sn.have == ((1u << TN_MON_NIC_UDP_OUT_DATAGRAMS) | (1u << TN_MON_NIC_UDP_IN_DATAGRAMS)));
    CHECK(sn.ctr[TN_MON_NIC_UDP_OUT_DATAGRAMS] == 5 && sn.ctr[TN_MON_NIC_UDP_IN_DATAGRAMS] == 6);
    /* extra columns, even signed ones, skipped */
    CHECK(tn_mon_nic_parse_snmp(S("Udp: Future InErrors Signed\nUdp: 1 2 -3\n"), &sn) == 0);
    CHECK(sn.have == 1u << TN_MON_NIC_UDP_IN_ERRORS && sn.ctr[TN_MON_NIC_UDP_IN_ERRORS] == 2);
    /* refused: fewer values, more values, bad and huge numbers, a column
     * twice, a header without values, values of another section */
    CHECK(tn_mon_nic_parse_snmp(S("Udp: InDatagrams NoPorts\nUdp: 1\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: InDatagrams\nUdp: 1 2\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: InDatagrams\nUdp: -1\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: InDatagrams\nUdp: 1x\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: InDatagrams\nUdp: 18446744073709551616\n"), &sn) == -ERANGE);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: NoPorts NoPorts\nUdp: 1 2\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: NoPorts\n"), &sn) == -EINVAL);
    CHECK(tn_mon_nic_parse_snmp(S("Udp: NoPorts\nTcp: 1\n"), &sn) == -EINVAL);
    /* nothing of ours: empty, garbage, only UdpLite */
    CHECK(tn_mon_nic_parse_snmp(S(""), &sn) == -ENODATA);
    CHECK(tn_mon_nic_parse_snmp(S("\x01\xff garbage\n\n"), &sn) == -ENODATA);
    CHECK(tn_mon_nic_parse_snmp(S("UdpLite: InDatagrams\nUdpLite: 1\n"), &sn) == -ENODATA);
    CHECK(sn.ctr[TN_MON_NIC_UDP_IN_ERRORS] == 2); /* untouched by the failures */
}

/* ---- a fake tree ---- */

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[256], *p;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void put_if(const char *name, int type, int index, const char *speed, uint64_t base)
{
    char rel[128], num[32];

    for (int i = 0; i < TN_MON_NIC_IF_NCTR; i++) {
        if (i == TN_MON_NIC_IF_RX_CRC_ERRORS && type == TN_MON_NIC_ARPHRD_LOOPBACK) {
            continue; /* absent: unread, not bad */
        }
        snprintf(rel, sizeof(rel), "sys/class/net/%s/statistics/%s", name, tn_mon_nic_if_ctr_name(i));
        snprintf(num, sizeof(num), "%llu\n", (unsigned long long)(base + (uint64_t)i));
        put(rel, num);
    }
#define PUT_ATTR(file, fmt, val)                                         \
    snprintf(rel, sizeof(rel), "sys/class/net/%s/" file, name);         \
    snprintf(num, sizeof(num), fmt, val);                               \
    put(rel, num)
    PUT_ATTR("type", "%d\n", type);
    PUT_ATTR("ifindex", "%d\n", index);
    PUT_ATTR("mtu", "%d\n", type == TN_MON_NIC_ARPHRD_LOOPBACK ? 65536 : 9000);
    PUT_ATTR("operstate", "%s", type == TN_MON_NIC_ARPHRD_LOOPBACK ? "unknown\n" : "up\n");
    if (speed != NULL) {
        PUT_ATTR("speed", "%s", speed);
    }
#undef PUT_ATTR
}

static void fake_tree(void)
{
    static tn_mon_nic_sample_t s;
    const char                *port = "sys/class/infiniband/mlx5_0/ports/1/";
    char                       rel[160];

    strcpy(root, "/tmp/test_mon_nic.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    put_if("lo", TN_MON_NIC_ARPHRD_LOOPBACK, 1, NULL, 1000);
    put_if("eth0", 1, 2, "25000\n", 5000);
    put("sys/class/net/eth1/mtu", "1500 junk\n"); /* refused: n_bad */
    put("proc/net/snmp", IP_PAIR UDP_HDR "Udp: 10 11 12 13 14 15 16 17 18\n");
    for (int i = 0; i < TN_MON_NIC_IB_NCTR; i++) {
        snprintf(rel, sizeof(rel), "%scounters/%s", port, tn_mon_nic_ib_ctr_name(i));
        put(rel, i == TN_MON_NIC_IB_XMIT_BYTES ? "1000\n" : "3\n");
    }
    snprintf(rel, sizeof(rel), "%sstate", port);
    put(rel, "4: ACTIVE\n");
    snprintf(rel, sizeof(rel), "%srate", port);
    put(rel, "200 Gb/sec (4X HDR)\n");

    CHECK(tn_mon_nic_sample("/nonexistent/tern", &s) == -ENOENT);
    CHECK(tn_mon_nic_sample(root, &s) == 0);
    CHECK(s.n_if == 3 && s.if_dropped == 0 && s.n_bad == 1);
    CHECK(strcmp(s.ifs[0].name, "eth0") == 0 && strcmp(s.ifs[2].name, "lo") == 0);
    CHECK(s.ifs[0].have == (1u << TN_MON_NIC_IF_NCTR) - 1 && s.ifs[0].ctr[TN_MON_NIC_IF_TX_BYTES] == 5001);
    CHECK(s.ifs[0].speed_mbps == 25000 && s.ifs[0].oper == TN_MON_NIC_OPER_UP);
    CHECK(s.ifs[0].mtu == 9000 && s.ifs[0].ifindex == 2 && s.ifs[0].type == 1 && !s.ifs[0].loopback);
    CHECK(s.ifs[1].have == 0 && s.ifs[1].mtu == 0); /* eth1: nothing readable */
    CHECK(s.ifs[2].loopback && s.ifs[2].speed_mbps == 0 && s.ifs[2].oper == TN_MON_NIC_OPER_UNKNOWN);
    CHECK(!(s.ifs[2].have & 1u << TN_MON_NIC_IF_RX_CRC_ERRORS));
    CHECK(s.snmp.ctr[TN_MON_NIC_UDP_MEM_ERRORS] == 18 && s.snmp.ctr[TN_MON_NIC_IP_OUT_DISCARDS] == 8);
    CHECK(s.n_ib == 1 && strcmp(s.ib[0].dev, "mlx5_0") == 0 && s.ib[0].port == 1);
    CHECK(s.ib[0].have == (1u << TN_MON_NIC_IB_NCTR) - 1);
    CHECK(s.ib[0].ctr[TN_MON_NIC_IB_XMIT_BYTES] == 4000); /* words to bytes */
    CHECK(s.ib[0].ctr[TN_MON_NIC_IB_RCV_BYTES] == 12 && s.ib[0].ctr[TN_MON_NIC_IB_XMIT_WAIT] == 3);
    CHECK(s.ib[0].state == 4 && s.ib[0].rate_mbps == 200000 && strcmp(s.ib[0].rate_desc, "4X HDR") == 0);

    /* the caps: 64 interfaces kept, the others and a name past IFNAMSIZ counted */
    for (int i = 0; i < TN_MON_NIC_IF_MAX; i++) {
        snprintf(rel, sizeof(rel), "sys/class/net/v%02d/mtu", i);
        put(rel, "1500\n");
    }
    put("sys/class/net/abcdefghijklmnop/mtu", "1500\n");
    CHECK(tn_mon_nic_sample(root, &s) == 0);
    CHECK(s.n_if == TN_MON_NIC_IF_MAX && s.if_dropped == 3 + 1 && s.n_ib == 1);
    CHECK(s.ifs[TN_MON_NIC_IF_MAX - 1].name[TN_MON_NIC_NAME_LEN - 1] == '\0');

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* ---- rates ---- */

static void set_if(tn_mon_nic_if_t *itf, const char *name, uint32_t ifindex, uint64_t base)
{
    memset(itf, 0, sizeof(*itf));
    strcpy(itf->name, name);
    itf->ifindex = ifindex;
    itf->have = (1u << TN_MON_NIC_IF_NCTR) - 1;
    for (int i = 0; i < TN_MON_NIC_IF_NCTR; i++) {
        itf->ctr[i] = base * (uint64_t)(i + 1);
    }
}

static void rates(void)
{
    static tn_mon_nic_sample_t a, b;
    static tn_mon_nic_rates_t  r;

    a.t_ns = 1000000000;
    b.t_ns = 3000000000; /* 2 s later */
    a.n_if = 3;
    set_if(&a.ifs[0], "eth0", 2, 1000);
    set_if(&a.ifs[1], "gone0", 5, 1);
    set_if(&a.ifs[2], "veth1", 7, 500);
    b.n_if = 3;
    set_if(&b.ifs[0], "eth0", 2, 3000);
    b.ifs[0].ctr[TN_MON_NIC_IF_TX_BYTES] = 100; /* reset: was 2000 */
    b.ifs[0].have &= ~(1u << TN_MON_NIC_IF_COLLISIONS);
    set_if(&b.ifs[1], "new0", 9, 1);
    set_if(&b.ifs[2], "veth1", 8, 600); /* made anew under the same name */
    a.snmp.have = 3;
    a.snmp.ctr[0] = 10;
    a.snmp.ctr[1] = 50;
    b.snmp.have = 1;
    b.snmp.ctr[0] = 30;
    a.n_ib = b.n_ib = 1;
    strcpy(a.ib[0].dev, "mlx5_0");
    a.ib[0].port = 1;
    a.ib[0].have = 1;
    a.ib[0].ctr[0] = 4000;
    b.ib[0] = a.ib[0];
    b.ib[0].ctr[0] = 12000;

    CHECK(tn_mon_nic_delta(&b, &a, &r) == -EINVAL); /* backwards */
    CHECK(tn_mon_nic_delta(&a, &a, &r) == -EINVAL); /* no time */
    CHECK(tn_mon_nic_delta(&a, &b, &r) == 0);
    CHECK(r.dt_s == 2.0 && r.n_if == 4);
    CHECK(strcmp(r.ifs[0].name, "eth0") == 0 && r.ifs[0].flags == TN_MON_NIC_RESET);
    CHECK(r.ifs[0].rate[TN_MON_NIC_IF_RX_BYTES] == 1000.0);  /* (3000 - 1000) / 2 */
    CHECK(r.ifs[0].rate[TN_MON_NIC_IF_TX_BYTES] == 50.0);    /* from zero: 100 / 2 */
    CHECK(r.ifs[0].have == ((1u << TN_MON_NIC_IF_NCTR) - 1 - (1u << TN_MON_NIC_IF_COLLISIONS)));
    CHECK(strcmp(r.ifs[1].name, "new0") == 0 && r.ifs[1].flags == TN_MON_NIC_NEW && r.ifs[1].have == 0);
    CHECK(strcmp(r.ifs[2].name, "veth1") == 0 && r.ifs[2].flags == TN_MON_NIC_RESET);
    CHECK(r.ifs[2].rate[TN_MON_NIC_IF_RX_BYTES] == 300.0);   /* new ifindex: 600 / 2 */
    CHECK(strcmp(r.ifs[3].name, "gone0") == 0 && r.ifs[3].flags == TN_MON_NIC_GONE);
    CHECK(r.snmp_have == 1 && r.snmp[0] == 10.0 && r.snmp_flags == 0);
    CHECK(r.n_ib == 1 && r.ib[0].flags == 0 && r.ib[0].rate[0] == 4000.0);
    a.n_if = TN_MON_NIC_IF_MAX + 1;
    CHECK(tn_mon_nic_delta(&a, &b, &r) == -EINVAL);
}

/* ---- this machine ---- */

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void real(void)
{
    static tn_mon_nic_sample_t s0, s1;
    static tn_mon_nic_rates_t  r;
    int                        lo = 0;
    const int                  rounds = 200;

    CHECK(tn_mon_nic_sample("/", &s0) == 0);
    for (uint32_t i = 0; i < s0.n_if; i++) {
        lo |= strcmp(s0.ifs[i].name, "lo") == 0 && s0.ifs[i].loopback &&
              (s0.ifs[i].have & 1u << TN_MON_NIC_IF_RX_BYTES);
    }
    CHECK(lo);
    CHECK(s0.snmp.have & 1u << TN_MON_NIC_UDP_IN_DATAGRAMS);
    CHECK(s0.snmp.have & 1u << TN_MON_NIC_UDP_OUT_DATAGRAMS);
    CHECK(s0.n_bad == 0);

    /* what a sample costs here (not asserted: machines differ) */
    double t0 = now_us();
    for (int i = 0; i < rounds; i++) {
        tn_mon_nic_sample("/", &s1);
    }
    double us = (now_us() - t0) / rounds;
    CHECK(tn_mon_nic_delta(&s0, &s1, &r) == 0 && r.n_if >= s1.n_if);
    printf("test_mon_nic: a sample of this machine (%u interfaces, %u IB ports) takes %.1f us, "
           "%.4f %% of a core at one a second\n", s1.n_if, s1.n_ib, us, us / 1e4);
}

int main(void)
{
    numbers();
    ib_text();
    snmp();
    fake_tree();
    rates();
    real();
    return tn_check_report("test_mon_nic");
}

/* The node agent's reader of the node's network counters (tern-monitor):
 * every network interface of /sys/class/net, the Udp and Ip lines of
 * /proc/net/snmp and the ports of /sys/class/infiniband, sampled once a
 * second, and the per-second rates between two samples.
 *
 * Two layers.  The decoders (mon_nic_parse.c) take the text of one file,
 * a buffer and its length, not NUL-ended, and return the decoded value or
 * an error; they are the only code that looks at what the kernel wrote,
 * and fuzz_nic drives them.  The I/O layer (mon_nic.c) reads each file
 * with one open, one read and one close into a fixed buffer, relative to a
 * root directory: "/" on a node, a fake tree under a temporary directory
 * in the tests.  One read is enough: a sysfs attribute comes whole in its
 * first read, and /proc/net/snmp is one seq_file record.  The rates
 * between two samples (mon_nic_rate.c) are plain arithmetic on samples.
 *
 * Cost: the agent samples every second within 1 % of a core for all it
 * does.  A sample is about 15 small reads per interface; no allocation
 * (the sample lives in the caller's memory), no parsing beyond digits.
 * test_mon_nic prints what a sample of this machine costs: 0.15-0.21 ms
 * for 4 interfaces (61 files, about 3 us each) on the 2-core development
 * VM, 0.02 % of a core; the cap of 64 interfaces would be about 3 ms,
 * 0.3 %.
 *
 * Errors are 0 or a negative errno: -EINVAL for text not of the expected
 * form, -ERANGE for a number past 64 bits.  A file that is missing or
 * cannot be read leaves its value unread (its bit in `have` clear), which
 * is ordinary: speed cannot be read on a virtual or down link,
 * rx_crc_errors is absent on some drivers. */
#ifndef TN_MON_NIC_H
#define TN_MON_NIC_H

#include <stddef.h>
#include <stdint.h>

#define TN_MON_NIC_IF_MAX    64    /* interfaces kept; more are counted in if_dropped */
#define TN_MON_NIC_NAME_LEN  16    /* IFNAMSIZ: 15 bytes and the NUL */
#define TN_MON_NIC_IB_MAX    16    /* InfiniBand ports kept, all devices together */
#define TN_MON_NIC_IBDEV_LEN 64    /* IB_DEVICE_NAME_MAX */
#define TN_MON_NIC_DESC_LEN  16    /* an IB port's rate description, "4X EDR" */
#define TN_MON_NIC_FILE_MAX  4096  /* the buffer for one sysfs file */
#define TN_MON_NIC_SNMP_MAX  8192  /* the buffer for /proc/net/snmp (about 2 KiB) */

#define TN_MON_NIC_ARPHRD_LOOPBACK 772  /* <net/if_arp.h>, the `type` file */

/* An interface's counters: the files of /sys/class/net/<if>/statistics/,
 * named as the files are.  Monotonic until the driver resets them. */
#define TN_MON_NIC_IF_CTRS(X) \
    X(RX_BYTES, "rx_bytes") X(TX_BYTES, "tx_bytes") \
    X(RX_PACKETS, "rx_packets") X(TX_PACKETS, "tx_packets") \
    X(RX_ERRORS, "rx_errors") X(TX_ERRORS, "tx_errors") \
    X(RX_DROPPED, "rx_dropped") X(TX_DROPPED, "tx_dropped") \
    X(RX_CRC_ERRORS, "rx_crc_errors") X(COLLISIONS, "collisions")

/* The counters of /proc/net/snmp kept: section, then the column's name in
 * the section's header line.  Columns are found by name, not position. */
#define TN_MON_NIC_SNMP_CTRS(X) \
    X(UDP_IN_DATAGRAMS, "Udp", "InDatagrams") X(UDP_NO_PORTS, "Udp", "NoPorts") \
    X(UDP_IN_ERRORS, "Udp", "InErrors") X(UDP_OUT_DATAGRAMS, "Udp", "OutDatagrams") \
    X(UDP_RCVBUF_ERRORS, "Udp", "RcvbufErrors") X(UDP_SNDBUF_ERRORS, "Udp", "SndbufErrors") \
    X(UDP_IN_CSUM_ERRORS, "Udp", "InCsumErrors") X(UDP_IGNORED_MULTI, "Udp", "IgnoredMulti") \
    X(UDP_MEM_ERRORS, "Udp", "MemErrors") \
    X(IP_IN_DISCARDS, "Ip", "InDiscards") X(IP_OUT_DISCARDS, "Ip", "OutDiscards")

/* An InfiniBand port's counters: the files of
 * /sys/class/infiniband/<dev>/ports/<n>/counters/.  port_xmit_data and
 * port_rcv_data count 4-byte words in the kernel's file: the sample holds
 * them in BYTES (multiplied by 4 when read).  On HCAs without extended
 * counters these are 32-bit and stop at their maximum instead of wrapping;
 * the rate is then 0 until someone clears them (which reads as a reset). */
#define TN_MON_NIC_IB_CTRS(X) \
    X(XMIT_BYTES, "port_xmit_data") X(RCV_BYTES, "port_rcv_data") \
    X(XMIT_PACKETS, "port_xmit_packets") X(RCV_PACKETS, "port_rcv_packets") \
    X(SYMBOL_ERROR, "symbol_error") X(LINK_ERROR_RECOVERY, "link_error_recovery") \
    X(LINK_DOWNED, "link_downed") X(RCV_ERRORS, "port_rcv_errors") \
    X(XMIT_DISCARDS, "port_xmit_discards") X(XMIT_WAIT, "port_xmit_wait") \
    X(EXCESSIVE_BUFFER_OVERRUN, "excessive_buffer_overrun_errors") \
    X(LOCAL_LINK_INTEGRITY, "local_link_integrity_errors")

/* operstate (RFC 2863, the kernel's IF_OPER_* order). */
#define TN_MON_NIC_OPERS(X) \
    X(UNKNOWN, "unknown") X(NOTPRESENT, "notpresent") X(DOWN, "down") \
    X(LOWERLAYERDOWN, "lowerlayerdown") X(TESTING, "testing") \
    X(DORMANT, "dormant") X(UP, "up")

#define TN_MON_NIC_ENUM(id, ...) TN_MON_NIC_IF_##id,
enum { TN_MON_NIC_IF_CTRS(TN_MON_NIC_ENUM) TN_MON_NIC_IF_NCTR };
#undef TN_MON_NIC_ENUM
#define TN_MON_NIC_ENUM(id, ...) TN_MON_NIC_##id,
enum { TN_MON_NIC_SNMP_CTRS(TN_MON_NIC_ENUM) TN_MON_NIC_SNMP_NCTR };
#undef TN_MON_NIC_ENUM
#define TN_MON_NIC_ENUM(id, ...) TN_MON_NIC_IB_##id,
enum { TN_MON_NIC_IB_CTRS(TN_MON_NIC_ENUM) TN_MON_NIC_IB_NCTR };
#undef TN_MON_NIC_ENUM
#define TN_MON_NIC_ENUM(id, ...) TN_MON_NIC_OPER_##id,
enum { TN_MON_NIC_OPERS(TN_MON_NIC_ENUM) TN_MON_NIC_NOPER };
#undef TN_MON_NIC_ENUM

/* Names of the above, for labels and logs: the statistics file's name
 * ("rx_bytes"), "Udp.InDatagrams", the counters file's name
 * ("port_xmit_data"), the operstate word ("up").  NULL out of range. */
const char *tn_mon_nic_if_ctr_name(int i);
const char *tn_mon_nic_snmp_ctr_name(int i);
const char *tn_mon_nic_ib_ctr_name(int i);
const char *tn_mon_nic_oper_name(int oper);

typedef struct {
    char     name[TN_MON_NIC_NAME_LEN];
    uint32_t ifindex;     /* 0: unread; a new index under the same name is a new interface */
    uint32_t type;        /* ARPHRD_*: 1 Ethernet, 32 InfiniBand, 772 loopback; 0: unread */
    uint32_t mtu;         /* 0: unread */
    uint8_t  loopback;    /* type 772, or named "lo" */
    uint8_t  oper;        /* TN_MON_NIC_OPER_*; UNKNOWN when unread */
    uint64_t speed_mbps;  /* 0: unknown (-1, or unreadable: virtio, veth, a down link) */
    uint32_t have;        /* bit i: ctr[i] was read */
    uint64_t ctr[TN_MON_NIC_IF_NCTR];
} tn_mon_nic_if_t;

typedef struct {
    uint32_t have;        /* bit i: ctr[i] was in the file */
    uint64_t ctr[TN_MON_NIC_SNMP_NCTR];
} tn_mon_nic_snmp_t;

typedef struct {
    char     dev[TN_MON_NIC_IBDEV_LEN];     /* "mlx5_0" */
    uint32_t port;                          /* from 1 */
    uint32_t state;       /* 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER; 0: unread */
    uint64_t rate_mbps;   /* 100 Gb/sec is 100000; 0: unread */
    char     rate_desc[TN_MON_NIC_DESC_LEN]; /* "4X EDR"; empty when unread or absent */
    uint32_t have;        /* bit i: ctr[i] was read */
    uint64_t ctr[TN_MON_NIC_IB_NCTR];       /* the data counters in bytes */
} tn_mon_nic_ib_t;

/* One sample of the node.  About 11 KiB: keep it in static or heap memory
 * of the agent, two of them (the last and the current). */
typedef struct {
    uint64_t          t_ns;        /* CLOCK_MONOTONIC at the start of the sample */
    uint32_t          n_if;        /* ifs[0..n_if), sorted by name */
    uint32_t          if_dropped;  /* past TN_MON_NIC_IF_MAX, or a name not kept (below) */
    uint32_t          n_ib;        /* ib[0..n_ib), sorted by device and port */
    uint32_t          ib_dropped;  /* past TN_MON_NIC_IB_MAX, or names not kept */
    uint32_t          n_bad;       /* files read but refused by their decoder (or too large) */
    tn_mon_nic_snmp_t snmp;
    tn_mon_nic_if_t   ifs[TN_MON_NIC_IF_MAX];
    tn_mon_nic_ib_t   ib[TN_MON_NIC_IB_MAX];
} tn_mon_nic_sample_t;

/* ---- decoders (mon_nic_parse.c): the text of one file ---- */

/* A decimal u64, optionally followed by one '\n'; nothing else (no sign,
 * no spaces, not empty).  -ERANGE past UINT64_MAX. */
int tn_mon_nic_parse_u64(const char *buf, size_t len, uint64_t *v_p);
/* `speed`: a u64 in Mb/s, or -1; -1 (and 65535 and 4294967295, which
 * some drivers report for an unknown speed) gives 0. */
int tn_mon_nic_parse_speed(const char *buf, size_t len, uint64_t *mbps_p);
/* `operstate`: one of the words of TN_MON_NIC_OPERS, optionally '\n'. */
int tn_mon_nic_parse_oper(const char *buf, size_t len, int *oper_p);
/* An IB port's `state`: "4: ACTIVE\n" gives 4 (a number up to 255, ": ",
 * 1-15 capital letters or '_', optionally '\n'). */
int tn_mon_nic_parse_ib_state(const char *buf, size_t len, uint32_t *state_p);
/* An IB port's `rate`: "100 Gb/sec (4X EDR)\n" gives 100000 Mb/s and
 * "4X EDR" in desc (desclen >= TN_MON_NIC_DESC_LEN); "2.5 Gb/sec (1X SDR)"
 * 2500.  Up to 9 digits, up to 3 after a '.', the "(...)" optional (desc
 * then empty), its text 1-15 letters, digits and spaces. */
int tn_mon_nic_parse_ib_rate(const char *buf, size_t len, uint64_t *mbps_p,
                             char *desc, size_t desclen);
/* /proc/net/snmp: for the sections Udp and Ip, the first header line
 * ("Udp: InDatagrams NoPorts ...") and the line after it, which must be
 * the same section's values line with as many fields.  Columns named in
 * TN_MON_NIC_SNMP_CTRS must hold a u64 and appear once; other columns are
 * skipped, missing ones leave their bit in have clear.  Other lines
 * (UdpLite, Tcp, ...) are not looked at.  -ENODATA when the file has
 * neither section. *snmp_p is written only on success. */
int tn_mon_nic_parse_snmp(const char *buf, size_t len, tn_mon_nic_snmp_t *snmp_p);

/* ---- I/O (mon_nic.c) ---- */

/* Read the file at path, relative to dirfd, into buf: one open, one read,
 * one close.  Returns its length, or -errno; -EFBIG when it fills all cap
 * bytes (it may be longer: not decoded). */
long tn_mon_nic_read(int dirfd, const char *path, char *buf, size_t cap);

/* Sample the node as seen under root ("/"; root/sys/class/net,
 * root/proc/net/snmp, root/sys/class/infiniband) into *s.  Missing
 * directories give no entries.  Returns 0, or -errno when root itself
 * cannot be opened. */
int tn_mon_nic_sample(const char *root, tn_mon_nic_sample_t *s);

/* ---- rates between two samples (mon_nic_rate.c) ---- */

#define TN_MON_NIC_NEW   1u  /* only in the newer sample: no rates this time */
#define TN_MON_NIC_GONE  2u  /* only in the older sample: no rates, end its series */
#define TN_MON_NIC_RESET 4u  /* a counter went back, or the ifindex changed: that
                              * counter's rate is taken from zero */

typedef struct {
    char     name[TN_MON_NIC_NAME_LEN];
    uint32_t flags;                        /* TN_MON_NIC_NEW, _GONE, _RESET */
    uint32_t have;                         /* bit i: rate[i] is known */
    double   rate[TN_MON_NIC_IF_NCTR];     /* per second */
} tn_mon_nic_if_rate_t;

typedef struct {
    char     dev[TN_MON_NIC_IBDEV_LEN];
    uint32_t port;
    uint32_t flags;
    uint32_t have;
    double   rate[TN_MON_NIC_IB_NCTR];     /* per second; the data ones in bytes */
} tn_mon_nic_ib_rate_t;

/* The rates between two samples; about 19 KiB, like the samples not for
 * a small stack. */
typedef struct {
    double               dt_s;             /* seconds between the samples */
    uint32_t             snmp_flags;       /* TN_MON_NIC_RESET */
    uint32_t             snmp_have;
    double               snmp[TN_MON_NIC_SNMP_NCTR];
    uint32_t             n_if, n_ib;       /* the newer sample's, then the gone ones */
    tn_mon_nic_if_rate_t ifs[2 * TN_MON_NIC_IF_MAX];
    tn_mon_nic_ib_rate_t ib[2 * TN_MON_NIC_IB_MAX];
} tn_mon_nic_rates_t;

/* The rates from old to cur (cur taken later): an interface is matched by
 * name, an IB port by device and port.  A counter lower than before was
 * reset: its rate is its new value over the interval.  A counter read in
 * only one of the two samples has no rate.  Returns 0, or -EINVAL when cur
 * is not later than old or a count is out of range (*rates_p unchanged). */
int tn_mon_nic_delta(const tn_mon_nic_sample_t *old, const tn_mon_nic_sample_t *cur,
                     tn_mon_nic_rates_t *rates_p);

#endif

/* The agent -> server frame (mon_wire.h). */
#include "mon_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const uint8_t *p, *end;
    const char    *err;
} rd_t;

static uint64_t rd_uint_slow(rd_t *r);

/* Most numbers fit one byte: that case inline. */
static inline uint64_t rd_uint(rd_t *r)
{
    if (r->p < r->end && *r->p < 0x80) {
        return *r->p++;
    }
    return rd_uint_slow(r);
}

static uint64_t rd_uint_slow(rd_t *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->err = r->err ? r->err : "cut short";
            return 0;
        }
        uint8_t b = *r->p++;
        if (shift == 63 && b > 1) {
            break;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return v;
        }
    }
    r->err = r->err ? r->err : "varint too long";
    return 0;
}

static uint32_t rd_u32(rd_t *r, uint32_t max)
{
    uint64_t v = rd_uint(r);
    if (v > max) {
        r->err = r->err ? r->err : "number out of range";
        return 0;
    }
    return (uint32_t)v;
}

static int64_t rd_sint(rd_t *r)
{
    uint64_t v = rd_uint(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static tn_mon_wire_str_t rd_str(rd_t *r)
{
    tn_mon_wire_str_t s = { "", 0 };
    uint64_t n = rd_uint(r);
    if (r->err != NULL) {
        return s;
    }
    if (n > TN_MON_WIRE_STR_MAX || n > (uint64_t)(r->end - r->p)) {
        r->err = "string too long or cut short";
        return s;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (r->p[i] < 0x20 || r->p[i] >= 0x7f) {
            r->err = "string not printable";
            return s;
        }
    }
    s.p = (const char *)r->p;
    s.n = (size_t)n;
    r->p += n;
    return s;
}

int tn_mon_wire_next_str(const uint8_t **p, const uint8_t *end, tn_mon_wire_str_t *s)
{
    rd_t r = { *p, end, NULL };
    *s = rd_str(&r);
    *p = r.p;
    return r.err == NULL ? 0 : -1;
}

int tn_mon_wire_next_val(const uint8_t **p, const uint8_t *end, uint32_t *rec, uint32_t *metric,
                         uint32_t *elem, int64_t *delta)
{
    rd_t r = { *p, end, NULL };
    *rec = rd_u32(&r, TN_MON_WIRE_MAX_ITEMS);
    *metric = rd_u32(&r, TN_MON_WIRE_MAX_ITEMS);
    *elem = rd_u32(&r, TN_MON_WIRE_MAX_ITEMS);
    *delta = rd_sint(&r);
    *p = r.p;
    return r.err == NULL ? 0 : -1;
}

/* The frame's head, after the magic. */
static void rd_head(rd_t *r, tn_mon_wire_head_t *h)
{
    h->flags = rd_u32(r, UINT32_MAX);
    h->seq = rd_uint(r);
    h->t_ms = rd_uint(r);
    h->node = rd_str(r);
    h->version = rd_str(r);
}

static void sec_dict(rd_t *r, const tn_mon_wire_cb_t *cb, void *arg)
{
    uint32_t n = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
    for (uint32_t i = 0; i < n && r->err == NULL; i++) {
        tn_mon_wire_metric_t m;
        m.id = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
        m.name = rd_str(r);
        m.cls = rd_u32(r, 3);
        m.unit = rd_str(r);
        m.help = rd_str(r);
        m.key = rd_str(r);
        m.nelems = rd_u32(r, 4096);
        m.elems = r->p;
        for (uint32_t e = 0; e < m.nelems && r->err == NULL; e++) {
            (void)rd_str(r);
        }
        m.elems_len = (size_t)(r->p - m.elems);
        if (r->err == NULL && m.name.n == 0) {
            r->err = "metric without a name";
        }
        if (r->err == NULL && cb != NULL && cb->metric != NULL) {
            cb->metric(arg, &m);
        }
    }
}

static void sec_nic(rd_t *r, const tn_mon_wire_cb_t *cb, void *arg)
{
    uint32_t n = rd_u32(r, 4096);
    for (uint32_t i = 0; i < n && r->err == NULL; i++) {
        tn_mon_wire_nic_t nic;
        nic.name = rd_str(r);
        nic.oper = rd_u32(r, 255);
        nic.speed_mbps = rd_u32(r, UINT32_MAX);
        nic.mtu = rd_u32(r, UINT32_MAX);
        nic.nctr = rd_u32(r, 64);
        for (uint32_t k = 0; k < nic.nctr && r->err == NULL; k++) {
            nic.idx[k] = rd_u32(r, 255);
            nic.val[k] = rd_uint(r);
        }
        if (r->err == NULL && cb != NULL && cb->nic != NULL) {
            cb->nic(arg, &nic);
        }
    }
}

static void sec_snmp(rd_t *r, const tn_mon_wire_cb_t *cb, void *arg)
{
    uint32_t n = rd_u32(r, 256);
    for (uint32_t i = 0; i < n && r->err == NULL; i++) {
        uint32_t idx = rd_u32(r, 255);
        uint64_t v = rd_uint(r);
        if (r->err == NULL && cb != NULL && cb->snmp != NULL) {
            cb->snmp(arg, idx, v);
        }
    }
}

static void sec_ib(rd_t *r, const tn_mon_wire_cb_t *cb, void *arg)
{
    uint32_t n = rd_u32(r, 256);
    for (uint32_t i = 0; i < n && r->err == NULL; i++) {
        tn_mon_wire_ib_t ib;
        ib.dev = rd_str(r);
        ib.port = rd_u32(r, 255);
        ib.state = rd_u32(r, 255);
        ib.rate_mbps = rd_uint(r);
        ib.nctr = rd_u32(r, 64);
        for (uint32_t k = 0; k < ib.nctr && r->err == NULL; k++) {
            ib.idx[k] = rd_u32(r, 255);
            ib.val[k] = rd_uint(r);
        }
        if (r->err == NULL && cb != NULL && cb->ib != NULL) {
            cb->ib(arg, &ib);
        }
    }
}

static void sec_job(rd_t *r, const tn_mon_wire_cb_t *cb, void *arg)
{
    tn_mon_wire_job_t j;
    j.job = rd_str(r);
    j.program = rd_str(r);
    j.uid = rd_u32(r, UINT32_MAX);
    j.world_size = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
    j.nnodes = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
    j.start_ms = rd_uint(r);
    j.nranks = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
    if (r->err == NULL && (j.job.n == 0 || j.nranks > j.world_size)) {
        r->err = "job without a name or with more ranks here than in all";
    }
    if (r->err == NULL && cb != NULL && cb->job != NULL) {
        cb->job(arg, &j);
    }
    for (uint32_t i = 0; i < j.nranks && r->err == NULL; i++) {
        tn_mon_wire_rank_t k;
        k.rank = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
        k.state = rd_u32(r, 3);
        k.pid = rd_u32(r, INT32_MAX);
        k.node_id = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
        k.call = rd_str(r);
        k.in_call = rd_u32(r, 1);
        k.call_ms = rd_uint(r);
        k.peer_count = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
        k.nvals = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
        k.vals = r->p;
        for (uint32_t v = 0; v < k.nvals && r->err == NULL; v++) {
            uint32_t rec = rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
            (void)rd_u32(r, TN_MON_WIRE_MAX_ITEMS);
            (void)rd_u32(r, 4096);
            (void)rd_sint(r);
            if (rec > (uint64_t)k.peer_count + j.nnodes + 1) {
                r->err = "value of a record the rank does not have";
            }
        }
        k.vals_len = (size_t)(r->p - k.vals);
        if (r->err == NULL && (k.rank >= j.world_size || k.node_id >= j.nnodes)) {
            r->err = "rank or node outside the job";
        }
        if (r->err == NULL && cb != NULL && cb->rank != NULL) {
            cb->rank(arg, &j, &k);
        }
    }
}

static const char *wire_walk(const uint8_t *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg)
{
    rd_t r = { buf, buf + len, NULL };
    if (len < 4 || memcmp(buf, TN_MON_WIRE_MAGIC, 4) != 0) {
        return "not a tern-monitor frame";
    }
    r.p += 4;
    tn_mon_wire_head_t h;
    rd_head(&r, &h);
    if (r.err == NULL && h.node.n == 0) {
        r.err = "frame without a node name";
    }
    if (r.err == NULL && cb != NULL && cb->head != NULL) {
        cb->head(arg, &h);
    }
    int ended = 0;
    while (r.err == NULL && !ended) {
        uint32_t type = rd_u32(&r, 255);
        uint64_t n = rd_uint(&r);
        if (r.err != NULL) {
            break;
        }
        if (type == TN_MON_WIRE_END) {
            ended = 1;
            if (n != 0 || r.p != r.end) {
                r.err = "bytes after the end";
            }
            break;
        }
        if (n > (uint64_t)(r.end - r.p)) {
            r.err = "section cut short";
            break;
        }
        rd_t s = { r.p, r.p + n, NULL };
        switch (type) {
        case TN_MON_WIRE_DICT: sec_dict(&s, cb, arg); break;
        case TN_MON_WIRE_NIC: sec_nic(&s, cb, arg); break;
        case TN_MON_WIRE_SNMP: sec_snmp(&s, cb, arg); break;
        case TN_MON_WIRE_JOB: sec_job(&s, cb, arg); break;
        case TN_MON_WIRE_IB: sec_ib(&s, cb, arg); break;
        default: s.p = s.end; break;   /* a later version's: skipped */
        }
        if (s.err == NULL && s.p != s.end) {
            s.err = "section longer than its content";
        }
        r.err = s.err;
        r.p += n;
    }
    return r.err;
}

void tn_mon_wire_walk_head(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg)
{
    rd_t r = { (const uint8_t *)buf + 4, (const uint8_t *)buf + len, NULL };
    tn_mon_wire_head_t h;
    rd_head(&r, &h);
    if (r.err == NULL && cb->head != NULL) {
        cb->head(arg, &h);
    }
}

void tn_mon_wire_walk(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg)
{
    (void)wire_walk(buf, len, cb, arg);
}

int tn_mon_wire_decode(const void *buf, size_t len, const tn_mon_wire_cb_t *cb, void *arg,
                       char *why, size_t whylen)
{
    const char *err = wire_walk(buf, len, NULL, NULL);
    if (err != NULL) {
        if (why != NULL && whylen > 0) {
            snprintf(why, whylen, "%s", err);
        }
        return -1;
    }
    if (cb != NULL) {
        (void)wire_walk(buf, len, cb, arg);
    }
    return 0;
}

/* ---- encoding ---------------------------------------------------------- */

void tn_mon_wire_uint(tn_mon_buf_t *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        tmp[n] |= v != 0 ? 0x80 : 0;
        n++;
    } while (v != 0);
    tn_mon_buf_append(b, tmp, n);
}

void tn_mon_wire_sint(tn_mon_buf_t *b, int64_t v)
{
    tn_mon_wire_uint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void tn_mon_wire_str(tn_mon_buf_t *b, const char *s)
{
    size_t n = strlen(s);       /* callers' strings are terminated */
    if (n > TN_MON_WIRE_STR_MAX) {
        n = TN_MON_WIRE_STR_MAX;
    }
    tn_mon_wire_uint(b, n);
    tn_mon_buf_append(b, s, n);
}

void tn_mon_wire_begin(tn_mon_buf_t *b, uint32_t flags, uint64_t seq, uint64_t t_ms,
                       const char *node, const char *version)
{
    tn_mon_buf_append(b, TN_MON_WIRE_MAGIC, 4);
    tn_mon_wire_uint(b, flags);
    tn_mon_wire_uint(b, seq);
    tn_mon_wire_uint(b, t_ms);
    tn_mon_wire_str(b, node);
    tn_mon_wire_str(b, version);
}

void tn_mon_wire_end(tn_mon_buf_t *b)
{
    tn_mon_wire_uint(b, TN_MON_WIRE_END);
    tn_mon_wire_uint(b, 0);
}

void tn_mon_wire_section(tn_mon_buf_t *b, uint32_t type, const tn_mon_buf_t *payload)
{
    tn_mon_wire_uint(b, type);
    tn_mon_wire_uint(b, payload->len);
    tn_mon_buf_append(b, payload->data, payload->len);
}

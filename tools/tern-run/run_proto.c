/* Frames of the launcher's tree; see run_proto.h. */
#include "run_proto.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void put_u32(tn_run_buf_t *out, uint32_t v)
{
    unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8),
                           (unsigned char)(v >> 16), (unsigned char)(v >> 24) };

    tn_run_buf_append(out, b, 4);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void put_str(tn_run_buf_t *out, const char *s)
{
    size_t n = strlen(s) + 1;

    put_u32(out, (uint32_t)n);
    tn_run_buf_append(out, s, n);
}

/* Start a frame; returns the offset of its length field. */
static size_t frame_begin(tn_run_buf_t *out, tn_run_ftype_t type)
{
    size_t at = out->len;
    unsigned char t = (unsigned char)type;

    put_u32(out, 0);
    tn_run_buf_append(out, &t, 1);
    return at;
}

static void frame_end(tn_run_buf_t *out, size_t at)
{
    uint32_t n = (uint32_t)(out->len - at - 4);
    unsigned char *p = (unsigned char *)out->data + at;

    p[0] = (unsigned char)n;
    p[1] = (unsigned char)(n >> 8);
    p[2] = (unsigned char)(n >> 16);
    p[3] = (unsigned char)(n >> 24);
}

void tn_run_proto_u32s(tn_run_buf_t *out, tn_run_ftype_t type, int n, ...)
{
    size_t  at = frame_begin(out, type);
    va_list ap;

    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        put_u32(out, va_arg(ap, uint32_t));
    }
    va_end(ap);
    frame_end(out, at);
}

void tn_run_proto_str(tn_run_buf_t *out, tn_run_ftype_t type, int nu,
                      const uint32_t *u, const char *str)
{
    size_t at = frame_begin(out, type);

    for (int i = 0; i < nu; i++) {
        put_u32(out, u[i]);
    }
    put_str(out, str);
    frame_end(out, at);
}

void tn_run_proto_out(tn_run_buf_t *out, int rank, int stream,
                      const char *data, size_t len)
{
    size_t at = frame_begin(out, TN_RUN_F_OUT);

    put_u32(out, (uint32_t)rank);
    put_u32(out, (uint32_t)stream);
    tn_run_buf_append(out, data, len);
    frame_end(out, at);
}

void tn_run_proto_stdin(tn_run_buf_t *out, const char *data, size_t len)
{
    size_t at = frame_begin(out, TN_RUN_F_STDIN);

    tn_run_buf_append(out, data, len);
    frame_end(out, at);
}

void tn_run_proto_pair(tn_run_buf_t *pairs, const char *key, const char *value)
{
    put_str(pairs, key);
    put_str(pairs, value);
}

void tn_run_proto_fence(tn_run_buf_t *out, int nranks, uint32_t npairs,
                        const tn_run_buf_t *pairs)
{
    size_t at = frame_begin(out, nranks >= 0 ? TN_RUN_F_FENCE
                                             : TN_RUN_F_FENCE_DONE);

    if (nranks >= 0) {
        put_u32(out, (uint32_t)nranks);
    }
    put_u32(out, npairs);
    tn_run_buf_append(out, pairs->data, pairs->len);
    frame_end(out, at);
}

static void put_strv(tn_run_buf_t *out, int n, char *const *v)
{
    put_u32(out, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        put_str(out, v[i]);
    }
}

void tn_run_proto_setup(tn_run_buf_t *out, int host, const tn_run_setup_t *s)
{
    size_t at = frame_begin(out, TN_RUN_F_SETUP);

    put_u32(out, TN_RUN_PROTO_VERSION);
    put_u32(out, (uint32_t)host);
    put_str(out, s->kvsname);
    put_u32(out, (uint32_t)s->nranks);
    put_strv(out, s->nhosts, s->hosts);
    for (int r = 0; r < s->nranks; r++) {
        put_u32(out, (uint32_t)s->host_of[r]);
    }
    put_u32(out, (uint32_t)(s->head_host + 1));
    put_u32(out, (uint32_t)s->nblocks);
    for (int b = 0; b < s->nblocks; b++) {
        put_u32(out, (uint32_t)s->blocks[b].nranks);
        put_strv(out, s->blocks[b].argc, s->blocks[b].argv);
        put_strv(out, s->blocks[b].nenv, s->blocks[b].env);
    }
    put_str(out, s->cwd);
    put_str(out, s->rsh);
    put_str(out, s->proxy);
    put_u32(out, (uint32_t)s->tree_width);
    put_u32(out, (uint32_t)s->bind);
    put_u32(out, (uint32_t)s->flags);
    put_u32(out, (uint32_t)s->verbose);
    put_u32(out, (uint32_t)s->timeout_s);
    put_u32(out, (uint32_t)s->kvs_keys);
    put_u32(out, (uint32_t)(s->kvs_keys >> 32));
    put_u32(out, (uint32_t)s->kvs_bytes);
    put_u32(out, (uint32_t)(s->kvs_bytes >> 32));
    put_u32(out, (uint32_t)s->pmi_backlog);
    put_u32(out, (uint32_t)(s->pmi_backlog >> 32));
    frame_end(out, at);
}

/* ------------------------------------------------------------ decoding */

typedef struct {
    const unsigned char *p;
    size_t               left;
    const char          *bad;     /* first problem, or NULL */
} rd_t;

static uint32_t rd_u32(rd_t *rd)
{
    uint32_t v;

    if (rd->bad != NULL || rd->left < 4) {
        rd->bad = rd->bad != NULL ? rd->bad : "truncated";
        return 0;
    }
    v = get_u32(rd->p);
    rd->p += 4;
    rd->left -= 4;
    return v;
}

/* A u32 in [lo, hi] (lo once the frame is known bad). */
static uint32_t rd_range(rd_t *rd, uint32_t lo, uint32_t hi, const char *what)
{
    uint32_t v = rd_u32(rd);

    if (rd->bad == NULL && (v < lo || v > hi)) {
        rd->bad = what;
    }
    return rd->bad != NULL ? lo : v;    /* never out of range */
}

static const char *rd_str(rd_t *rd)
{
    uint32_t    n = rd_u32(rd);
    const char *s;

    if (rd->bad != NULL) {
        return "";
    }
    if (n == 0 || n > rd->left) {
        rd->bad = "bad string length";
        return "";
    }
    s = (const char *)rd->p;
    if (s[n - 1] != '\0' || memchr(s, '\0', n - 1) != NULL) {
        rd->bad = "string not terminated";
        return "";
    }
    rd->p += n;
    rd->left -= n;
    return s;
}

/* npairs pairs of strings must fill the rest exactly. */
static void rd_pairs(rd_t *rd, uint32_t npairs)
{
    for (uint32_t i = 0; i < npairs && rd->bad == NULL; i++) {
        rd_str(rd);
        rd_str(rd);
    }
}

long tn_run_proto_decode(const char *buf, size_t len, tn_run_frame_t *f,
                         const char **why)
{
    uint32_t flen;
    rd_t     rd;
    int      nu = 0;

    if (len < TN_RUN_FRAME_HDR) {
        return 0;
    }
    flen = get_u32((const unsigned char *)buf);
    if (flen < 1 || flen > TN_RUN_FRAME_MAX) {
        *why = "bad frame length";
        return -1;
    }
    if (len - 4 < flen) {
        return 0;
    }
    memset(f, 0, sizeof(*f));
    f->type  = (tn_run_ftype_t)(unsigned char)buf[4];
    rd.p     = (const unsigned char *)buf + TN_RUN_FRAME_HDR;
    rd.left  = flen - 1;
    rd.bad   = NULL;
    switch (f->type) {
    case TN_RUN_F_SETUP:            /* decoded by tn_run_proto_setup_decode */
        f->data = (const char *)rd.p;
        f->len  = rd.left;
        rd.left = 0;
        break;
    case TN_RUN_F_FENCE_DONE:
        f->npairs = rd_u32(&rd);
        f->data   = (const char *)rd.p;
        f->len    = rd.left;
        rd_pairs(&rd, f->npairs);
        break;
    case TN_RUN_F_SIGNAL:
        f->u[nu++] = rd_range(&rd, 1, 64, "bad signal");
        break;
    case TN_RUN_F_END:
        f->u[nu++] = rd_range(&rd, 1, 64, "bad signal");
        f->u[nu++] = rd_range(&rd, 0, 3600000, "bad grace");
        break;
    case TN_RUN_F_HELLO:
        f->u[nu++] = rd_u32(&rd);
        f->str     = rd_str(&rd);
        break;
    case TN_RUN_F_STDIN:
        f->data = (const char *)rd.p;
        f->len  = rd.left;
        rd.left = 0;
        break;
    case TN_RUN_F_STDIN_ACK:
        f->u[nu++] = rd_range(&rd, 1, TN_RUN_FRAME_MAX, "bad stdin count");
        break;
    case TN_RUN_F_OUT:
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_range(&rd, 1, 2, "bad stream");
        f->data    = (const char *)rd.p;
        f->len     = rd.left;
        rd.left    = 0;
        break;
    case TN_RUN_F_FENCE_ENTER:
    case TN_RUN_F_REPORT_ASK:
        break;
    case TN_RUN_F_FENCE:
        f->u[nu++] = rd_u32(&rd);
        f->npairs  = rd_u32(&rd);
        f->data    = (const char *)rd.p;
        f->len     = rd.left;
        rd_pairs(&rd, f->npairs);
        break;
    case TN_RUN_F_EXIT:
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_range(&rd, 1, 6, "bad exit kind");   /* CLD_* */
        f->u[nu++] = rd_range(&rd, 0, 255, "bad exit status");
        f->u[nu++] = rd_range(&rd, 0, 31, "bad exit flags");
        break;
    case TN_RUN_F_ABORT:
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_range(&rd, 0, 1, "bad abort kind");
        break;
    case TN_RUN_F_PMIERR:
        f->u[nu++] = rd_u32(&rd);
        f->u[nu++] = rd_u32(&rd);
        f->str     = rd_str(&rd);
        break;
    case TN_RUN_F_LOG:
    case TN_RUN_F_REPORT:
        f->str = rd_str(&rd);
        break;
    default:
        *why = "unknown frame type";
        return -1;
    }
    if (rd.bad == NULL && rd.left != 0) {
        rd.bad = "trailing bytes";
    }
    if (rd.bad != NULL) {
        *why = rd.bad;
        return -1;
    }
    return (long)flen + 4;
}

int tn_run_proto_next_pair(const char *data, size_t len, size_t *off,
                           const char **key, const char **value)
{
    size_t n;

    if (*off + 4 > len) {
        return 0;
    }
    n    = get_u32((const unsigned char *)data + *off);
    *key = data + *off + 4;
    *off += 4 + n;
    n      = get_u32((const unsigned char *)data + *off);
    *value = data + *off + 4;
    *off += 4 + n;
    return 1;
}

/* A vector of n strings, n <= max. */
static char **rd_strv(rd_t *rd, uint32_t max, int *n_p)
{
    uint32_t n = rd_range(rd, 0, max, "too many strings");
    char   **v;

    /* every string takes at least 5 bytes: bound n before allocating */
    if (rd->bad == NULL && n > rd->left / 5) {
        rd->bad = "too many strings";
    }
    if (rd->bad != NULL) {
        *n_p = 0;
        return tn_run_xmalloc(sizeof(char *));
    }
    v = tn_run_xmalloc(((size_t)n + 1) * sizeof(char *));
    for (uint32_t i = 0; i < n; i++) {
        v[i] = (char *)rd_str(rd);
    }
    v[n] = NULL;
    *n_p = (int)n;
    return v;
}

static uint64_t rd_u64(rd_t *rd)
{
    uint64_t lo = rd_u32(rd);

    return lo | (uint64_t)rd_u32(rd) << 32;
}

int tn_run_proto_setup_decode(const tn_run_frame_t *f, tn_run_setup_t *s,
                              int *host_p, const char **why)
{
    rd_t     rd = { (const unsigned char *)f->data, f->len, NULL };
    uint32_t host;
    int      total = 0;

    memset(s, 0, sizeof(*s));
    rd_range(&rd, TN_RUN_PROTO_VERSION, TN_RUN_PROTO_VERSION,
             "another version of tern-run");
    host       = rd_u32(&rd);
    s->kvsname = rd_str(&rd);
    s->nranks  = (int)rd_range(&rd, 1, 1u << 24, "bad number of ranks");
    if (rd.bad == NULL && (size_t)s->nranks > rd.left / 4) {
        rd.bad = "bad number of ranks";
    }
    s->hosts = rd_strv(&rd, 1u << 24, &s->nhosts);
    if (rd.bad == NULL && (s->nhosts < 1 || host >= (uint32_t)s->nhosts)) {
        rd.bad = "bad host index";
    }
    s->host_of = tn_run_xmalloc((size_t)(rd.bad == NULL ? s->nranks : 1) *
                                sizeof(int));
    for (int r = 0; rd.bad == NULL && r < s->nranks; r++) {
        s->host_of[r] = (int)rd_range(&rd, 0, (uint32_t)s->nhosts - 1,
                                      "bad host of a rank");
    }
    s->head_host = (int)rd_range(&rd, 0, (uint32_t)s->nhosts, "bad head host") - 1;
    s->nblocks = (int)rd_range(&rd, 1, 4096, "bad number of blocks");
    if (rd.bad == NULL && (size_t)s->nblocks > rd.left / 12) {
        rd.bad = "bad number of blocks";
    }
    if (rd.bad != NULL) {
        s->nblocks = 0;
    }
    s->blocks = tn_run_xmalloc((size_t)(rd.bad == NULL ? s->nblocks : 1) *
                               sizeof(*s->blocks));
    memset(s->blocks, 0, (size_t)(rd.bad == NULL ? s->nblocks : 1) *
                         sizeof(*s->blocks));
    for (int b = 0; rd.bad == NULL && b < s->nblocks; b++) {
        tn_run_block_t *blk = &s->blocks[b];

        blk->nranks = (int)rd_range(&rd, 1, (uint32_t)s->nranks,
                                    "bad ranks of a block");
        blk->argv = rd_strv(&rd, 1u << 20, &blk->argc);
        blk->env  = rd_strv(&rd, 1u << 20, &blk->nenv);
        if (rd.bad == NULL && blk->argc < 1) {
            rd.bad = "a block without a program";
        }
        total += blk->nranks;
        if (rd.bad == NULL && total > s->nranks) {
            rd.bad = "blocks hold more ranks than the job";
        }
    }
    if (rd.bad == NULL && total != s->nranks) {
        rd.bad = "blocks hold fewer ranks than the job";
    }
    s->cwd        = rd_str(&rd);
    s->rsh        = rd_str(&rd);
    s->proxy      = rd_str(&rd);
    s->tree_width = (int)rd_range(&rd, 1, 65536, "bad tree width");
    s->bind       = (int)rd_range(&rd, 0, 8, "bad binding");
    s->flags      = (int)rd_range(&rd, 0, 127, "bad flags");
    s->verbose    = (int)rd_range(&rd, 0, 16, "bad verbosity");
    s->timeout_s  = (int)rd_range(&rd, 0, 0x7fffffff, "bad timeout");
    s->kvs_keys    = rd_u64(&rd);
    s->kvs_bytes   = rd_u64(&rd);
    s->pmi_backlog = rd_u64(&rd);
    if (rd.bad == NULL && rd.left != 0) {
        rd.bad = "trailing bytes";
    }
    if (rd.bad == NULL && (s->kvs_keys == 0 || s->kvs_bytes == 0 ||
                           s->pmi_backlog == 0)) {
        rd.bad = "bad limits";
    }
    if (rd.bad != NULL) {
        *why = rd.bad;
        tn_run_proto_setup_free(s);
        return -1;
    }
    *host_p = (int)host;
    return 0;
}

void tn_run_proto_setup_free(tn_run_setup_t *s)
{
    if (s->blocks != NULL) {
        for (int b = 0; b < s->nblocks; b++) {
            free(s->blocks[b].argv);
            free(s->blocks[b].env);
        }
    }
    free(s->blocks);
    free(s->hosts);
    free(s->host_of);
    memset(s, 0, sizeof(*s));
}

int tn_run_setup_block_of(const tn_run_setup_t *s, int rank)
{
    int first = 0;

    for (int b = 0; b < s->nblocks; b++) {
        if (rank < first + s->blocks[b].nranks) {
            return b;
        }
        first += s->blocks[b].nranks;
    }
    return s->nblocks - 1;
}

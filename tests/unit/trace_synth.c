/* Synthetic trace files (trace_synth.h). */
#include "trace_synth.h"

int sy_one_host;

#include <stdlib.h>
#include <string.h>

static const char *const sy_calls[SY_NCALLS] = {
    "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
    "MPI_Waitall", "MPI_Barrier", "MPI_Allreduce", "MPI_Ibarrier", "MPI_Ssend",
    "MPI_Send_init", "MPI_Start", "MPI_Bcast", "MPI_Neighbor_alltoall",
};
static const char *const sy_algos[] = { "allreduce:ring", "barrier:shm", "bcast:binomial" };

static void sy_put(sy_t *w, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    if (w->n + n > w->cap) {
        size_t c = w->cap ? w->cap : 4096;
        while (c < w->n + n) {
            c *= 2;
        }
        unsigned char *b = realloc(w->b, c);
        if (b == NULL) {
            abort();
        }
        w->b = b;
        w->cap = c;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

void sy_init(sy_t *w, uint32_t rank, uint32_t size, uint32_t node, uint32_t nnodes,
             const char *job, uint64_t base, int reverse)
{
    memset(w, 0, sizeof(*w));
    w->base = base;
    w->reverse = reverse;
    char names[1024];
    size_t nb = 0;
    for (int i = 0; i < SY_NCALLS; i++) {
        const char *s = sy_calls[reverse ? SY_NCALLS - 1 - i : i];
        memcpy(names + nb, s, strlen(s) + 1);
        nb += strlen(s) + 1;
    }
    for (size_t i = 0; i < sizeof(sy_algos) / sizeof(sy_algos[0]); i++) {
        memcpy(names + nb, sy_algos[i], strlen(sy_algos[i]) + 1);
        nb += strlen(sy_algos[i]) + 1;
    }
    tern_trace_hdr_t h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, TERN_TRACE_MAGIC, sizeof(TERN_TRACE_MAGIC));
    h.version = TERN_TRACE_VERSION;
    h.hdr_size = TERN_TRACE_HDR_SIZE;
    h.rank = rank;
    h.size = size;
    h.node = node;
    h.nnodes = nnodes;
    h.clock = TERN_TRACE_CLOCK_NS;
    h.ncalls = SY_NCALLS;
    h.nalgos = sizeof(sy_algos) / sizeof(sy_algos[0]);
    h.names_bytes = (uint32_t)nb;
    h.t0_ticks = base;
    h.t0_ns = base;
    if (sy_one_host) {
        snprintf(h.host, sizeof(h.host), "vm");   /* nodes as namespaces of one machine */
    } else {
        snprintf(h.host, sizeof(h.host), "node<%u>", node);
    }
    snprintf(h.job, sizeof(h.job), "%s", job);
    sy_put(w, &h, sizeof(h));
    sy_put(w, names, nb);
}

void sy_free(sy_t *w)
{
    free(w->b);
    memset(w, 0, sizeof(*w));
}

static void sy_item(sy_t *w, unsigned type, const void *p, size_t n, const void *p2, size_t n2)
{
    tern_trace_item_t h = { (uint16_t)type, 0, (uint32_t)((sizeof(h) + n + n2 + 3) & ~(size_t)3) };
    static const unsigned char zero[4];
    sy_put(w, &h, sizeof(h));
    sy_put(w, p, n);
    sy_put(w, p2, n2);
    sy_put(w, zero, h.len - sizeof(h) - n - n2);
}

static void sy_begin(sy_t *w, unsigned kind, unsigned call, uint64_t t0, uint64_t t1)
{
    w->rec = w->n;
    tern_trace_rec_t r = { 0, (uint16_t)call, (uint8_t)kind, 0, t0, t1 };
    sy_put(w, &r, sizeof(r));
}

void sy_end(sy_t *w)
{
    uint32_t len = (uint32_t)(w->n - w->rec);
    memcpy(w->b + w->rec, &len, sizeof(len));
}

void sy_comm(sy_t *w, uint32_t id, uint32_t ctx, uint32_t rank, const int32_t *world, uint32_t n,
             const int32_t *remote, uint32_t rn)
{
    sy_begin(w, TERN_TRACE_REC_COMM, 0, w->base, w->base);
    tern_trace_commdef_t d = { id, ctx, n, rank, rn, rn ? TERN_TRACE_COMM_INTER : 0 };
    int32_t all[64];
    memcpy(all, world, n * sizeof(int32_t));
    if (rn) {
        memcpy(all + n, remote, rn * sizeof(int32_t));
    }
    sy_item(w, TERN_TRACE_I_COMMDEF, &d, sizeof(d), all, (n + rn) * sizeof(int32_t));
    sy_end(w);
}

void sy_call(sy_t *w, unsigned call, uint64_t t0, uint64_t t1)
{
    unsigned c = w->reverse ? SY_NCALLS - 1 - call : call;
    sy_begin(w, TERN_TRACE_REC_CALL, c, w->base + t0, w->base + t1);
}

void sy_send(sy_t *w, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes, unsigned mode,
             unsigned form)
{
    tern_trace_send_t s = { comm, peer, -1, tag, bytes, (uint8_t)mode, (uint8_t)form, 0 };
    sy_item(w, TERN_TRACE_I_SEND, &s, sizeof(s), NULL, 0);
}

void sy_recv(sy_t *w, uint32_t comm, int32_t peer, int32_t tag, uint64_t cap, unsigned form)
{
    tern_trace_recv_t r = { comm, peer, tag, cap, (uint8_t)form, { 0 } };
    sy_item(w, TERN_TRACE_I_RECV, &r, sizeof(r), NULL, 0);
}

void sy_status(sy_t *w, int32_t source, int32_t tag, uint64_t bytes)
{
    tern_trace_status_t s = { source, tag, bytes, 0, 0 };
    sy_item(w, TERN_TRACE_I_STATUS, &s, sizeof(s), NULL, 0);
}

void sy_req(sy_t *w, unsigned type, uint64_t id)
{
    tern_trace_req_t r = { id };
    sy_item(w, type, &r, sizeof(r), NULL, 0);
}

void sy_done(sy_t *w, uint64_t id, int32_t source, int32_t tag, uint64_t bytes, int cancelled)
{
    tern_trace_done_t d = { id, source, tag, bytes, 0, (uint32_t)cancelled };
    sy_item(w, TERN_TRACE_I_DONE, &d, sizeof(d), NULL, 0);
}

void sy_coll(sy_t *w, uint32_t comm, unsigned kind, unsigned algo, int32_t root, uint64_t seq,
             uint64_t sbytes, uint64_t rbytes, unsigned form)
{
    tern_trace_coll_t c = { comm, (uint16_t)kind, (uint16_t)algo, root,
                            kind == TERN_TRACE_ALLREDUCE ? TERN_TRACE_OP_SUM : TERN_TRACE_NONE,
                            seq, sbytes, rbytes, (uint8_t)form, 0, 0 };
    sy_item(w, TERN_TRACE_I_COLL, &c, sizeof(c), NULL, 0);
}

void sy_nbrs(sy_t *w, uint32_t comm, uint32_t in, uint32_t out, const int32_t *ranks)
{
    tern_trace_nbrs_t h = { comm, in, out, 0 };
    sy_item(w, TERN_TRACE_I_NBRS, &h, sizeof(h), ranks, sizeof(int32_t) * ((size_t)in + out));
}

/* fmemopen does not own its buffer: a cookie stream over a copy does. */
typedef struct {
    unsigned char *b;
    size_t         n, off;
} sy_mem_t;

static ssize_t sy_mem_read(void *c, char *buf, size_t size)
{
    sy_mem_t *m = c;
    size_t k = m->n - m->off < size ? m->n - m->off : size;
    memcpy(buf, m->b + m->off, k);
    m->off += k;
    return (ssize_t)k;
}

static int sy_mem_seek(void *c, off64_t *pos, int whence)
{
    sy_mem_t *m = c;
    off64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off64_t)m->off : (off64_t)m->n;
    off64_t to = base + *pos;
    if (to < 0 || (size_t)to > m->n) {
        return -1;
    }
    m->off = (size_t)to;
    *pos = to;
    return 0;
}

static int sy_mem_close(void *c)
{
    sy_mem_t *m = c;
    free(m->b);
    free(m);
    return 0;
}

FILE *sy_stream(const sy_t *w, size_t n)
{
    n = n < w->n ? n : w->n;
    sy_mem_t *m = calloc(1, sizeof(*m));
    if (m == NULL || (m->b = malloc(n + 1)) == NULL) {
        abort();
    }
    memcpy(m->b, w->b, n);
    m->n = n;
    cookie_io_functions_t io = { sy_mem_read, NULL, sy_mem_seek, sy_mem_close };
    return fopencookie(m, "rb", io);
}

int sy_write(const sy_t *w, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return -1;
    }
    size_t k = fwrite(w->b, 1, w->n, f);
    return (fclose(f) != 0 || k != w->n) ? -1 : 0;
}

/* The trace recorder (base/trace.h): per-thread open records, the
 * process's buffer and the file. */
#include "base/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define TN_TRACE_HAVE_TSC 1
#endif

#include "base/events.h"
#include "base/log.h"
#include "base/name.h"

#define TN_TRACE_BUF_MIN 4096

int tn_trace_on;

/* initial-exec: a load off the thread pointer, not a __tls_get_addr call per
 * access (one pointer of the static TLS reserve, which libraries opened
 * with dlopen may use) */
__thread tn_trace_thread_t *tn_trace_me __attribute__((tls_model("initial-exec")));
static pthread_key_t tn_trace_key;
static int tn_trace_key_made;

static int tn_trace_fd = -1;
static char *tn_trace_buf;
static size_t tn_trace_len, tn_trace_cap;
/* File space reserved ahead of the writes (fallocate, keeping the size):
 * a block write then finds its blocks allocated instead of reserving them
 * one 4 KiB page at a time, which cost more than copying the bytes
 * (ext4: 0.17 -> 0.11 ns per byte written).  Released at close. */
static uint64_t tn_trace_written, tn_trace_alloc_end;
static int tn_trace_prealloc;
#define TN_TRACE_PREALLOC_MIN ((uint64_t)16 << 20)
static int tn_trace_tsc;
static int tn_trace_mt;
/* The record built in place at tn_trace_buf + tn_trace_len (one at most:
 * the outermost call's, without MPI_THREAD_MULTIPLE); NULL when none. */
static tn_trace_open_t *tn_trace_direct;
/* The room a record in place starts with; below it the buffer is written
 * first.  A record that outgrows its room moves to its own memory. */
#define TN_TRACE_DIRECT_MIN 512
#define TN_TRACE_OWN_MIN    256
static atomic_flag tn_trace_lock_flag = ATOMIC_FLAG_INIT;
static char tn_trace_file[4096];
static uint64_t tn_trace_init_tsc, tn_trace_init_ns;   /* when MPI_Init began */

/* ------------------------------------------------------------------ clock */

static uint64_t tn_trace_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t tn_trace_clock(void)
{
#ifdef TN_TRACE_HAVE_TSC
    if (tn_trace_tsc) {
        return __rdtsc();
    }
#endif
    return tn_trace_mono_ns();
}

/* The TSC counts time at one rate whatever the core's frequency and
 * sleep state: the CPU says so (invariant TSC), or the kernel trusts it
 * as its clock source (virtual machines often hide the CPU bit). */
static int tn_trace_tsc_usable(void)
{
#ifdef TN_TRACE_HAVE_TSC
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8))) {
        return 1;
    }
    char src[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f != NULL) {
        if (fgets(src, sizeof(src), f) == NULL) {
            src[0] = '\0';
        }
        fclose(f);
    }
    return strcmp(src, "tsc\n") == 0;
#else
    return 0;
#endif
}

/* ----------------------------------------------------------------- buffer */

static void tn_trace_lock(void)
{
    if (tn_trace_mt) {
        while (atomic_flag_test_and_set_explicit(&tn_trace_lock_flag, memory_order_acquire)) {
            sched_yield();
        }
    }
}

static void tn_trace_unlock(void)
{
    if (tn_trace_mt) {
        atomic_flag_clear_explicit(&tn_trace_lock_flag, memory_order_release);
    }
}

/* Reserve the file's next blocks when the write would pass the reserved
 * end; a file system that cannot (or a full one) is not asked again, and
 * the write then allocates as it goes. */
static void tn_trace_prealloc_for(size_t n)
{
    if (!tn_trace_prealloc || tn_trace_written + n <= tn_trace_alloc_end) {
        return;
    }
    uint64_t chunk = 2 * (uint64_t)tn_trace_cap;   /* bounded by what the rank buffers */
    if (chunk < TN_TRACE_PREALLOC_MIN) {
        chunk = TN_TRACE_PREALLOC_MIN;
    }
    if (chunk < n) {
        chunk = n;
    }
    if (fallocate(tn_trace_fd, FALLOC_FL_KEEP_SIZE, (off_t)tn_trace_written, (off_t)chunk) != 0) {
        tn_log_debug("trace", "fallocate on %s: %m; writing without reserving", tn_trace_file);
        tn_trace_prealloc = 0;
        return;
    }
    tn_trace_alloc_end = tn_trace_written + chunk;
}

static int tn_trace_write_all(const char *p, size_t n)
{
    tn_trace_prealloc_for(n);
    while (n > 0) {
        ssize_t w = write(tn_trace_fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            tn_log_warn("trace", "writing %s failed: %m; tracing stops", tn_trace_file);
            tn_trace_on = 0;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        tn_trace_written += (uint64_t)w;
    }
    return 0;
}

static void tn_trace_put_clock(void)
{
    tern_trace_rec_t r = { TERN_TRACE_REC_HDR, 0, TERN_TRACE_REC_CLOCK, 0, 0, 0 };
    r.t_enter = tn_trace_clock();
    r.t_exit = tn_trace_mono_ns();
    memcpy(tn_trace_buf + tn_trace_len, &r, sizeof(r));
    tn_trace_len += sizeof(r);
}

/* Write the buffer, ending it with a CLOCK record (lock held).  The buffer
 * always keeps room for that record. */
static void tn_trace_flush(void)
{
    if (tn_trace_fd < 0) {
        return;
    }
    tn_trace_put_clock();
    if (tn_trace_write_all(tn_trace_buf, tn_trace_len) == 0) {
        tn_trace_len = 0;
    }
}

static void tn_trace_undirect(void);

static void tn_trace_append(const char *p, size_t n)
{
    tn_trace_undirect();                /* it would be overwritten */
    tn_trace_lock();
    if (tn_trace_fd >= 0) {
        size_t room = tn_trace_cap - TERN_TRACE_REC_HDR;
        if (tn_trace_len + n > room) {
            tn_trace_flush();
        }
        if (n > room) {
            (void)tn_trace_write_all(p, n);
        } else if (tn_trace_len + n <= room) {
            memcpy(tn_trace_buf + tn_trace_len, p, n);
            tn_trace_len += n;
        }
    }
    tn_trace_unlock();
}

/* --------------------------------------------------------------- records */

static void tn_trace_thread_free(void *arg)
{
    tn_trace_thread_t *t = arg;
    for (int i = 0; i < TN_TRACE_DEPTH; i++) {
        free(t->open[i].own);
    }
    free(t);
}

static tn_trace_thread_t *tn_trace_thread(void)
{
    tn_trace_thread_t *t = tn_trace_me;
    if (t == NULL) {
        t = calloc(1, sizeof(*t));
        if (t == NULL) {
            return NULL;
        }
        /* the outermost record always has somewhere to move to */
        t->open[0].own = malloc(TN_TRACE_OWN_MIN);
        if (t->open[0].own == NULL) {
            free(t);
            return NULL;
        }
        t->open[0].own_cap = TN_TRACE_OWN_MIN;
        tn_trace_me = t;
        if (tn_trace_key_made) {
            pthread_setspecific(tn_trace_key, t);
        }
    }
    return t;
}

/* Move the record built in place into its own memory.  Its items are
 * dropped if that memory cannot grow (the record stays whole). */
static void tn_trace_undirect(void)
{
    tn_trace_open_t *r = tn_trace_direct;
    if (r == NULL) {
        return;
    }
    tn_trace_direct = NULL;
    if (r->own_cap < r->len) {
        size_t cap = r->own_cap;
        while (cap < r->len) {
            cap *= 2;
        }
        char *b = realloc(r->own, cap);
        if (b != NULL) {
            r->own = b;
            r->own_cap = cap;
        } else {
            r->len = TERN_TRACE_REC_HDR;
            r->coll_off = 0;
        }
    }
    memcpy(r->own, r->buf, r->len);
    r->buf = r->own;
    r->cap = r->own_cap;
}

static int tn_trace_reserve(tn_trace_open_t *r, size_t more)
{
    if (r->len + more <= r->cap) {
        return 0;
    }
    if (r == tn_trace_direct) {
        tn_trace_undirect();
        if (r->len + more <= r->cap) {
            return 0;
        }
    }
    size_t cap = r->own_cap ? r->own_cap : TN_TRACE_OWN_MIN;
    while (cap < r->len + more) {
        cap *= 2;
    }
    char *b = realloc(r->own, cap);
    if (b == NULL) {
        return -1;
    }
    r->own = r->buf = b;
    r->own_cap = r->cap = cap;
    return 0;
}

/* Where record r at depth d is built: in place at the end of the buffer
 * when it may be (writing the buffer first if it is nearly full), else in
 * its own memory; -1 when there is none. */
static int tn_trace_place(tn_trace_open_t *r, int d)
{
    if (d == 0 && !tn_trace_mt && tn_trace_direct == NULL && tn_trace_buf != NULL) {
        size_t room = tn_trace_cap - TERN_TRACE_REC_HDR - tn_trace_len;
        if (room < TN_TRACE_DIRECT_MIN) {
            tn_trace_flush();
            room = tn_trace_cap - TERN_TRACE_REC_HDR - tn_trace_len;
        }
        if (room >= TN_TRACE_DIRECT_MIN) {
            r->buf = tn_trace_buf + tn_trace_len;
            r->cap = room;
            tn_trace_direct = r;
            return 0;
        }
    }
    r->buf = r->own;
    r->cap = r->own_cap;
    return tn_trace_reserve(r, TERN_TRACE_REC_HDR);
}

uint64_t tn_trace_enter_(unsigned call)
{
    tn_trace_thread_t *t = tn_trace_me;
    if (__builtin_expect(t == NULL, 0) && (t = tn_trace_thread()) == NULL) {
        return 0;
    }
    int d = t->depth++;
    if (d >= TN_TRACE_DEPTH) {
        return 1;
    }
    tn_trace_open_t *r = &t->open[d];
    r->len = 0;
    r->coll_off = 0;
    if (tn_trace_place(r, d) != 0) {
        t->depth--;
        return 0;
    }
    tern_trace_rec_t h = { 0, (uint16_t)call, TERN_TRACE_REC_CALL, (uint8_t)(d << 1), 0, 0 };
    h.t_enter = tn_trace_clock();
    memcpy(r->buf, &h, sizeof(h));
    r->len = sizeof(h);
    return 1;
}

/* Stamp and write the innermost open record (depth d). */
static void tn_trace_close_rec(tn_trace_open_t *r, int error)
{
    uint64_t now = tn_trace_clock();
    uint32_t len = (uint32_t)r->len;
    memcpy(r->buf + offsetof(tern_trace_rec_t, len), &len, sizeof(len));
    memcpy(r->buf + offsetof(tern_trace_rec_t, t_exit), &now, sizeof(now));
    if (error) {
        r->buf[offsetof(tern_trace_rec_t, flags)] |= TERN_TRACE_F_ERROR;
    }
    if (r == tn_trace_direct) {         /* it is in the buffer already */
        tn_trace_direct = NULL;
        tn_trace_len += r->len;
        return;
    }
    tn_trace_append(r->buf, r->len);
}

void tn_trace_leave_(int ret)
{
    tn_trace_thread_t *t = tn_trace_me;
    if (t == NULL || t->depth == 0) {
        return;                             /* closed by tn_trace_close */
    }
    int d = --t->depth;
    if (d >= TN_TRACE_DEPTH) {
        return;
    }
    if (!tn_trace_on) {
        if (&t->open[d] == tn_trace_direct) {
            tn_trace_direct = NULL;
        }
        return;
    }
    tn_trace_close_rec(&t->open[d], ret != 0);
}

static tn_trace_open_t *tn_trace_top(void)
{
    tn_trace_thread_t *t = tn_trace_me;
    if (t == NULL || t->depth == 0 || t->depth > TN_TRACE_DEPTH) {
        return NULL;
    }
    return &t->open[t->depth - 1];
}

int tn_trace_active(void)
{
    return tn_trace_on && tn_trace_top() != NULL;
}

void tn_trace_item(unsigned type, const void *payload, size_t len, const void *extra,
                   size_t xlen)
{
    tn_trace_open_t *r = tn_trace_top();
    if (!tn_trace_on || r == NULL) {
        return;
    }
    size_t body = len + xlen;
    size_t total = (TERN_TRACE_ITEM_HDR + body + 3) & ~(size_t)3;
    if (r->len + total > TERN_TRACE_REC_MAX || tn_trace_reserve(r, total) != 0) {
        return;                             /* the record stays whole without it */
    }
    tern_trace_item_t h = { (uint16_t)type, 0, (uint32_t)total };
    char *p = r->buf + r->len;
    memcpy(p, &h, sizeof(h));
    if (len > 0) {
        memcpy(p + sizeof(h), payload, len);
    }
    if (xlen > 0) {
        memcpy(p + sizeof(h) + len, extra, xlen);
    }
    memset(p + sizeof(h) + body, 0, total - sizeof(h) - body);
    if (type == TERN_TRACE_I_COLL) {
        r->coll_off = r->len + sizeof(h);
    }
    r->len += total;
}

void tn_trace_algo_(unsigned algo)
{
    tn_trace_open_t *r = tn_trace_top();
    if (r == NULL || r->coll_off == 0) {
        return;
    }
    char *f = r->buf + r->coll_off + offsetof(tern_trace_coll_t, algo);
    uint16_t cur;
    memcpy(&cur, f, sizeof(cur));
    if (cur == TERN_TRACE_ALGO_UNKNOWN) {   /* the outermost choice: a two-level
                                             * algorithm's inner ones do not count */
        uint16_t a = (uint16_t)algo;
        memcpy(f, &a, sizeof(a));
    }
}

void tn_trace_record(unsigned kind, unsigned type, const void *payload, size_t len,
                     const void *extra, size_t xlen)
{
    if (!tn_trace_on) {
        return;
    }
    size_t body = len + xlen;
    size_t total = TERN_TRACE_REC_HDR + ((TERN_TRACE_ITEM_HDR + body + 3) & ~(size_t)3);
    if (total > TERN_TRACE_REC_MAX) {
        tn_log_warn("trace", "a %zu-byte record is too large for the trace; left out", total);
        return;
    }
    char *p = calloc(1, total);
    if (p == NULL) {
        return;
    }
    uint64_t now = tn_trace_clock();
    tern_trace_rec_t r = { (uint32_t)total, 0, (uint8_t)kind, 0, now, now };
    tern_trace_item_t h = { (uint16_t)type, 0, (uint32_t)(total - TERN_TRACE_REC_HDR) };
    memcpy(p, &r, sizeof(r));
    memcpy(p + sizeof(r), &h, sizeof(h));
    if (len > 0) {
        memcpy(p + sizeof(r) + sizeof(h), payload, len);
    }
    if (xlen > 0) {
        memcpy(p + sizeof(r) + sizeof(h) + len, extra, xlen);
    }
    tn_trace_append(p, total);
    free(p);
}

/* ------------------------------------------------------------ open/close */

static void tn_trace_name_part(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
    tn_name_sanitize(dst);
    if (dst[0] == '\0' || strcmp(dst, ".") == 0 || strcmp(dst, "..") == 0) {
        snprintf(dst, n, "job");
    }
}

static int tn_trace_write_header(const tn_trace_ident_t *id)
{
    size_t names = 0;
    for (unsigned i = 0; i < id->ncalls; i++) {
        names += strlen(id->calls[i]) + 1;
    }
    for (unsigned i = 0; i < id->nalgos; i++) {
        names += strlen(id->algos[i]) + 1;
    }
    size_t total = TERN_TRACE_HDR_SIZE + names;
    char *p = calloc(1, total);
    if (p == NULL) {
        return -1;
    }
    tern_trace_hdr_t h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, TERN_TRACE_MAGIC, sizeof(TERN_TRACE_MAGIC));
    h.version = TERN_TRACE_VERSION;
    h.hdr_size = TERN_TRACE_HDR_SIZE;
    h.rank = (uint32_t)id->rank;
    h.size = (uint32_t)id->size;
    h.node = (uint32_t)id->node;
    h.nnodes = (uint32_t)id->nnodes;
    h.rails = (uint32_t)id->rails;
    h.pid = (uint32_t)getpid();
    h.clock = tn_trace_tsc ? TERN_TRACE_CLOCK_TSC : TERN_TRACE_CLOCK_NS;
    h.ncalls = id->ncalls;
    h.nalgos = id->nalgos;
    h.names_bytes = (uint32_t)names;
    if (tn_trace_init_ns != 0) {
        h.t0_ticks = tn_trace_tsc ? tn_trace_init_tsc : tn_trace_init_ns;
        h.t0_ns = tn_trace_init_ns;
    } else {
        h.t0_ticks = tn_trace_clock();
        h.t0_ns = tn_trace_mono_ns();
    }
    struct timespec rt;
    clock_gettime(CLOCK_REALTIME, &rt);
    h.t0_unix_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    snprintf(h.host, sizeof(h.host), "%s", id->host);
    snprintf(h.job, sizeof(h.job), "%s", id->job);
    memcpy(p, &h, sizeof(h));
    size_t off = TERN_TRACE_HDR_SIZE;
    for (unsigned i = 0; i < id->ncalls; i++) {
        size_t l = strlen(id->calls[i]) + 1;
        memcpy(p + off, id->calls[i], l);
        off += l;
    }
    for (unsigned i = 0; i < id->nalgos; i++) {
        size_t l = strlen(id->algos[i]) + 1;
        memcpy(p + off, id->algos[i], l);
        off += l;
    }
    int rc = tn_trace_write_all(p, total);
    free(p);
    return rc;
}

int tn_trace_open(const tn_trace_ident_t *id)
{
    if (tn_trace_fd >= 0 || id->dir == NULL || id->dir[0] == '\0') {
        return -1;
    }
    if (mkdir(id->dir, 0700) != 0 && errno != EEXIST) {
        tn_log_warn("trace", "cannot make the trace directory %s: %m; not tracing", id->dir);
        return -1;
    }
    char job[128];
    tn_trace_name_part(job, sizeof(job), id->job);
    int n = snprintf(tn_trace_file, sizeof(tn_trace_file), "%s/%s.%d%s", id->dir, job, id->rank,
                     TERN_TRACE_SUFFIX);
    if (n < 0 || (size_t)n >= sizeof(tn_trace_file)) {
        tn_log_warn("trace", "the trace directory's name is too long; not tracing");
        tn_trace_file[0] = '\0';
        return -1;
    }
    /* never an existing file, never through a link someone planted */
    int fd = open(tn_trace_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
                  0600);
    if (fd < 0) {
        tn_log_warn("trace", "cannot create %s: %m; not tracing", tn_trace_file);
        tn_trace_file[0] = '\0';
        return -1;
    }
    size_t cap = id->buffer < TN_TRACE_BUF_MIN ? TN_TRACE_BUF_MIN : id->buffer;
    tn_trace_buf = malloc(cap);
    if (tn_trace_buf == NULL) {
        close(fd);
        unlink(tn_trace_file);
        tn_trace_file[0] = '\0';
        return -1;
    }
    /* touched now, not one page fault per 4 KiB of records while the job runs */
    memset(tn_trace_buf, 0, cap);
    tn_trace_cap = cap;
    tn_trace_len = 0;
    tn_trace_fd = fd;
    tn_trace_written = 0;
    tn_trace_alloc_end = 0;
    tn_trace_prealloc = 0;            /* not for the header: a failed start leaves no reserve */
    tn_trace_tsc = id->tsc && tn_trace_tsc_usable();
    if (!tn_trace_key_made && pthread_key_create(&tn_trace_key, tn_trace_thread_free) == 0) {
        tn_trace_key_made = 1;
    }
    if (tn_trace_write_header(id) != 0) {
        close(fd);
        tn_trace_fd = -1;
        free(tn_trace_buf);
        tn_trace_buf = NULL;
        return -1;
    }
    tn_trace_prealloc = 1;
    tn_trace_prealloc_for(tn_trace_cap);  /* the first reserve now, in MPI_Init, not
                                           * in the middle of the job's first block */
    tn_trace_on = 1;
    if (tn_trace_init_ns != 0) {
        /* MPI_Init's record: the entry point could not open it (the trace
         * did not exist yet) */
        tern_trace_rec_t r = { TERN_TRACE_REC_HDR, (uint16_t)id->init_call, TERN_TRACE_REC_CALL,
                               0, 0, tn_trace_clock() };
        r.t_enter = tn_trace_tsc ? tn_trace_init_tsc : tn_trace_init_ns;
        tn_trace_append((const char *)&r, sizeof(r));
    }
    if (id->events) {
        tn_event_trace(1);
    }
    return 0;
}

/* The item's event numbers are the MPI_T events' (base/events.h). */
_Static_assert((int)TERN_TRACE_EV_PEER_FAILURE == (int)TN_EVENT_PEER_FAILURE &&
               (int)TERN_TRACE_EV_RETRANSMIT == (int)TN_EVENT_RETRANSMIT_BURST &&
               (int)TERN_TRACE_EV_RAIL_STATE == (int)TN_EVENT_RAIL_STATE &&
               (int)TERN_TRACE_NEVENTS == (int)TN_EVENT_COUNT_, "trace events follow the event table");

void tn_trace_event(unsigned event, const int *elems, int n)
{
    tern_trace_event_t e;
    if (!tn_trace_on || event >= TERN_TRACE_NEVENTS || n < 0) {
        return;
    }
    memset(&e, 0, sizeof(e));
    e.event = (uint16_t)event;
    e.nelems = (uint16_t)(n < 4 ? n : 4);
    for (int i = 0; i < e.nelems; i++) {
        e.elems[i] = elems[i];
    }
    e.t = tn_trace_clock();
    tn_trace_item_fixed(TERN_TRACE_I_EVENT, &e, sizeof(e));
}

void tn_trace_close(void)
{
    if (tn_trace_fd < 0) {
        return;
    }
    /* the calls this thread is in (MPI_Finalize) end now */
    tn_trace_thread_t *t = tn_trace_me;
    if (t != NULL) {
        int d = t->depth < TN_TRACE_DEPTH ? t->depth : TN_TRACE_DEPTH;
        while (d-- > 0) {
            tn_trace_close_rec(&t->open[d], 0);
        }
        t->depth = 0;
    }
    tn_event_trace(0);
    tn_trace_direct = NULL;             /* closed above (no other thread is in MPI) */
    tn_trace_lock();
    tn_trace_flush();
    tn_trace_on = 0;
    if (tn_trace_alloc_end > tn_trace_written &&
        ftruncate(tn_trace_fd, (off_t)tn_trace_written) != 0) {   /* the reserve's unused tail */
        tn_log_debug("trace", "ftruncate on %s: %m", tn_trace_file);
    }
    close(tn_trace_fd);
    tn_trace_fd = -1;
    free(tn_trace_buf);
    tn_trace_buf = NULL;
    tn_trace_unlock();
}

const char *tn_trace_path(void)
{
    return tn_trace_fd >= 0 ? tn_trace_file : "";
}

void tn_trace_init_begins(void)
{
#ifdef TN_TRACE_HAVE_TSC
    tn_trace_init_tsc = __rdtsc();
#endif
    tn_trace_init_ns = tn_trace_mono_ns();
}

void tn_trace_threads(int multiple)
{
    if (multiple) {
        tn_trace_undirect();            /* the caller's: other threads may come */
    }
    tn_trace_mt = multiple;
}

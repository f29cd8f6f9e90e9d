/* Shared-memory transport: one segment per node per job, one SPSC ring of
 * cells per ordered pair of local ranks, futex doorbells for blocked
 * waiters, and single-copy CMA reads for rendezvous.
 *
 * A rank that also has udp peers blocks in poll() on its sockets, which
 * cannot see a futex.  It sleeps in "poll mode" instead (sleeping = 2): it
 * adds its wake socket (a datagram socket bound to an abstract Unix
 * address named after a random token of the node's segment and its world
 * rank: abstract names are listed in /proc/net/unix for every user to
 * read, so they must not show the job) to the poll set, and a
 * waker that finds it in that mode sends a byte there instead of bumping
 * the futex.
 *
 * The segment.  Under tern-run it is an anonymous memfd that the launcher
 * made for the node and the ranks inherited (TERN_SHM_FD): local rank 0
 * sizes and seals it, the others map it after a fence.  It never has a name
 * in /dev/shm, so no kill of anything at any moment leaves it behind, and no
 * name shows the job.  Under other launchers (Hydra), and when a process
 * starts the transports a second time (sessions; the inherited memfd is
 * used once), local rank 0 makes /dev/shm/tern-<hash of the kvsname>-n<node>
 * and unlinks it as soon as every local rank has it mapped (one fence
 * later); tern-run removes what a crash in that window leaves. */
#include "xport/xport.h"
#include "xport/shm/shm_ring.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/events.h"
#include "base/log.h"
#include "base/monitor.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define TN_SHM_MAGIC     0x54524e53484d3031ull   /* "TRNSHM01" */
#define TN_SHM_MAX_BYTES (1ull << 30)

typedef struct {
    _Atomic uint32_t futex;      /* doorbell: bumped by wakers */
    _Atomic uint32_t sleeping;   /* owner is (about to be) blocked: 1 on the
                                  * futex, 2 in poll mode (see above) */
    int32_t          pid;
    char             pad[TN_SHM_CACHELINE - 12];
} tn_shm_proc_t;

typedef struct {
    _Atomic uint64_t magic;      /* written last by the creator */
    uint32_t         local_size;
    uint32_t         ncells;
    uint32_t         cell_size;
    uint32_t         coll_slots; /* collective slots after the rings */
    uint64_t         ring_bytes;
    uint64_t         coll_bytes; /* data bytes per rank and buffer in a slot */
    uint64_t         wake_token; /* random: names the node's wake sockets */
    char             pad[TN_SHM_CACHELINE - 48];
} tn_shm_seg_hdr_t;

_Static_assert(TN_XPORT_SHM_COLL_HDR % TN_SHM_CACHELINE == 0,
               "collective areas stay cache-line aligned");

/* A collective slot: this header, then per rank (of the communicator using
 * it) one area of TN_XPORT_SHM_COLL_HDR + TN_XPORT_SHM_COLL_BUFS * coll_bytes
 * (tn_xport_shm_coll_area). */
typedef struct {
    _Atomic uint64_t owner;      /* key of the communicator using it, 0: free */
    _Atomic uint32_t refs;       /* its ranks that claimed it */
    char             pad[TN_SHM_CACHELINE - 12];
} tn_shm_slot_hdr_t;

static struct {
    int                 active;
    void               *base;
    size_t              len;
    int                 nlocal;
    int                 me;
    const int          *local_of_world;
    const int          *world_of_local;
    tn_xport_am_handler_fn_t *handler;
    tn_shm_proc_t      *procs;
    tn_shm_ring_t      *out;         /* out[l]: me -> l (producer side) */
    tn_shm_ring_t      *in;          /* in[l]:  l -> me (consumer side) */
    int                *poll;        /* local peers to poll */
    int                 npoll;
    size_t              max_payload;
    int                 cma;
    int                 use_doorbell;
    int                 coop;          /* cooperative copies (ranks <= cores) */
    uint64_t            wake_token;  /* names the wake sockets (random) */
    int                 world_rank;
    char               *coll;        /* the collective slots, or NULL */
    int                 coll_slots;
    size_t              coll_bytes;
    size_t              coll_slot_len;
} tn_shm;

/* The counters (base/counters_table.h), outside tn_shm so that finalize
 * keeps them for MPI_T readers. */
static tn_shm_stats_t tn_shm_stats_own;
static tn_shm_stats_t *tn_shm_st = &tn_shm_stats_own;   /* or in the stats segment */

/* The memfd inherited from tern-run: -2 until looked at, -1 when none or
 * used already. */
static int tn_shm_inherited_fd = -2;

/* Take the inherited segment (once per process): check that it is a memfd,
 * keep it from children (they are not the job).  Returns it or -1. */
static int tn_shm_take_inherited(void)
{
    if (tn_shm_inherited_fd != -2) {
        int fd = tn_shm_inherited_fd;
        tn_shm_inherited_fd = -1;
        return fd;
    }
    tn_shm_inherited_fd = -1;
    int fd = (int)tn_cfg.shm_fd;
    if (fd < 0) {
        return -1;
    }
    if (fcntl(fd, F_GET_SEALS) < 0) {
        /* e.g. a child of a rank, started without tern-run: not ours */
        tn_log_debug("shm", "TERN_SHM_FD=%d is not a memfd (%m); ignored", fd);
        return -1;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
}

/* My wake socket (see above), -1 until needed; it outlives a finalize
 * of the segment (sessions may start the transports again). */
static int tn_shm_wake_fd = -1;

/* Used for sleeping when there is no segment (singleton, one local rank). */
static _Atomic uint32_t tn_shm_private_futex;
static _Atomic uint32_t tn_shm_private_sleeping;

/* The abstract Unix address of world rank w's wake socket. */
static socklen_t tn_shm_wake_addr(int w, struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "tern-wake-%016llx-%d",
                     (unsigned long long)tn_shm.wake_token, w);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* My wake socket (bound on first use), or -1 if none can be made. */
static int tn_shm_wake_socket(void)
{
    static uint64_t bound_token;     /* the token of the name it has */
    if (tn_shm_wake_fd >= 0 && bound_token == tn_shm.wake_token) {
        return tn_shm_wake_fd;
    }
    if (tn_shm_wake_fd >= 0) {       /* a new segment, a new name */
        close(tn_shm_wake_fd);
        tn_shm_wake_fd = -1;
    }
    bound_token = tn_shm.wake_token;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_un a;
    socklen_t len = tn_shm_wake_addr(tn_shm.world_rank, &a);
    if (bind(fd, (struct sockaddr *)&a, len) != 0) {
        tn_log_debug("shm", "cannot bind the wake socket: %m");
        close(fd);
        return -1;
    }
    tn_shm_wake_fd = fd;
    return fd;
}

/* Wake world rank w, asleep in poll mode: one byte to its wake socket.  A
 * full socket already holds a wake-up. */
static void tn_shm_wake_poller(int w)
{
    int fd = tn_shm_wake_socket();
    if (fd >= 0) {
        struct sockaddr_un a;
        socklen_t len = tn_shm_wake_addr(w, &a);
        char b = 0;
        (void)sendto(fd, &b, 1, MSG_DONTWAIT, (struct sockaddr *)&a, len);
    }
}

static long tn_futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)uaddr, op, val, ts, NULL, 0);
}

static tn_shm_ring_t tn_shm_ring_at(int receiver, int sender)
{
    const tn_shm_seg_hdr_t *sh = tn_shm.base;
    size_t off = sizeof(tn_shm_seg_hdr_t) + (size_t)sh->local_size * sizeof(tn_shm_proc_t) +
                 ((size_t)receiver * sh->local_size + (size_t)sender) * sh->ring_bytes;
    tn_shm_ring_t r;
    r.hdr = (tn_shm_ring_hdr_t *)((char *)tn_shm.base + off);
    r.cells = (char *)r.hdr + sizeof(tn_shm_ring_hdr_t);
    r.pos = 0;
    r.mask = sh->ncells - 1;
    r.cell_size = sh->cell_size;
    return r;
}

static int tn_is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Map the segment: the inherited memfd mfd, or the named one when mfd < 0.
 * Takes mfd (closed on return). */
static tn_status_t tn_shm_map(const tn_xport_job_t *job, const char *name, int mfd)
{
    uint32_t ncells = (uint32_t)tn_cfg.shm_cells;
    uint32_t cell_size = (uint32_t)tn_cfg.shm_cell_size;
    if (!tn_is_pow2(ncells) || ncells < 2) {
        tn_log_warn("shm", "TERN_SHM_CELLS=%u is not a power of two >= 2; using 64", ncells);
        ncells = 64;
    }
    if (!tn_is_pow2(cell_size) || cell_size < 256) {
        tn_log_warn("shm", "TERN_SHM_CELL_SIZE=%u is not a power of two >= 256; using 8192",
                    cell_size);
        cell_size = 8192;
    }
    size_t n = (size_t)job->local_size;
    size_t ring_bytes = sizeof(tn_shm_ring_hdr_t) + (size_t)ncells * cell_size;
    while (n * n * ring_bytes > TN_SHM_MAX_BYTES && ncells > 4) {
        ncells /= 2;
        ring_bytes = sizeof(tn_shm_ring_hdr_t) + (size_t)ncells * cell_size;
    }
    size_t len = sizeof(tn_shm_seg_hdr_t) + n * sizeof(tn_shm_proc_t) + n * n * ring_bytes;
    size_t coll_slots = tn_cfg.shm_coll_slots > 0 ? (size_t)tn_cfg.shm_coll_slots : 0;
    size_t coll_bytes = (tn_cfg.shm_coll_bytes + TN_SHM_CACHELINE - 1) &
                        ~(size_t)(TN_SHM_CACHELINE - 1);
    if (coll_slots > 64) {
        coll_slots = 64;
    }
    if (coll_bytes == 0) {
        coll_slots = 0;
    }
    len += coll_slots * (sizeof(tn_shm_slot_hdr_t) +
                         n * (TN_XPORT_SHM_COLL_HDR + TN_XPORT_SHM_COLL_BUFS * coll_bytes));
    tn_status_t status;
    int fd = -1;

    if (mfd >= 0) {
        name = "(memfd from the launcher)";
    }
    if (job->local_rank == 0) {
        if (mfd >= 0) {
            fd = mfd;
        } else {
            shm_unlink(name);   /* stale segment of a dead job with the same id */
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0) {
                tn_log_error("shm", "shm_open(%s) failed: %m", name);
                return TN_ERR_IO;
            }
        }
        int err = posix_fallocate(fd, 0, (off_t)len);
        if (err != 0) {
            errno = err;
            tn_log_error("shm", "cannot size shared segment %s to %zu bytes: %m "
                         "(is /dev/shm large enough?)", name, len);
            status = TN_ERR_NOMEM;
            goto err_close;
        }
        /* its size is final: nobody may shrink it under the others' maps */
        if (mfd >= 0) {
            (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        }
        tn_shm.base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (tn_shm.base == MAP_FAILED) {
            tn_log_error("shm", "mmap of %s failed: %m", name);
            status = TN_ERR_NOMEM;
            goto err_close;
        }
        tn_shm_seg_hdr_t *sh = tn_shm.base;
        sh->local_size = (uint32_t)n;
        sh->ncells = ncells;
        sh->cell_size = cell_size;
        sh->ring_bytes = ring_bytes;
        sh->coll_slots = (uint32_t)coll_slots;
        sh->coll_bytes = coll_bytes;
        sh->wake_token = tn_shm.wake_token;
        for (size_t i = 0; i < n * n; i++) {
            tn_shm_ring_t r = tn_shm_ring_at((int)(i / n), (int)(i % n));
            tn_shm_ring_format(r.cells, ncells, cell_size);
        }
        atomic_store_explicit(&sh->magic, TN_SHM_MAGIC, memory_order_release);
    }
    status = job->fence();
    if (status != TN_OK) {
        goto err_unmap;
    }
    if (job->local_rank != 0) {
        if (mfd >= 0) {
            struct stat st;
            fd = mfd;
            if (fstat(fd, &st) != 0 || (size_t)st.st_size < len) {
                tn_log_error("shm", "the launcher's shared segment has %lld bytes, not the "
                             "%zu local rank 0 made: ranks of one node given different "
                             "segments?", (long long)st.st_size, len);
                status = TN_ERR_PROTO;
                goto err_close;
            }
        } else {
            fd = shm_open(name, O_RDWR, 0600);
            if (fd < 0) {
                tn_log_error("shm", "shm_open(%s) failed: %m", name);
                return TN_ERR_IO;
            }
        }
        tn_shm.base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (tn_shm.base == MAP_FAILED) {
            tn_log_error("shm", "mmap of %s failed: %m", name);
            status = TN_ERR_NOMEM;
            goto err_close;
        }
        const tn_shm_seg_hdr_t *sh = tn_shm.base;
        if (atomic_load_explicit(&sh->magic, memory_order_acquire) != TN_SHM_MAGIC ||
            sh->local_size != n) {
            tn_log_error("shm", "segment %s is not this job's", name);
            status = TN_ERR_PROTO;
            goto err_unmap;
        }
        tn_shm.wake_token = sh->wake_token;
    }
    close(fd);
    tn_shm.len = len;
    /* Everyone has it mapped after this fence: unlink, so that no crash can
     * leave the segment behind. */
    status = job->fence();
    if (job->local_rank == 0 && mfd < 0) {
        shm_unlink(name);
    }
    return status;

err_unmap:
    if (tn_shm.base != NULL && tn_shm.base != MAP_FAILED) {
        munmap(tn_shm.base, len);
    }
    tn_shm.base = NULL;
err_close:
    close(fd);
    if (mfd >= 0 && mfd != fd) {
        close(mfd);
    }
    if (job->local_rank == 0 && mfd < 0) {
        shm_unlink(name);
    }
    return status;
}

tn_status_t tn_xport_shm_init(const tn_xport_job_t *job)
{
    memset(&tn_shm, 0, sizeof(tn_shm));
    tn_shm_st = tn_mon_home(TN_CTR_SET_SHM, tn_shm_st);
    tn_shm.use_doorbell = 1;
    tn_shm.world_rank = job->world_rank;
    /* my own until the segment's (local rank 0's) replaces it */
    if (getrandom(&tn_shm.wake_token, sizeof(tn_shm.wake_token), GRND_NONBLOCK) !=
        (ssize_t)sizeof(tn_shm.wake_token)) {
        tn_shm.wake_token = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^
                            (uint64_t)time(NULL);
    }
    int mfd = tn_shm_take_inherited();
    int needed = 0;
    for (int l = 0; l < job->local_size; l++) {
        int w = job->world_of_local[l];
        needed |= (w != job->world_rank && job->use[w]);
    }
    if (!needed && mfd >= 0) {
        close(mfd);
    }
    if (!needed) {
        /* nobody to talk to over shared memory: keep step with the others */
        tn_status_t st = TN_OK;
        for (int i = 0; i < 3 && st == TN_OK; i++) {
            st = job->fence();
        }
        return st;
    }
    /* a name that does not show the job id (the secret's neighbour) */
    uint64_t h = 1469598103934665603ull;        /* FNV-1a, as tern-run's cleanup */
    for (const char *c = job->kvsname; *c; c++) {
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    }
    char name[64];
    snprintf(name, sizeof(name), "/tern-%016llx-n%d", (unsigned long long)h, job->node_id);
    tn_status_t status = tn_shm_map(job, name, mfd);
    if (status != TN_OK) {
        return status;
    }
    int n = job->local_size;
    tn_shm.nlocal = n;
    tn_shm.me = job->local_rank;
    tn_shm.local_of_world = job->local_of_world;
    tn_shm.world_of_local = job->world_of_local;
    tn_shm.handler = job->am_handler;
    tn_shm.procs = (tn_shm_proc_t *)((char *)tn_shm.base + sizeof(tn_shm_seg_hdr_t));
    tn_shm.procs[tn_shm.me].pid = (int32_t)getpid();
    tn_shm.out = calloc((size_t)n, sizeof(tn_shm_ring_t));
    tn_shm.in = calloc((size_t)n, sizeof(tn_shm_ring_t));
    tn_shm.poll = calloc((size_t)n, sizeof(int));
    if (!tn_shm.out || !tn_shm.in || !tn_shm.poll) {
        return TN_ERR_NOMEM;
    }
    for (int l = 0; l < n; l++) {
        tn_shm.out[l] = tn_shm_ring_at(l, tn_shm.me);
        tn_shm.in[l] = tn_shm_ring_at(tn_shm.me, l);
        if (l != tn_shm.me) {
            tn_shm.poll[tn_shm.npoll++] = l;
        }
    }
    const tn_shm_seg_hdr_t *sh = tn_shm.base;
    tn_shm.max_payload = sh->cell_size - TN_SHM_CACHELINE;
    tn_shm.cma = tn_cfg.shm_cma;
    /* both sides copying needs a core each */
    tn_shm.coop = !job->oversubscribed;
    tn_shm.coll_slots = (int)sh->coll_slots;
    tn_shm.coll_bytes = (size_t)sh->coll_bytes;
    tn_shm.coll_slot_len = sizeof(tn_shm_slot_hdr_t) +
                           (size_t)n * (TN_XPORT_SHM_COLL_HDR +
                                        TN_XPORT_SHM_COLL_BUFS * tn_shm.coll_bytes);
    tn_shm.coll = tn_shm.coll_slots > 0
                  ? (char *)tn_shm.base + sizeof(tn_shm_seg_hdr_t) +
                    (size_t)n * sizeof(tn_shm_proc_t) + (size_t)n * n * sh->ring_bytes
                  : NULL;
    tn_shm.active = 1;
    tn_ctr_attach(TN_CTR_SET_SHM, tn_shm_st);
    /* pids are published before the transport is used: one more fence */
    status = job->fence();
    tn_log_debug("shm", "segment %s: %d local ranks, %u cells of %u bytes", name, n,
                 sh->ncells, sh->cell_size);
    return status;
}

void tn_xport_shm_finalize(void)
{
    if (tn_shm.active) {
        munmap(tn_shm.base, tn_shm.len);
    }
    if (tn_shm_wake_fd >= 0) {
        close(tn_shm_wake_fd);
        tn_shm_wake_fd = -1;
    }
    free(tn_shm.out);
    free(tn_shm.in);
    free(tn_shm.poll);
    memset(&tn_shm, 0, sizeof(tn_shm));
}

/* Wake local rank l if it sleeps.  The first waker takes its flag down, so
 * the wakers after it, until it runs again, make no system call: with more
 * ranks than cores a woken rank may wait long for a core, and a writer
 * streaming cells to it used to ring once per cell meanwhile (8 ranks on 2
 * cores, 1 MiB bcast: about 6 futex calls per sleep, 14 per nap with
 * TERN_WAIT=block, and runs 7 x slower).  Taking the
 * flag loses no wake-up: a sleeper sets it before its last look, and a
 * waker clears it after making its condition true. */
static void tn_shm_wake_local(int l)
{
    tn_shm_proc_t *p = &tn_shm.procs[l];
    uint32_t mode = atomic_exchange_explicit(&p->sleeping, 0, memory_order_seq_cst);
    if (mode == 0) {
        return;
    }
    if (mode == 2) {
        tn_shm_wake_poller(tn_shm.world_of_local[l]);
    } else {
        atomic_fetch_add_explicit(&p->futex, 1, memory_order_seq_cst);
        tn_futex(&p->futex, FUTEX_WAKE, 1, NULL);
    }
    tn_shm_st->wakes++;
}

static size_t tn_shm_max_payload(void)
{
    return tn_shm.max_payload;
}

static size_t tn_shm_eager_limit(void)
{
    return tn_cfg.shm_eager_threshold;
}

static size_t tn_shm_tiny_limit(void)
{
    uint64_t t = tn_cfg.shm_tiny_threshold;
    return t == 0 || t > TN_AM_INLINE_MAX ? TN_AM_INLINE_MAX : (size_t)t;
}

/* The next free cell towards world rank peer, or NULL (ring full: the
 * consumer is asked to wake us when it drains). */
static tn_shm_cell_t *tn_shm_cell_get(int peer, tn_shm_ring_t **ring_p)
{
    tn_shm_ring_t *r = &tn_shm.out[tn_shm.local_of_world[peer]];
    tn_shm_cell_t *cell = tn_shm_ring_reserve(r);
    if (cell == NULL) {
        /* Full: ask the consumer to wake us when it drains, then look again
         * (it may have drained between our look and the flag). */
        atomic_store_explicit(&r->hdr->producer_waiting, 1, memory_order_seq_cst);
        cell = tn_shm_ring_reserve(r);
        if (cell == NULL) {
            tn_shm_st->ring_full++;
            return NULL;
        }
    }
    *ring_p = r;
    return cell;
}

static void tn_shm_cell_put(int peer, tn_shm_ring_t *r, tn_shm_cell_t *cell, size_t len)
{
    int l = tn_shm.local_of_world[peer];
    cell->len = (uint32_t)len;
    tn_shm_ring_publish(r, cell);
    tn_shm_st->am_sent++;
    tn_shm_st->bytes_sent += len;
    if (tn_shm.use_doorbell) {
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&tn_shm.procs[l].sleeping, memory_order_relaxed)) {
            tn_shm_wake_local(l);
        }
    }
}

static tn_status_t tn_shm_am_send(int peer, const tn_am_hdr_t *hdr, const struct iovec *iov,
                                  int iovcnt)
{
    tn_shm_ring_t *r;
    tn_shm_cell_t *cell = tn_shm_cell_get(peer, &r);
    if (cell == NULL) {
        return TN_ERR_AGAIN;
    }
    cell->hdr = *hdr;
    char *dst = tn_shm_cell_payload(cell);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(dst + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    tn_shm_cell_put(peer, r, cell, len);
    return TN_OK;
}

static tn_status_t tn_shm_am_send_fill(int peer, const tn_am_hdr_t *hdr, size_t len,
                                       tn_xport_fill_fn_t *fill, void *arg)
{
    tn_shm_ring_t *r;
    tn_shm_cell_t *cell = tn_shm_cell_get(peer, &r);
    if (cell == NULL) {
        return TN_ERR_AGAIN;
    }
    cell->hdr = *hdr;
    fill(tn_shm_cell_payload(cell), len, arg);
    tn_shm_cell_put(peer, r, cell, len);
    return TN_OK;
}

static int tn_shm_progress(void)
{
    if (!tn_shm.active) {
        return 0;
    }
    int events = 0;
    for (int i = 0; i < tn_shm.npoll; i++) {
        int l = tn_shm.poll[i];
        tn_shm_ring_t *r = &tn_shm.in[l];
        int n = 0;
        tn_shm_cell_t *cell;
        while (n < 16 && (cell = tn_shm_ring_peek(r)) != NULL) {
            tn_shm.handler(tn_shm.world_of_local[l], &cell->hdr, tn_shm_cell_payload(cell),
                           cell->len);
            tn_shm_ring_release(r, cell);
            n++;
        }
        if (n > 0) {
            events += n;
            tn_shm_st->am_recv += (uint64_t)n;
            if (atomic_load_explicit(&r->hdr->producer_waiting, memory_order_seq_cst)) {
                atomic_store_explicit(&r->hdr->producer_waiting, 0, memory_order_relaxed);
                tn_shm_wake_local(l);
            }
        }
    }
    return events;
}

static tn_status_t tn_shm_get(int peer, struct iovec *local, int nlocal, uint64_t remote_addr)
{
    int l = tn_shm.local_of_world[peer];
    pid_t pid = tn_shm.procs[l].pid;
    size_t len = 0, done = 0;
    for (int i = 0; i < nlocal; i++) {
        len += local[i].iov_len;
    }
    while (done < len) {
        struct iovec riov = { (void *)(uintptr_t)(remote_addr + done), len - done };
        ssize_t got = process_vm_readv(pid, local, (unsigned long)nlocal, &riov, 1, 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) {
                continue;
            }
            tn_log_info("shm", "process_vm_readv from pid %d failed: %m; "
                        "falling back to copies through cells", (int)pid);
            tn_shm.cma = 0;
            return TN_ERR_UNSUPPORTED;
        }
        done += (size_t)got;
        /* a short read: go on after the pieces it filled */
        while (nlocal > 0 && (size_t)got >= local->iov_len) {
            got -= (ssize_t)local->iov_len;
            local++;
            nlocal--;
        }
        if (nlocal > 0) {
            local->iov_base = (char *)local->iov_base + got;
            local->iov_len -= (size_t)got;
        }
    }
    tn_shm_st->cma_gets++;
    tn_shm_st->cma_bytes += len;
    return TN_OK;
}

/* ---- cooperative copies ---------------------------------------------------
 * A long rendezvous read in place keeps one core copying while the sender
 * waits for FIN on the other.  Instead the receiver publishes the transfer
 * in the header of the sender's ring to it and asks the sender (TN_AM_HELP)
 * to copy too: each side claims TN_SHM_COOP_CHUNK bytes at a time with a
 * compare-and-swap on claim (whose top bits hold the transfer's id, so a
 * HELP that arrives late, or for an earlier transfer, claims nothing), the
 * receiver reading with process_vm_readv, the sender writing with
 * process_vm_writev, and counts them in done.  The receiver returns once
 * done reaches len: every byte is in its buffer and the sender is no longer
 * writing.  A sender that never comes leaves all the chunks to the
 * receiver. */
#define TN_SHM_COOP_CHUNK (64u * 1024u)
#define TN_SHM_COOP_SHIFT 40
#define TN_SHM_COOP_MASK  ((1ull << TN_SHM_COOP_SHIFT) - 1)

/* Claim the next chunk of transfer id: 1 with its offset and length, 0 when
 * nothing is left to claim (or the transfer is not id any more). */
static int tn_shm_coop_claim(tn_shm_ring_hdr_t *h, uint64_t id, uint64_t len, uint64_t *off_p,
                             size_t *n_p)
{
    uint64_t w = atomic_load_explicit(&h->coop_claim, memory_order_acquire);
    for (;;) {
        uint64_t off = w & TN_SHM_COOP_MASK;
        if ((w >> TN_SHM_COOP_SHIFT) != id || off >= len) {
            return 0;
        }
        uint64_t chunk = len / 8 > TN_SHM_COOP_CHUNK ? len / 8 : TN_SHM_COOP_CHUNK;
        uint64_t n = len - off < chunk ? len - off : chunk;
        if (atomic_compare_exchange_weak_explicit(&h->coop_claim, &w, w + n,
                                                  memory_order_acq_rel, memory_order_acquire)) {
            *off_p = off;
            *n_p = (size_t)n;
            return 1;
        }
    }
}

/* Copy n bytes between local and pid's remote (write: local -> remote). */
static int tn_shm_coop_copy(pid_t pid, char *local, uint64_t remote, size_t n, int write)
{
    while (n > 0) {
        struct iovec l = { local, n }, r = { (void *)(uintptr_t)remote, n };
        ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                            : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) {
                continue;
            }
            return -1;
        }
        local += got;
        remote += (uint64_t)got;
        n -= (size_t)got;
    }
    return 0;
}

/* Claim and copy chunks of transfer id until none is left. */
static void tn_shm_coop_work(tn_shm_ring_hdr_t *h, uint64_t id, pid_t pid, char *local,
                             uint64_t remote, uint64_t len, int write)
{
    uint64_t off;
    size_t n;
    while (tn_shm_coop_claim(h, id, len, &off, &n)) {
        if (write) {
            tn_shm_st->coop_chunks_written++;
        }
        if (tn_shm_coop_copy(pid, local + off, remote + off, n, write) != 0) {
            tn_log_info("shm", "process_vm_%s with pid %d failed: %m", write ? "writev" : "readv",
                        (int)pid);
            atomic_store_explicit(&h->coop_failed, 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&h->coop_done, n, memory_order_release);
    }
}

static tn_status_t tn_shm_coop_recv(int peer, uint64_t remote_addr, void *buf, size_t len,
                                    void (*ask)(int peer, uint64_t id, void *arg), void *arg)
{
    static uint64_t last_id;
    int l = tn_shm.local_of_world[peer];
    tn_shm_ring_hdr_t *h = tn_shm.in[l].hdr;
    if (len == 0 || len > TN_SHM_COOP_MASK ||
        atomic_load_explicit(&h->coop_claim, memory_order_relaxed) != 0) {
        return TN_ERR_AGAIN;
    }
    /* ids run 1 .. 2^24 - 1 (the claim word's top bits), then wrap */
    last_id = (last_id + 1) & ((1ull << (64 - TN_SHM_COOP_SHIFT)) - 1);
    if (last_id == 0) {
        last_id = 1;
    }
    uint64_t id = last_id;
    atomic_store_explicit(&h->coop_len, len, memory_order_relaxed);
    atomic_store_explicit(&h->coop_raddr, (uint64_t)(uintptr_t)buf, memory_order_relaxed);
    atomic_store_explicit(&h->coop_done, 0, memory_order_relaxed);
    atomic_store_explicit(&h->coop_failed, 0, memory_order_relaxed);
    atomic_store_explicit(&h->coop_claim, id << TN_SHM_COOP_SHIFT, memory_order_release);
    ask(peer, id, arg);
    tn_shm_coop_work(h, id, tn_shm.procs[l].pid, buf, remote_addr, len, 0);
    /* the sender may still be copying the chunks it claimed */
    for (unsigned spins = 0; atomic_load_explicit(&h->coop_done, memory_order_acquire) < len;
         spins++) {
        if (spins > 1000) {
            sched_yield();
        }
    }
    int failed = (int)atomic_load_explicit(&h->coop_failed, memory_order_relaxed);
    atomic_store_explicit(&h->coop_claim, 0, memory_order_release);
    if (failed) {
        tn_shm.cma = 0;
        return TN_ERR_UNSUPPORTED;
    }
    tn_shm_st->cma_gets++;
    tn_shm_st->cma_bytes += len;
    tn_shm_st->coop_recvs++;
    return TN_OK;
}

static void tn_shm_coop_send(int peer, uint64_t id, const void *buf)
{
    int l = tn_shm.local_of_world[peer];
    tn_shm_ring_hdr_t *h = tn_shm.out[l].hdr;
    if ((atomic_load_explicit(&h->coop_claim, memory_order_acquire) >> TN_SHM_COOP_SHIFT) != id) {
        return;                             /* over already */
    }
    /* read after the claim word showed id: the transfer's own values, as
     * long as a claim for id still succeeds */
    uint64_t len = atomic_load_explicit(&h->coop_len, memory_order_relaxed);
    uint64_t raddr = atomic_load_explicit(&h->coop_raddr, memory_order_relaxed);
    tn_shm_coop_work(h, id, tn_shm.procs[l].pid, (char *)(uintptr_t)buf, raddr, len, 1);
}

static unsigned tn_shm_caps(int peer)
{
    unsigned caps = (tn_shm.cma ? TN_XPORT_CAP_GET : 0) | TN_XPORT_CAP_FILL;
    if (tn_shm.cma && tn_shm.coop) {
        caps |= TN_XPORT_CAP_COOP;
    }
    return caps;
}

void tn_xport_shm_sleep(int (*recheck)(void), uint64_t timeout_ns)
{
    _Atomic uint32_t *word = &tn_shm_private_futex;
    _Atomic uint32_t *sleeping = &tn_shm_private_sleeping;
    if (tn_shm.active) {
        word = &tn_shm.procs[tn_shm.me].futex;
        sleeping = &tn_shm.procs[tn_shm.me].sleeping;
    }
    atomic_store_explicit(sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    __atomic_fetch_add(&tn_shm_st->naps, 1, __ATOMIC_RELAXED); /* threads nap at once */
    uint32_t v = atomic_load_explicit(word, memory_order_seq_cst);
    if (recheck() == 0) {
        struct timespec ts = { (time_t)(timeout_ns / 1000000000ull),
                               (long)(timeout_ns % 1000000000ull) };
        uint64_t t0 = tn_event_now();   /* about to block: a clock read is cheap */
        tn_futex(word, FUTEX_WAIT, v, &ts);
        __atomic_fetch_add(&tn_shm_st->sleeps, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&tn_shm_st->sleep_ns, tn_event_now() - t0, __ATOMIC_RELAXED);
    }
    atomic_store_explicit(sleeping, 0, memory_order_relaxed);
}

void tn_xport_shm_wake_self(void)
{
    _Atomic uint32_t *word = tn_shm.active ? &tn_shm.procs[tn_shm.me].futex
                                           : &tn_shm_private_futex;
    _Atomic uint32_t *sleeping = tn_shm.active ? &tn_shm.procs[tn_shm.me].sleeping
                                               : &tn_shm_private_sleeping;
    atomic_thread_fence(memory_order_seq_cst);
    uint32_t mode = atomic_load_explicit(sleeping, memory_order_relaxed);
    if (mode == 2) {
        tn_shm_wake_poller(tn_shm.world_rank);
    } else if (mode != 0) {
        atomic_fetch_add(word, 1);
        tn_futex(word, FUTEX_WAKE, 1, NULL);
    }
}

int tn_xport_shm_poll_begin(void)
{
    int fd = tn_shm_wake_socket();
    if (fd < 0) {
        return -1;
    }
    _Atomic uint32_t *sleeping = tn_shm.active ? &tn_shm.procs[tn_shm.me].sleeping
                                               : &tn_shm_private_sleeping;
    atomic_store_explicit(sleeping, 2, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    __atomic_fetch_add(&tn_shm_st->naps, 1, __ATOMIC_RELAXED); /* threads nap at once */
    return fd;
}

void tn_xport_shm_poll_end(void)
{
    _Atomic uint32_t *sleeping = tn_shm.active ? &tn_shm.procs[tn_shm.me].sleeping
                                               : &tn_shm_private_sleeping;
    atomic_store_explicit(sleeping, 0, memory_order_relaxed);
    char buf[64];
    while (tn_shm_wake_fd >= 0 && recv(tn_shm_wake_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
    }
}

/* ---- collective slots --------------------------------------------------- */
static tn_shm_slot_hdr_t *tn_shm_slot(int slot)
{
    return (tn_shm_slot_hdr_t *)(tn_shm.coll + (size_t)slot * tn_shm.coll_slot_len);
}

int tn_xport_shm_coll_slots(size_t *bytes_p)
{
    *bytes_p = tn_shm.active ? tn_shm.coll_bytes : 0;
    return tn_shm.active ? tn_shm.coll_slots : 0;
}

int tn_xport_shm_coll_claim(uint64_t key, int start)
{
    for (int i = 0; i < tn_shm.coll_slots; i++) {
        int slot = (start + i) % tn_shm.coll_slots;
        tn_shm_slot_hdr_t *h = tn_shm_slot(slot);
        uint64_t w = atomic_load_explicit(&h->owner, memory_order_acquire);
        if (w == 0 && atomic_compare_exchange_strong(&h->owner, &w, key)) {
            w = key;
        }
        if (w == key) {
            atomic_fetch_add(&h->refs, 1);
            return slot;
        }
    }
    return -1;
}

void tn_xport_shm_coll_release(int slot)
{
    if (!tn_shm.active || slot < 0 || slot >= tn_shm.coll_slots) {
        return;
    }
    tn_shm_slot_hdr_t *h = tn_shm_slot(slot);
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        atomic_store_explicit(&h->owner, 0, memory_order_release);
    }
}

void *tn_xport_shm_coll_area(int slot, int r)
{
    return (char *)tn_shm_slot(slot) + sizeof(tn_shm_slot_hdr_t) +
           (size_t)r * (TN_XPORT_SHM_COLL_HDR + TN_XPORT_SHM_COLL_BUFS * tn_shm.coll_bytes);
}

void tn_xport_shm_wake_sleeper(int world_rank)
{
    int l = tn_shm.local_of_world[world_rank];
    if (l >= 0 && atomic_load_explicit(&tn_shm.procs[l].sleeping, memory_order_relaxed)) {
        tn_shm_wake_local(l);
    }
}

const tn_xport_ops_t tn_xport_shm_ops = {
    .name        = "shm",
    .max_payload = tn_shm_max_payload,
    .am_send     = tn_shm_am_send,
    .am_send_fill = tn_shm_am_send_fill,
    .progress    = tn_shm_progress,
    .get         = tn_shm_get,
    .caps        = tn_shm_caps,
    .coop_recv   = tn_shm_coop_recv,
    .coop_send   = tn_shm_coop_send,
    .eager_limit = tn_shm_eager_limit,
    .tiny_limit  = tn_shm_tiny_limit,
};

/* The host's status segment and the reports read from it; see
 * run_status.h. */
#include "run_status.h"
#include "run_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Polls of the answers while waiting for them. */
#define STATUS_POLL_MS 2

struct tn_run_status {
    int              fd;          /* the memfd until the ranks have it, or -1 */
    unsigned char   *base;        /* the mapping */
    size_t           len;
    int              nranks;      /* the host's ranks: slot i is job->ranks[i] */
    int             *ranks;       /* their ranks in the job */
    pid_t           *pids;
    int             *exit_how;    /* 0 while running, else CLD_* (atomic) */
    int             *exit_info;   /* exit code or signal (atomic) */
    uint32_t        *asks;        /* the last ask per rank */
    char             host[256];
    char             prog[256];
    int64_t          start_ms;
    pthread_mutex_t  lock;        /* one report at a time */
    tn_run_ctl_t    *ctl;
};

static tern_status_hdr_t *status_hdr(tn_run_status_t *st)
{
    return (tern_status_hdr_t *)st->base;
}

static unsigned char *status_slot(tn_run_status_t *st, int rank)
{
    return st->base + TERN_STATUS_HDR_SIZE + (size_t)rank * TERN_STATUS_SLOT_SIZE;
}

void tn_run_status_create(tn_run_job_t *job)
{
    tn_run_status_t   *st;
    tern_status_hdr_t *hdr;
    const char        *prog  = job->setup->blocks[0].argv[0];
    const char        *slash = strrchr(prog, '/');
    size_t             len = TERN_STATUS_HDR_SIZE + (size_t)job->nlocal * TERN_STATUS_SLOT_SIZE;
    int                fd;
    void              *base;

    job->status = NULL;
    if (job->nlocal == 0) {
        return;                         /* no ranks here */
    }
    /* no MFD_CLOEXEC: the ranks inherit it; closed once they are started */
    fd = memfd_create("tern-status", MFD_ALLOW_SEALING);
    if (fd < 0) {
        tn_run_debug(1, "memfd_create: %m; no hang reports");
        return;
    }
    if (ftruncate(fd, (off_t)len) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        tn_run_debug(1, "status segment of %zu bytes: %m; no hang reports", len);
        close(fd);
        return;
    }
    base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        tn_run_debug(1, "mmap of the status segment: %m; no hang reports");
        close(fd);
        return;
    }
    st = tn_run_xmalloc(sizeof(*st));
    memset(st, 0, sizeof(*st));
    st->fd        = fd;
    st->base      = base;
    st->len       = len;
    st->nranks    = job->nlocal;
    st->ranks     = tn_run_xmalloc((size_t)job->nlocal * sizeof(*st->ranks));
    st->pids      = tn_run_xmalloc((size_t)job->nlocal * sizeof(*st->pids));
    st->exit_how  = tn_run_xmalloc((size_t)job->nlocal * sizeof(*st->exit_how));
    st->exit_info = tn_run_xmalloc((size_t)job->nlocal * sizeof(*st->exit_info));
    st->asks      = tn_run_xmalloc((size_t)job->nlocal * sizeof(*st->asks));
    for (int r = 0; r < job->nlocal; r++) {
        st->ranks[r] = job->ranks[r].rank;
        st->pids[r] = -1;
        st->exit_how[r] = st->exit_info[r] = 0;
        st->asks[r] = 0;
    }
    if (job->multi && job->host >= 0) {
        snprintf(st->host, sizeof(st->host), "%s", job->setup->hosts[job->host]);
    } else if (gethostname(st->host, sizeof(st->host) - 1) != 0) {
        snprintf(st->host, sizeof(st->host), "?");
    }
    snprintf(st->prog, sizeof(st->prog), "%s", slash != NULL ? slash + 1 : prog);
    st->start_ms = tn_run_now_ms();
    pthread_mutex_init(&st->lock, NULL);

    hdr = status_hdr(st);
    hdr->version   = TERN_STATUS_VERSION;
    hdr->line      = TERN_STATUS_LINE;
    hdr->hdr_size  = TERN_STATUS_HDR_SIZE;
    hdr->slot_size = TERN_STATUS_SLOT_SIZE;
    hdr->nslots    = (uint32_t)job->nlocal;
    hdr->tick_ms   = TN_RUN_STATUS_TICK_MS;
    tn_run_status_tick(st);
    __atomic_store_n(&hdr->magic, TERN_STATUS_MAGIC, __ATOMIC_RELEASE);
    job->status = st;
}

int tn_run_status_fd(const tn_run_job_t *job)
{
    return job->status != NULL ? job->status->fd : -1;
}

void tn_run_status_started(tn_run_job_t *job)
{
    tn_run_status_t *st = job->status;

    if (st == NULL) {
        return;
    }
    /* kept open, but not for what starts later: tern-monitor finds the
     * ranks' calls through it (/proc/<pid>/fd, include/tern/stats.h) */
    if (fcntl(st->fd, F_SETFD, FD_CLOEXEC) != 0) {
        close(st->fd);
        st->fd = -1;
    }
    for (int r = 0; r < st->nranks; r++) {
        st->pids[r] = job->ranks[r].pid;
    }
    /* no fork after this point: tern-run has a second thread now */
    st->ctl = tn_run_ctl_start(st);
}

void tn_run_status_exited(tn_run_job_t *job, int rank)
{
    tn_run_status_t     *st = job->status;
    const tn_run_rank_t *rk = &job->ranks[rank];

    if (st != NULL) {
        __atomic_store_n(&st->exit_info[rank], rk->exit_info, __ATOMIC_RELAXED);
        __atomic_store_n(&st->exit_how[rank], rk->exit_how, __ATOMIC_RELEASE);
    }
}

void tn_run_status_tick(tn_run_status_t *st)
{
    __atomic_store_n(&status_hdr(st)->now_ms, (uint64_t)tn_run_now_ms(), __ATOMIC_RELAXED);
}

/* Copy rank's slot into snap (8-aligned): the call line consistently (the
 * rank's sequence lock), the answer after its `answered` word. */
static void status_snapshot(tn_run_status_t *st, int rank, uint64_t *snap)
{
    const uint64_t *src  = (const uint64_t *)status_slot(st, rank);
    const uint32_t *seqp = (const uint32_t *)(status_slot(st, rank) + TERN_STATUS_OFF_CALL);
    size_t          call = TERN_STATUS_OFF_CALL / 8;
    size_t          ans  = TERN_STATUS_OFF_ANSWER / 8;
    size_t          n    = TERN_STATUS_SLOT_SIZE / 8;

    for (size_t i = 0; i < call; i++) {
        snap[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
    }
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s1 = __atomic_load_n(seqp, __ATOMIC_ACQUIRE);

        /* acquire loads: the second read of seq cannot move before them
         * (no fence: ThreadSanitizer builds refuse one; plain moves on x86) */
        for (size_t i = call; i < call + TERN_STATUS_LINE / 8; i++) {
            snap[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
        }
        if (!(s1 & 1u) && __atomic_load_n(seqp, __ATOMIC_RELAXED) == s1) {
            break;
        }
        if (tries % 100 == 99) {
            sched_yield();
        }
    }
    for (size_t i = call + TERN_STATUS_LINE / 8; i < n; i++) {
        snap[i] = __atomic_load_n(&src[i], i == ans ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED);
    }
}

/* Ask every rank that is inside a call for its answer; wait for them. */
static void status_ask(tn_run_status_t *st, const tn_run_slot_t *before)
{
    int64_t deadline = tn_run_now_ms() + TN_RUN_STATUS_ANSWER_MS;

    for (int r = 0; r < st->nranks; r++) {
        uint32_t *ask = (uint32_t *)(status_slot(st, r) + TERN_STATUS_OFF_ASK);

        st->asks[r] = 0;
        if (!before[r].in_call || __atomic_load_n(&st->exit_how[r], __ATOMIC_ACQUIRE) != 0) {
            continue;
        }
        st->asks[r] = __atomic_load_n(ask, __ATOMIC_RELAXED) + 1;
        if (st->asks[r] == 0) {
            st->asks[r] = 1;                    /* 0 means "not asked" */
        }
        __atomic_store_n(ask, st->asks[r], __ATOMIC_RELEASE);
    }
    while (tn_run_now_ms() < deadline) {
        struct timespec ts = { 0, STATUS_POLL_MS * 1000000L };
        int             waiting = 0;

        for (int r = 0; r < st->nranks && !waiting; r++) {
            const unsigned char *slot = status_slot(st, r);
            const uint32_t *answered = (const uint32_t *)(slot + TERN_STATUS_OFF_ANSWER);
            const uint32_t *seq = (const uint32_t *)(slot + TERN_STATUS_OFF_CALL);

            /* done: answered, gone, or out of the call it was asked in */
            waiting = st->asks[r] != 0 &&
                      __atomic_load_n(answered, __ATOMIC_ACQUIRE) != st->asks[r] &&
                      __atomic_load_n(seq, __ATOMIC_RELAXED) == before[r].call.seq &&
                      __atomic_load_n(&st->exit_how[r], __ATOMIC_RELAXED) == 0;
        }
        if (!waiting) {
            break;
        }
        tn_run_status_tick(st);
        nanosleep(&ts, NULL);
    }
}

static void status_exit_line(tn_run_status_t *st, int r, const char *prefix, tn_run_buf_t *out)
{
    int how  = __atomic_load_n(&st->exit_how[r], __ATOMIC_ACQUIRE);
    int info = __atomic_load_n(&st->exit_info[r], __ATOMIC_RELAXED);

    tn_run_buf_printf(out, "%srank %d (pid %d on %s): ", prefix, st->ranks[r],
                      (int)st->pids[r], st->host);
    if (how == CLD_EXITED) {
        tn_run_buf_printf(out, "exited with status %d\n", info);
    } else {
        tn_run_buf_printf(out, "killed by signal %d (%s)\n", info, tn_run_signame(info));
    }
}

/* Build the report; returns the number of ranks that publish. */
static int status_report(tn_run_status_t *st, const char *prefix, tn_run_buf_t *out)
{
    static uint64_t snap[TERN_STATUS_SLOT_SIZE / 8];   /* under st->lock */
    tn_run_slot_t  *slots = tn_run_xmalloc((size_t)st->nranks * sizeof(*slots));
    int             attached = 0;
    uint64_t        now;

    pthread_mutex_lock(&st->lock);
    tn_run_status_tick(st);
    for (int r = 0; r < st->nranks; r++) {
        status_snapshot(st, r, snap);
        tn_run_slot_decode(snap, sizeof(snap), 0, &slots[r]);
    }
    status_ask(st, slots);
    now = (uint64_t)tn_run_now_ms();
    for (int r = 0; r < st->nranks; r++) {
        if (st->pids[r] < 0) {
            tn_run_buf_printf(out, "%srank %d: not started\n", prefix, st->ranks[r]);
            continue;
        }
        if (__atomic_load_n(&st->exit_how[r], __ATOMIC_ACQUIRE) != 0) {
            status_exit_line(st, r, prefix, out);
            continue;
        }
        status_snapshot(st, r, snap);
        tn_run_slot_decode(snap, sizeof(snap), st->asks[r], &slots[r]);
        attached += slots[r].attached;
        tn_run_slot_format(&slots[r], st->ranks[r], (int)st->pids[r], st->host, now,
                           prefix, out);
    }
    pthread_mutex_unlock(&st->lock);
    free(slots);
    return attached;
}

void tn_run_status_report(tn_run_status_t *st, const char *prefix, tn_run_buf_t *out)
{
    (void)status_report(st, prefix, out);
}

void tn_run_status_summary(tn_run_status_t *st, tn_run_buf_t *out)
{
    tn_run_buf_printf(out, "tern-run pid %d: %d rank%s of %s on %s, running %.1f s\n",
                      (int)getpid(), st->nranks, st->nranks == 1 ? "" : "s", st->prog,
                      st->host, (double)(tn_run_now_ms() - st->start_ms) / 1000.0);
}

void tn_run_status_print(tn_run_job_t *job, const char *why, int always)
{
    tn_run_status_t *st = job->status;
    tn_run_buf_t     out = { 0 };
    int              attached;

    if (st == NULL) {
        if (always) {
            tn_run_log("no hang report: this tern-run has no status segment (see -v)");
        }
        return;
    }
    tn_run_buf_printf(&out, "tern-run: where the ranks are (%s):\n", why);
    attached = status_report(st, "tern-run:   ", &out);
    if (attached > 0 || always) {
        (void)tn_run_write_all(STDERR_FILENO, out.data, out.len);
    }
    tn_run_buf_free(&out);
}

void tn_run_status_destroy(tn_run_job_t *job)
{
    tn_run_status_t *st = job->status;

    if (st == NULL) {
        return;
    }
    tn_run_ctl_stop(st->ctl);
    if (st->fd >= 0) {
        close(st->fd);
    }
    munmap(st->base, st->len);
    pthread_mutex_destroy(&st->lock);
    free(st->ranks);
    free(st->pids);
    free(st->exit_how);
    free(st->exit_info);
    free(st->asks);
    free(st);
    job->status = NULL;
}

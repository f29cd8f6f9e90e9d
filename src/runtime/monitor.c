/* The rank's stats segment (include/tern/stats.h): the file, our identity
 * in its header, and its removal at exit. */
#include "runtime/monitor.h"
#include "base/name.h"
#include "base/config.h"
#include "base/log.h"
#include "base/monitor.h"
#include "runtime/rt.h"
#include "runtime/status.h"
#include "tern/stats.h"
#include "tn_status_calls.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    tern_stats_hdr_t *hdr;
    size_t            size;
    pid_t             owner;        /* the process that made it (not a fork) */
    int               tried;
    int              *node_of;      /* ours: the runtime frees its own */
    char              path[PATH_MAX];
} tn_rt_mon;

/* src into a fixed field of cap bytes, cut to fit and NUL-terminated. */
static void tn_rt_mon_text(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static uint64_t tn_rt_mon_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Field 22 of /proc/self/stat: when this process started, in clock ticks
 * since boot; 0 when unreadable.  The command name (field 2) may hold
 * spaces and parentheses, so fields are counted after its last ')'. */
static uint64_t tn_rt_mon_pid_start(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return 0;
    }
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL) {
        return 0;
    }
    p++;
    for (int field = 3; field < 22 && p != NULL; field++) {
        p = strchr(p + 1, ' ');
    }
    return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

static void tn_rt_mon_exit(void)
{
    if (tn_rt_mon.hdr == NULL || getpid() != tn_rt_mon.owner) {
        return;
    }
    __atomic_store_n(&tn_rt_mon.hdr->state, TERN_STATS_EXITED, __ATOMIC_RELEASE);
    if (!tn_cfg.monitor_linger) {
        unlink(tn_rt_mon.path);
    }
}

/* Create path for us alone.  A file of ours already there is a leftover of
 * a process that died (the name holds the job and the rank): replace it.
 * Anyone else's file is never touched. */
static int tn_rt_mon_create(const char *path)
{
    for (int tries = 0; tries < 2; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid()) {
            errno = EEXIST;
            return -1;
        }
        unlink(path);
    }
    errno = EEXIST;
    return -1;
}

void tn_rt_monitor_open(void)
{
    if (tn_rt_mon.tried || !tn_cfg.monitor) {
        return;
    }
    tn_rt_mon.tried = 1;
    char job[sizeof(((tern_stats_hdr_t *)0)->job)];
    tn_rt_mon_text(job, sizeof(job), tn_rt.kvsname);
    tn_name_sanitize(job);
    int n = snprintf(tn_rt_mon.path, sizeof(tn_rt_mon.path), "%s/" TERN_STATS_PREFIX "%u.%s.%d",
                     tn_cfg.monitor_dir, (unsigned)getuid(), job, tn_rt.world_rank);
    if (n < 0 || (size_t)n >= sizeof(tn_rt_mon.path)) {
        tn_log_warn("rt", "TERN_MONITOR_DIR is too long; not publishing counters");
        return;
    }
    int nnodes = tn_rt.nnodes > 0 ? tn_rt.nnodes : 1;
    tn_mon_shape_t shape = {
        .peer_count = tn_rt.world_size < tn_cfg.monitor_peers ? tn_rt.world_size
                                                               : (int)tn_cfg.monitor_peers,
        .node_count = nnodes + 1,       /* and one for other jobs' processes */
    };
    tn_rt_mon.node_of = malloc((size_t)tn_rt.world_size * sizeof(int));
    if (tn_rt_mon.node_of == NULL) {
        return;
    }
    for (int r = 0; r < tn_rt.world_size; r++) {
        int node = tn_rt.node_of_world != NULL ? tn_rt.node_of_world[r] : 0;
        tn_rt_mon.node_of[r] = node >= 0 && node < nnodes ? node : nnodes;
    }
    size_t size = tn_mon_seg_size(&shape);
    int fd = tn_rt_mon_create(tn_rt_mon.path);
    if (fd < 0) {
        tn_log_warn("rt", "cannot create the stats segment %s: %m; not publishing counters",
                    tn_rt_mon.path);
        return;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        tn_log_warn("rt", "cannot size the stats segment %s: %m", tn_rt_mon.path);
        goto err_unlink;
    }
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mem == MAP_FAILED) {
        tn_log_warn("rt", "cannot map the stats segment %s: %m", tn_rt_mon.path);
        goto err_unlink;
    }
    close(fd);
    tn_rt_mon.hdr = mem;
    tn_rt_mon.size = size;
    tn_rt_mon.owner = getpid();
    tn_mon_seg_build(mem, size, &shape, tn_rt_mon.node_of, tn_rt.world_size);

    tern_stats_hdr_t *h = mem;
    h->pid = (int32_t)tn_rt_mon.owner;
    h->pid_start = tn_rt_mon_pid_start();
    h->world_rank = tn_rt.world_rank;
    h->world_size = tn_rt.world_size;
    h->local_rank = tn_rt.local_rank;
    h->local_size = tn_rt.local_size;
    h->node_id = tn_rt.node_id;
    h->nnodes = nnodes;
    h->uid = (uint32_t)getuid();
    h->start_unix_ms = tn_rt_mon_unix_ms();
    tn_rt_mon_text(h->job, sizeof(h->job), tn_rt.kvsname);
    tn_rt_mon_text(h->host, sizeof(h->host), tn_rt.hostname);
    tn_rt_mon_text(h->program, sizeof(h->program), program_invocation_short_name);
    tn_rt_mon_text(h->version_str, sizeof(h->version_str), TERN_VERSION);
    h->calls_hash = TN_STATUS_CALLS_HASH;
    h->ncalls = TN_STATUS_NCALLS;
    /* the current call goes here unless the launcher's status slot has it */
    if (tn_rt_status.call == NULL && tn_cfg.status) {
        tn_rt_status_attach_line(tn_mon_seg_call_line(mem));
    } else {
        h->call_off = 0;
        h->status_slot = tn_rt_status.call != NULL ? (uint32_t)tn_cfg.status_slot : UINT32_MAX;
    }
    h->status_pid = tn_rt_status.call != NULL && h->call_off == 0 ? (int32_t)getppid() : -1;
    tn_mon_seg_running(mem);
    atexit(tn_rt_mon_exit);
    return;

err_unlink:
    unlink(tn_rt_mon.path);
    close(fd);
}

void tn_rt_monitor_thread_multiple(int multiple)
{
    if (tn_rt_mon.hdr != NULL && multiple) {
        __atomic_or_fetch(&tn_rt_mon.hdr->flags, TERN_STATS_F_THREAD_MULTIPLE, __ATOMIC_RELAXED);
    }
}

void tn_rt_monitor_finalized(void)
{
    if (tn_rt_mon.hdr != NULL) {
        __atomic_store_n(&tn_rt_mon.hdr->finalize_unix_ms, tn_rt_mon_unix_ms(), __ATOMIC_RELAXED);
        __atomic_store_n(&tn_rt_mon.hdr->state, TERN_STATS_FINALIZED, __ATOMIC_RELEASE);
    }
}

const char *tn_rt_monitor_path(void)
{
    return tn_rt_mon.hdr != NULL ? tn_rt_mon.path : NULL;
}

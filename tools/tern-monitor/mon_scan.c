/* Finding and reading this node's stats segments (mon_scan.h). */
#include "mon_scan.h"
#include "run_slot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TN_STATUS_CALL_TABLE
#include "tn_status_calls.h"

const char *tn_mon_call_name(const tn_mon_seg_t *seg, uint32_t id)
{
    if (seg->hdr.calls_hash != TN_STATUS_CALLS_HASH || id == 0 || id > TN_STATUS_NCALLS) {
        return NULL;
    }
    return tn_status_calls[id].name;
}

/* Field 22 of /proc/<pid>/stat, 0 when unreadable. */
static uint64_t scan_pid_start(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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
    if (p != NULL) {
        p++;                            /* the space before field 3 */
    }
    for (int field = 3; p != NULL && field < 22; field++) {
        p = strchr(p + 1, ' ');
    }
    return p != NULL ? strtoull(p + 1, NULL, 10) : 0;
}

int tn_mon_pid_alive(int pid, uint64_t pid_start)
{
    if (pid <= 0) {
        return 0;
    }
    uint64_t now = scan_pid_start(pid);
    if (now == 0) {
        return 0;                       /* no such process (or not ours to see) */
    }
    return pid_start == 0 || now == pid_start;
}

/* The launcher's status segment: the memfd named "tern-status" among the
 * descriptors of pid (same user, or root), or -1. */
static int scan_status_open(int pid)
{
    char path[64], link[128];
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (d == NULL) {
        return -1;
    }
    int fd = -1;
    struct dirent *e;
    while (fd < 0 && (e = readdir(d)) != NULL) {
        char fdpath[64 + sizeof(e->d_name)];
        snprintf(fdpath, sizeof(fdpath), "%s/%s", path, e->d_name);
        ssize_t n = readlink(fdpath, link, sizeof(link) - 1);
        if (n > 0) {
            link[n] = '\0';
            if (strncmp(link, "/memfd:tern-status", 18) == 0) {
                fd = open(fdpath, O_RDONLY | O_CLOEXEC);
            }
        }
    }
    closedir(d);
    return fd;
}

/* The launchers' status segments opened during one scan: one look through
 * a launcher's descriptors for all of its ranks. */
#define SCAN_LAUNCHERS 16
static struct {
    int pid, fd;
} scan_launchers[SCAN_LAUNCHERS];
static int scan_nlaunchers;

static int scan_status_fd(int pid)
{
    for (int i = 0; i < scan_nlaunchers; i++) {
        if (scan_launchers[i].pid == pid) {
            return scan_launchers[i].fd;
        }
    }
    int fd = scan_status_open(pid);
    if (scan_nlaunchers < SCAN_LAUNCHERS) {
        scan_launchers[scan_nlaunchers].pid = pid;
        scan_launchers[scan_nlaunchers++].fd = fd;      /* -1 remembered too */
    }
    return fd;
}

static void scan_launchers_close(void)
{
    for (int i = 0; i < scan_nlaunchers; i++) {
        if (scan_launchers[i].fd >= 0) {
            close(scan_launchers[i].fd);
        }
    }
    scan_nlaunchers = 0;
}

/* The call line from tern-run's status segment. */
static void scan_status_call(tn_mon_rank_t *r)
{
    const tern_stats_hdr_t *h = &r->seg.hdr;
    if (h->status_pid <= 0 || h->status_slot == UINT32_MAX || h->status_slot > (1u << 20)) {
        return;
    }
    int fd = scan_status_fd(h->status_pid);
    if (fd < 0) {
        return;
    }
    tern_status_hdr_t sh;
    static char slot[TERN_STATUS_SLOT_SIZE];
    off_t at = TERN_STATUS_HDR_SIZE + (off_t)h->status_slot * TERN_STATUS_SLOT_SIZE;
    if (pread(fd, &sh, sizeof(sh), 0) == (ssize_t)sizeof(sh) && sh.magic == TERN_STATUS_MAGIC &&
        sh.version == TERN_STATUS_VERSION && sh.slot_size == TERN_STATUS_SLOT_SIZE &&
        h->status_slot < sh.nslots &&
        pread(fd, slot, sizeof(slot), at) == (ssize_t)sizeof(slot)) {
        tn_run_slot_t *s = malloc(sizeof(*s));
        if (s != NULL) {
            tn_run_slot_decode(slot, sizeof(slot), 0, s);
            /* the slot must be this rank's: whatever a process holds open
             * proves nothing */
            if (s->attached && s->bad == NULL && s->pid == h->pid && s->any_call) {
                r->call = s->call;
                r->has_call = 1;
                r->in_call = s->in_call;
                uint64_t now = sh.now_ms;
                if (s->in_call && now >= s->call.enter_ms && s->call.enter_ms > 0) {
                    r->call_ms = (int64_t)(now - s->call.enter_ms);
                }
            }
            free(s);
        }
    }
}

static int scan_one(const char *dir, const char *name, tn_mon_rank_t *r)
{
    /* tern-stats.<uid>.<job>.<rank> */
    const char *p = name + strlen(TERN_STATS_PREFIX);
    char *end;
    errno = 0;
    unsigned long uid = strtoul(p, &end, 10);
    if (errno != 0 || end == p || *end != '.' || uid > UINT32_MAX) {
        return -1;
    }
    memset(r, 0, sizeof(*r));
    if ((size_t)snprintf(r->path, sizeof(r->path), "%s/%s", dir, name) >= sizeof(r->path)) {
        return -1;
    }
    size_t len;
    r->buf = tn_mon_seg_read(r->path, (long)uid, &len);
    if (r->buf == NULL) {
        return -1;
    }
    char why[128];
    if (tn_mon_seg_decode(r->buf, len, &r->seg, why, sizeof(why)) != 0) {
        free(r->buf);
        r->buf = NULL;
        return -1;
    }
    r->uid = (uint32_t)uid;
    r->call_ms = -1;
    const tern_stats_hdr_t *h = &r->seg.hdr;
    if (h->state == TERN_STATS_EXITED) {
        r->state = TN_MON_RANK_EXITED;
    } else if (!tn_mon_pid_alive(h->pid, h->pid_start)) {
        r->state = TN_MON_RANK_DEAD;
    } else {
        r->state = h->state == TERN_STATS_FINALIZED ? TN_MON_RANK_FINALIZED : TN_MON_RANK_RUNNING;
    }
    if (r->seg.has_call) {
        r->call = r->seg.call;
        r->has_call = r->call.call != 0;
        r->in_call = r->call.seq % 4 == 2;
    } else if (r->state == TN_MON_RANK_RUNNING) {
        scan_status_call(r);
    }
    return 0;
}

static int scan_cmp(const void *a, const void *b)
{
    const tn_mon_rank_t *x = a, *y = b;
    int c = strcmp(x->seg.hdr.job, y->seg.hdr.job);
    return c != 0 ? c : (x->seg.hdr.world_rank > y->seg.hdr.world_rank) -
                        (x->seg.hdr.world_rank < y->seg.hdr.world_rank);
}

int tn_mon_scan(const char *dir, tn_mon_scan_t *scan)
{
    memset(scan, 0, sizeof(*scan));
    DIR *d = opendir(dir);
    if (d == NULL) {
        return -1;
    }
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, TERN_STATS_PREFIX, strlen(TERN_STATS_PREFIX)) != 0) {
            continue;
        }
        if (scan->n == cap) {
            int ncap = cap ? cap * 2 : 64;
            tn_mon_rank_t *nr = realloc(scan->ranks, (size_t)ncap * sizeof(*nr));
            if (nr == NULL) {
                break;
            }
            scan->ranks = nr;
            cap = ncap;
        }
        if (scan_one(dir, e->d_name, &scan->ranks[scan->n]) == 0) {
            scan->n++;
        } else {
            scan->skipped++;
        }
    }
    closedir(d);
    scan_launchers_close();
    if (scan->n > 1) {
        qsort(scan->ranks, (size_t)scan->n, sizeof(*scan->ranks), scan_cmp);
    }
    return 0;
}

void tn_mon_scan_free(tn_mon_scan_t *scan)
{
    for (int i = 0; i < scan->n; i++) {
        tn_mon_seg_free(&scan->ranks[i].seg);
        free(scan->ranks[i].buf);
    }
    free(scan->ranks);
    memset(scan, 0, sizeof(*scan));
}

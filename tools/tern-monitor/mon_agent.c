/* tern-monitor agent: the node agent (mon_agent.h). */
#include "mon_agent.h"
#include "mon_nic.h"
#include "mon_scan.h"
#include "mon_wire.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- the metric dictionary: names -> ids of this connection ----------- */

typedef struct {
    char name[TERN_STATS_NAME_MAX];
} agent_metric_t;

/* What the previous frame saw of a rank: its segment, to take deltas. */
typedef struct {
    char          path[512];
    void         *buf;
    tn_mon_seg_t  seg;
    int          *ids_of;        /* its counter i -> metric id (for its tables) */
    int           state;
    int           seen;                         /* in the current scan */
} agent_rank_t;

static struct {
    const tn_mon_agent_opts_t *o;
    agent_metric_t *metrics;
    int             nmetrics, cap_metrics;
    int             sent_metrics;       /* ids below were sent on this connection */
    agent_rank_t   *ranks;
    int             nranks, cap_ranks;
    int             fd;                 /* to the server, -1: none */
    uint64_t        seq;
    tn_mon_nic_sample_t nic;
    volatile sig_atomic_t stop;
} ag = { .fd = -1 };

static uint64_t agent_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int agent_metric_id(const char *name)
{
    for (int i = 0; i < ag.nmetrics; i++) {
        if (strcmp(ag.metrics[i].name, name) == 0) {
            return i;
        }
    }
    if (ag.nmetrics == ag.cap_metrics) {
        int cap = ag.cap_metrics ? 2 * ag.cap_metrics : 256;
        agent_metric_t *m = realloc(ag.metrics, (size_t)cap * sizeof(*m));
        if (m == NULL) {
            return -1;
        }
        ag.metrics = m;
        ag.cap_metrics = cap;
    }
    snprintf(ag.metrics[ag.nmetrics].name, sizeof(ag.metrics[0].name), "%s", name);
    return ag.nmetrics++;
}

/* DICT entries for the metrics of seg not sent on this connection yet. */
static void agent_dict(tn_mon_buf_t *dict, uint32_t *ndict, const tn_mon_seg_t *seg,
                       const int *ids_of)
{
    for (int i = 0; i < seg->nctr; i++) {
        int id = ids_of[i];
        if (id < ag.sent_metrics) {
            continue;
        }
        const tn_mon_ctr_t *c = &seg->ctr[i];
        tn_mon_wire_uint(dict, (uint64_t)id);
        tn_mon_wire_str(dict, c->name);
        tn_mon_wire_uint(dict, (uint64_t)c->cls);
        tn_mon_wire_str(dict, c->unit);
        tn_mon_wire_str(dict, c->help);
        tn_mon_wire_str(dict, c->axis >= 0 ? seg->axis[c->axis].key : "");
        tn_mon_wire_uint(dict, c->axis >= 0 ? c->count : 0);
        for (uint32_t e = 0; c->axis >= 0 && e < c->count; e++) {
            tn_mon_wire_str(dict, seg->axis[c->axis].names[e]);
        }
        (*ndict)++;
    }
}

/* Does old's layout give every counter of cur the same place? */
static int agent_same_layout(const tn_mon_seg_t *cur, const tn_mon_seg_t *old)
{
    return old->buf != NULL && old->nctr == cur->nctr &&
           old->hdr.proc_off == cur->hdr.proc_off && old->hdr.peer_off == cur->hdr.peer_off &&
           old->hdr.peer_rec_size == cur->hdr.peer_rec_size &&
           tn_mon_seg_nrecs(old) == tn_mon_seg_nrecs(cur) && old->hdr.desc_off == cur->hdr.desc_off;
}

/* The rank's values that changed since old (all nonzero ones when old is
 * not comparable): (rec, metric, elem, delta) into vals. */
static uint32_t agent_deltas(tn_mon_buf_t *vals, const tn_mon_seg_t *cur, const tn_mon_seg_t *old,
                             const int *ids_of)
{
    int cmp = old != NULL && agent_same_layout(cur, old);
    uint32_t n = 0;
    for (int i = 0; i < cur->nctr; i++) {
        const tn_mon_ctr_t *c = &cur->ctr[i];
        if (cmp && strcmp(c->name, old->ctr[i].name) != 0) {
            cmp = 0;        /* tables differ: from zero */
        }
        int first = c->region == TERN_STATS_PROCESS ? -1 : 0;
        int last = c->region == TERN_STATS_PROCESS ? 0 : (int)tn_mon_seg_nrecs(cur);
        for (int rec = first; rec < last; rec++) {
            for (uint32_t e = 0; e < c->count; e++) {
                uint64_t v = tn_mon_seg_value(cur, i, rec, (int)e);
                uint64_t was = cmp ? tn_mon_seg_value(old, i, rec, (int)e) : 0;
                if (v == was) {
                    continue;
                }
                tn_mon_wire_uint(vals, (uint64_t)(rec + 1));
                tn_mon_wire_uint(vals, (uint64_t)ids_of[i]);
                tn_mon_wire_uint(vals, e);
                tn_mon_wire_sint(vals, (int64_t)(v - was));
                n++;
            }
        }
    }
    return n;
}

static agent_rank_t *agent_rank_of(const char *path)
{
    for (int i = 0; i < ag.nranks; i++) {
        if (strcmp(ag.ranks[i].path, path) == 0) {
            return &ag.ranks[i];
        }
    }
    return NULL;
}

static void agent_rank_forget(agent_rank_t *r)
{
    tn_mon_seg_free(&r->seg);
    free(r->buf);
    free(r->ids_of);
    *r = ag.ranks[--ag.nranks];
}

/* One rank's entry of a JOB section. */
static void agent_rank_entry(tn_mon_buf_t *job, const tn_mon_rank_t *r, const tn_mon_seg_t *old,
                             const int *ids_of)
{
    const tern_stats_hdr_t *h = &r->seg.hdr;
    tn_mon_buf_t vals = { 0 };
    uint32_t nvals = agent_deltas(&vals, &r->seg, old, ids_of);
    const char *call = r->has_call ? tn_mon_call_name(&r->seg, r->call.call) : NULL;
    tn_mon_wire_uint(job, (uint64_t)h->world_rank);
    tn_mon_wire_uint(job, (uint64_t)r->state);
    tn_mon_wire_uint(job, (uint64_t)h->pid);
    tn_mon_wire_uint(job, (uint64_t)h->node_id);
    tn_mon_wire_str(job, call != NULL ? call : "");
    tn_mon_wire_uint(job, (uint64_t)(r->in_call != 0));
    tn_mon_wire_uint(job, r->call_ms >= 0 ? (uint64_t)r->call_ms + 1 : 0);
    tn_mon_wire_uint(job, h->peer_count);
    tn_mon_wire_uint(job, nvals);
    tn_mon_buf_append(job, vals.data, vals.len);
    tn_mon_buf_free(&vals);
}

/* Is the rank's segment one the agent should see? (a job's ranks agree on
 * its shape; a hostile one is only its owner's problem) */
static int agent_rank_ok(const tn_mon_rank_t *r)
{
    const tern_stats_hdr_t *h = &r->seg.hdr;
    return h->world_rank >= 0 && h->world_size > 0 && h->world_rank < h->world_size &&
           h->nnodes > 0 && h->node_id >= 0 && h->node_id < h->nnodes &&
           h->peer_count <= (uint32_t)h->world_size;
}

/* Is process pid in our network namespace?  -1 when it cannot be told
 * (the process is gone). */
static int agent_same_netns(int pid)
{
    static ino_t mine;
    struct stat st;
    char path[64];
    if (mine == 0) {
        if (stat("/proc/self/ns/net", &st) != 0) {
            return -1;
        }
        mine = st.st_ino;
    }
    snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
    if (stat(path, &st) != 0) {
        return -1;
    }
    return st.st_ino == mine;
}

/* Build the frame of this second into out. */
static void agent_frame(tn_mon_buf_t *out, int full)
{
    tn_mon_scan_t scan;
    tn_mon_buf_t dict = { 0 }, sec = { 0 };
    uint32_t ndict = 0;
    if (full) {
        ag.sent_metrics = 0;
    }
    tn_mon_wire_begin(out, full ? TN_MON_WIRE_FULL : 0, ++ag.seq, agent_unix_ms(), ag.o->node,
                      "tern-monitor 1");
    /* the node's network counters (cumulative: the server takes rates) */
    if (tn_mon_nic_sample(ag.o->root, &ag.nic) == 0) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < ag.nic.n_if; i++) {
            n += !ag.nic.ifs[i].loopback;
        }
        tn_mon_wire_uint(&sec, n);
        for (uint32_t i = 0; i < ag.nic.n_if; i++) {
            const tn_mon_nic_if_t *f = &ag.nic.ifs[i];
            if (f->loopback) {
                continue;
            }
            tn_mon_wire_str(&sec, f->name);
            tn_mon_wire_uint(&sec, f->oper);
            tn_mon_wire_uint(&sec, f->speed_mbps > UINT32_MAX ? UINT32_MAX : f->speed_mbps);
            tn_mon_wire_uint(&sec, f->mtu);
            uint32_t k = 0;
            for (int c = 0; c < TN_MON_NIC_IF_NCTR; c++) {
                k += (f->have >> c) & 1u;
            }
            tn_mon_wire_uint(&sec, k);
            for (int c = 0; c < TN_MON_NIC_IF_NCTR; c++) {
                if ((f->have >> c) & 1u) {
                    tn_mon_wire_uint(&sec, (uint64_t)c);
                    tn_mon_wire_uint(&sec, f->ctr[c]);
                }
            }
        }
        tn_mon_wire_section(out, TN_MON_WIRE_NIC, &sec);
        tn_mon_buf_reset(&sec);
        uint32_t k = 0;
        for (int c = 0; c < TN_MON_NIC_SNMP_NCTR; c++) {
            k += (ag.nic.snmp.have >> c) & 1u;
        }
        tn_mon_wire_uint(&sec, k);
        for (int c = 0; c < TN_MON_NIC_SNMP_NCTR; c++) {
            if ((ag.nic.snmp.have >> c) & 1u) {
                tn_mon_wire_uint(&sec, (uint64_t)c);
                tn_mon_wire_uint(&sec, ag.nic.snmp.ctr[c]);
            }
        }
        tn_mon_wire_section(out, TN_MON_WIRE_SNMP, &sec);
        tn_mon_buf_reset(&sec);
        if (ag.nic.n_ib > 0) {
            tn_mon_wire_uint(&sec, ag.nic.n_ib);
            for (uint32_t i = 0; i < ag.nic.n_ib; i++) {
                const tn_mon_nic_ib_t *p = &ag.nic.ib[i];
                uint32_t nc = 0;
                for (int c = 0; c < TN_MON_NIC_IB_NCTR; c++) {
                    nc += (p->have >> c) & 1u;
                }
                tn_mon_wire_str(&sec, p->dev);
                tn_mon_wire_uint(&sec, p->port);
                tn_mon_wire_uint(&sec, p->state);
                tn_mon_wire_uint(&sec, p->rate_mbps);
                tn_mon_wire_uint(&sec, nc);
                for (int c = 0; c < TN_MON_NIC_IB_NCTR; c++) {
                    if ((p->have >> c) & 1u) {
                        tn_mon_wire_uint(&sec, (uint64_t)c);
                        tn_mon_wire_uint(&sec, p->ctr[c]);
                    }
                }
            }
            tn_mon_wire_section(out, TN_MON_WIRE_IB, &sec);
            tn_mon_buf_reset(&sec);
        }
    }
    if (tn_mon_scan(ag.o->dir, &scan) != 0) {
        scan.n = 0;
    }
    for (int i = 0; i < ag.nranks; i++) {
        ag.ranks[i].seen = 0;
    }
    /* the ranks, job by job (the scan is sorted by job) */
    tn_mon_buf_t ranks = { 0 };
    for (int k = 0; k < scan.n;) {
        /* a copy: the ranks' segments move to the agent's table below */
        const tern_stats_hdr_t hdr = scan.ranks[k].seg.hdr;
        const tern_stats_hdr_t *h = &hdr;
        const uint32_t uid = scan.ranks[k].uid;
        uint32_t nr = 0;
        tn_mon_buf_reset(&ranks);
        int j;
        for (j = k; j < scan.n && (j == k || strcmp(scan.ranks[j].seg.hdr.job, h->job) == 0); j++) {
            tn_mon_rank_t *r = &scan.ranks[j];
            if (!agent_rank_ok(r) || r->seg.hdr.world_size != h->world_size ||
                r->seg.hdr.nnodes != h->nnodes) {
                continue;
            }
            agent_rank_t *prev = agent_rank_of(r->path);
            if (ag.o->same_netns) {
                /* another node's rank; a gone one counts if we had it */
                int same = agent_same_netns(r->seg.hdr.pid);
                if (same == 0 || (same < 0 && prev == NULL)) {
                    continue;
                }
            }
            /* the ids of its counters: looked up again only when its tables
             * differ from what the previous copy had */
            int *ids_of = NULL;
            if (prev != NULL && prev->ids_of != NULL && agent_same_layout(&r->seg, &prev->seg) &&
                memcmp(r->seg.buf + r->seg.hdr.desc_off, prev->seg.buf + prev->seg.hdr.desc_off,
                       (size_t)r->seg.nctr * sizeof(tern_stats_desc_t)) == 0) {
                ids_of = prev->ids_of;
                prev->ids_of = NULL;
            } else if ((ids_of = malloc((size_t)(r->seg.nctr + 1) * sizeof(int))) != NULL) {
                for (int c = 0; c < r->seg.nctr; c++) {
                    ids_of[c] = agent_metric_id(r->seg.ctr[c].name);
                }
            } else {
                continue;
            }
            agent_dict(&dict, &ndict, &r->seg, ids_of);
            ag.sent_metrics = ag.nmetrics;  /* later ranks need not send them */
            agent_rank_entry(&ranks, r, full || prev == NULL ? NULL : &prev->seg, ids_of);
            nr++;
            /* keep this copy for the next deltas */
            if (prev == NULL && ag.nranks == ag.cap_ranks) {
                int cap = ag.cap_ranks ? 2 * ag.cap_ranks : 64;
                agent_rank_t *nrk = realloc(ag.ranks, (size_t)cap * sizeof(*nrk));
                if (nrk == NULL) {
                    free(ids_of);
                    continue;
                }
                ag.ranks = nrk;
                ag.cap_ranks = cap;
            }
            if (prev == NULL) {
                prev = &ag.ranks[ag.nranks++];
                memset(prev, 0, sizeof(*prev));
                snprintf(prev->path, sizeof(prev->path), "%s", r->path);
            } else {
                tn_mon_seg_free(&prev->seg);
                free(prev->buf);
                free(prev->ids_of);
            }
            prev->ids_of = ids_of;
            prev->buf = r->buf;
            prev->seg = r->seg;
            prev->state = (int)r->state;
            prev->seen = 1;
            r->buf = NULL;                  /* moved */
            memset(&r->seg, 0, sizeof(r->seg));
            /* a lingering or dead rank's final values are sent: remove it */
            if (ag.o->reap && (r->state == TN_MON_RANK_EXITED || r->state == TN_MON_RANK_DEAD)) {
                (void)unlink(r->path);
            }
        }
        if (nr > 0) {
            tn_mon_wire_str(&sec, h->job);
            tn_mon_wire_str(&sec, h->program);
            tn_mon_wire_uint(&sec, uid);
            tn_mon_wire_uint(&sec, (uint64_t)h->world_size);
            tn_mon_wire_uint(&sec, (uint64_t)h->nnodes);
            tn_mon_wire_uint(&sec, h->start_unix_ms);
            tn_mon_wire_uint(&sec, nr);
            tn_mon_buf_append(&sec, ranks.data, ranks.len);
            /* the dictionary goes before the first section that uses it */
            if (ndict > 0) {
                tn_mon_buf_t d = { 0 };
                tn_mon_wire_uint(&d, ndict);
                tn_mon_buf_append(&d, dict.data, dict.len);
                tn_mon_wire_section(out, TN_MON_WIRE_DICT, &d);
                tn_mon_buf_free(&d);
                tn_mon_buf_reset(&dict);
                ndict = 0;
            }
            tn_mon_wire_section(out, TN_MON_WIRE_JOB, &sec);
            tn_mon_buf_reset(&sec);
        }
        k = j;
    }
    /* ranks whose segment is gone exited (the file is removed at exit) */
    for (int i = 0; i < ag.nranks;) {
        if (ag.ranks[i].seen) {
            i++;
            continue;
        }
        agent_rank_forget(&ag.ranks[i]);
    }
    tn_mon_wire_end(out);
    tn_mon_buf_free(&ranks);
    tn_mon_buf_free(&dict);
    tn_mon_buf_free(&sec);
    tn_mon_scan_free(&scan);
}

/* ---- the connection ---------------------------------------------------- */

static int agent_connect(void)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
    char port[16];
    snprintf(port, sizeof(port), "%d", ag.o->port);
    if (getaddrinfo(ag.o->host, port, &hints, &res) != 0) {
        return -1;
    }
    int fd = -1;
    for (a = res; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        struct timeval tv = { 5, 0 };
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    }
    return fd;
}

/* POST the frame; 0 when the server answered 2xx. */
static int agent_post(const tn_mon_buf_t *frame)
{
    tn_mon_buf_t head = { 0 };
    tn_mon_buf_printf(&head, "POST /api/v1/ingest HTTP/1.1\r\nHost: %s\r\n"
                      "Content-Type: application/x-tern-monitor\r\nContent-Length: %zu\r\n",
                      ag.o->host, frame->len);
    if (ag.o->token[0] != '\0') {
        tn_mon_buf_printf(&head, "Authorization: Bearer %s\r\n", ag.o->token);
    }
    tn_mon_buf_str(&head, "\r\n");
    int ok = !head.failed;
    for (int part = 0; part < 2 && ok; part++) {
        const char *p = part == 0 ? head.data : frame->data;
        size_t n = part == 0 ? head.len : frame->len;
        while (n > 0) {
            ssize_t w = send(ag.fd, p, n, MSG_NOSIGNAL);
            if (w <= 0) {
                ok = 0;
                break;
            }
            p += w;
            n -= (size_t)w;
        }
    }
    tn_mon_buf_free(&head);
    /* the answer: a status line, headers, a short body; read it whole */
    char ans[4096];
    size_t got = 0;
    while (ok && got < sizeof(ans) - 1) {
        ssize_t r = recv(ag.fd, ans + got, sizeof(ans) - 1 - got, 0);
        if (r <= 0) {
            ok = 0;
            break;
        }
        got += (size_t)r;
        ans[got] = '\0';
        char *end = strstr(ans, "\r\n\r\n");
        if (end == NULL) {
            continue;
        }
        const char *cl = strcasestr(ans, "\r\nContent-Length:");
        size_t body = cl != NULL && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
        if (got >= (size_t)(end + 4 - ans) + body) {
            break;
        }
    }
    if (ok && (strncmp(ans, "HTTP/1.1 2", 10) != 0)) {
        const char *body = strstr(ans, "\r\n\r\n");
        fprintf(stderr, "tern-monitor agent: the server refused a frame: %.*s: %s\n",
                (int)strcspn(ans, "\r\n"), ans, body != NULL ? body + 4 : "");
        ok = 0;
    }
    return ok ? 0 : -1;
}

static void agent_on_signal(int sig)
{
    (void)sig;
    ag.stop = 1;
}

/* The node's lock: held while this agent runs.  0 held, 1 another agent
 * holds it, -1 it could not be made. */
static int agent_lock(const char *dir)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/tern-monitor-agent.%u.lock", dir, (unsigned)getuid());
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return 1;
    }
    return 0;                           /* the descriptor stays open: the lock */
}

/* Does dir hold a stats segment of this user? */
static int agent_any_segment(const char *dir)
{
    char prefix[64];
    snprintf(prefix, sizeof(prefix), TERN_STATS_PREFIX "%u.", (unsigned)getuid());
    DIR *d = opendir(dir);
    struct dirent *e;
    int any = 0;
    while (d != NULL && !any && (e = readdir(d)) != NULL) {
        any = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    }
    if (d != NULL) {
        closedir(d);
    }
    return any;
}

int tn_mon_agent_run(const tn_mon_agent_opts_t *o)
{
    ag.o = o;
    if (o->lock) {
        int held = agent_lock(o->dir);
        if (held == 1) {
            return 0;                   /* another agent serves this node */
        }
        if (held < 0) {
            fprintf(stderr, "tern-monitor agent: cannot make the lock in %s: %m\n", o->dir);
        }
    }
    int idle = 0;
    signal(SIGINT, agent_on_signal);
    signal(SIGTERM, agent_on_signal);
    signal(SIGPIPE, SIG_IGN);
    int warned = 0;
    for (int n = 0; !ag.stop && (o->frames <= 0 || n < o->frames); n++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int full = 0;
        if (ag.fd < 0) {
            ag.fd = agent_connect();
            full = 1;
            if (ag.fd < 0 && !warned) {
                fprintf(stderr, "tern-monitor agent: cannot reach %s:%d (%m); retrying\n",
                        o->host, o->port);
                warned = 1;
            }
        }
        if (ag.fd >= 0) {
            tn_mon_buf_t frame = { 0 };
            agent_frame(&frame, full);
            if (frame.failed || agent_post(&frame) != 0) {
                close(ag.fd);
                ag.fd = -1;     /* the next frame is full again */
            } else {
                warned = 0;
            }
            tn_mon_buf_free(&frame);
        }
        /* tern-run's agent: leave once the node is quiet and tern-run gone */
        if (o->exit_when_idle) {
            int parent_gone = o->parent <= 0 || kill(o->parent, 0) != 0;
            idle = agent_any_segment(o->dir) || !parent_gone ? 0 : idle + 1;
            if ((double)idle * o->interval >= 5.0) {
                break;
            }
        }
        /* the next sample one interval after this one started */
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double spent = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        double left = o->interval - spent;
        if (left > 0 && !ag.stop && (o->frames <= 0 || n + 1 < o->frames)) {
            struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
            nanosleep(&ts, NULL);
        }
    }
    if (ag.stop && ag.fd >= 0) {
        /* stopped by a signal: what changed since the last frame goes too */
        tn_mon_buf_t frame = { 0 };
        agent_frame(&frame, 0);
        (void)agent_post(&frame);
        tn_mon_buf_free(&frame);
    }
    if (ag.fd >= 0) {
        close(ag.fd);
        ag.fd = -1;
    }
    while (ag.nranks > 0) {
        agent_rank_forget(&ag.ranks[0]);
    }
    free(ag.ranks);
    free(ag.metrics);
    ag.ranks = NULL;
    ag.metrics = NULL;
    ag.nmetrics = ag.cap_metrics = ag.cap_ranks = 0;
    return 0;
}

/* For tests and the benchmark: one frame without a server. */
int tn_mon_agent_frame(const tn_mon_agent_opts_t *o, tn_mon_buf_t *out, int full)
{
    ag.o = o;
    agent_frame(out, full);
    return out->failed ? -1 : 0;
}

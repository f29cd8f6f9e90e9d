/* Runtime set-up: configuration, PMI, the node map, the transports. */
#include "runtime/rt.h"
#include "runtime/pmi.h"
#include "runtime/proc.h"
#include "xport/sock/sock.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/log.h"
#include "runtime/monitor.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* recursive: an error handler may call MPI while its caller holds the lock */
tn_rt_t tn_rt = { .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP };
tn_rt_hooks_t tn_rt_hooks_in_use;
#define tn_rt_hooks tn_rt_hooks_in_use

tn_status_t tn_rt_kv_put(const char *key, const char *value)
{
    return tn_pmi_put(key, value);
}

tn_status_t tn_rt_fence(void)
{
    return tn_pmi_barrier();
}

tn_status_t tn_rt_kv_get(int rank, const char *key, char *value, int len)
{
    char k[128];
    snprintf(k, sizeof(k), "%s-%d", key, rank);
    return tn_pmi_get(rank, k, value, len);
}

static tn_status_t tn_rt_kv_put_mine(const char *key, const char *value)
{
    char k[128];
    snprintf(k, sizeof(k), "%s-%d", key, tn_rt.world_rank);
    return tn_pmi_put(k, value);
}

/* Node identity: the host name plus the network namespace, so that ranks in
 * different namespaces on one machine count as different nodes, plus the
 * host index tern-run gives in a multi-host job: each host's proxy makes
 * that host's shared segment, so ranks of two proxies must never count as
 * one node (a host named twice, a launch tree tested on one machine). */
static void tn_rt_node_key(char *buf, size_t len)
{
    struct stat st;
    unsigned long long ns = 0;
    if (stat("/proc/self/ns/net", &st) == 0) {
        ns = (unsigned long long)st.st_ino;
    }
    snprintf(buf, len, "%s:%llx:%lld", tn_rt.hostname, ns, (long long)tn_cfg.host_id);
    for (char *p = buf; *p; p++) {
        if (*p == ' ' || *p == '=') {
            *p = '_';
        }
    }
}

/* Which ranks share a node: from the PMI server's process mapping when it
 * gave one (PMI-2: no exchange at all), else by exchanging node keys. */
static tn_status_t tn_rt_node_map(int *given, int given_nnodes)
{
    int n = tn_rt.world_size;
    char mine[320], other[320];
    tn_status_t st;
    tn_rt.local_of_world = malloc(sizeof(int) * (size_t)n);
    tn_rt.world_of_local = malloc(sizeof(int) * (size_t)n);
    int *node_of = tn_rt.node_of_world = given != NULL ? given : calloc((size_t)n, sizeof(int));
    char (*keys)[320] = given != NULL ? NULL : malloc(sizeof(*keys) * (size_t)n);
    if (!tn_rt.local_of_world || !tn_rt.world_of_local || !node_of || (!given && !keys)) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    if (given != NULL) {
        tn_rt.nnodes = given_nnodes;
        goto layout;
    }
    tn_rt_node_key(mine, sizeof(mine));
    if (n > 1) {
        if ((st = tn_rt_kv_put_mine("node", mine)) != TN_OK || (st = tn_rt_fence()) != TN_OK) {
            goto out;
        }
    }
    int nnodes = 0;
    for (int r = 0; r < n; r++) {
        if (r == tn_rt.world_rank) {
            snprintf(other, sizeof(other), "%s", mine);
        } else if ((st = tn_rt_kv_get(r, "node", other, sizeof(other))) != TN_OK) {
            tn_log_error("rt", "cannot learn where rank %d runs", r);
            goto out;
        }
        int node = -1;
        for (int i = 0; i < r; i++) {
            if (strcmp(keys[i], other) == 0) {
                node = node_of[i];
                break;
            }
        }
        if (node < 0) {
            node = nnodes++;
        }
        node_of[r] = node;
        snprintf(keys[r], sizeof(keys[r]), "%s", other);
    }
    tn_rt.nnodes = nnodes;
layout:
    tn_rt.node_id = node_of[tn_rt.world_rank];
    tn_rt.local_size = 0;
    for (int r = 0; r < n; r++) {
        if (node_of[r] == tn_rt.node_id) {
            if (r == tn_rt.world_rank) {
                tn_rt.local_rank = tn_rt.local_size;
            }
            tn_rt.local_of_world[r] = tn_rt.local_size;
            tn_rt.world_of_local[tn_rt.local_size++] = r;
        } else {
            tn_rt.local_of_world[r] = -1;
        }
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        /* bound ranks see one core; what matters is the machine's */
        cores = cores > 0 ? cores : CPU_COUNT(&set);
    }
    tn_rt.cores = cores > 0 ? (int)cores : 0;
    tn_rt.oversubscribed = cores > 0 && tn_rt.local_size > cores;
    st = TN_OK;
out:
    free(keys);
    return st;
}

static void tn_rt_fatal_signal(int sig)
{
    char msg[96];
    int len = snprintf(msg, sizeof(msg), "[tern %d] fatal signal %d (%s); backtrace:\n",
                       tn_rt.world_rank, sig, sig == SIGSEGV ? "SIGSEGV" :
                       sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" :
                       sig == SIGILL ? "SIGILL" : "SIGABRT");
    if (write(2, msg, (size_t)len) < 0) {
        /* nothing more we can do */
    }
    void *frames[64];
    int nf = backtrace(frames, 64);
    backtrace_symbols_fd(frames, nf, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void tn_rt_install_backtrace(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = tn_rt_fatal_signal;
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], NULL, &old);
        if (old.sa_handler == SIG_DFL) {   /* don't take over the program's own */
            sigaction(sigs[i], &sa, NULL);
        }
    }
}

static unsigned char *tn_rt_use_shm, *tn_rt_use_udp;
static int tn_rt_udp_wanted;

static void tn_rt_fatal(const char *msg)
{
    tn_rt_abort(1, msg);
}

/* Which transport serves each peer: self for ourselves; with TERN_XPORT=auto
 * shm on our node and udp elsewhere; TERN_XPORT=udp forces udp for every
 * other rank (to exercise it on one machine), TERN_XPORT=shm refuses jobs
 * that span nodes.  Every rank decides the same way, so the collective
 * set-up steps stay in step. */
static tn_status_t tn_rt_choose_xports(void)
{
    int n = tn_rt.world_size;
    const char *want = tn_cfg.xport ? tn_cfg.xport : "auto";
    int force_udp = strcmp(want, "udp") == 0;
    int shm_only = strcmp(want, "shm") == 0;
    if (!force_udp && !shm_only && strcmp(want, "auto") != 0) {
        tn_log_warn("rt", "TERN_XPORT=%s is not one of auto, shm, udp; using auto", want);
    }
    if (shm_only && tn_rt.nnodes > 1) {
        tn_log_error("rt", "TERN_XPORT=shm but the job spans %d nodes", tn_rt.nnodes);
        return TN_ERR_UNSUPPORTED;
    }
    tn_rt.xport_of = calloc((size_t)n, sizeof(*tn_rt.xport_of));
    tn_rt_use_shm = calloc((size_t)n, 1);
    tn_rt_use_udp = calloc((size_t)n, 1);
    if (tn_rt.xport_of == NULL || tn_rt_use_shm == NULL || tn_rt_use_udp == NULL) {
        return TN_ERR_NOMEM;
    }
    for (int r = 0; r < n; r++) {
        if (r == tn_rt.world_rank) {
            tn_rt.xport_of[r] = &tn_xport_self_ops;
        } else if (!force_udp && tn_rt.local_of_world[r] >= 0) {
            tn_rt.xport_of[r] = &tn_xport_shm_ops;
            tn_rt_use_shm[r] = 1;
        } else {
            tn_rt.xport_of[r] = &tn_xport_udp_ops;
            tn_rt_use_udp[r] = 1;
        }
    }
    tn_rt_udp_wanted = n > 1 && (force_udp || tn_rt.nnodes > 1);
    return TN_OK;
}

tn_status_t tn_rt_init(int required, int *provided_p, const tn_rt_hooks_t *hooks)
{
    tn_status_t st;
    tn_pmi_info_t info;
    tn_config_load(1);
    tn_rt_status_attach();              /* from here on "in MPI_Init" is published */
    tn_rt_status_set_fill(hooks->status_fill);
    tn_rt_hooks = *hooks;
    tn_rt.pid = getpid();
    tn_rt.main_thread = pthread_self();
    gethostname(tn_rt.hostname, sizeof(tn_rt.hostname) - 1);
    if ((st = tn_pmi_init(&info)) != TN_OK) {
        return st;
    }
    tn_rt.world_rank = info.rank;
    tn_rt.world_size = info.size;
    tn_rt.nprocs = info.size;
    tn_rt_status_identify(info.rank, info.size);
    tn_rt.appnum = info.appnum;
    tn_rt.universe_size = info.universe_size;
    tn_rt.singleton = info.singleton;
    snprintf(tn_rt.kvsname, sizeof(tn_rt.kvsname), "%s", info.kvsname);
    tn_log_set_rank(info.rank);
    if (tn_cfg.backtrace) {
        tn_rt_install_backtrace();
    }
    /* Let peers read our memory with process_vm_readv even under Yama. */
#ifdef PR_SET_PTRACER
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
    /* before the first fence: the secret of dynamic processes */
    if ((st = tn_rt_proc_secret_put()) != TN_OK) {
        return st;
    }
    if ((st = tn_rt_node_map(info.node_of, info.nnodes)) != TN_OK) {
        return st;
    }
    if ((st = tn_rt_choose_xports()) != TN_OK) {
        return st;
    }
    tn_rt_monitor_open();               /* before the transports: their counters live there */
    tn_xport_job_t job = {
        .kvsname = tn_rt.kvsname,
        .world_rank = tn_rt.world_rank,
        .world_size = tn_rt.world_size,
        .local_rank = tn_rt.local_rank,
        .local_size = tn_rt.local_size,
        .world_of_local = tn_rt.world_of_local,
        .local_of_world = tn_rt.local_of_world,
        .node_id = tn_rt.node_id,
        .node_of_world = tn_rt.node_of_world,
        .oversubscribed = tn_rt.oversubscribed,
        .nnodes = tn_rt.nnodes,
        .fence = tn_rt_fence,
        .kv_put = tn_rt_kv_put_mine,
        .kv_get = tn_rt_kv_get,
        .fatal = tn_rt_fatal,
        .am_handler = hooks->am_handler,
        .ref_done = hooks->ref_done,
    };
    if ((st = tn_xport_check_ops(&tn_xport_self_ops)) != TN_OK ||
        (st = tn_xport_check_ops(&tn_xport_shm_ops)) != TN_OK ||
        (st = tn_xport_check_ops(&tn_xport_udp_ops)) != TN_OK ||
        (st = tn_xport_self_init(&job)) != TN_OK) {
        return st;
    }
    job.use = tn_rt_use_shm;
    if ((st = tn_xport_shm_init(&job)) != TN_OK) {
        return st;
    }
    if (tn_rt_udp_wanted) {
        job.use = tn_rt_use_udp;
        if ((st = tn_xport_udp_init(&job)) != TN_OK) {
            return st;
        }
    }
    tn_rt.thread_level = required > TN_RT_THREAD_MULTIPLE ? TN_RT_THREAD_MULTIPLE :
                         required < TN_RT_THREAD_SINGLE ? TN_RT_THREAD_SINGLE : required;
    /* the progress thread needs the lock whatever the application asked */
    tn_rt.async = tn_cfg.async_progress != 0;
    tn_rt.thread_multiple = (tn_rt.thread_level == TN_RT_THREAD_MULTIPLE) || tn_rt.async;
    tn_rt_status_set_multiple(tn_rt.thread_level == TN_RT_THREAD_MULTIPLE);
    tn_rt_monitor_thread_multiple(tn_rt.thread_multiple);
    *provided_p = tn_rt.thread_level;
    tn_rt.initialized = 1;
    return TN_OK;
}

int tn_rt_raise_thread_level(int required)
{
    if (required > tn_rt.thread_level) {
        tn_rt.thread_level = required > TN_RT_THREAD_MULTIPLE ? TN_RT_THREAD_MULTIPLE : required;
        tn_rt.thread_multiple = (tn_rt.thread_level == TN_RT_THREAD_MULTIPLE) || tn_rt.async;
        tn_rt_status_set_multiple(tn_rt.thread_level == TN_RT_THREAD_MULTIPLE);
        tn_rt_monitor_thread_multiple(tn_rt.thread_multiple);
    }
    return tn_rt.thread_level;
}

void tn_rt_xports_in_use(char *buf, size_t len)
{
    static const tn_xport_ops_t *const order[] = {
        &tn_xport_self_ops, &tn_xport_shm_ops, &tn_xport_udp_ops, &tn_xport_sock_ops,
    };
    size_t used = 0;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    if (!tn_rt.initialized || tn_rt.finalized || tn_rt.xport_of == NULL) {
        return;
    }
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        int r = 0;
        while (r < tn_rt.nprocs && tn_rt.xport_of[r] != order[i]) {
            r++;
        }
        if (r == tn_rt.nprocs) {
            continue;
        }
        int n = snprintf(buf + used, len - used, "%s%s", used > 0 ? ", " : "",
                         order[i]->name);
        if (n < 0 || (size_t)n >= len - used) {
            return;                             /* truncated, still terminated */
        }
        used += (size_t)n;
    }
}

tn_status_t tn_rt_finalize(void)
{
    /* Every udp packet of ours acknowledged, every udp peer finalizing
     * (the fence does not progress the transports). */
    tn_xport_udp_close();
    /* Nobody may still be reading our memory or writing to our rings. */
    tn_status_t st = tn_rt_fence();
    if (tn_cfg.stats) {
        tn_ctr_print(stderr, tn_rt.world_rank);
    }
    tn_xport_udp_finalize();
    tn_xport_shm_finalize();
    tn_xport_self_finalize();
    tn_rt_proc_finalize();          /* after the transports that hold old tables */
    tn_status_t st2 = tn_pmi_finalize();
    free(tn_rt.local_of_world);
    free(tn_rt.world_of_local);
    free(tn_rt.node_of_world);
    free(tn_rt.xport_of);
    free(tn_rt_use_shm);
    free(tn_rt_use_udp);
    tn_rt.local_of_world = tn_rt.world_of_local = tn_rt.node_of_world = NULL;
    tn_rt.xport_of = NULL;
    tn_rt_use_shm = tn_rt_use_udp = NULL;
    tn_rt.finalized = 1;
    tn_rt_monitor_finalized();
    tn_rt.thread_multiple = 0;
    tn_rt.async = 0;
    return st != TN_OK ? st : st2;
}

static void tn_rt_abort_common(int code, const char *msg, int user)
    __attribute__((noreturn));

void tn_rt_abort(int code, const char *msg)
{
    tn_rt_abort_common(code, msg, 0);
}

void tn_rt_abort_user(int code, const char *msg)
{
    tn_rt_abort_common(code, msg, 1);
}

static void tn_rt_abort_common(int code, const char *msg, int user)
{
    if (msg != NULL) {
        fprintf(stderr, "[tern rank %d] %s\n", tn_rt.world_rank, msg);
    }
    fflush(stdout);
    fflush(stderr);
    if (code == 0) {
        code = 1;
    }
    tn_pmi_abort(code, msg, user);
    /* The launcher kills the job; exit in case there is none. */
    _exit(code & 0xff ? code & 0xff : 1);
}

int tn_progress(void)
{
    int n = tn_xport_shm_ops.progress();
    n += tn_xport_self_ops.progress();
    n += tn_xport_udp_ops.progress();
    n += tn_xport_sock_ops.progress();
    if (tn_rt_hooks.progress != NULL) {
        n += tn_rt_hooks.progress();
    }
    return n;
}

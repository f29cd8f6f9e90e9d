/* tern-run: start an MPI job of N ranks on this host or on several, serve
 * them PMI-1, forward their output and signals, and end with the job's
 * status.  Installed also as mpiexec and mpirun.  "tern-run --proxy" is the
 * same program as one host's proxy (run_proxy.c).  See run.h for the
 * layout. */
#include "run.h"
#include "run_ctl.h"
#include "run_status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* Signals tern-run takes (through the signalfd) unless they were ignored
 * when it started (nohup, background jobs of a non-interactive shell). */
static const int main_sigs[] = {
    SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT,
};

/* Ranks get fds 0-2 by dup2 and the PMI fd must not be one of them. */
static void main_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int nfd = open("/dev/null", O_RDWR);

            if (nfd > 2) {
                close(nfd);     /* cannot happen: lower fds come first */
            }
        }
    }
}

int tn_run_signals(tn_run_job_t *job)
{
    struct sigaction sa;

    sigemptyset(&job->sig_mask);
    sigaddset(&job->sig_mask, SIGCHLD);
    for (size_t i = 0; i < sizeof(main_sigs) / sizeof(main_sigs[0]); i++) {
        struct sigaction old;

        if (sigaction(main_sigs[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN) {
            sigaddset(&job->sig_mask, main_sigs[i]);
        }
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;            /* an inherited SIG_IGN would reap */
    sigaction(SIGCHLD, &sa, NULL);
    sa.sa_handler = SIG_IGN;            /* EPIPE instead, on our stdout */
    sigaction(SIGPIPE, &sa, &job->orig_sigpipe);
    if (sigprocmask(SIG_BLOCK, &job->sig_mask, &job->orig_mask) != 0) {
        tn_run_log("sigprocmask: %m");
        return -1;
    }
    job->sig_fd = signalfd(-1, &job->sig_mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (job->sig_fd < 0) {
        tn_run_log("signalfd: %m");
        return -1;
    }
    return 0;
}

/* Three descriptors per rank and per link must fit under the open-file
 * limit. */
int tn_run_nofile(int nranks)
{
    struct rlimit rl;
    rlim_t        need = (rlim_t)nranks * 3 + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need) {
        return 0;
    }
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        tn_run_log("%d ranks need %lu open files; the limit is %lu", nranks,
                   (unsigned long)need, (unsigned long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl);
}

static void main_kvsname(tn_run_job_t *job)
{
    unsigned long long rnd = 0;

    if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        rnd = ((unsigned long long)ts.tv_nsec << 20) ^
              (unsigned long long)ts.tv_sec ^ ((unsigned long long)getpid() << 40);
    }
    snprintf(job->kvsname, sizeof(job->kvsname), "tern-%d-%016llx",
             (int)getpid(), rnd);
}

void tn_run_job_init(tn_run_job_t *job)
{
    memset(job, 0, sizeof(*job));
    job->sig_fd         = -1;
    job->devnull_fd     = -1;
    job->stdin_pipe_r   = -1;
    job->stdin_pipe_w   = -1;
    job->job_deadline   = -1;
    job->kill_deadline  = -1;
    job->drain_deadline = -1;
    job->report_deadline = -1;
    job->parent_r       = -1;
    job->parent_w       = -1;
}

/* Find the programs of the blocks that have ranks here.  Returns 0, or the
 * exit status to give up with (after saying why). */
static int agent_resolve(tn_run_job_t *job)
{
    const tn_run_setup_t *s = job->setup;

    job->prog_paths = tn_run_xmalloc((size_t)s->nblocks * sizeof(char *));
    memset(job->prog_paths, 0, (size_t)s->nblocks * sizeof(char *));
    for (int i = 0; i < job->nlocal; i++) {
        int b = job->ranks[i].block;
        int status;

        if (job->prog_paths[b] != NULL) {
            continue;
        }
        status = tn_run_proc_resolve(s->blocks[b].argv[0], &job->prog_paths[b]);
        if (status != 0) {
            return status;
        }
    }
    return 0;
}

int tn_run_agent(tn_run_job_t *job)
{
    const tn_run_setup_t *s = job->setup;
    tn_run_buf_t          map = { 0 };
    int                   status;
    int                   n = 0;
    int                   fwd_flags =
        (s->flags & TN_RUN_SETUP_TAG ? TN_RUN_FWD_TAG : 0) |
        (s->flags & TN_RUN_SETUP_TIMESTAMP ? TN_RUN_FWD_TIME : 0);

    job->nranks   = s->nranks;
    job->all      = tn_run_xmalloc((size_t)s->nranks * sizeof(*job->all));
    job->local_of = tn_run_xmalloc((size_t)s->nranks * sizeof(int));
    memset(job->all, 0, (size_t)s->nranks * sizeof(*job->all));
    for (int r = 0; r < s->nranks; r++) {
        job->all[r].host = s->host_of[r];
        job->local_of[r] = s->host_of[r] == job->host ? job->nlocal++ : -1;
    }
    job->ranks = tn_run_xmalloc((size_t)(job->nlocal > 0 ? job->nlocal : 1) *
                                sizeof(*job->ranks));
    memset(job->ranks, 0, (size_t)(job->nlocal > 0 ? job->nlocal : 1) *
                          sizeof(*job->ranks));
    for (int r = 0; r < s->nranks; r++) {
        if (job->local_of[r] >= 0) {
            tn_run_rank_t *rk = &job->ranks[n++];

            rk->rank   = r;
            rk->block  = tn_run_setup_block_of(s, r);
            rk->pid    = -1;
            rk->out_fd = rk->err_fd = rk->pmi_fd = -1;
            rk->shm_fd = -1;
            tn_run_fwd_init(&rk->out_fwd, r, fwd_flags, s->nranks == 1);
            tn_run_fwd_init(&rk->err_fwd, r, fwd_flags, s->nranks == 1);
        }
    }
    status = agent_resolve(job);
    if (status != 0 && !job->is_proxy) {
        goto out;
    }
    /* three descriptors per rank and per child link */
    if (tn_run_nofile(job->nlocal + (s->tree_width < s->nhosts ? s->tree_width
                                                               : s->nhosts)) != 0) {
        status = 1;
        goto out;
    }
    if (s->kvsname != job->kvsname) {
        snprintf(job->kvsname, sizeof(job->kvsname), "%s", s->kvsname);
    }
    {
        int *ranks = tn_run_xmalloc((size_t)(job->nlocal > 0 ? job->nlocal : 1) *
                                    sizeof(int));

        for (int i = 0; i < job->nlocal; i++) {
            ranks[i] = job->ranks[i].rank;
        }
        tn_pmi_srv_init_part(&job->pmi, s->nranks, job->nlocal, ranks,
                             job->kvsname);
        free(ranks);
    }
    for (int i = 0; i < job->nlocal; i++) {
        job->pmi.conns[i].appnum = job->ranks[i].block;
    }
    job->pmi.kvs_max_keys  = (size_t)s->kvs_keys;
    job->pmi.kvs_max_bytes = (size_t)s->kvs_bytes;
    job->pmi.backlog_max   = (size_t)s->pmi_backlog;
    if (job->multi) {
        job->pmi.part = 1;
        tn_run_hosts_mapping_str(s->host_of, s->nranks, &map);
        tn_run_buf_append(&map, "", 1);
        if (map.len <= TN_PMI_VALLEN_MAX) {
            tn_pmi_srv_put(&job->pmi, "PMI_process_mapping", map.data);
        }
        tn_run_buf_free(&map);
    }
    tn_run_spawn_preput(job);
    tn_run_env_init(job);
    tn_run_debug(1, "starting %d of %d rank(s), kvsname %s", job->nlocal,
                 s->nranks, job->kvsname);
    if (!job->is_proxy && s->timeout_s > 0) {
        job->job_deadline = tn_run_now_ms() + (int64_t)s->timeout_s * 1000;
    }

    /* --launcher fork: every "host" is this machine, one node for the
     * library, whose ranks find one named segment (run_proto.h) */
    if (!(s->flags & TN_RUN_SETUP_FORK)) {
        tn_run_shm_create(job);
    }
    tn_run_status_create(job);          /* hang reports */
    if (tn_run_tree_start(job) != 0 && !job->ending) {
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
    if (status != 0) {
        /* a proxy that cannot find the program: its ranks fail */
        for (int i = 0; i < job->nlocal; i++) {
            job->ranks[i].exited    = 1;
            job->ranks[i].exit_how  = CLD_EXITED;
            job->ranks[i].exit_info = status;
            job->nexited++;
            tn_run_tree_exit(job, i);
        }
    } else if (tn_run_proc_spawn(job) != 0 && !job->ending) {
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
    tn_run_shm_close(job);             /* the ranks have theirs */
    tn_run_monitor_start(job);
    tn_run_status_started(job);
    status = tn_run_loop(job);
    status = tn_run_spawn_wait(job, status);
    tn_run_status_destroy(job);
    tn_run_proc_fini(job);
    if (!job->is_proxy || !(s->flags & TN_RUN_SETUP_FORK)) {
        tn_run_shm_cleanup(job->kvsname);
    }
    tn_run_stats_cleanup(job->kvsname);
    tn_run_tree_fini(job);
    tn_run_env_fini();
    tn_pmi_srv_fini(&job->pmi);
out:
    for (int i = 0; i < job->nlocal; i++) {
        tn_run_fwd_fini(&job->ranks[i].out_fwd);
        tn_run_fwd_fini(&job->ranks[i].err_fwd);
    }
    if (job->prog_paths != NULL) {
        for (int b = 0; b < s->nblocks; b++) {
            free(job->prog_paths[b]);
        }
    }
    free(job->prog_paths);
    free(job->ranks);
    free(job->all);
    free(job->local_of);
    return status;
}

/* Is name this machine (so the head runs its ranks itself)?  Slurm's name
 * of this node counts (SLURMD_NODENAME, set in a batch script and in a
 * step's tasks): a node's name in slurm.conf need not be its hostname. */
static int main_is_here(const char *name)
{
    const char *node = getenv("SLURMD_NODENAME");
    char        host[256];

    if (strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0 ||
        (node != NULL && strcmp(name, node) == 0)) {
        return 1;
    }
    if (gethostname(host, sizeof(host) - 1) != 0) {
        return 0;
    }
    host[sizeof(host) - 1] = '\0';
    if (strcmp(name, host) == 0) {
        return 1;
    }
    /* "node1" for "node1.cluster" and the other way round */
    size_t n = strlen(name), h = strcspn(host, ".");
    return (strchr(name, '.') == NULL && n == h && strncmp(name, host, h) == 0) ||
           (strchr(host, '.') == NULL && strncmp(name, host, strlen(host)) == 0 &&
            name[strlen(host)] == '.');
}

static char *main_localhost[] = { "localhost" };

/* The head's description of the job, from the command line. */
static int main_setup(const tn_run_opts_t *opts, tn_run_job_t *job,
                      tn_run_setup_t *s, char *proxy, size_t proxylen,
                      char *cwd, size_t cwdlen)
{
    char         err[320];
    int          oversub = 0;
    ssize_t      n;

    memset(s, 0, sizeof(*s));
    s->kvsname = job->kvsname;
    s->nranks  = opts->nranks;
    s->host_of = tn_run_xmalloc((size_t)s->nranks * sizeof(int));
    if (opts->hosts.nhosts == 0) {
        s->nhosts    = 1;
        s->hosts     = main_localhost;
        s->head_host = 0;
        memset(s->host_of, 0, (size_t)s->nranks * sizeof(int));
    } else {
        s->nhosts = opts->hosts.nhosts;
        s->hosts  = tn_run_xmalloc((size_t)s->nhosts * sizeof(char *));
        for (int h = 0; h < s->nhosts; h++) {
            s->hosts[h] = opts->hosts.hosts[h].name;
        }
        if (tn_run_hosts_map(&opts->hosts, s->nranks, opts->ppn, opts->map,
                             s->host_of, &oversub, err, sizeof(err)) != 0) {
            tn_run_log("%s", err);
            return 2;
        }
        if (oversub && !opts->oversubscribe && !opts->quiet) {
            tn_run_log("warning: %d ranks are more than the hosts' %ld slots: "
                       "some hosts run more ranks than slots (--oversubscribe "
                       "hides this)", s->nranks, tn_run_hosts_slots(&opts->hosts));
        }
        s->head_host = -1;
        for (int h = 0; h < s->nhosts && !opts->launcher_fork; h++) {
            if (main_is_here(s->hosts[h])) {
                s->head_host = h;
                break;
            }
        }
        job->multi = 1;
    }
    job->host  = s->head_host;
    s->nblocks = opts->nblocks;
    s->blocks  = tn_run_xmalloc((size_t)s->nblocks * sizeof(*s->blocks));
    for (int b = 0; b < s->nblocks; b++) {
        tn_run_block_t *blk = &s->blocks[b];

        blk->nranks = opts->blocks[b].nranks;
        blk->argv   = opts->blocks[b].argv;
        for (blk->argc = 0; blk->argv[blk->argc] != NULL; blk->argc++) {
        }
        blk->env = tn_run_env_block(opts, b, &blk->nenv);
    }
    if (getcwd(cwd, cwdlen) == NULL) {
        cwd[0] = '\0';
    }
    s->cwd = cwd;
    n = readlink("/proc/self/exe", proxy, proxylen - 1);
    proxy[n > 0 ? n : 0] = '\0';
    s->proxy      = proxy;
    s->rsh        = opts->launcher_slurm && !opts->rsh_given ? "srun"
                                                                 : opts->rsh;
    s->tree_width = opts->tree_width;
    s->bind       = opts->bind;
    s->flags      = (opts->tag_output ? TN_RUN_SETUP_TAG : 0) |
                    (opts->report_bindings ? TN_RUN_SETUP_REPORT_BINDING : 0) |
                    (opts->quiet ? TN_RUN_SETUP_QUIET : 0) |
                    (opts->launcher_fork ? TN_RUN_SETUP_FORK : 0) |
                    (opts->launcher_slurm ? TN_RUN_SETUP_SLURM : 0) |
                    (opts->timestamp_output ? TN_RUN_SETUP_TIMESTAMP : 0) |
                    (opts->pty ? TN_RUN_SETUP_PTY : 0);
    s->verbose     = tn_run_verbose;
    s->timeout_s   = opts->timeout_s;
    s->kvs_keys    = opts->kvs_keys;
    s->kvs_bytes   = opts->kvs_bytes;
    s->pmi_backlog = opts->pmi_backlog;
    return 0;
}

static void main_setup_free(tn_run_setup_t *s)
{
    if (s->blocks != NULL) {
        for (int b = 0; b < s->nblocks; b++) {
            tn_run_env_free_block(s->blocks[b].env, s->blocks[b].nenv);
        }
    }
    free(s->blocks);
    if (s->hosts != main_localhost) {
        free(s->hosts);
    }
    free(s->host_of);
}

int main(int argc, char **argv)
{
    tn_run_opts_t  opts;
    tn_run_job_t   job;
    tn_run_setup_t setup;
    static char    proxy[4096], cwd[4096];
    int            status;

    main_std_fds();
    if (argc == 2 && strcmp(argv[1], "--proxy") == 0) {
        return tn_run_proxy_main();
    }
    if (tn_run_ctl_is_client(argc, argv)) {
        return tn_run_ctl_client(argc, argv);   /* tern-run --status [PID] */
    }
    status = tn_run_opts_parse(argc, argv, &opts);
    if (status != TN_RUN_OPTS_RUN) {
        return status;
    }
    tn_run_monitor_env(&opts);          /* before the ranks' environment is made */
    tn_run_job_init(&job);
    job.opts  = &opts;
    job.setup = &setup;
    main_kvsname(&job);
    status = main_setup(&opts, &job, &setup, proxy, sizeof(proxy), cwd,
                        sizeof(cwd));
    if (status != 0) {
        goto out_setup;
    }
    status = 1;
    if (tn_run_signals(&job) != 0 || tn_run_stdin_setup(&job) != 0) {
        goto out_fds;
    }
    job.devnull_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job.devnull_fd < 0) {
        tn_run_log("/dev/null: %m");
        goto out_fds;
    }
    if (setup.host_of[0] != job.host && job.stdin_mode != TN_RUN_STDIN_NULL) {
        /* rank 0 is elsewhere: its stdin goes down the launch tree */
        tn_run_stdin_close(&job);
        job.stdin_mode = TN_RUN_STDIN_TREE;
        job.stdin_open = 1;
    }
    if (tn_run_ofile_open(&job) != 0) {     /* --output-filename */
        status = 2;
        goto out_fds;
    }
    status = tn_run_agent(&job);
    tn_run_ofile_close(&job);
    tn_run_buf_free(&job.stdin_buf);
out_fds:
    if (job.devnull_fd >= 0) {
        close(job.devnull_fd);
    }
    if (job.stdin_pipe_r >= 0) {
        close(job.stdin_pipe_r);
    }
    if (job.stdin_pipe_w >= 0) {
        close(job.stdin_pipe_w);
    }
    if (job.sig_fd >= 0) {
        close(job.sig_fd);
    }
out_setup:
    main_setup_free(&setup);
    tn_run_opts_free(&opts);
    return status;
}

/* tern-run: start an MPI job of N ranks on this node, serve them PMI-1,
 * forward their output and signals, and end with the job's status.
 * Installed also as mpiexec and mpirun.  See run.h for the layout. */
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

static int main_signals(tn_run_job_t *job)
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

/* Three descriptors per rank must fit under the open-file limit. */
static int main_nofile(int nranks)
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

int main(int argc, char **argv)
{
    tn_run_opts_t opts;
    tn_run_job_t  job;
    char         *prog_path = NULL;
    int           status;

    main_std_fds();
    if (tn_run_ctl_is_client(argc, argv)) {
        return tn_run_ctl_client(argc, argv);   /* tern-run --status [PID] */
    }
    status = tn_run_opts_parse(argc, argv, &opts);
    if (status != TN_RUN_OPTS_RUN) {
        return status;
    }
    memset(&job, 0, sizeof(job));
    job.opts           = &opts;
    job.nranks         = opts.nranks;
    job.sig_fd         = -1;
    job.devnull_fd     = -1;
    job.stdin_pipe_r   = -1;
    job.stdin_pipe_w   = -1;
    job.job_deadline   = -1;
    job.kill_deadline  = -1;
    job.drain_deadline = -1;

    status = tn_run_proc_resolve(opts.argv[0], &prog_path);
    if (status != 0) {
        goto out_opts;
    }
    job.prog_path = prog_path;
    status        = 1;
    if (main_nofile(job.nranks) != 0 || main_signals(&job) != 0 ||
        tn_run_stdin_setup(&job) != 0) {
        goto out_fds;
    }
    job.devnull_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job.devnull_fd < 0) {
        tn_run_log("/dev/null: %m");
        goto out_fds;
    }
    main_kvsname(&job);
    tn_pmi_srv_init(&job.pmi, job.nranks, job.kvsname);
    job.pmi.kvs_max_keys  = opts.kvs_keys;
    job.pmi.kvs_max_bytes = opts.kvs_bytes;
    job.pmi.backlog_max   = opts.pmi_backlog;
    tn_run_env_init(&job);
    job.ranks = tn_run_xmalloc((size_t)job.nranks * sizeof(*job.ranks));
    memset(job.ranks, 0, (size_t)job.nranks * sizeof(*job.ranks));
    for (int r = 0; r < job.nranks; r++) {
        tn_run_rank_t *rk = &job.ranks[r];

        rk->pid    = -1;
        rk->out_fd = rk->err_fd = rk->pmi_fd = -1;
        rk->shm_fd = -1;
        tn_run_fwd_init(&rk->out_fwd, r, opts.tag_output, job.nranks == 1);
        tn_run_fwd_init(&rk->err_fwd, r, opts.tag_output, job.nranks == 1);
    }
    tn_run_debug(1, "starting %d rank(s) of %s, kvsname %s", job.nranks,
                 prog_path, job.kvsname);
    if (opts.timeout_s > 0) {
        job.job_deadline = tn_run_now_ms() + (int64_t)opts.timeout_s * 1000;
    }

    tn_run_shm_create(&job);
    tn_run_status_create(&job);         /* hang reports */
    if (tn_run_proc_spawn(&job) != 0) {
        job.ending        = 1;
        job.exit_status   = 1;
        job.kill_deadline = tn_run_now_ms() + TN_RUN_GRACE_FAIL_MS;
        tn_run_proc_kill(&job, SIGTERM);
    }
    tn_run_shm_close(&job);            /* the ranks have theirs */
    tn_run_status_started(&job);
    status = tn_run_loop(&job);
    tn_run_status_destroy(&job);
    tn_run_proc_fini(&job);
    tn_run_shm_cleanup(job.kvsname);

    for (int r = 0; r < job.nranks; r++) {
        tn_run_fwd_fini(&job.ranks[r].out_fwd);
        tn_run_fwd_fini(&job.ranks[r].err_fwd);
    }
    free(job.ranks);
    tn_run_env_fini();
    tn_pmi_srv_fini(&job.pmi);
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
    free(prog_path);
out_opts:
    tn_run_opts_free(&opts);
    return status;
}

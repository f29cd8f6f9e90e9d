/* Starting, binding, signalling and reaping the ranks; see run.h for the
 * process model. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_executable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

int tn_run_proc_resolve(const char *prog, char **path_p)
{
    const char  *path = getenv("PATH");
    tn_run_buf_t cand = { 0 };
    int          found_noexec = 0;

    if (strchr(prog, '/') != NULL) {
        if (access(prog, F_OK) != 0) {
            tn_run_log("cannot execute '%s': %s", prog, strerror(errno));
            return 127;
        }
        if (!is_executable_file(prog)) {
            tn_run_log("cannot execute '%s': %s", prog,
                       access(prog, X_OK) != 0 ? strerror(errno)
                                               : "not a regular file");
            return 126;
        }
        *path_p = tn_run_xstrdup(prog);
        return 0;
    }
    if (path == NULL) {
        path = "/usr/local/bin:/usr/bin:/bin";
    }
    while (1) {
        const char *colon = strchr(path, ':');
        size_t      len   = colon != NULL ? (size_t)(colon - path) : strlen(path);

        cand.len = 0;
        if (len == 0) {
            tn_run_buf_append(&cand, ".", 1);   /* empty entry: cwd */
        } else {
            tn_run_buf_append(&cand, path, len);
        }
        tn_run_buf_printf(&cand, "/%s", prog);
        tn_run_buf_append(&cand, "", 1);
        if (is_executable_file(cand.data)) {
            *path_p = cand.data;
            return 0;
        }
        if (access(cand.data, F_OK) == 0) {
            found_noexec = 1;
        }
        if (colon == NULL) {
            break;
        }
        path = colon + 1;
    }
    tn_run_buf_free(&cand);
    if (found_noexec) {
        tn_run_log("cannot execute '%s': Permission denied", prog);
        return 126;
    }
    tn_run_log("cannot execute '%s': command not found", prog);
    return 127;
}

/* The CPUs tern-run may run on, in increasing order. */
static int proc_cpus(int **cpus_p)
{
    size_t     ncpu = 1024;
    cpu_set_t *set;
    size_t     size;
    int       *cpus;
    int        n = 0;

    while (1) {
        set  = CPU_ALLOC(ncpu);
        size = CPU_ALLOC_SIZE(ncpu);
        if (set == NULL) {
            return 0;
        }
        if (sched_getaffinity(0, size, set) == 0) {
            break;
        }
        CPU_FREE(set);
        if (errno != EINVAL || ncpu >= (1u << 20)) {
            return 0;
        }
        ncpu *= 2;
    }
    cpus = tn_run_xmalloc((size_t)CPU_COUNT_S(size, set) * sizeof(int) + 1);
    for (size_t c = 0; c < ncpu; c++) {
        if (CPU_ISSET_S(c, size, set)) {
            cpus[n++] = (int)c;
        }
    }
    CPU_FREE(set);
    *cpus_p = cpus;
    return n;
}

/* The cores of the CPUs we may use: cpus grouped by (package, core) in
 * order of their first CPU.  core_of[k] is the core of cpus[k]; returns the
 * number of cores.  Without sysfs every CPU is its own core. */
static int proc_cores(const int *cpus, int ncpus, int *core_of)
{
    long *ids   = tn_run_xmalloc((size_t)(ncpus > 0 ? ncpus : 1) * sizeof(long));
    int   ncore = 0;

    for (int k = 0; k < ncpus; k++) {
        char  path[128];
        long  pkg = 0, core = -1 - k;   /* unknown: a core of its own */
        FILE *f;

        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu%d/topology/core_id", cpus[k]);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &core) != 1) {
                core = -1 - k;
            }
            fclose(f);
        }
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/"
                 "physical_package_id", cpus[k]);
        if ((f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%ld", &pkg) != 1) {
                pkg = 0;
            }
            fclose(f);
        }
        ids[k] = pkg * 1000003 + core;
        core_of[k] = -1;
        for (int j = 0; j < k; j++) {
            if (ids[j] == ids[k]) {
                core_of[k] = core_of[j];
                break;
            }
        }
        if (core_of[k] < 0) {
            core_of[k] = ncore++;
        }
    }
    free(ids);
    return ncore;
}

/* Decide the CPUs of every local rank (ranks[i].cpus), say so with
 * --report-bindings, and warn when a binding asked for cannot be had. */
static void proc_plan_binding(tn_run_job_t *job)
{
    const tn_run_setup_t *s = job->setup;
    int  *cpus    = NULL;
    int   ncpus   = proc_cpus(&cpus);
    int  *core_of = tn_run_xmalloc((size_t)(ncpus > 0 ? ncpus : 1) * sizeof(int));
    int   ncores  = proc_cores(cpus, ncpus, core_of);
    int   bind    = s->bind;
    int   units;                        /* cores or hardware threads */
    const char *unit;
    char  where[300] = "";

    if (job->multi && job->host >= 0 && !job->is_proxy) {  /* a proxy's say so */
        snprintf(where, sizeof(where), " on %s", s->hosts[job->host]);
    }
    if (bind == TN_RUN_BIND_AUTO) {
        /* not for one rank, which is often one of several jobs started
         * side by side (a test suite), all of which would pick CPU 0 */
        bind = job->nlocal > 1 && job->nlocal <= ncores ? TN_RUN_BIND_CORE
                                                        : TN_RUN_BIND_NONE;
    }
    units = bind == TN_RUN_BIND_HWTHREAD ? ncpus : ncores;
    unit  = bind == TN_RUN_BIND_HWTHREAD ? "hardware thread" : "core";
    if (bind != TN_RUN_BIND_NONE && units == 0) {
        tn_run_log("warning: --bind-to %s: cannot read the CPUs tern-run may "
                   "use%s; not binding", bind == TN_RUN_BIND_HWTHREAD ?
                   "hwthread" : "core", where);
        bind = TN_RUN_BIND_NONE;
    }
    if (bind != TN_RUN_BIND_NONE && job->nlocal > units &&
        !(s->flags & TN_RUN_SETUP_QUIET)) {
        tn_run_log("warning: %d ranks%s but %d %s%s: binding them in turn, so "
                   "ranks share %ss (--bind-to none to let the kernel place them)",
                   job->nlocal, where, units, unit, units == 1 ? "" : "s", unit);
    }
    for (int i = 0; i < job->nlocal; i++) {
        tn_run_rank_t *rk = &job->ranks[i];
        int            u  = units > 0 ? i % units : 0;

        rk->ncpus = 0;
        if (bind == TN_RUN_BIND_HWTHREAD) {
            rk->cpus[rk->ncpus++] = cpus[u];
        } else if (bind == TN_RUN_BIND_CORE) {
            for (int k = 0; k < ncpus && rk->ncpus < TN_RUN_BIND_MAX; k++) {
                if (core_of[k] == u) {
                    rk->cpus[rk->ncpus++] = cpus[k];
                }
            }
        }
        if (s->flags & TN_RUN_SETUP_REPORT_BINDING) {
            tn_run_buf_t list = { 0 };

            for (int k = 0; k < rk->ncpus; k++) {
                tn_run_buf_printf(&list, "%s%d", k > 0 ? "," : "", rk->cpus[k]);
            }
            if (rk->ncpus > 0) {
                tn_run_log("rank %d%s: bound to %s %d (CPU%s %.*s)", rk->rank,
                           where, unit, u, rk->ncpus > 1 ? "s" : "",
                           (int)list.len, list.data);
            } else {
                tn_run_log("rank %d%s: not bound", rk->rank, where);
            }
            tn_run_buf_free(&list);
        }
    }
    tn_run_debug(1, "%d ranks, %d CPUs in %d cores available: %s", job->nlocal,
                 ncpus, ncores, bind == TN_RUN_BIND_NONE ? "not binding"
                 : bind == TN_RUN_BIND_CORE ? "binding rank i to the i-th core"
                 : "binding rank i to the i-th hardware thread");
    free(core_of);
    free(cpus);
}

/* In the child between fork and exec: become the rank.  Never returns. */
static void proc_child(tn_run_job_t *job, int i, int out_w, int err_w,
                       int pmi_child, char **envp, pid_t parent)
{
    const tn_run_rank_t *rk  = &job->ranks[i];
    int                  rank = rk->rank;
    const char          *prog = job->prog_paths[rk->block];
    int                  in_fd = job->devnull_fd;
    const char          *what;
    const char          *object = prog;   /* what the failure is about */
    char                 msg[512];
    int                  n;

    /* a tern-run killed with SIGKILL (a test harness timing out) must not
     * leave its ranks running */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
        _exit(127);
    }
    what = "setpgid";
    if (setpgid(0, job->pgid) != 0) {
        goto err;
    }
    sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);
    sigaction(SIGPIPE, &job->orig_sigpipe, NULL);
    if (rank == 0 && job->stdin_mode == TN_RUN_STDIN_INHERIT) {
        in_fd = STDIN_FILENO;
    } else if (rank == 0 && job->stdin_mode == TN_RUN_STDIN_FORWARD) {
        in_fd = job->stdin_pipe_r;
    }
    what = "dup2";
    if ((in_fd != STDIN_FILENO && dup2(in_fd, STDIN_FILENO) < 0) ||
        dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0) {
        goto err;
    }
    what = "fcntl";
    if (fcntl(pmi_child, F_SETFD, 0) != 0 ||
        (rk->shm_fd >= 0 && fcntl(rk->shm_fd, F_SETFD, 0) != 0)) {
        goto err;
    }
    if (rk->ncpus > 0) {
        int        top = 0;
        cpu_set_t *set;
        size_t     size;

        for (int k = 0; k < rk->ncpus; k++) {
            top = rk->cpus[k] > top ? rk->cpus[k] : top;
        }
        set  = CPU_ALLOC((size_t)top + 1);
        size = CPU_ALLOC_SIZE((size_t)top + 1);
        what = "sched_setaffinity";
        if (set == NULL) {
            goto err;
        }
        CPU_ZERO_S(size, set);
        for (int k = 0; k < rk->ncpus; k++) {
            CPU_SET_S((size_t)rk->cpus[k], size, set);
        }
        if (sched_setaffinity(0, size, set) != 0) {
            goto err;
        }
    }
    const char *ns = tn_run_opts_netns_of(job->opts, rank);
    if (ns != NULL) {
        char path[320];
        snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
        what = "open network namespace";
        object = ns;                    /* name the namespace, not the program */
        int nsfd = open(path, O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) {
            goto err;
        }
        what = "setns";
        if (setns(nsfd, CLONE_NEWNET) != 0) {
            goto err;
        }
        close(nsfd);
        object = prog;
    }
    what = "execve";
    execve(prog, job->setup->blocks[rk->block].argv, envp);

err:
    n = snprintf(msg, sizeof(msg), "tern-run: rank %d: %s '%s': %s\n", rank,
                 what, object, strerror(errno));
    if (n > 0) {
        (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n
                                                                : sizeof(msg) - 1);
    }
    _exit(127);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Said once: a rank's stdout is a pipe although ptys were asked for. */
static int proc_pty_warned;

static int proc_spawn_one(tn_run_job_t *job, int i)
{
    tn_run_rank_t *rk = &job->ranks[i];
    int            rank = rk->rank;
    int            out[2], err[2], sv[2];
    char         **envp;
    pid_t          pid, self;
    int            saved_errno;

    rk->out_pty = 0;
    if ((job->setup->flags & TN_RUN_SETUP_PTY) &&
        tn_run_pty_open(&out[0], &out[1]) == 0) {
        rk->out_pty = 1;
    } else {
        if ((job->setup->flags & TN_RUN_SETUP_PTY) && !proc_pty_warned) {
            proc_pty_warned = 1;
            tn_run_debug(1, "warning: no pseudo-terminal for rank %d (%m): its "
                         "stdout is a pipe, which C stdio buffers by block "
                         "(/proc/sys/kernel/pty/max?)", rank);
        }
        if (pipe2(out, O_CLOEXEC) != 0) {
            saved_errno = errno;
            goto err_out;
        }
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        saved_errno = errno;
        goto err_err;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        saved_errno = errno;
        goto err_sock;
    }
    envp = tn_run_env_rank(job, i, sv[1]);
    self = getpid();
    pid  = fork();
    if (pid == 0) {
        proc_child(job, i, out[1], err[1], sv[1], envp, self);
    }
    saved_errno = errno;
    tn_run_env_free_rank(envp);
    if (pid < 0) {
        goto err_fork;
    }
    /* also here: whichever of parent and child runs first, the group is set
     * before anyone signals it (EACCES once the child has exec'd is fine) */
    setpgid(pid, job->pgid != 0 ? job->pgid : pid);
    if (job->pgid == 0) {
        job->pgid = pid;
    }
    close(out[1]);
    close(err[1]);
    close(sv[1]);
    set_nonblock(out[0]);
    set_nonblock(err[0]);
    set_nonblock(sv[0]);
    rk->pid    = pid;
    rk->out_fd = out[0];
    rk->err_fd = err[0];
    rk->pmi_fd = sv[0];
    tn_run_debug(1, "rank %d: pid %d, PMI_FD %d, %d cpus", rank, (int)pid,
                 sv[1], rk->ncpus);
    return 0;

err_fork:
    close(sv[0]);
    close(sv[1]);
err_sock:
    close(err[0]);
    close(err[1]);
err_err:
    close(out[0]);
    close(out[1]);
err_out:
    tn_run_log("cannot start rank %d: %s", rank, strerror(saved_errno));
    return -1;
}

int tn_run_proc_spawn(tn_run_job_t *job)
{
    int i;

    proc_plan_binding(job);
    for (i = 0; i < job->nlocal; i++) {
        if (proc_spawn_one(job, i) != 0) {
            break;
        }
        if (job->ranks[i].rank == 0 && job->stdin_pipe_r >= 0) {
            close(job->stdin_pipe_r);   /* rank 0 has it now */
            job->stdin_pipe_r = -1;
        }
    }
    if (i == job->nlocal) {
        return 0;
    }
    for (; i < job->nlocal; i++) {      /* never started: count as gone */
        job->ranks[i].exited    = 1;
        job->ranks[i].exit_how  = CLD_EXITED;
        job->ranks[i].exit_info = 1;
        job->nexited++;
        tn_run_tree_exit(job, i);
    }
    return -1;
}

void tn_run_proc_reap(tn_run_job_t *job,
                      void (*on_exit)(tn_run_job_t *job, int i))
{
    for (int r = 0; r < job->nlocal; r++) {
        tn_run_rank_t *rk = &job->ranks[r];
        siginfo_t      si;
        int            flags = WEXITED | WNOHANG;

        if (rk->exited) {
            continue;
        }
        if (rk->pid == job->pgid) {
            flags |= WNOWAIT;           /* keep the group leader's zombie */
        }
        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)rk->pid, &si, flags) != 0 || si.si_pid == 0) {
            continue;
        }
        rk->exited    = 1;
        rk->exit_how  = si.si_code;
        rk->exit_info = si.si_status;
        job->nexited++;
        on_exit(job, r);
    }
}

void tn_run_proc_kill(tn_run_job_t *job, int sig)
{
    if (job->pgid > 0 && kill(-job->pgid, sig) != 0 && errno != ESRCH) {
        tn_run_log("kill(-%d, %s): %m", (int)job->pgid, tn_run_signame(sig));
    }
}

void tn_run_proc_fini(tn_run_job_t *job)
{
    if (job->pgid > 0) {
        waitpid(job->pgid, NULL, 0);
    }
}

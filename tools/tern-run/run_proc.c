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

/* Decide the CPU of every rank (ranks[i].cpu). */
static void proc_plan_binding(tn_run_job_t *job)
{
    int *cpus  = NULL;
    int  ncpus = proc_cpus(&cpus);
    int  bind;

    switch (job->opts->bind) {
    case TN_RUN_BIND_NONE: bind = 0;                    break;
    case TN_RUN_BIND_CORE: bind = ncpus > 0;            break;
    /* automatic: not for one rank, which is often one of several jobs
     * started side by side (a test suite), all of which would pick CPU 0 */
    default:               bind = ncpus >= job->nranks && job->nranks > 1;
                           break;
    }
    for (int r = 0; r < job->nranks; r++) {
        job->ranks[r].cpu = bind ? cpus[r % ncpus] : -1;
    }
    tn_run_debug(1, "%d ranks, %d CPUs available: %s", job->nranks, ncpus,
                 bind ? "binding rank i to the i-th CPU" : "not binding");
    free(cpus);
}

/* In the child between fork and exec: become the rank.  Never returns. */
static void proc_child(tn_run_job_t *job, int rank, int out_w, int err_w,
                       int pmi_child, char **envp, pid_t parent)
{
    const tn_run_rank_t *rk  = &job->ranks[rank];
    int                  in_fd = job->devnull_fd;
    const char          *what;
    const char          *object = job->prog_path;   /* what the failure is about */
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
    if (rk->cpu >= 0) {
        cpu_set_t *set  = CPU_ALLOC((size_t)rk->cpu + 1);
        size_t     size = CPU_ALLOC_SIZE((size_t)rk->cpu + 1);

        what = "sched_setaffinity";
        if (set == NULL) {
            goto err;
        }
        CPU_ZERO_S(size, set);
        CPU_SET_S((size_t)rk->cpu, size, set);
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
        object = job->prog_path;
    }
    what = "execve";
    execve(job->prog_path, job->opts->argv, envp);

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

static int proc_spawn_one(tn_run_job_t *job, int rank)
{
    tn_run_rank_t *rk = &job->ranks[rank];
    int            out[2], err[2], sv[2];
    char         **envp;
    pid_t          pid, self;
    int            saved_errno;

    if (pipe2(out, O_CLOEXEC) != 0) {
        saved_errno = errno;
        goto err_out;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        saved_errno = errno;
        goto err_err;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        saved_errno = errno;
        goto err_sock;
    }
    envp = tn_run_env_rank(job, rank, sv[1]);
    self = getpid();
    pid  = fork();
    if (pid == 0) {
        proc_child(job, rank, out[1], err[1], sv[1], envp, self);
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
    tn_run_debug(1, "rank %d: pid %d, PMI_FD %d, cpu %d", rank, (int)pid,
                 sv[1], rk->cpu);
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
    int rank;

    proc_plan_binding(job);
    for (rank = 0; rank < job->nranks; rank++) {
        if (proc_spawn_one(job, rank) != 0) {
            break;
        }
        if (rank == 0 && job->stdin_pipe_r >= 0) {
            close(job->stdin_pipe_r);   /* rank 0 has it now */
            job->stdin_pipe_r = -1;
        }
    }
    if (rank == job->nranks) {
        return 0;
    }
    for (; rank < job->nranks; rank++) {   /* never started: count as gone */
        job->ranks[rank].exited    = 1;
        job->ranks[rank].exit_how  = CLD_EXITED;
        job->ranks[rank].exit_info = 1;
        job->nexited++;
    }
    return -1;
}

void tn_run_proc_reap(tn_run_job_t *job,
                      void (*on_exit)(tn_run_job_t *job, int rank))
{
    for (int r = 0; r < job->nranks; r++) {
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

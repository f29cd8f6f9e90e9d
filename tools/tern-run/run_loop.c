/* The one event loop of tern-run: a poll() over the signalfd, the ranks'
 * stdout ptys, stderr pipes and PMI sockets, the terminal stdin being
 * forwarded, and in a multi-host job the links of the launch tree
 * (run_tree.c).  The only timeouts are the job timeout, the SIGKILL
 * escalation and the final drain; nothing spins.  What ends the job is
 * decided in run_judge.c. */
#include "run.h"
#include "run_status.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Reads per stream when draining a rank that just exited: what it wrote is
 * in the pipe already, but a child it forked may still be writing. */
#define LOOP_DRAIN_READS 64

static char         loop_io[65536];
static tn_run_buf_t loop_out;       /* lines on their way to our stdout/err */

void tn_run_end(tn_run_job_t *job, int status, int sig, int grace_ms)
{
    if (!job->ending) {
        job->ending      = 1;
        job->exit_status = status;
    }
    job->kill_deadline = tn_run_now_ms() + grace_ms;
    tn_run_proc_kill(job, sig);
    tn_run_tree_end(job, sig, grace_ms);
}

/* Our stdout (or stderr) reader went away: make the ranks writing to it
 * get SIGPIPE as they would without a launcher in between (`tern-run prog
 * | head`).  Closing a pipe does that.  A pty's writer gets EIO, not
 * SIGPIPE, once the master is closed: so what a rank wrote before is
 * thrown away, and a rank that writes again gets SIGPIPE from us
 * (loop_read_output) before its master is closed. */
static void loop_stream_dead(tn_run_job_t *job, int is_err)
{
    char junk[4096];

    for (int r = 0; r < job->nlocal; r++) {
        tn_run_rank_t *rk   = &job->ranks[r];
        int           *fd_p = is_err ? &rk->err_fd : &rk->out_fd;
        ssize_t        n;

        if (*fd_p < 0) {
            continue;
        }
        if (!is_err && rk->out_pty) {
            while ((n = read(*fd_p, junk, sizeof(junk))) > 0 ||
                   (n < 0 && errno == EINTR)) {
            }
            if (n == 0 || (n < 0 && errno != EAGAIN)) {
                close(*fd_p);           /* end of stream already */
                *fd_p = -1;
            }
            continue;
        }
        close(*fd_p);
        *fd_p = -1;
    }
}

void tn_run_emit(tn_run_job_t *job, int rank, int is_err, const char *data,
                 size_t len)
{
    int *dead = is_err ? &job->stderr_dead : &job->stdout_dead;

    if (len > 0 && tn_run_ofile_write(job, rank, is_err, data, len) &&
        !*dead &&
        tn_run_write_all(is_err ? STDERR_FILENO : STDOUT_FILENO, data, len) != 0) {
        *dead = 1;
        loop_stream_dead(job, is_err);
    }
}

/* What local rank i wrote, in whole lines: ours to print, or the head's. */
static void loop_emit(tn_run_job_t *job, int i, int is_err)
{
    if (loop_out.len > 0) {
        if (job->is_proxy) {
            tn_run_tree_output(job, i, is_err, loop_out.data, loop_out.len);
        } else {
            tn_run_emit(job, job->ranks[i].rank, is_err, loop_out.data,
                        loop_out.len);
        }
    }
    loop_out.len = 0;
}

/* Wall-clock milliseconds, for --timestamp-output. */
static int64_t loop_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read rank's stdout or stderr: once, or up to LOOP_DRAIN_READS times
 * until nothing is left when draining. */
static void loop_read_output(tn_run_job_t *job, int rank, int is_err,
                             int drain)
{
    tn_run_rank_t *rk    = &job->ranks[rank];
    int           *fd_p  = is_err ? &rk->err_fd : &rk->out_fd;
    tn_run_fwd_t  *fwd   = is_err ? &rk->err_fwd : &rk->out_fwd;
    int            reads = drain ? LOOP_DRAIN_READS : 1;

    while (*fd_p >= 0 && reads > 0) {
        ssize_t n = read(*fd_p, loop_io, sizeof(loop_io));

        if (n > 0 && !is_err && rk->out_pty && job->stdout_dead) {
            /* written after our stdout's reader went away: SIGPIPE, as
             * a pipe would give (an exited rank's pid may be reused) */
            if (!rk->exited) {
                kill(rk->pid, SIGPIPE);
            }
            close(*fd_p);
            *fd_p = -1;
            break;
        }
        if (n > 0) {
            tn_run_fwd_feed(fwd, loop_io, (size_t)n, loop_wall_ms(), &loop_out);
            loop_emit(job, rank, is_err);
            reads--;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            break;
        }
        /* end of stream: 0 from a pipe, EIO from a pty */
        tn_run_fwd_flush(fwd, loop_wall_ms(), &loop_out);
        loop_emit(job, rank, is_err);
        if (*fd_p >= 0) {
            close(*fd_p);
            *fd_p = -1;
        }
    }
}

static void loop_pmi_close(tn_run_job_t *job, int rank)
{
    tn_run_rank_t *rk  = &job->ranks[rank];
    tn_run_buf_t  *out = &job->pmi.conns[rank].out;

    if (rk->pmi_fd >= 0 && out->len > 0) {
        /* a last error reply, for a rank that only shut down its sending
         * side; whatever does not fit at once is lost */
        (void)!send(rk->pmi_fd, out->data, out->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (rk->pmi_fd >= 0) {
        close(rk->pmi_fd);
        rk->pmi_fd = -1;
        tn_pmi_srv_closed(&job->pmi, rank);
        tn_run_debug(2, "rank %d: PMI connection closed", rank);
    }
}

static void loop_write_pmi(tn_run_job_t *job);

/* An abort or a protocol error of a local rank; the fence moved. */
static void loop_check_abort(tn_run_job_t *job)
{
    int i = job->pmi.abort_rank;

    if (i >= 0 && !job->ending && !job->ranks[i].abort_seen) {
        job->ranks[i].abort_seen = 1;
        /* its error message, written before the abort, comes first */
        loop_read_output(job, i, 0, 1);
        loop_read_output(job, i, 1, 1);
        tn_run_tree_abort(job, i, job->pmi.conns[i].abort_code,
                          job->pmi.conns[i].abort_internal);
    }
    i = job->pmi.error_rank;
    if (i >= 0 && !job->ending && !job->ranks[i].error_seen) {
        job->ranks[i].error_seen = 1;
        loop_write_pmi(job);            /* the error reply goes out first */
        tn_run_tree_pmierr(job, i, job->pmi.error_msg);
    }
    tn_run_tree_fence(job);
    if (!job->is_proxy) {
        tn_run_judge_stuck(job);
    }
}

static void loop_read_pmi(tn_run_job_t *job, int rank, int drain)
{
    tn_run_rank_t *rk    = &job->ranks[rank];
    int            reads = drain ? LOOP_DRAIN_READS : 1;

    while (rk->pmi_fd >= 0 && reads > 0) {
        ssize_t n = read(rk->pmi_fd, loop_io, sizeof(loop_io));

        if (n > 0) {
            if (tn_pmi_srv_input(&job->pmi, rank, loop_io, (size_t)n) != 0) {
                loop_pmi_close(job, rank);
            }
            tn_run_spawn_serve(job);
            reads--;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            break;
        }
        /* EOF or reset: not an error, unless it cut a request off */
        tn_pmi_srv_eof(&job->pmi, rank);
        loop_pmi_close(job, rank);
    }
    loop_check_abort(job);
}

/* Write what the PMI server queued; what does not fit waits for POLLOUT. */
static void loop_write_pmi(tn_run_job_t *job)
{
    for (int r = 0; r < job->nlocal; r++) {
        tn_run_rank_t *rk   = &job->ranks[r];
        tn_run_buf_t  *out  = &job->pmi.conns[r].out;

        while (rk->pmi_fd >= 0 && out->len > 0) {
            ssize_t n = send(rk->pmi_fd, out->data, out->len,
                             MSG_NOSIGNAL | MSG_DONTWAIT);

            if (n > 0) {
                tn_run_buf_consume(out, (size_t)n);
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && errno == EAGAIN) {
                break;
            } else {
                loop_pmi_close(job, r);
            }
        }
    }
}

/* A local rank's exit was observed: take what it said last, then judge. */
static void loop_on_exit(tn_run_job_t *job, int i)
{
    tn_run_rank_t *rk = &job->ranks[i];

    /* an abort or finalize written just before exiting is in the socket
     * already; so are its last words on stdout/stderr */
    loop_read_pmi(job, i, 1);
    loop_read_output(job, i, 0, 1);
    loop_read_output(job, i, 1, 1);
    if (rk->rank == 0 && job->stdin_mode == TN_RUN_STDIN_FORWARD) {
        tn_run_stdin_close(job);
    }
    tn_pmi_srv_gone(&job->pmi, i);
    tn_run_status_exited(job, i);       /* hang reports */
    tn_run_debug(1, "rank %d (pid %d) exited: %s %d", rk->rank, (int)rk->pid,
                 rk->exit_how == CLD_EXITED ? "status" : "signal",
                 rk->exit_info);
    tn_run_tree_exit(job, i);
}

static void loop_kill_now(tn_run_job_t *job)
{
    tn_run_proc_kill(job, SIGKILL);
    tn_run_tree_end(job, SIGKILL, 0);
    job->killed = 1;
}

static void loop_signals(tn_run_job_t *job)
{
    struct signalfd_siginfo si;
    int                     reap = 0;

    while (read(job->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;

        switch (sig) {
        case SIGCHLD:
            reap = 1;
            break;
        case SIGINT:
        case SIGTERM:
        case SIGHUP:
        case SIGQUIT:
            tn_run_spawn_signal(sig);
            if (!job->ending) {
                tn_run_debug(1, "got %s: forwarding it to the ranks",
                             tn_run_signame(sig));
                tn_run_end(job, 128 + sig, sig, TN_RUN_GRACE_SIGNAL_MS);
            } else if (!job->killed) {
                tn_run_debug(1, "got %s again: killing the ranks",
                             tn_run_signame(sig));
                loop_kill_now(job);
            }
            break;
        case SIGUSR1:
            tn_run_tree_report(job, "SIGUSR1", 1);      /* hang report */
            break;
        case SIGUSR2:
            tn_run_proc_kill(job, sig);
            tn_run_tree_signal(job, sig);
            break;
        case SIGTSTP:
            /* stop the ranks with us; the shell's SIGCONT resumes us only */
            tn_run_proc_kill(job, SIGSTOP);
            tn_run_tree_signal(job, SIGSTOP);
            kill(getpid(), SIGSTOP);
            break;
        case SIGCONT:
            tn_run_proc_kill(job, SIGCONT);
            tn_run_tree_signal(job, SIGCONT);
            break;
        default:
            break;
        }
    }
    if (reap) {
        tn_run_spawn_reap(job);
        tn_run_proc_reap(job, loop_on_exit);
        tn_run_tree_reap(job);
    }
}

/* All ranks are gone: kill what they left in their group and give the
 * pipes a moment to reach end of file. */
static void loop_start_drain(tn_run_job_t *job)
{
    tn_run_proc_kill(job, SIGKILL);
    job->killed         = 1;
    job->drain_deadline = tn_run_now_ms() + TN_RUN_DRAIN_MS;
    for (int r = 0; r < job->nlocal; r++) {
        loop_pmi_close(job, r);
    }
    tn_run_stdin_close(job);
}

static int loop_pipes_open(const tn_run_job_t *job)
{
    for (int r = 0; r < job->nlocal; r++) {
        if (job->ranks[r].out_fd >= 0 || job->ranks[r].err_fd >= 0) {
            return 1;
        }
    }
    return 0;
}

static int64_t loop_next_deadline(const tn_run_job_t *job)
{
    int64_t next = -1;

    if (job->drain_deadline >= 0) {
        next = job->drain_deadline;
    }
    if (!job->ending && job->job_deadline >= 0 &&
        (next < 0 || job->job_deadline < next)) {
        next = job->job_deadline;
    }
    if (job->ending && !job->killed &&
        (next < 0 || job->kill_deadline < next)) {
        next = job->kill_deadline;
    }
    if (!job->ending && job->report_deadline >= 0 &&
        (next < 0 || job->report_deadline < next)) {
        next = job->report_deadline;
    }
    return next;
}

static void loop_deadlines(tn_run_job_t *job, int64_t now)
{
    if (!job->ending && job->job_deadline >= 0 && now >= job->job_deadline) {
        tn_run_log("job timed out after %d s", job->setup->timeout_s);
        job->job_deadline = -1;
        /* the hang report first: the other hosts' parts come up the tree */
        tn_run_tree_report(job, "at the timeout", 0);
        job->report_deadline = now + TN_RUN_REPORT_WAIT_MS;
    }
    if (!job->ending && job->report_deadline >= 0 &&
        (job->report_waiting == 0 || now >= job->report_deadline)) {
        job->report_deadline = -1;
        tn_run_end(job, 124, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
    if (job->ending && !job->killed && now >= job->kill_deadline) {
        tn_run_debug(1, "grace period over: killing the ranks");
        loop_kill_now(job);
    }
}

int tn_run_loop(tn_run_job_t *job)
{
    size_t         max  = 5 + 3 * (size_t)job->nlocal + tn_run_tree_maxfds(job);
    struct pollfd *pfd  = tn_run_xmalloc(max * sizeof(*pfd));
    int           *kind = tn_run_xmalloc(max * sizeof(*kind));
    int           *who  = tn_run_xmalloc(max * sizeof(*who));
    int            expected = job->is_proxy ? job->nsub : job->nranks;

    /* exits that happened while the ranks were being started, and what
     * the parent said meanwhile */
    tn_run_proc_reap(job, loop_on_exit);
    tn_run_tree_reap(job);
    tn_run_tree_pending(job);

    while (1) {
        int64_t now = tn_run_now_ms();
        int64_t next;
        size_t  n = 0;
        int     timeout;

        loop_deadlines(job, now);
        if (job->nall_exited >= expected && job->drain_deadline < 0) {
            loop_start_drain(job);
        }
        if (job->drain_deadline >= 0 &&
            ((!loop_pipes_open(job) && !tn_run_tree_open(job)) ||
             now >= job->drain_deadline)) {
            break;
        }
        loop_write_pmi(job);

#define ADD_FD(fd_, events_, kind_, who_)                                   \
        do {                                                                \
            pfd[n].fd = (fd_); pfd[n].events = (events_); pfd[n].revents = 0; \
            kind[n] = (kind_); who[n] = (who_); n++;                        \
        } while (0)
        ADD_FD(job->sig_fd, POLLIN, TN_RUN_FD_SIG, -1);
        if (job->stdin_open && !job->is_proxy &&
            (job->stdin_mode == TN_RUN_STDIN_TREE
             ? job->stdin_inflight < TN_RUN_STDIN_MAX
             : job->stdin_pipe_w >= 0 && job->stdin_buf.len < TN_RUN_STDIN_MAX)) {
            ADD_FD(STDIN_FILENO, POLLIN, TN_RUN_FD_STDIN, -1);
        }
        if (job->stdin_pipe_w >= 0 && job->stdin_buf.len > 0) {
            ADD_FD(job->stdin_pipe_w, POLLOUT, TN_RUN_FD_STDIN_PIPE, -1);
        }
        for (int r = 0; r < job->nlocal; r++) {
            const tn_run_rank_t *rk = &job->ranks[r];

            if (rk->out_fd >= 0) {
                ADD_FD(rk->out_fd, POLLIN, TN_RUN_FD_OUT, r);
            }
            if (rk->err_fd >= 0) {
                ADD_FD(rk->err_fd, POLLIN, TN_RUN_FD_ERR, r);
            }
            if (rk->pmi_fd >= 0) {
                ADD_FD(rk->pmi_fd, POLLIN | (job->pmi.conns[r].out.len > 0 ?
                                             POLLOUT : 0), TN_RUN_FD_PMI, r);
            }
        }
#undef ADD_FD
        n += tn_run_tree_pollfds(job, pfd + n, kind + n, who + n);

        next    = loop_next_deadline(job);
        timeout = next < 0 ? -1 : next <= now ? 0
                : next - now > 1000000 ? 1000000 : (int)(next - now);
        if (poll(pfd, n, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            tn_run_log("poll: %m");
            tn_run_end(job, 1, SIGKILL, 0);
            loop_kill_now(job);
            break;
        }

        for (size_t i = 0; i < n; i++) {
            short rev = pfd[i].revents;

            if (rev == 0) {
                continue;
            }
            switch (kind[i]) {
            case TN_RUN_FD_SIG:
                loop_signals(job);
                break;
            case TN_RUN_FD_STDIN:
                if (job->stdin_mode == TN_RUN_STDIN_TREE) {
                    tn_run_tree_stdin_read(job);
                } else if (job->stdin_open && job->stdin_pipe_w >= 0) {
                    tn_run_stdin_read(job);
                }
                break;
            case TN_RUN_FD_STDIN_PIPE:
                if (job->stdin_pipe_w >= 0) {
                    tn_run_stdin_write(job);
                }
                break;
            case TN_RUN_FD_OUT:
            case TN_RUN_FD_ERR:
                loop_read_output(job, who[i], kind[i] == TN_RUN_FD_ERR, 0);
                break;
            case TN_RUN_FD_PMI:
                if (rev & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
                    loop_read_pmi(job, who[i], 0);
                }
                break;
            default:
                tn_run_tree_ready(job, kind[i], who[i], rev);
                break;
            }
        }
    }

    /* partial last lines of streams still open after the drain */
    for (int r = 0; r < job->nlocal; r++) {
        tn_run_rank_t *rk = &job->ranks[r];

        for (int is_err = 0; is_err < 2; is_err++) {
            int *fd_p = is_err ? &rk->err_fd : &rk->out_fd;

            tn_run_fwd_flush(is_err ? &rk->err_fwd : &rk->out_fwd,
                             loop_wall_ms(), &loop_out);
            loop_emit(job, r, is_err);
            if (*fd_p >= 0) {
                close(*fd_p);
                *fd_p = -1;
            }
        }
    }
    tn_run_buf_free(&loop_out);
    if (!job->ending && !job->is_proxy) {
        tn_run_judge_warn_no_pmi(job);
    }
    free(pfd);
    free(kind);
    free(who);
    return job->ending ? job->exit_status : 0;
}

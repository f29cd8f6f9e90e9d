/* The one event loop of tern-run: a poll() over the signalfd, the ranks'
 * stdout/stderr pipes and PMI sockets, and the terminal stdin being
 * forwarded.  The only timeouts are the job timeout, the SIGKILL escalation
 * and the final drain; nothing spins.
 *
 * Job end.  The first of these decides the exit status and is reported in
 * one line: a rank killed by a signal, a rank exiting non-zero, a rank
 * exiting 0 after PMI init without PMI finalize, a rank gone (before PMI
 * init, or after finalize) while others wait for it in a PMI barrier, an
 * abort over PMI, a PMI protocol error or limit (pmi_srv.h), the timeout,
 * or a terminating signal to tern-run (forwarded, not reported).
 * The ranks' group then gets SIGTERM (or the forwarded signal) and SIGKILL
 * after a grace period.  The loop ends when every rank has exited and their
 * pipes are drained.
 *
 * A job that ends well may still earn a warning: ranks that exited 0 without
 * ever writing to their PMI socket.  Tern's library (and MPICH's) always
 * speaks PMI under tern-run, so such a rank either is no MPI program or was
 * built for an MPI whose library does not speak PMI-1 (Open MPI's): each of
 * those ranks ran alone, as a singleton, and the job "succeeded". */
#include "run.h"
#include "run_status.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads per stream when draining a rank that just exited: what it wrote is
 * in the pipe already, but a child it forked may still be writing. */
#define LOOP_DRAIN_READS 64

static char         loop_io[65536];
static tn_run_buf_t loop_out;       /* lines on their way to our stdout/err */

enum { FD_SIG, FD_STDIN, FD_STDIN_PIPE, FD_OUT, FD_ERR, FD_PMI };

static void loop_end(tn_run_job_t *job, int status, int sig, int grace_ms)
{
    job->ending        = 1;
    job->exit_status   = status;
    job->kill_deadline = tn_run_now_ms() + grace_ms;
    tn_run_proc_kill(job, sig);
}

/* Our stdout (or stderr) reader went away: close that stream of every
 * rank, so that ranks writing to it get SIGPIPE as they would without a
 * launcher in between (`tern-run prog | head`). */
static void loop_stream_dead(tn_run_job_t *job, int is_err)
{
    for (int r = 0; r < job->nranks; r++) {
        tn_run_rank_t *rk   = &job->ranks[r];
        int           *fd_p = is_err ? &rk->err_fd : &rk->out_fd;

        if (*fd_p >= 0) {
            close(*fd_p);
            *fd_p = -1;
        }
    }
}

static void loop_emit(tn_run_job_t *job, int is_err)
{
    int *dead = is_err ? &job->stderr_dead : &job->stdout_dead;

    if (loop_out.len > 0 && !*dead &&
        tn_run_write_all(is_err ? STDERR_FILENO : STDOUT_FILENO,
                         loop_out.data, loop_out.len) != 0) {
        *dead = 1;
        loop_stream_dead(job, is_err);
    }
    loop_out.len = 0;
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

        if (n > 0) {
            tn_run_fwd_feed(fwd, loop_io, (size_t)n, &loop_out);
            loop_emit(job, is_err);
            reads--;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            break;
        }
        tn_run_fwd_flush(fwd, &loop_out);    /* end of stream */
        loop_emit(job, is_err);
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

/* A rank gone while the others wait for it in a PMI barrier: the barrier
 * can never complete. */
static void loop_check_stuck(tn_run_job_t *job)
{
    int                  r = tn_pmi_srv_stuck(&job->pmi);
    const tn_run_rank_t *rk;
    const tn_pmi_conn_t *conn;

    if (r < 0 || job->ending) {
        return;
    }
    rk   = &job->ranks[r];
    conn = &job->pmi.conns[r];
    if (!conn->inited) {
        tn_run_log("rank %d (pid %d) exited before calling MPI_Init while "
                   "other ranks wait for it", r, (int)rk->pid);
    } else if (conn->finalized) {
        tn_run_log("rank %d (pid %d) exited after MPI_Finalize while other "
                   "ranks wait for it", r, (int)rk->pid);
    } else {
        tn_run_log("rank %d (pid %d) exited without calling MPI_Finalize",
                   r, (int)rk->pid);
    }
    loop_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
}

static void loop_check_abort(tn_run_job_t *job)
{
    int r = job->pmi.abort_rank;
    int code;

    if (r >= 0 && !job->ending) {
        code = job->pmi.conns[r].abort_code;
        /* its error message, written before the abort, comes first */
        loop_read_output(job, r, 0, 1);
        loop_read_output(job, r, 1, 1);
        if (job->pmi.conns[r].abort_internal) {
            tn_run_log("rank %d ended the job after an error (exit code %d; its message "
                       "is above)", r, code);
        } else {
            tn_run_log("rank %d called MPI_Abort (error code %d)", r, code);
        }
        loop_end(job, code >= 1 && code <= 255 ? code : 1, SIGTERM,
                 TN_RUN_GRACE_FAIL_MS);
    }
    r = job->pmi.error_rank;
    if (r >= 0 && !job->ending) {
        loop_write_pmi(job);            /* the error reply goes out first */
        tn_run_log("rank %d (pid %d): %s", r,
                   (int)job->ranks[r].pid, job->pmi.error_msg);
        loop_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
    loop_check_stuck(job);
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
    for (int r = 0; r < job->nranks; r++) {
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

/* A rank's exit was observed: take what it said last, then judge. */
static void loop_on_exit(tn_run_job_t *job, int rank)
{
    tn_run_rank_t       *rk   = &job->ranks[rank];
    const tn_pmi_conn_t *conn = &job->pmi.conns[rank];

    /* an abort or finalize written just before exiting is in the socket
     * already; so are its last words on stdout/stderr */
    loop_read_pmi(job, rank, 1);
    loop_read_output(job, rank, 0, 1);
    loop_read_output(job, rank, 1, 1);
    if (rank == 0 && job->stdin_mode == TN_RUN_STDIN_FORWARD) {
        tn_run_stdin_close(job);
    }
    tn_pmi_srv_gone(&job->pmi, rank);
    tn_run_status_exited(job, rank);    /* hang reports */
    tn_run_debug(1, "rank %d (pid %d) exited: %s %d", rank, (int)rk->pid,
                 rk->exit_how == CLD_EXITED ? "status" : "signal",
                 rk->exit_info);
    if (job->ending) {
        return;
    }
    if (rk->exit_how == CLD_KILLED && rk->exit_info == SIGPIPE &&
        (job->stdout_dead || job->stderr_dead)) {
        /* like `prog | head`: the end of the reader ends the job quietly */
        loop_end(job, 128 + SIGPIPE, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (rk->exit_how == CLD_KILLED || rk->exit_how == CLD_DUMPED) {
        tn_run_log("rank %d (pid %d) killed by signal %d (%s)", rank,
                   (int)rk->pid, rk->exit_info, tn_run_signame(rk->exit_info));
        loop_end(job, 128 + rk->exit_info, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (rk->exit_info != 0) {
        tn_run_log("rank %d (pid %d) exited with status %d", rank,
                   (int)rk->pid, rk->exit_info);
        loop_end(job, rk->exit_info, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (conn->inited && !conn->finalized) {
        tn_run_log("rank %d (pid %d) exited without calling MPI_Finalize",
                   rank, (int)rk->pid);
        loop_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else {
        loop_check_stuck(job);
    }
}

/* The warning of the header comment, in two lines (what, then why and what
 * to do); -q and one-rank jobs (where a singleton is the whole job) go
 * without. */
static void loop_warn_no_pmi(const tn_run_job_t *job)
{
    unsigned char *silent;
    int            nsilent = 0;
    tn_run_buf_t   ranks   = { 0 };
    const char    *prog    = job->opts->argv[0];

    if (job->opts->quiet || job->nranks < 2) {
        return;
    }
    silent = tn_run_xmalloc((size_t)job->nranks);
    for (int r = 0; r < job->nranks; r++) {
        const tn_run_rank_t *rk = &job->ranks[r];

        silent[r] = rk->exited && rk->exit_how == CLD_EXITED &&
                    rk->exit_info == 0 && !job->pmi.conns[r].contacted;
        nsilent += silent[r];
    }
    if (nsilent > 0) {
        tn_run_ranges(&ranks, silent, job->nranks, 64);
        tn_run_log("warning: %s %.*s of %d never contacted tern-run's PMI "
                   "server: if %s is an MPI program, %s ran alone as a "
                   "singleton (rank 0 of 1), not as part of one job",
                   nsilent == 1 ? "rank" : "ranks", (int)ranks.len, ranks.data,
                   job->nranks, prog, nsilent == 1 ? "it" : "each");
        tn_run_log("hint: a program built with another MPI's mpicc (Open MPI's) "
                   "does that; build it with Tern's mpicc (ldd %s | grep libmpi "
                   "shows which MPI it uses). Not an MPI program? Ignore this, "
                   "or hide it with -q", job->prog_path);
    }
    tn_run_buf_free(&ranks);
    free(silent);
}

static void loop_kill_now(tn_run_job_t *job)
{
    tn_run_proc_kill(job, SIGKILL);
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
            if (!job->ending) {
                tn_run_debug(1, "got %s: forwarding it to the ranks",
                             tn_run_signame(sig));
                loop_end(job, 128 + sig, sig, TN_RUN_GRACE_SIGNAL_MS);
            } else if (!job->killed) {
                tn_run_debug(1, "got %s again: killing the ranks",
                             tn_run_signame(sig));
                loop_kill_now(job);
            }
            break;
        case SIGUSR1:
            tn_run_status_print(job, "SIGUSR1", 1);     /* hang report */
            break;
        case SIGUSR2:
            tn_run_proc_kill(job, sig);
            break;
        case SIGTSTP:
            /* stop the ranks with us; the shell's SIGCONT resumes us only */
            tn_run_proc_kill(job, SIGSTOP);
            kill(getpid(), SIGSTOP);
            break;
        case SIGCONT:
            tn_run_proc_kill(job, SIGCONT);
            break;
        default:
            break;
        }
    }
    if (reap) {
        tn_run_proc_reap(job, loop_on_exit);
    }
}

/* All ranks are gone: kill what they left in their group and give the
 * pipes a moment to reach end of file. */
static void loop_start_drain(tn_run_job_t *job)
{
    tn_run_proc_kill(job, SIGKILL);
    job->killed         = 1;
    job->drain_deadline = tn_run_now_ms() + TN_RUN_DRAIN_MS;
    for (int r = 0; r < job->nranks; r++) {
        loop_pmi_close(job, r);
    }
    tn_run_stdin_close(job);
}

static int loop_pipes_open(const tn_run_job_t *job)
{
    for (int r = 0; r < job->nranks; r++) {
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
    return next;
}

static void loop_deadlines(tn_run_job_t *job, int64_t now)
{
    if (!job->ending && job->job_deadline >= 0 && now >= job->job_deadline) {
        tn_run_log("job timed out after %d s", job->opts->timeout_s);
        tn_run_status_print(job, "at the timeout", 0);  /* hang report */
        loop_end(job, 124, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
    if (job->ending && !job->killed && now >= job->kill_deadline) {
        tn_run_debug(1, "grace period over: killing the ranks");
        loop_kill_now(job);
    }
}

int tn_run_loop(tn_run_job_t *job)
{
    size_t         max  = 3 + 3 * (size_t)job->nranks;
    struct pollfd *pfd  = tn_run_xmalloc(max * sizeof(*pfd));
    int           *kind = tn_run_xmalloc(max * sizeof(*kind));
    int           *who  = tn_run_xmalloc(max * sizeof(*who));

    /* exits that happened while the ranks were being started */
    tn_run_proc_reap(job, loop_on_exit);

    while (1) {
        int64_t now = tn_run_now_ms();
        int64_t next;
        size_t  n = 0;
        int     timeout;

        loop_deadlines(job, now);
        if (job->nexited == job->nranks && job->drain_deadline < 0) {
            loop_start_drain(job);
        }
        if (job->drain_deadline >= 0 &&
            (!loop_pipes_open(job) || now >= job->drain_deadline)) {
            break;
        }
        loop_write_pmi(job);

#define ADD_FD(fd_, events_, kind_, who_)                                   \
        do {                                                                \
            pfd[n].fd = (fd_); pfd[n].events = (events_); pfd[n].revents = 0; \
            kind[n] = (kind_); who[n] = (who_); n++;                        \
        } while (0)
        ADD_FD(job->sig_fd, POLLIN, FD_SIG, -1);
        if (job->stdin_open && job->stdin_pipe_w >= 0 &&
            job->stdin_buf.len < TN_RUN_STDIN_MAX) {
            ADD_FD(STDIN_FILENO, POLLIN, FD_STDIN, -1);
        }
        if (job->stdin_pipe_w >= 0 && job->stdin_buf.len > 0) {
            ADD_FD(job->stdin_pipe_w, POLLOUT, FD_STDIN_PIPE, -1);
        }
        for (int r = 0; r < job->nranks; r++) {
            const tn_run_rank_t *rk = &job->ranks[r];

            if (rk->out_fd >= 0) {
                ADD_FD(rk->out_fd, POLLIN, FD_OUT, r);
            }
            if (rk->err_fd >= 0) {
                ADD_FD(rk->err_fd, POLLIN, FD_ERR, r);
            }
            if (rk->pmi_fd >= 0) {
                ADD_FD(rk->pmi_fd, POLLIN | (job->pmi.conns[r].out.len > 0 ?
                                             POLLOUT : 0), FD_PMI, r);
            }
        }
#undef ADD_FD

        next    = loop_next_deadline(job);
        timeout = next < 0 ? -1 : next <= now ? 0
                : next - now > 1000000 ? 1000000 : (int)(next - now);
        if (poll(pfd, n, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            tn_run_log("poll: %m");
            loop_end(job, 1, SIGKILL, 0);
            loop_kill_now(job);
            break;
        }

        for (size_t i = 0; i < n; i++) {
            short rev = pfd[i].revents;

            if (rev == 0) {
                continue;
            }
            switch (kind[i]) {
            case FD_SIG:
                loop_signals(job);
                break;
            case FD_STDIN:
                if (job->stdin_open && job->stdin_pipe_w >= 0) {
                    tn_run_stdin_read(job);
                }
                break;
            case FD_STDIN_PIPE:
                if (job->stdin_pipe_w >= 0) {
                    tn_run_stdin_write(job);
                }
                break;
            case FD_OUT:
            case FD_ERR:
                loop_read_output(job, who[i], kind[i] == FD_ERR, 0);
                break;
            case FD_PMI:
                if (rev & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
                    loop_read_pmi(job, who[i], 0);
                }
                break;
            default:
                break;
            }
        }
    }

    /* partial last lines of streams still open after the drain */
    for (int r = 0; r < job->nranks; r++) {
        tn_run_rank_t *rk = &job->ranks[r];

        for (int is_err = 0; is_err < 2; is_err++) {
            int *fd_p = is_err ? &rk->err_fd : &rk->out_fd;

            tn_run_fwd_flush(is_err ? &rk->err_fwd : &rk->out_fwd, &loop_out);
            loop_emit(job, is_err);
            if (*fd_p >= 0) {
                close(*fd_p);
                *fd_p = -1;
            }
        }
    }
    tn_run_buf_free(&loop_out);
    if (!job->ending) {
        loop_warn_no_pmi(job);
    }
    free(pfd);
    free(kind);
    free(who);
    return job->ending ? job->exit_status : 0;
}

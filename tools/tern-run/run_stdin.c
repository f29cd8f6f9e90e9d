/* Rank 0's stdin.  When tern-run's stdin is not a terminal, rank 0 simply
 * inherits it.  When it is our terminal and we are in the foreground, the
 * ranks cannot read it themselves: they are in a background process group
 * and would be stopped (SIGTTIN).  tern-run then reads the terminal and
 * copies it into a pipe that is rank 0's stdin.  Otherwise rank 0 gets
 * /dev/null like the other ranks.  When rank 0 runs on another host,
 * tern-run reads its stdin (a terminal in the foreground, a file, a pipe)
 * and sends it down the launch tree; the proxy of rank 0's host copies it
 * into rank 0's pipe and acknowledges what it wrote, so that at most
 * TN_RUN_STDIN_MAX bytes are on their way. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int tn_run_stdin_pipe(tn_run_job_t *job)
{
    int p[2];

    if (pipe2(p, O_CLOEXEC) != 0 ||
        fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK) != 0) {
        tn_run_log("pipe: %m");
        return -1;
    }
    job->stdin_mode   = TN_RUN_STDIN_FORWARD;
    job->stdin_pipe_r = p[0];
    job->stdin_pipe_w = p[1];
    job->stdin_open   = 1;      /* the terminal, or until the STDIN frame of EOF */
    return 0;
}

int tn_run_stdin_setup(tn_run_job_t *job)
{
    if (!isatty(STDIN_FILENO)) {
        job->stdin_mode = TN_RUN_STDIN_INHERIT;
        return 0;
    }
    if (tcgetpgrp(STDIN_FILENO) != getpgrp()) {
        job->stdin_mode = TN_RUN_STDIN_NULL;
        return 0;
    }
    return tn_run_stdin_pipe(job);
}

void tn_run_stdin_close(tn_run_job_t *job)
{
    if (job->stdin_pipe_w >= 0) {
        close(job->stdin_pipe_w);
        job->stdin_pipe_w = -1;
    }
    if (job->is_proxy && job->stdin_buf.len > 0) {
        tn_run_tree_stdin_ack(job, job->stdin_buf.len);   /* dropped */
    }
    job->stdin_open    = 0;
    job->stdin_buf.len = 0;
}

void tn_run_stdin_read(tn_run_job_t *job)
{
    char    buf[4096];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

    if (n > 0) {
        tn_run_buf_append(&job->stdin_buf, buf, (size_t)n);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        job->stdin_open = 0;                /* EOF (Ctrl-D) or error */
        if (job->stdin_buf.len == 0) {
            tn_run_stdin_close(job);
        }
    }
}

void tn_run_stdin_write(tn_run_job_t *job)
{
    ssize_t n = write(job->stdin_pipe_w, job->stdin_buf.data,
                      job->stdin_buf.len);

    if (n > 0) {
        tn_run_buf_consume(&job->stdin_buf, (size_t)n);
        if (job->is_proxy) {
            tn_run_tree_stdin_ack(job, (size_t)n);
        }
        if (job->stdin_buf.len == 0 && !job->stdin_open) {
            tn_run_stdin_close(job);
        }
    } else if (n < 0 && errno != EINTR && errno != EAGAIN) {
        tn_run_stdin_close(job);            /* rank 0 closed its stdin */
    }
}

/* tern-run --proxy: one host's part of a multi-host job.  A remote shell
 * (or, with --launcher fork, tern-run itself) starts it with the link to
 * its parent on stdin and stdout; its stderr is the remote shell's, which
 * the parent keeps for the message when the proxy cannot start.
 *
 * The first frame on stdin is SETUP (run_proto.h).  The proxy answers
 * HELLO, moves to the directory tern-run was started in (staying where it
 * is, with a warning, when that does not exist here), finds the programs
 * in the ranks' PATH, and then runs its part of the job like tern-run on
 * one host: tn_run_agent, with events going up and decisions coming down
 * the link.  When the link ends before the job does (the head or the
 * remote shell died), the proxy ends its ranks and its subtree. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read the SETUP frame from fd 0 into buf.  Returns its size, or -1. */
static long proxy_read_setup(tn_run_buf_t *buf, tn_run_frame_t *f)
{
    char chunk[65536];

    while (1) {
        const char *why = NULL;
        long        got = tn_run_proto_decode(buf->data != NULL ? buf->data : "",
                                              buf->len, f, &why);
        ssize_t     n;

        if (got < 0) {
            tn_run_log("proxy: bad SETUP frame: %s", why);
            return -1;
        }
        if (got > 0) {
            if (f->type != TN_RUN_F_SETUP) {
                tn_run_log("proxy: the first frame is not SETUP");
                return -1;
            }
            return got;
        }
        n = read(STDIN_FILENO, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            tn_run_log("proxy: the link closed before the SETUP frame");
            return -1;
        }
        tn_run_buf_append(buf, chunk, (size_t)n);
    }
}

/* The ranks' PATH, for finding their programs as they would. */
static void proxy_path(const tn_run_setup_t *s)
{
    for (int i = 0; i < s->blocks[0].nenv; i++) {
        if (strncmp(s->blocks[0].env[i], "PATH=", 5) == 0) {
            setenv("PATH", s->blocks[0].env[i] + 5, 1);
            return;
        }
    }
}

int tn_run_proxy_main(void)
{
    tn_run_buf_t   in = { 0 };
    tn_run_frame_t f;
    tn_run_setup_t setup;
    tn_run_job_t   job;
    tn_run_buf_t   hello = { 0 };
    const char    *why = NULL;
    char           hostname[256] = "";
    long           got;
    int            host;
    int            status = 1;
    uint32_t       u;

    got = proxy_read_setup(&in, &f);
    if (got < 0) {
        tn_run_buf_free(&in);
        return 1;
    }
    if (tn_run_proto_setup_decode(&f, &setup, &host, &why) != 0) {
        tn_run_log("proxy: bad SETUP frame: %s", why);
        tn_run_buf_free(&in);
        return 1;
    }
    tn_run_verbose = setup.verbose;
    tn_run_job_init(&job);
    job.setup    = &setup;
    job.host     = host;
    job.multi    = 1;
    job.is_proxy = 1;
    job.parent_r = STDIN_FILENO;
    job.parent_w = STDOUT_FILENO;
    /* what followed SETUP is the start of the next frames */
    tn_run_buf_append(&job.parent_in, in.data + got, in.len - (size_t)got);
    tn_run_tree_proxy(&job);
    tn_run_log_hook = tn_run_tree_log;
    gethostname(hostname, sizeof(hostname) - 1);
    u = (uint32_t)host;
    tn_run_proto_str(&hello, TN_RUN_F_HELLO, 1, &u, hostname);
    tn_run_buf_append(&job.parent_out, hello.data, hello.len);
    tn_run_buf_free(&hello);

    if (setup.cwd[0] != '\0' && chdir(setup.cwd) != 0) {
        tn_run_log("warning: %s: cannot enter %s (%m); the ranks start in %s",
                   setup.hosts[host], setup.cwd, getenv("HOME") ? getenv("HOME")
                                                                : "/");
    }
    proxy_path(&setup);
    if (fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK) != 0 ||
        fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK) != 0 ||
        tn_run_signals(&job) != 0) {
        goto out;
    }
    job.stdin_mode = TN_RUN_STDIN_NULL;
    if (setup.host_of[0] == host && tn_run_stdin_pipe(&job) != 0) {
        goto out;
    }
    job.devnull_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job.devnull_fd < 0) {
        tn_run_log("/dev/null: %m");
        goto out;
    }
    status = tn_run_agent(&job);
    /* the last frames (exits, output) must reach the parent */
    if (job.parent_w >= 0) {
        fcntl(job.parent_w, F_SETFL, fcntl(job.parent_w, F_GETFL) & ~O_NONBLOCK);
        (void)tn_run_write_all(job.parent_w, job.parent_out.data,
                               job.parent_out.len);
    }
    close(job.devnull_fd);
out:
    if (job.stdin_pipe_r >= 0) {
        close(job.stdin_pipe_r);
    }
    if (job.stdin_pipe_w >= 0) {
        close(job.stdin_pipe_w);
    }
    tn_run_buf_free(&job.stdin_buf);
    tn_run_log_hook = NULL;
    if (job.sig_fd >= 0) {
        close(job.sig_fd);
    }
    tn_run_buf_free(&job.parent_in);
    tn_run_buf_free(&job.parent_out);
    tn_run_proto_setup_free(&setup);
    tn_run_buf_free(&in);
    return status;
}

/* The launch tree of a multi-host job: starting the child proxies, reading
 * and writing their links, passing events up and decisions down.  The
 * frames and the tree's shape are described in run_proto.h.
 *
 * Shape.  The hosts that need a proxy (those with ranks, less the head's
 * own) get positions 0..P-1 in host order.  The head's children are
 * positions 0..w-1; position p's children are (p+1)w .. (p+1)w+w-1, where w
 * is the tree width.  Every agent computes the same shape from the SETUP
 * frame, so no frame names a route.
 *
 * A link is lost when its remote shell is gone (stdout and stderr at end of
 * file and the process reaped) while ranks of its subtree have not been
 * reported gone: those ranks count as lost, and the head ends the job
 * saying which host and why (the remote shell's last words on stderr, or
 * its exit status). */
#include "run.h"
#include "run_status.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bytes of a remote shell's stderr kept for the message when it fails. */
#define TREE_ERR_KEEP 4096

static char tree_io[65536];

static int  tree_npos;          /* hosts with a proxy */
static int *tree_host_at;       /* [tree_npos]: position -> host */
static int *tree_pos_of;        /* [nhosts]: host -> position, or -1 */
static int *tree_link_of;       /* [nranks]: the child link of a rank's host,
                                   -1 local, -2 outside our subtree */

/* The job whose proxy this process is, for tn_run_tree_log. */
static tn_run_job_t *tree_proxy_job;

static void tree_shape(const tn_run_setup_t *s)
{
    int *has = tn_run_xmalloc((size_t)s->nhosts * sizeof(int));

    memset(has, 0, (size_t)s->nhosts * sizeof(int));
    for (int r = 0; r < s->nranks; r++) {
        has[s->host_of[r]] = 1;
    }
    tree_host_at = tn_run_xmalloc((size_t)s->nhosts * sizeof(int));
    tree_pos_of  = tn_run_xmalloc((size_t)s->nhosts * sizeof(int));
    tree_npos    = 0;
    for (int h = 0; h < s->nhosts; h++) {
        tree_pos_of[h] = -1;
        if (has[h] && h != s->head_host) {
            tree_pos_of[h] = tree_npos;
            tree_host_at[tree_npos++] = h;
        }
    }
    free(has);
}

/* The parent position of p (-1: the head). */
static int tree_parent(int p, int width)
{
    return p < width ? -1 : p / width - 1;
}

/* ------------------------------------------------------------- frames up */

static void tree_up(tn_run_job_t *job, const char *frame, size_t len)
{
    if (job->parent_w >= 0) {
        tn_run_buf_append(&job->parent_out, frame, len);
    }
}

void tn_run_tree_proxy(tn_run_job_t *job)
{
    tree_proxy_job = job;
}

/* A frame to every child whose link still takes frames. */
static void tree_down(tn_run_job_t *job, const char *frame, size_t len)
{
    for (int l = 0; l < job->nlinks; l++) {
        if (job->links[l].wfd >= 0 && !job->links[l].lost) {
            tn_run_buf_append(&job->links[l].out, frame, len);
        }
    }
}

int tn_run_tree_log(const char *line, size_t len)
{
    tn_run_job_t *job = tree_proxy_job;
    tn_run_buf_t  f   = { 0 };
    char         *copy;

    if (job == NULL || job->parent_w < 0) {
        return -1;
    }
    /* "tern-run: msg" becomes "tern-run: host: msg" */
    copy = tn_run_xmalloc(len + 300);
    if (len >= 10 && memcmp(line, "tern-run: ", 10) == 0) {
        snprintf(copy, len + 300, "tern-run: %s: %.*s", job->setup->hosts[job->host],
                 (int)(len - 10), line + 10);
    } else {
        memcpy(copy, line, len);
        copy[len] = '\0';
    }
    tn_run_proto_str(&f, TN_RUN_F_LOG, 0, NULL, copy);
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
    free(copy);
    return 0;
}

static uint32_t tree_exit_flags(const tn_run_rstate_t *st)
{
    return (st->contacted ? TN_RUN_EXIT_CONTACTED : 0) |
           (st->inited ? TN_RUN_EXIT_INITED : 0) |
           (st->finalized ? TN_RUN_EXIT_FINALIZED : 0) |
           (st->in_barrier ? TN_RUN_EXIT_IN_BARRIER : 0) |
           (st->lost ? TN_RUN_EXIT_LOST : 0);
}

/* all[rank] is known to have exited: count it, then judge or pass it up. */
static void tree_exited(tn_run_job_t *job, int rank)
{
    tn_run_rstate_t *st = &job->all[rank];
    tn_run_buf_t     f  = { 0 };

    job->nall_exited++;
    if (!job->is_proxy) {
        tn_run_judge_exit(job, rank);
        return;
    }
    tn_run_proto_u32s(&f, TN_RUN_F_EXIT, 5, (uint32_t)rank, (uint32_t)st->pid,
                      (uint32_t)st->exit_how, (uint32_t)st->exit_info,
                      tree_exit_flags(st));
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
}

void tn_run_tree_exit(tn_run_job_t *job, int i)
{
    const tn_run_rank_t *rk   = &job->ranks[i];
    const tn_pmi_conn_t *conn = &job->pmi.conns[i];
    tn_run_rstate_t     *st   = &job->all[rk->rank];

    if (st->exited) {
        return;
    }
    st->exited     = 1;
    st->pid        = (int)rk->pid;
    st->exit_how   = rk->exit_how;
    st->exit_info  = rk->exit_info & 0xff;
    st->contacted  = conn->contacted;
    st->inited     = conn->inited;
    st->finalized  = conn->finalized;
    st->in_barrier = conn->in_barrier;
    tree_exited(job, rk->rank);
}

void tn_run_tree_abort(tn_run_job_t *job, int i, int code, int internal)
{
    tn_run_buf_t f = { 0 };

    if (!job->is_proxy) {
        tn_run_judge_abort(job, job->ranks[i].rank, code, internal);
        return;
    }
    tn_run_proto_u32s(&f, TN_RUN_F_ABORT, 4, (uint32_t)job->ranks[i].rank,
                      (uint32_t)job->ranks[i].pid, (uint32_t)code,
                      (uint32_t)(internal != 0));
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
}

void tn_run_tree_pmierr(tn_run_job_t *job, int i, const char *msg)
{
    tn_run_buf_t f = { 0 };
    uint32_t     u[2];

    job->all[job->ranks[i].rank].pid = (int)job->ranks[i].pid;
    if (!job->is_proxy) {
        tn_run_judge_pmierr(job, job->ranks[i].rank, msg);
        return;
    }
    u[0] = (uint32_t)job->ranks[i].rank;
    u[1] = (uint32_t)job->ranks[i].pid;
    tn_run_proto_str(&f, TN_RUN_F_PMIERR, 2, u, msg);
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
}

void tn_run_tree_output(tn_run_job_t *job, int i, int is_err,
                        const char *data, size_t len)
{
    tn_run_buf_t f = { 0 };

    tn_run_proto_out(&f, job->ranks[i].rank, is_err ? 2 : 1, data, len);
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
}

/* ----------------------------------------------------------------- fence */

static void tree_fence_reset(tn_run_job_t *job)
{
    job->fence_pairs.len = 0;
    job->fence_npairs    = 0;
    job->fence_entered   = 0;
    job->fence_up        = 0;
    for (int l = 0; l < job->nlinks; l++) {
        job->links[l].fenced = 0;
    }
    for (int r = 0; r < job->nranks; r++) {
        job->all[r].in_barrier = 0;     /* a new fence starts from nothing */
    }
}

void tn_run_tree_fence(tn_run_job_t *job)
{
    tn_run_buf_t f = { 0 };
    int          ready;

    if (!job->pmi.part) {
        return;                         /* one host: the server does it */
    }
    if (!job->fence_entered && job->pmi.nbarrier > 0) {
        job->fence_entered = 1;
        if (job->is_proxy) {
            tn_run_proto_u32s(&f, TN_RUN_F_FENCE_ENTER, 0);
            tree_up(job, f.data, f.len);
            f.len = 0;
        }
    }
    ready = (job->nlocal == 0 || job->pmi.fence_ready) && !job->fence_up;
    for (int l = 0; l < job->nlinks && ready; l++) {
        ready = job->links[l].fenced;
    }
    if (!ready) {
        tn_run_buf_free(&f);
        return;
    }
    /* our puts and our children's, as one list */
    tn_run_buf_append(&job->pmi.delta, job->fence_pairs.data,
                      job->fence_pairs.len);
    job->pmi.ndelta += job->fence_npairs;
    if (job->is_proxy) {
        tn_run_proto_fence(&f, job->nsub, job->pmi.ndelta, &job->pmi.delta);
        tree_up(job, f.data, f.len);
        job->fence_up = 1;
    } else {
        tn_run_proto_fence(&f, -1, job->pmi.ndelta, &job->pmi.delta);
        tn_pmi_srv_fence_apply(&job->pmi, job->fence_pairs.data,
                               job->fence_pairs.len);
        tree_down(job, f.data, f.len);
        tn_pmi_srv_fence_release(&job->pmi);
        tree_fence_reset(job);
    }
    tn_run_buf_free(&f);
}

/* ------------------------------------------------------------ decisions */

void tn_run_tree_signal(tn_run_job_t *job, int sig)
{
    tn_run_buf_t f = { 0 };

    tn_run_proto_u32s(&f, TN_RUN_F_SIGNAL, 1, (uint32_t)sig);
    tree_down(job, f.data, f.len);
    tn_run_buf_free(&f);
}

void tn_run_tree_end(tn_run_job_t *job, int sig, int grace_ms)
{
    tn_run_buf_t f = { 0 };

    tn_run_proto_u32s(&f, TN_RUN_F_END, 2, (uint32_t)sig, (uint32_t)grace_ms);
    tree_down(job, f.data, f.len);
    tn_run_buf_free(&f);
}

void tn_run_tree_report(tn_run_job_t *job, const char *why, int always)
{
    tn_run_buf_t f = { 0 };

    if (!job->multi) {
        tn_run_status_print(job, why, always);
        return;
    }
    tn_run_buf_printf(&f, "tern-run: where the ranks are (%s):\n", why);
    if (job->status != NULL) {
        tn_run_status_report(job->status, "tern-run:   ", &f);
    }
    (void)tn_run_write_all(STDERR_FILENO, f.data, f.len);
    f.len = 0;
    tn_run_proto_u32s(&f, TN_RUN_F_REPORT_ASK, 0);
    tree_down(job, f.data, f.len);
    job->report_waiting = tree_npos;
    tn_run_buf_free(&f);
    (void)always;
}

/* A proxy asked for its host's report: answer, and ask the subtree. */
static void tree_report_ask(tn_run_job_t *job, const char *raw, size_t rawlen)
{
    tn_run_buf_t text = { 0 };
    tn_run_buf_t f    = { 0 };

    if (job->status != NULL) {
        tn_run_status_report(job->status, "tern-run:   ", &text);
    }
    tn_run_buf_append(&text, "", 1);
    tn_run_proto_str(&f, TN_RUN_F_REPORT, 0, NULL, text.data);
    tree_up(job, f.data, f.len);
    tree_down(job, raw, rawlen);
    tn_run_buf_free(&text);
    tn_run_buf_free(&f);
}

/* The child link whose subtree runs rank 0, or -1. */
static int tree_link_of_rank0(const tn_run_job_t *job)
{
    int l = tree_link_of != NULL ? tree_link_of[0] : -1;

    return l >= 0 && l < job->nlinks && job->links[l].wfd >= 0 ? l : -1;
}

void tn_run_tree_stdin_read(tn_run_job_t *job)
{
    static char  buf[TN_RUN_STDIN_MAX];
    size_t       room = TN_RUN_STDIN_MAX - job->stdin_inflight;
    ssize_t      n    = read(STDIN_FILENO, buf, room < sizeof(buf) ? room : sizeof(buf));
    int          l    = tree_link_of_rank0(job);
    tn_run_buf_t f    = { 0 };

    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0 || l < 0) {
        job->stdin_open = 0;            /* end of file, or nobody to send to */
        n = 0;
    }
    if (l >= 0) {
        tn_run_proto_stdin(&f, buf, (size_t)n);
        tn_run_buf_append(&job->links[l].out, f.data, f.len);
        job->stdin_inflight += (size_t)n;
    }
    tn_run_buf_free(&f);
}

void tn_run_tree_stdin_ack(tn_run_job_t *job, size_t n)
{
    tn_run_buf_t f = { 0 };

    if (n == 0) {
        return;
    }
    tn_run_proto_u32s(&f, TN_RUN_F_STDIN_ACK, 1, (uint32_t)n);
    tree_up(job, f.data, f.len);
    tn_run_buf_free(&f);
}

/* STDIN from the parent: rank 0's, if it is here, else further down. */
static void tree_stdin_down(tn_run_job_t *job, const tn_run_frame_t *f,
                            const char *raw, size_t rawlen)
{
    int l = tree_link_of_rank0(job);

    if (job->local_of[0] < 0) {
        if (l >= 0) {
            tn_run_buf_append(&job->links[l].out, raw, rawlen);
        } else {
            tn_run_tree_stdin_ack(job, f->len);     /* its host is lost */
        }
        return;
    }
    if (job->stdin_pipe_w < 0) {
        tn_run_tree_stdin_ack(job, f->len);         /* rank 0 closed it */
        return;
    }
    if (f->len == 0) {
        job->stdin_open = 0;
        if (job->stdin_buf.len == 0) {
            tn_run_stdin_close(job);
        }
        return;
    }
    tn_run_buf_append(&job->stdin_buf, f->data, f->len);
}

/* ------------------------------------------------------------- starting */

/* The words of the remote shell's command line (s->rsh) in a new argv
 * with room for extra more and its NULL; *words_p is the copy they point
 * into (the caller frees both).  No words: one empty word, which execvp
 * refuses, and the link is reported lost with why. */
static char **tree_words(const tn_run_setup_t *s, size_t extra, char **words_p,
                         int *n_p)
{
    char  *words = tn_run_xstrdup(s->rsh);
    char **argv  = tn_run_xmalloc((strlen(s->rsh) / 2 + extra + 3) * sizeof(char *));
    int    n     = 0;
    char  *save  = NULL;

    for (char *w = strtok_r(words, " \t", &save); w != NULL;
         w = strtok_r(NULL, " \t", &save)) {
        argv[n++] = w;
    }
    if (n == 0) {
        argv[n++] = words;
    }
    *words_p = words;
    *n_p     = n;
    return argv;
}

/* argv of the remote shell: its words, the host, and one word for the
 * remote command (single-quoted for the remote shell). */
static char **tree_rsh_argv(const tn_run_setup_t *s, const char *host,
                            tn_run_buf_t *cmd, char **words_p)
{
    int    n;
    char **argv = tree_words(s, 2, words_p, &n);

    argv[n++] = (char *)host;
    tn_run_buf_append(cmd, "'", 1);
    for (const char *c = s->proxy; *c != '\0'; c++) {
        if (*c == '\'') {
            tn_run_buf_append(cmd, "'\\''", 4);
        } else {
            tn_run_buf_append(cmd, c, 1);
        }
    }
    tn_run_buf_printf(cmd, "' --proxy");
    tn_run_buf_append(cmd, "", 1);
    argv[n++] = cmd->data;
    argv[n]   = NULL;
    return argv;
}

/* argv of srun starting the proxy of host as the one task of a new step
 * of the allocation: the words of s->rsh ("srun"), options, the proxy's
 * path and --proxy, each its own word (no shell in between).
 *   --nodes=1 --ntasks=1 --nodelist=HOST   one task, on that node
 *   --input=0 --unbuffered  our pipe to the task's stdin, its stdout back
 *                   as it comes: slurmstepd otherwise holds output until
 *                   a newline, and frames are binary (-u makes no pty,
 *                   whatever srun(1) says; bytes pass unchanged)
 *   --overlap       a step beside the others: a proxy that fans out runs
 *                   srun inside its own step, and two jobs started in one
 *                   allocation do not wait for each other's steps
 *   --cpu-bind=none the proxy binds its ranks itself; a site's default
 *                   binding would hold them to the proxy's one CPU
 *   --mpi=none      the proxy needs none of Slurm's PMI
 * Without --exact the step has all of the job's CPUs on the node. */
static char **tree_srun_argv(const tn_run_setup_t *s, const char *host,
                             tn_run_buf_t *nodelist, char **words_p)
{
    static const char *const opts[] = {
        "--nodes=1", "--ntasks=1", "--input=0", "--unbuffered", "--overlap",
        "--cpu-bind=none", "--mpi=none",
    };
    size_t nopts = sizeof(opts) / sizeof(opts[0]);
    int    n;
    char **argv = tree_words(s, nopts + 3, words_p, &n);

    for (size_t i = 0; i < nopts; i++) {
        argv[n++] = (char *)opts[i];
    }
    tn_run_buf_printf(nodelist, "--nodelist=%s", host);
    tn_run_buf_append(nodelist, "", 1);
    argv[n++] = nodelist->data;
    argv[n++] = (char *)s->proxy;
    argv[n++] = "--proxy";
    argv[n]   = NULL;
    return argv;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Start the proxy of link l. */
static int tree_spawn(tn_run_job_t *job, tn_run_link_t *lk)
{
    const tn_run_setup_t *s = job->setup;
    int                   in[2], out[2], err[2];
    tn_run_buf_t          cmd  = { 0 };
    char                **argv;
    char                 *words = NULL;
    pid_t                 pid;

    if (pipe2(in, O_CLOEXEC) != 0) {
        goto err_in;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        goto err_out;
    }
    if (pipe2(err, O_CLOEXEC) != 0) {
        goto err_err;
    }
    if (s->flags & TN_RUN_SETUP_FORK) {
        argv    = tn_run_xmalloc(3 * sizeof(char *));
        argv[0] = (char *)s->proxy;
        argv[1] = "--proxy";
        argv[2] = NULL;
    } else if (s->flags & TN_RUN_SETUP_SLURM) {
        argv = tree_srun_argv(s, s->hosts[lk->host], &cmd, &words);
    } else {
        argv = tree_rsh_argv(s, s->hosts[lk->host], &cmd, &words);
    }
    pid = fork();
    if (pid == 0) {
        /* the remote shell is ours alone: the terminal's ^C goes to
         * tern-run, which ends the job in order */
        setpgid(0, 0);
        /* SIGTERM, not SIGKILL: a forked proxy then ends its ranks and
         * what they forked; ssh ends and its proxy sees end of file */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);
        sigaction(SIGPIPE, &job->orig_sigpipe, NULL);
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) {
            _exit(127);
        }
        execvp(argv[0], argv);
        dprintf(2, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(words);
    free(argv);
    tn_run_buf_free(&cmd);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        close(err[0]);
        goto err_in;
    }
    set_nonblock(in[1]);
    set_nonblock(out[0]);
    set_nonblock(err[0]);
    lk->pid = pid;
    lk->wfd = in[1];
    lk->rfd = out[0];
    lk->efd = err[0];
    tn_run_proto_setup(&lk->out, lk->host, s);
    tn_run_debug(1, "host %s: proxy started (pid %d)", s->hosts[lk->host],
                 (int)pid);
    return 0;

err_err:
    close(out[0]);
    close(out[1]);
err_out:
    close(in[0]);
    close(in[1]);
err_in:
    tn_run_log("cannot start a proxy for host %s: %m", s->hosts[lk->host]);
    return -1;
}

/* Mark the not yet exited ranks of link l as lost and say why once. */
static void tree_lost(tn_run_job_t *job, int l, const char *why)
{
    tn_run_link_t *lk  = &job->links[l];
    unsigned char *set = tn_run_xmalloc((size_t)job->nranks);
    tn_run_buf_t   ranks = { 0 };
    int            n = 0;

    if (lk->lost) {
        free(set);
        return;
    }
    lk->lost = 1;
    for (int r = 0; r < job->nranks; r++) {
        set[r] = tree_link_of[r] == l && !job->all[r].exited;
        n += set[r];
    }
    if (n > 0) {
        tn_run_ranges(&ranks, set, job->nranks, 64);
        if (!job->ending) {
            tn_run_log("%s host %s (%s %.*s): %s", lk->hello ? "lost" :
                       "cannot start on", job->setup->hosts[lk->host],
                       n == 1 ? "rank" : "ranks", (int)ranks.len, ranks.data,
                       why);
        }
        for (int r = 0; r < job->nranks; r++) {
            if (set[r]) {
                job->all[r].exited    = 1;
                job->all[r].lost      = 1;
                job->all[r].exit_how  = CLD_EXITED;
                job->all[r].exit_info = 0;
                lk->nexited++;
                tree_exited(job, r);
            }
        }
    }
    tn_run_buf_free(&ranks);
    free(set);
}

int tn_run_tree_start(tn_run_job_t *job)
{
    const tn_run_setup_t *s     = job->setup;
    int                   width = s->tree_width;
    int                   me;
    int                   first, last;
    int                   rc = 0;

    tree_shape(s);
    me = job->is_proxy ? tree_pos_of[job->host] : -1;
    first = (me + 1) * width;
    last  = first + width < tree_npos ? first + width : tree_npos;
    job->nlinks = last > first ? last - first : 0;
    job->links  = tn_run_xmalloc((size_t)(job->nlinks > 0 ? job->nlinks : 1) *
                                 sizeof(*job->links));
    memset(job->links, 0, (size_t)(job->nlinks > 0 ? job->nlinks : 1) *
                          sizeof(*job->links));
    tree_link_of = tn_run_xmalloc((size_t)job->nranks * sizeof(int));
    for (int l = 0; l < job->nlinks; l++) {
        tn_run_link_t *lk = &job->links[l];

        lk->host = tree_host_at[first + l];
        lk->pid  = -1;
        lk->wfd  = lk->rfd = lk->efd = -1;
    }
    job->nsub = job->nlocal;
    for (int r = 0; r < job->nranks; r++) {
        int h = s->host_of[r];
        int p = tree_pos_of[h];

        job->all[r].host = h;
        if (h == job->host || (p < 0 && !job->is_proxy)) {
            tree_link_of[r] = -1;
            continue;
        }
        while (p >= 0 && tree_parent(p, width) != me) {
            p = tree_parent(p, width);
        }
        tree_link_of[r] = p >= 0 ? p - first : -2;
        if (p >= 0) {
            job->links[p - first].nranks++;
            job->nsub++;
        }
    }
    for (int l = 0; l < job->nlinks; l++) {
        if (tree_spawn(job, &job->links[l]) != 0) {
            rc = -1;
        }
    }
    for (int l = 0; l < job->nlinks; l++) {
        if (job->links[l].pid < 0) {
            tree_lost(job, l, "the proxy could not be started");
        }
    }
    return rc;
}

/* ------------------------------------------------------------ link I/O */

static void tree_close(int *fd_p)
{
    if (*fd_p >= 0) {
        close(*fd_p);
        *fd_p = -1;
    }
}

/* The link's remote shell is gone for good: judge what is missing. */
static void tree_check_gone(tn_run_job_t *job, int l)
{
    tn_run_link_t *lk = &job->links[l];
    char           why[600];
    const char    *last = NULL;
    size_t         lastlen = 0;

    if (lk->rfd >= 0 || lk->efd >= 0 || lk->pid >= 0 ||
        lk->nexited >= lk->nranks) {
        return;
    }
    /* the last non-empty line of its stderr */
    for (size_t off = 0; off < lk->err.len;) {
        const char *line = lk->err.data + off;
        const char *nl   = memchr(line, '\n', lk->err.len - off);
        size_t      len  = nl != NULL ? (size_t)(nl - line) : lk->err.len - off;

        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ')) {
            len--;
        }
        if (len > 0) {
            last    = line;
            lastlen = len;
        }
        off += (size_t)(nl != NULL ? nl - line + 1 : (long)(lk->err.len - off));
    }
    if (WIFSIGNALED(lk->wstatus)) {
        snprintf(why, sizeof(why), "%s killed by signal %d (%s)%s%.*s",
                 lk->hello ? "its proxy link" : "the remote shell",
                 WTERMSIG(lk->wstatus), tn_run_signame(WTERMSIG(lk->wstatus)),
                 last != NULL ? ": " : "", (int)(lastlen > 300 ? 300 : lastlen),
                 last != NULL ? last : "");
    } else if (last != NULL) {
        snprintf(why, sizeof(why), "%.*s (exit status %d)",
                 (int)(lastlen > 300 ? 300 : lastlen), last,
                 WEXITSTATUS(lk->wstatus));
    } else {
        snprintf(why, sizeof(why), "%s exited with status %d",
                 lk->hello ? "its proxy" : "the remote shell",
                 WEXITSTATUS(lk->wstatus));
    }
    tree_lost(job, l, why);
}

/* Is rank one of link l's subtree? */
static int tree_rank_ok(const tn_run_job_t *job, int l, uint32_t rank)
{
    return rank < (uint32_t)job->nranks && tree_link_of[rank] == l;
}

/* A frame from child l; returns 0, or -1 for a frame that does not belong. */
static int tree_child_frame(tn_run_job_t *job, int l, const tn_run_frame_t *f,
                            const char *raw, size_t rawlen)
{
    tn_run_link_t   *lk = &job->links[l];
    tn_run_rstate_t *st;

    switch (f->type) {
    case TN_RUN_F_HELLO:
        lk->hello = 1;
        tn_run_debug(1, "host %s: proxy running on %s",
                     job->setup->hosts[lk->host], f->str);
        return 0;
    case TN_RUN_F_OUT:
        if (!tree_rank_ok(job, l, f->u[0])) {
            return -1;
        }
        if (job->is_proxy) {
            tree_up(job, raw, rawlen);
        } else {
            tn_run_emit(job, (int)f->u[0], f->u[1] == 2, f->data, f->len);
        }
        return 0;
    case TN_RUN_F_LOG:
        if (job->is_proxy) {
            tree_up(job, raw, rawlen);
        } else {
            size_t len = strlen(f->str);

            /* a proxy's whole line, in one write */
            char *line = tn_run_xmalloc(len + 2);
            memcpy(line, f->str, len);
            line[len] = '\n';
            (void)!tn_run_write_all(STDERR_FILENO, line, len + 1);
            free(line);
        }
        return 0;
    case TN_RUN_F_STDIN_ACK:
        if (job->is_proxy) {
            tree_up(job, raw, rawlen);
        } else {
            job->stdin_inflight -= f->u[0] < job->stdin_inflight ? f->u[0]
                                                                 : job->stdin_inflight;
        }
        return 0;
    case TN_RUN_F_REPORT:
        if (job->is_proxy) {
            tree_up(job, raw, rawlen);
        } else {
            (void)tn_run_write_all(STDERR_FILENO, f->str, strlen(f->str));
            if (job->report_waiting > 0) {
                job->report_waiting--;
            }
        }
        return 0;
    case TN_RUN_F_FENCE_ENTER:
        if (!job->fence_entered) {
            job->fence_entered = 1;
            if (job->is_proxy) {
                tree_up(job, raw, rawlen);
            } else {
                tn_run_judge_stuck(job);
            }
        }
        return 0;
    case TN_RUN_F_FENCE:
        if (lk->fenced || job->fence_up) {
            return -1;
        }
        lk->fenced = 1;
        job->fence_entered = 1;
        tn_run_buf_append(&job->fence_pairs, f->data, f->len);
        job->fence_npairs += f->npairs;
        tn_run_tree_fence(job);
        return 0;
    case TN_RUN_F_EXIT:
        if (!tree_rank_ok(job, l, f->u[0])) {
            return -1;
        }
        st = &job->all[f->u[0]];
        if (st->exited) {
            return 0;
        }
        st->exited     = 1;
        st->pid        = (int)f->u[1];
        st->exit_how   = (int)f->u[2];
        st->exit_info  = (int)f->u[3];
        st->contacted  = (f->u[4] & TN_RUN_EXIT_CONTACTED) != 0;
        st->inited     = (f->u[4] & TN_RUN_EXIT_INITED) != 0;
        st->finalized  = (f->u[4] & TN_RUN_EXIT_FINALIZED) != 0;
        st->in_barrier = (f->u[4] & TN_RUN_EXIT_IN_BARRIER) != 0;
        st->lost       = (f->u[4] & TN_RUN_EXIT_LOST) != 0;
        lk->nexited++;
        tree_exited(job, (int)f->u[0]);
        return 0;
    case TN_RUN_F_ABORT:
    case TN_RUN_F_PMIERR:
        if (!tree_rank_ok(job, l, f->u[0])) {
            return -1;
        }
        job->all[f->u[0]].pid = (int)f->u[1];
        if (job->is_proxy) {
            tree_up(job, raw, rawlen);
        } else if (f->type == TN_RUN_F_ABORT) {
            tn_run_judge_abort(job, (int)f->u[0], (int)f->u[2], (int)f->u[3]);
        } else {
            tn_run_judge_pmierr(job, (int)f->u[0], f->str);
        }
        return 0;
    default:
        return -1;                      /* a frame that goes down */
    }
}

static void tree_link_broken(tn_run_job_t *job, int l, const char *why)
{
    tn_run_link_t *lk = &job->links[l];

    tree_close(&lk->rfd);
    tree_close(&lk->wfd);
    if (lk->pid > 0) {
        kill(lk->pid, SIGKILL);
    }
    tree_lost(job, l, why);
}

static void tree_read_link(tn_run_job_t *job, int l)
{
    tn_run_link_t *lk = &job->links[l];
    ssize_t        n  = read(lk->rfd, tree_io, sizeof(tree_io));
    size_t         off = 0;

    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        tree_close(&lk->rfd);
        tree_close(&lk->wfd);
        tree_check_gone(job, l);
        return;
    }
    tn_run_buf_append(&lk->in, tree_io, (size_t)n);
    while (lk->rfd >= 0) {
        tn_run_frame_t f;
        const char    *why = NULL;
        long           got = tn_run_proto_decode(lk->in.data + off,
                                                 lk->in.len - off, &f, &why);
        char           msg[200];

        if (got == 0) {
            break;
        }
        if (got < 0 || tree_child_frame(job, l, &f, lk->in.data + off,
                                        (size_t)got) != 0) {
            snprintf(msg, sizeof(msg), "its proxy sent a bad frame (%s)",
                     got < 0 ? why : "a frame it may not send");
            tree_link_broken(job, l, msg);
            return;
        }
        off += (size_t)got;
    }
    tn_run_buf_consume(&lk->in, off);
}

static void tree_read_err(tn_run_job_t *job, int l)
{
    tn_run_link_t *lk = &job->links[l];
    ssize_t        n  = read(lk->efd, tree_io, sizeof(tree_io));

    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        tree_close(&lk->efd);
        tree_check_gone(job, l);
        return;
    }
    /* what a remote shell says once the proxy runs is news for the user */
    if (lk->hello && !job->ending) {
        tn_run_log("host %s: %.*s", job->setup->hosts[lk->host],
                   (int)(n > 0 && tree_io[n - 1] == '\n' ? n - 1 : n), tree_io);
    }
    tn_run_buf_append(&lk->err, tree_io, (size_t)n);
    if (lk->err.len > TREE_ERR_KEEP) {
        tn_run_buf_consume(&lk->err, lk->err.len - TREE_ERR_KEEP);
    }
}

static void tree_write(int *fd_p, tn_run_buf_t *out)
{
    while (*fd_p >= 0 && out->len > 0) {
        ssize_t n = write(*fd_p, out->data, out->len);

        if (n > 0) {
            tn_run_buf_consume(out, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            return;
        } else {
            tree_close(fd_p);           /* the reader is gone: EOF tells */
            out->len = 0;
        }
    }
}

/* ------------------------------------------------ a proxy's parent link */

static void tree_parent_gone(tn_run_job_t *job)
{
    tree_close(&job->parent_r);
    if (!job->ending) {
        /* the head is gone: nobody is left to decide; end here */
        tn_run_debug(1, "the parent link closed: ending this host's ranks");
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    }
}

static int tree_parent_frame(tn_run_job_t *job, const tn_run_frame_t *f,
                             const char *raw, size_t rawlen)
{
    switch (f->type) {
    case TN_RUN_F_FENCE_DONE:
        if (!job->fence_up) {
            return -1;
        }
        tn_pmi_srv_fence_apply(&job->pmi, f->data, f->len);
        tn_pmi_srv_fence_release(&job->pmi);
        tree_down(job, raw, rawlen);
        tree_fence_reset(job);
        return 0;
    case TN_RUN_F_SIGNAL:
        tn_run_proc_kill(job, (int)f->u[0]);
        tn_run_tree_signal(job, (int)f->u[0]);
        return 0;
    case TN_RUN_F_REPORT_ASK:
        tree_report_ask(job, raw, rawlen);
        return 0;
    case TN_RUN_F_STDIN:
        tree_stdin_down(job, f, raw, rawlen);
        return 0;
    case TN_RUN_F_END:
        tn_run_end(job, 1, (int)f->u[0], (int)f->u[1]);
        return 0;
    default:
        return -1;
    }
}

/* Serve the whole frames that wait in parent_in. */
static void tree_parse_parent(tn_run_job_t *job)
{
    size_t off = 0;

    while (job->parent_r >= 0) {
        tn_run_frame_t f;
        const char    *why = NULL;
        long           got = tn_run_proto_decode(job->parent_in.data + off,
                                                 job->parent_in.len - off, &f,
                                                 &why);

        if (got == 0) {
            break;
        }
        if (got < 0 || tree_parent_frame(job, &f, job->parent_in.data + off,
                                         (size_t)got) != 0) {
            tn_run_log("bad frame from the parent (%s): ending",
                       got < 0 ? why : "a frame it may not send");
            tree_parent_gone(job);
            return;
        }
        off += (size_t)got;
    }
    tn_run_buf_consume(&job->parent_in, off);
}

void tn_run_tree_pending(tn_run_job_t *job)
{
    if (job->parent_in.len > 0) {
        tree_parse_parent(job);
    }
}

static void tree_read_parent(tn_run_job_t *job)
{
    ssize_t n = read(job->parent_r, tree_io, sizeof(tree_io));

    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        tree_parent_gone(job);
        return;
    }
    tn_run_buf_append(&job->parent_in, tree_io, (size_t)n);
    tree_parse_parent(job);
}

/* ----------------------------------------------------------- the loop */

size_t tn_run_tree_maxfds(const tn_run_job_t *job)
{
    return 2 + 3 * (size_t)job->nlinks;
}

size_t tn_run_tree_pollfds(tn_run_job_t *job, struct pollfd *pfd, int *kind,
                           int *who)
{
    size_t n = 0;

#define ADD_FD(fd_, events_, kind_, who_)                                   \
    do {                                                                    \
        pfd[n].fd = (fd_); pfd[n].events = (events_); pfd[n].revents = 0;   \
        kind[n] = (kind_); who[n] = (who_); n++;                            \
    } while (0)
    /* write what is queued first; what does not fit waits for POLLOUT */
    tree_write(&job->parent_w, &job->parent_out);
    if (job->parent_r >= 0) {
        ADD_FD(job->parent_r, POLLIN, TN_RUN_FD_PARENT_R, -1);
    }
    if (job->parent_w >= 0 && job->parent_out.len > 0) {
        ADD_FD(job->parent_w, POLLOUT, TN_RUN_FD_PARENT_W, -1);
    }
    for (int l = 0; l < job->nlinks; l++) {
        tn_run_link_t *lk = &job->links[l];

        tree_write(&lk->wfd, &lk->out);
        if (lk->rfd >= 0) {
            ADD_FD(lk->rfd, POLLIN, TN_RUN_FD_LINK_R, l);
        }
        if (lk->wfd >= 0 && lk->out.len > 0) {
            ADD_FD(lk->wfd, POLLOUT, TN_RUN_FD_LINK_W, l);
        }
        if (lk->efd >= 0) {
            ADD_FD(lk->efd, POLLIN, TN_RUN_FD_LINK_E, l);
        }
    }
#undef ADD_FD
    return n;
}

void tn_run_tree_ready(tn_run_job_t *job, int kind, int who, short revents)
{
    switch (kind) {
    case TN_RUN_FD_PARENT_R:
        if (job->parent_r >= 0) {
            tree_read_parent(job);
        }
        break;
    case TN_RUN_FD_PARENT_W:
        tree_write(&job->parent_w, &job->parent_out);
        break;
    case TN_RUN_FD_LINK_R:
        if (job->links[who].rfd >= 0) {
            tree_read_link(job, who);
        }
        break;
    case TN_RUN_FD_LINK_W:
        tree_write(&job->links[who].wfd, &job->links[who].out);
        break;
    case TN_RUN_FD_LINK_E:
        if (job->links[who].efd >= 0) {
            tree_read_err(job, who);
        }
        break;
    default:
        break;
    }
    (void)revents;
}

void tn_run_tree_reap(tn_run_job_t *job)
{
    for (int l = 0; l < job->nlinks; l++) {
        tn_run_link_t *lk = &job->links[l];
        int            st;

        if (lk->pid > 0 && waitpid(lk->pid, &st, WNOHANG) == lk->pid) {
            lk->pid     = -1;
            lk->wstatus = st;
            tree_check_gone(job, l);
        }
    }
}

int tn_run_tree_open(const tn_run_job_t *job)
{
    for (int l = 0; l < job->nlinks; l++) {
        if (job->links[l].rfd >= 0 || job->links[l].efd >= 0) {
            return 1;
        }
    }
    return 0;
}

void tn_run_tree_fini(tn_run_job_t *job)
{
    for (int l = 0; l < job->nlinks; l++) {
        tn_run_link_t *lk = &job->links[l];

        tree_close(&lk->rfd);
        tree_close(&lk->wfd);
        tree_close(&lk->efd);
        if (lk->pid > 0) {
            kill(lk->pid, SIGKILL);
            waitpid(lk->pid, NULL, 0);
        }
        tn_run_buf_free(&lk->in);
        tn_run_buf_free(&lk->out);
        tn_run_buf_free(&lk->err);
    }
    free(job->links);
    job->links  = NULL;
    job->nlinks = 0;
    tn_run_buf_free(&job->fence_pairs);
    free(tree_host_at);
    free(tree_pos_of);
    free(tree_link_of);
    tree_host_at = tree_pos_of = tree_link_of = NULL;
    tree_proxy_job = NULL;
}

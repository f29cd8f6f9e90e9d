/* The head's decisions: which event ends the job, with which status and
 * which one line.
 *
 * Job end.  The first of these decides the exit status and is reported in
 * one line: a rank killed by a signal, a rank exiting non-zero, a rank
 * exiting 0 after PMI init without PMI finalize, a rank gone (before PMI
 * init, or after finalize) while others wait for it in a PMI fence, an
 * abort over PMI, a PMI protocol error or limit (pmi_srv.h), a host lost
 * (run_tree.c), the timeout, or a terminating signal to tern-run
 * (forwarded, not reported).  The ranks then get SIGTERM (or the forwarded
 * signal) and SIGKILL after a grace period, on every host.
 *
 * A job that ends well may still earn a warning: ranks that exited 0 without
 * ever writing to their PMI socket.  Tern's library (and MPICH's) always
 * speaks PMI under tern-run, so such a rank either is no MPI program or was
 * built for an MPI whose library does not speak PMI-1 (Open MPI's): each of
 * those ranks ran alone, as a singleton, and the job "succeeded". */
#include "run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

const char *tn_run_judge_who(const tn_run_job_t *job, int rank, char *buf,
                             size_t len)
{
    const tn_run_rstate_t *st = &job->all[rank];

    if (st->pid <= 0) {
        snprintf(buf, len, "rank %d (never started%s%s)", rank,
                 job->multi ? " on " : "", job->multi ? job->setup->hosts[st->host] : "");
    } else if (!job->multi || st->host == job->host) {
        snprintf(buf, len, "rank %d (pid %d)", rank, st->pid);
    } else {
        snprintf(buf, len, "rank %d (pid %d on %s)", rank, st->pid,
                 job->setup->hosts[st->host]);
    }
    return buf;
}

/* Is rank in the fence now?  A local rank's connection knows; for the
 * others, what their host said when they exited. */
static int judge_in_fence(const tn_run_job_t *job, int rank)
{
    int i = job->local_of != NULL ? job->local_of[rank] : rank;

    if (i >= 0) {
        return job->pmi.conns[i].in_barrier;
    }
    return job->all[rank].in_barrier;
}

void tn_run_judge_stuck(tn_run_job_t *job)
{
    char who[320];

    if (job->ending || (job->pmi.nbarrier == 0 && !job->fence_entered)) {
        return;
    }
    for (int r = 0; r < job->nranks; r++) {
        const tn_run_rstate_t *st = &job->all[r];

        if (!st->exited || st->lost || judge_in_fence(job, r)) {
            continue;
        }
        tn_run_judge_who(job, r, who, sizeof(who));
        if (!st->inited) {
            tn_run_log("%s exited before calling MPI_Init while other ranks "
                       "wait for it", who);
        } else if (st->finalized) {
            tn_run_log("%s exited after MPI_Finalize while other ranks wait "
                       "for it", who);
        } else {
            tn_run_log("%s exited without calling MPI_Finalize", who);
        }
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
        return;
    }
}

void tn_run_judge_exit(tn_run_job_t *job, int rank)
{
    const tn_run_rstate_t *st = &job->all[rank];
    char                   who[320];

    if (job->ending) {
        return;
    }
    tn_run_judge_who(job, rank, who, sizeof(who));
    if (st->lost) {
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);  /* said by run_tree */
    } else if (st->exit_how == CLD_KILLED && st->exit_info == SIGPIPE &&
               (job->stdout_dead || job->stderr_dead)) {
        /* like `prog | head`: the end of the reader ends the job quietly */
        tn_run_end(job, 128 + SIGPIPE, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (st->exit_how == CLD_KILLED || st->exit_how == CLD_DUMPED) {
        tn_run_log("%s killed by signal %d (%s)", who, st->exit_info,
                   tn_run_signame(st->exit_info));
        tn_run_end(job, 128 + st->exit_info, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (st->exit_info != 0) {
        tn_run_log("%s exited with status %d", who, st->exit_info);
        tn_run_end(job, st->exit_info, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else if (st->inited && !st->finalized) {
        tn_run_log("%s exited without calling MPI_Finalize", who);
        tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
    } else {
        tn_run_judge_stuck(job);
    }
}

void tn_run_judge_abort(tn_run_job_t *job, int rank, int code, int internal)
{
    if (job->ending) {
        return;
    }
    if (internal) {
        tn_run_log("rank %d ended the job after an error (exit code %d; its "
                   "message is above)", rank, code);
    } else {
        tn_run_log("rank %d called MPI_Abort (error code %d)", rank, code);
    }
    tn_run_end(job, code >= 1 && code <= 255 ? code : 1, SIGTERM,
               TN_RUN_GRACE_FAIL_MS);
}

void tn_run_judge_pmierr(tn_run_job_t *job, int rank, const char *msg)
{
    char who[320];

    if (job->ending) {
        return;
    }
    tn_run_log("%s: %s", tn_run_judge_who(job, rank, who, sizeof(who)), msg);
    tn_run_end(job, 1, SIGTERM, TN_RUN_GRACE_FAIL_MS);
}

/* The warning of the header comment, in two lines (what, then why and what
 * to do); -q and one-rank jobs (where a singleton is the whole job) go
 * without. */
void tn_run_judge_warn_no_pmi(const tn_run_job_t *job)
{
    unsigned char *silent;
    int            nsilent = 0;
    tn_run_buf_t   ranks   = { 0 };
    int            b       = 0;
    const char    *prog;
    const char    *path;

    if ((job->setup->flags & TN_RUN_SETUP_QUIET) || job->nranks < 2) {
        return;
    }
    silent = tn_run_xmalloc((size_t)job->nranks);
    for (int r = 0; r < job->nranks; r++) {
        const tn_run_rstate_t *st = &job->all[r];

        silent[r] = st->exited && !st->lost && st->exit_how == CLD_EXITED &&
                    st->exit_info == 0 && !st->contacted;
        if (silent[r] && nsilent++ == 0) {
            b = tn_run_setup_block_of(job->setup, r);
        }
    }
    prog = job->setup->blocks[b].argv[0];
    path = job->prog_paths != NULL && job->prog_paths[b] != NULL
           ? job->prog_paths[b] : prog;
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
                   "or hide it with -q", path);
    }
    tn_run_buf_free(&ranks);
    free(silent);
}

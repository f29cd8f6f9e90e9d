/* tern-run: the job as a whole, shared by the launcher's files.
 *
 *   run_main.c   set-up and tear-down: options, signals, kvsname, exit status
 *   run_opts.c   command line
 *   run_env.c    the environment each rank gets
 *   run_proc.c   starting ranks (fork/exec, process group, binding), reaping
 *   run_loop.c   the one poll() loop: output, PMI, signals, job end
 *   run_fwd.c    line forwarding of rank output (no I/O)
 *   run_stdin.c  rank 0's stdin
 *   pmi_srv.c    the PMI-1 server (no I/O), pmi_kvs.c its key-value space
 *   run_shm.c    the node's shared segment (a memfd the ranks inherit), and
 *                removal of /dev/shm files a job left
 *   run_status.c hang reports: the status segment the ranks publish their
 *                MPI call in; run_slot.c decodes a slot, run_ctl.c serves
 *                and asks `tern-run --status`
 *
 * Process model.  Rank 0 is the leader of a new process group and the other
 * ranks join it, so one kill(-pgid) reaches the ranks and anything they
 * fork.  tern-run observes rank 0's exit with WNOWAIT and reaps it only at the
 * very end: its zombie keeps the process-group id from being reused, so a
 * late kill(-pgid) can never hit an unrelated group. */
#ifndef TN_RUN_H
#define TN_RUN_H

#include "pmi_srv.h"
#include "run_fwd.h"
#include "run_opts.h"
#include "run_util.h"

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Grace between SIGTERM and SIGKILL when a rank failed, the job aborted or
 * timed out, and when tern-run itself got a terminating signal. */
#define TN_RUN_GRACE_FAIL_MS   1000
#define TN_RUN_GRACE_SIGNAL_MS 3000
/* After the last rank is gone, how long to wait for pipes still held open by
 * processes that left the process group. */
#define TN_RUN_DRAIN_MS        2000

typedef enum {
    TN_RUN_STDIN_INHERIT,   /* rank 0 reads tern-run's stdin directly */
    TN_RUN_STDIN_FORWARD,   /* stdin is our terminal: copied through a pipe */
    TN_RUN_STDIN_NULL       /* rank 0 gets /dev/null like the others */
} tn_run_stdin_t;

typedef struct {
    pid_t        pid;         /* -1 when never started */
    int          out_fd;      /* our ends of its stdout/stderr pipes and of */
    int          err_fd;      /* its PMI socket; -1 once closed */
    int          pmi_fd;
    tn_run_fwd_t out_fwd;
    tn_run_fwd_t err_fwd;
    int          cpu;         /* CPU it is bound to, or -1 */
    int          shm_fd;      /* its node's shared segment (not owned), or -1 */
    unsigned     exited : 1;  /* its exit has been observed */
    int          exit_how;    /* CLD_EXITED, CLD_KILLED or CLD_DUMPED */
    int          exit_info;   /* exit code or signal number */
} tn_run_rank_t;

typedef struct {
    const tn_run_opts_t *opts;
    int              nranks;
    tn_run_rank_t   *ranks;
    int              nexited;       /* ranks whose exit was observed */
    pid_t            pgid;          /* = ranks[0].pid; 0 before the start */
    char             kvsname[64];
    const char      *prog_path;     /* program resolved in PATH */
    tn_pmi_srv_t     pmi;
    int             *shm_fds;       /* one memfd per node (network namespace) */
    int              nshm;
    struct tn_run_status *status;   /* hang reports (run_status.h), or NULL */

    int              sig_fd;        /* signalfd for sig_mask */
    sigset_t         sig_mask;      /* signals tern-run takes via sig_fd */
    sigset_t         orig_mask;     /* mask the ranks start with */
    struct sigaction orig_sigpipe;  /* SIGPIPE disposition the ranks get */
    int              devnull_fd;

    tn_run_stdin_t   stdin_mode;
    int              stdin_pipe_r;  /* FORWARD: rank 0's end until started */
    int              stdin_pipe_w;  /* FORWARD: our end, -1 when closed */
    int              stdin_open;    /* FORWARD: still reading fd 0 */
    tn_run_buf_t     stdin_buf;     /* FORWARD: read, not yet written */

    int              stdout_dead;   /* our stdout/stderr reader went away */
    int              stderr_dead;

    int              ending;        /* the job's end has been decided */
    int              exit_status;   /* tern-run's exit status */
    int64_t          job_deadline;  /* timeout, or -1 */
    int64_t          kill_deadline; /* SIGKILL escalation, or -1 */
    int              killed;        /* SIGKILL was sent to the group */
    int64_t          drain_deadline;/* -1 until all ranks are gone */
} tn_run_job_t;

/* run_env.c: the environment of rank, as an array for execve().  The array
 * and its strings stay valid until tn_run_env_free(); the strings of the
 * base environment are shared by all ranks. */
void   tn_run_env_init(const tn_run_job_t *job);
char **tn_run_env_rank(const tn_run_job_t *job, int rank, int pmi_fd);
void   tn_run_env_free_rank(char **envp);
void   tn_run_env_fini(void);

/* run_proc.c */
/* Find opts->argv[0] like execvp() would.  Returns 0 and an allocated path,
 * or the exit status to give up with (127 not found, 126 not executable),
 * after saying why. */
int  tn_run_proc_resolve(const char *prog, char **path_p);
/* Start all ranks.  Returns 0, or -1 when some rank could not be started
 * (said why; the ones started run and must be ended by the caller). */
int  tn_run_proc_spawn(tn_run_job_t *job);
/* Collect the exits of ranks; calls on_exit for each newly exited rank. */
void tn_run_proc_reap(tn_run_job_t *job,
                      void (*on_exit)(tn_run_job_t *job, int rank));
/* Send sig to the whole job (the ranks' process group). */
void tn_run_proc_kill(tn_run_job_t *job, int sig);
/* Reap what is left (rank 0's zombie). */
void tn_run_proc_fini(tn_run_job_t *job);

/* run_stdin.c.  Stop reading the terminal while this much waits for rank 0. */
#define TN_RUN_STDIN_MAX 65536
/* Choose job->stdin_mode (and make the pipe for FORWARD).  Returns 0 or -1
 * after saying why. */
int  tn_run_stdin_setup(tn_run_job_t *job);
/* FORWARD: fd 0 is readable / the pipe is writable / stop forwarding. */
void tn_run_stdin_read(tn_run_job_t *job);
void tn_run_stdin_write(tn_run_job_t *job);
void tn_run_stdin_close(tn_run_job_t *job);

/* run_loop.c: run the job to its end; returns tern-run's exit status. */
int tn_run_loop(tn_run_job_t *job);

/* run_shm.c.  The shared segment of each node (ranks in one network
 * namespace) is an anonymous memfd made here and inherited by its ranks as
 * TERN_SHM_FD, so that it has no name in /dev/shm: nothing to leave behind
 * when anything is killed, nothing that shows the job id.  The library
 * sizes it (local rank 0) and maps it.  tn_run_shm_create sets
 * ranks[r].shm_fd (-1 where memfds are not available: the library then
 * makes a named segment); tn_run_shm_close drops tern-run's copies once the
 * ranks have theirs. */
void tn_run_shm_create(tn_run_job_t *job);
void tn_run_shm_close(tn_run_job_t *job);
/* Remove /dev/shm files whose name starts with "<kvsname>",
 * "tern-<kvsname>" or "tern-<hash of kvsname>-" (the library's named
 * segments, made under other launchers and when a job starts its
 * transports again). */
void tn_run_shm_cleanup(const char *kvsname);

#endif

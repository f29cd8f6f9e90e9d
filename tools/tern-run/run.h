/* tern-run: the job as a whole, shared by the launcher's files.
 *
 *   run_main.c   set-up and tear-down: options, signals, kvsname, exit status
 *   run_opts.c   command line (run_hosts.c: host lists and the rank map)
 *   run_env.c    the environment each rank gets
 *   run_proc.c   starting ranks (fork/exec, process group, binding), reaping
 *                (run_pty.c: the pseudo-terminal of each rank's stdout)
 *   run_loop.c   the one poll() loop: output, PMI, signals, job end
 *   run_judge.c  the head's decisions: which event ends the job, and how
 *   run_tree.c   multi-host jobs: proxies, their links and frames
 *                (run_proto.c: the frames, without I/O)
 *   run_proxy.c  the proxy's start: a SETUP frame on stdin becomes a job
 *   run_fwd.c    line forwarding of rank output (no I/O)
 *   run_ofile.c  --output-filename: the head's per-rank output files
 *   run_stdin.c  rank 0's stdin
 *   pmi_srv.c    the PMI-1 server (no I/O), pmi_kvs.c its key-value space
 *   run_shm.c    the node's shared segment (a memfd the ranks inherit), and
 *                removal of /dev/shm files a job left
 *   run_status.c hang reports: the status segment the ranks publish their
 *                MPI call in; run_slot.c decodes a slot, run_ctl.c serves
 *                and asks `tern-run --status`
 *
 * Every tern-run process is an agent for one host: it starts the ranks of
 * that host (job->local) and serves their PMI.  On one host that is all.
 * In a multi-host job the agents form a tree (run_proto.h): the head, the
 * tern-run the user started, decides the job's end from what every rank
 * did (job->all); proxies pass their ranks' events up and the head's
 * decisions down.
 *
 * Process model.  Local rank 0 is the leader of a new process group and the
 * other local ranks join it, so one kill(-pgid) reaches the ranks and
 * anything they fork.  tern-run observes that leader's exit with WNOWAIT and
 * reaps it only at the very end: its zombie keeps the process-group id from
 * being reused, so a late kill(-pgid) can never hit an unrelated group. */
#ifndef TN_RUN_H
#define TN_RUN_H

#include "pmi_srv.h"
#include "run_fwd.h"
#include "run_proto.h"
#include "run_opts.h"
#include "run_util.h"

#include <poll.h>
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
/* On the timeout, how long to wait for the other hosts' hang reports. */
#define TN_RUN_REPORT_WAIT_MS  2000
/* Most hardware threads of one core that a rank is bound to. */
#define TN_RUN_BIND_MAX        8

/* Kinds of poll() entries of the loop. */
enum {
    TN_RUN_FD_SIG, TN_RUN_FD_STDIN, TN_RUN_FD_STDIN_PIPE, TN_RUN_FD_OUT,
    TN_RUN_FD_ERR, TN_RUN_FD_PMI, TN_RUN_FD_PARENT_R, TN_RUN_FD_PARENT_W,
    TN_RUN_FD_LINK_R, TN_RUN_FD_LINK_W, TN_RUN_FD_LINK_E
};

typedef enum {
    TN_RUN_STDIN_INHERIT,   /* rank 0 reads tern-run's stdin directly */
    TN_RUN_STDIN_FORWARD,   /* stdin is our terminal: copied through a pipe */
    TN_RUN_STDIN_NULL,      /* rank 0 gets /dev/null like the others */
    TN_RUN_STDIN_TREE       /* rank 0 is on another host: the head reads
                               stdin and sends it there (run_tree.c); that
                               host's proxy feeds it to a pipe (FORWARD) */
} tn_run_stdin_t;

/* A rank started by this agent. */
typedef struct {
    int          rank;        /* in the job */
    int          block;       /* its MPMD block, = its MPI_APPNUM */
    pid_t        pid;         /* -1 when never started */
    int          out_fd;      /* our ends of its stdout pty (or pipe), its */
    int          err_fd;      /* stderr pipe and its PMI socket; -1 once */
    int          pmi_fd;      /* closed */
    tn_run_fwd_t out_fwd;
    tn_run_fwd_t err_fwd;
    int          ncpus;       /* CPUs it is bound to (0: not bound) */
    int          cpus[TN_RUN_BIND_MAX];
    int          shm_fd;      /* its node's shared segment (not owned), or -1 */
    unsigned     out_pty : 1; /* out_fd is a pty master (run_pty.c) */
    unsigned     exited : 1;  /* its exit has been observed */
    unsigned     abort_seen : 1; /* its PMI abort / protocol error was */
    unsigned     error_seen : 1; /* passed on */
    int          exit_how;    /* CLD_EXITED, CLD_KILLED or CLD_DUMPED */
    int          exit_info;   /* exit code or signal number */
} tn_run_rank_t;

/* What the head knows of each rank of the job (a proxy: of its subtree). */
typedef struct {
    int      pid;             /* 0 until known */
    int      host;            /* index in setup.hosts */
    unsigned exited     : 1;
    unsigned lost       : 1;  /* its host was lost; exit unknown */
    unsigned contacted  : 1;  /* PMI state at exit (TN_RUN_EXIT_*) */
    unsigned inited     : 1;
    unsigned finalized  : 1;
    unsigned in_barrier : 1;
    int      exit_how;        /* CLD_EXITED, CLD_KILLED or CLD_DUMPED */
    int      exit_info;
} tn_run_rstate_t;

/* The link to a child proxy: its remote shell's stdin, stdout, stderr. */
typedef struct {
    int          host;        /* the child's host */
    pid_t        pid;         /* the remote shell (or forked proxy); -1 reaped */
    int          wfd, rfd, efd;/* -1 once closed */
    tn_run_buf_t in;          /* frames read, not yet whole */
    tn_run_buf_t out;         /* frames to write */
    tn_run_buf_t err;         /* stderr, for the message when it fails */
    int          nranks;      /* ranks of its subtree */
    int          nexited;     /* their exits seen */
    unsigned     hello   : 1; /* the proxy runs */
    unsigned     fenced  : 1; /* its subtree is in the current fence */
    unsigned     lost    : 1; /* judged lost */
    int          wstatus;     /* the remote shell's wait status once reaped */
} tn_run_link_t;

typedef struct {
    const tn_run_opts_t *opts;      /* the head's; NULL in a proxy */
    const tn_run_setup_t *setup;    /* the job (head: built from opts) */
    int              host;          /* our host index (head: -1 when it
                                       runs no ranks) */
    int              multi;         /* a multi-host job (hosts were given) */
    int              nranks;        /* ranks of the job */
    int              nlocal;        /* ranks started here */
    tn_run_rank_t   *ranks;         /* [nlocal] */
    int              nexited;       /* local ranks whose exit was observed */
    int             *local_of;      /* [nranks]: index in ranks[], or -1 */
    tn_run_rstate_t *all;           /* [nranks] */
    int              nall_exited;   /* ranks of all[] known to have exited */
    int              nsub;          /* ranks of our subtree (ours included) */
    pid_t            pgid;          /* = ranks[0].pid; 0 before the start */
    char             kvsname[64];
    char           **prog_paths;    /* per block: program resolved in PATH */
    tn_pmi_srv_t     pmi;

    int              is_proxy;
    int              parent_r;      /* proxy: frames from the parent (stdin) */
    int              parent_w;      /* and to it (stdout); -1 closed */
    tn_run_buf_t     parent_in;
    tn_run_buf_t     parent_out;
    int              nlinks;
    tn_run_link_t   *links;         /* children */
    tn_run_buf_t     fence_pairs;   /* children's puts in the current fence */
    uint32_t         fence_npairs;
    int              fence_entered; /* proxy: FENCE_ENTER sent; head: some
                                       rank is in the current fence */
    int              fence_up;      /* proxy: FENCE sent, waiting for DONE */
    int             *shm_fds;       /* one memfd per node (network namespace) */
    int              nshm;
    struct tn_run_status *status;   /* hang reports (run_status.h), or NULL */
    struct tn_run_ofile  *ofile;    /* head: --output-filename files, or NULL */

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
    size_t           stdin_inflight;/* TREE: sent, not yet acknowledged */

    int              stdout_dead;   /* our stdout/stderr reader went away */
    int              stderr_dead;

    int              ending;        /* the job's end has been decided */
    int              exit_status;   /* tern-run's exit status */
    int64_t          job_deadline;  /* timeout, or -1 */
    int64_t          kill_deadline; /* SIGKILL escalation, or -1 */
    int              killed;        /* SIGKILL was sent to the group */
    int64_t          drain_deadline;/* -1 until all ranks are gone */
    int64_t          report_deadline;/* timed out: end at the latest then */
    int              report_waiting;/* hosts whose hang report is awaited */
} tn_run_job_t;

/* run_env.c: the environment of local rank i, as an array for execve().  The array
 * and its strings stay valid until tn_run_env_free(); the strings of the
 * base environment are shared by all ranks. */
void   tn_run_env_init(const tn_run_job_t *job);
/* The head: the whole base environment of block b (owned strings). */
char **tn_run_env_block(const tn_run_opts_t *opts, int b, int *n_p);
void   tn_run_env_free_block(char **vec, int n);
char **tn_run_env_rank(const tn_run_job_t *job, int i, int pmi_fd);
void   tn_run_env_free_rank(char **envp);
void   tn_run_env_fini(void);

/* run_proc.c */
/* Find a program like execvp() would.  Returns 0 and an allocated path,
 * or the exit status to give up with (127 not found, 126 not executable),
 * after saying why. */
int  tn_run_proc_resolve(const char *prog, char **path_p);
/* Start all ranks.  Returns 0, or -1 when some rank could not be started
 * (said why; the ones started run and must be ended by the caller). */
int  tn_run_proc_spawn(tn_run_job_t *job);
/* Collect the exits of ranks; calls on_exit for each newly exited rank. */
void tn_run_proc_reap(tn_run_job_t *job,
                      void (*on_exit)(tn_run_job_t *job, int i));
/* Send sig to the whole job (the ranks' process group). */
void tn_run_proc_kill(tn_run_job_t *job, int sig);
/* Reap what is left (rank 0's zombie). */
void tn_run_proc_fini(tn_run_job_t *job);

/* run_pty.c.  A pseudo-terminal for a rank's stdout: the rank's C library
 * then line-buffers stdout as on a terminal, so that every line it printed
 * has reached tern-run when it aborts, crashes or is killed (through a
 * pipe, stdio keeps up to a few KiB that die with the process).  The pty
 * is raw (no "\n" -> "\r\n", no echo, no signal characters), never the
 * rank's controlling terminal (so no SIGHUP, no job control), and has
 * tern-run's own terminal size when its stdout is a terminal.  Returns 0
 * with both ends open (close-on-exec), or -1 with errno when no pty can be
 * had (/proc/sys/kernel/pty/max reached, no devpts): the caller uses a
 * pipe.  The master gives EIO, not 0, once every holder of the slave has
 * closed it and its data are read. */
int  tn_run_pty_open(int *master_p, int *slave_p);

/* run_stdin.c.  Stop reading the terminal while this much waits for rank 0. */
#define TN_RUN_STDIN_MAX 65536
/* Choose job->stdin_mode (and make the pipe for FORWARD).  Returns 0 or -1
 * after saying why. */
int  tn_run_stdin_setup(tn_run_job_t *job);
/* FORWARD: fd 0 is readable / the pipe is writable / stop forwarding. */
void tn_run_stdin_read(tn_run_job_t *job);
void tn_run_stdin_write(tn_run_job_t *job);
void tn_run_stdin_close(tn_run_job_t *job);
/* A proxy whose host runs rank 0: the pipe that will be its stdin, fed by
 * STDIN frames.  Returns 0 or -1 after saying why. */
int  tn_run_stdin_pipe(tn_run_job_t *job);

/* run_loop.c: run the job to its end; returns tern-run's exit status. */
int tn_run_loop(tn_run_job_t *job);
/* The head: write rank's output lines (whole lines, already prefixed) to
 * our stdout (is_err: stderr) and to its --output-filename file.  When our
 * stdout or stderr reader went away, stop showing that stream, and make
 * the local ranks writing to it get SIGPIPE as without a launcher. */
void tn_run_emit(tn_run_job_t *job, int rank, int is_err, const char *data,
                 size_t len);
/* End the job: sig to the local ranks and down the tree now, SIGKILL after
 * grace_ms; status is tern-run's exit status (head). */
void tn_run_end(tn_run_job_t *job, int status, int sig, int grace_ms);

/* Spawned jobs (run_spawn.c): carry out a spawn request the PMI server
 * collected; reap nested launchers (SIGCHLD); forward a signal to them;
 * at the end wait for them (a failed one makes status non-zero; a failed
 * job's status SIGTERMs them first), returning the status to exit with;
 * a nested launcher puts the preput pairs its parent sent (before its
 * ranks start). */
void tn_run_spawn_serve(tn_run_job_t *job);
void tn_run_spawn_reap(tn_run_job_t *job);
void tn_run_spawn_signal(int sig);
int  tn_run_spawn_wait(tn_run_job_t *job, int status);
void tn_run_spawn_preput(tn_run_job_t *job);

/* run_judge.c: the head's decisions (a proxy sends the events up instead).
 * job->all[rank] holds what is known of the rank. */
void tn_run_judge_exit(tn_run_job_t *job, int rank);
void tn_run_judge_abort(tn_run_job_t *job, int rank, int code, int internal);
void tn_run_judge_pmierr(tn_run_job_t *job, int rank, const char *msg);
/* A rank gone while others wait for it in a fence. */
void tn_run_judge_stuck(tn_run_job_t *job);
/* The warning about ranks that never spoke PMI, at a good end. */
void tn_run_judge_warn_no_pmi(const tn_run_job_t *job);
/* "rank 3 (pid 123)" or "rank 3 (pid 123 on h1)" into buf. */
const char *tn_run_judge_who(const tn_run_job_t *job, int rank, char *buf,
                             size_t len);

/* run_tree.c: multi-host jobs. */
/* Start the child proxies of this agent.  Returns 0, or -1 when one could
 * not be started (said why; its ranks count as lost). */
int  tn_run_tree_start(tn_run_job_t *job);
/* Events of local ranks, sent up by a proxy or judged by the head. */
void tn_run_tree_exit(tn_run_job_t *job, int i);
void tn_run_tree_abort(tn_run_job_t *job, int i, int code, int internal);
void tn_run_tree_pmierr(tn_run_job_t *job, int i, const char *msg);
void tn_run_tree_output(tn_run_job_t *job, int i, int is_err,
                        const char *data, size_t len);
/* This process is job's proxy: its messages go up from now on. */
void tn_run_tree_proxy(tn_run_job_t *job);
/* A proxy's own message, sent up as a LOG frame; 0 when sent. */
int  tn_run_tree_log(const char *line, size_t len);
/* The local barrier or a child changed the fence: move it on. */
void tn_run_tree_fence(tn_run_job_t *job);
/* A hang report (why: "SIGUSR1", "at the timeout"): this host's part now,
 * the other hosts' as their proxies answer (job->report_waiting counts
 * them down).  always: even when no rank publishes. */
void tn_run_tree_report(tn_run_job_t *job, const char *why, int always);
/* TREE: read stdin and send it towards rank 0's host. */
void tn_run_tree_stdin_read(tn_run_job_t *job);
/* A proxy wrote (or dropped) n bytes of rank 0's stdin. */
void tn_run_tree_stdin_ack(tn_run_job_t *job, size_t n);
/* Send sig, or the job's end, down the tree. */
void tn_run_tree_signal(tn_run_job_t *job, int sig);
void tn_run_tree_end(tn_run_job_t *job, int sig, int grace_ms);
/* The poll() entries of the links, and what poll() said of them. */
size_t tn_run_tree_pollfds(tn_run_job_t *job, struct pollfd *pfd, int *kind,
                           int *who);
void tn_run_tree_ready(tn_run_job_t *job, int kind, int who, short revents);
/* Serve frames from the parent read before the loop started (with SETUP). */
void tn_run_tree_pending(tn_run_job_t *job);
/* Reap the remote shells that exited. */
void tn_run_tree_reap(tn_run_job_t *job);
/* Links still open (the loop waits for them before it ends). */
int  tn_run_tree_open(const tn_run_job_t *job);
/* Most poll() entries the tree may add. */
size_t tn_run_tree_maxfds(const tn_run_job_t *job);
void tn_run_tree_fini(tn_run_job_t *job);

/* run_main.c */
void tn_run_job_init(tn_run_job_t *job);
/* Take SIGCHLD and the terminating signals through job->sig_fd. */
int  tn_run_signals(tn_run_job_t *job);
/* Raise the open-file limit for n descriptors' owners. */
int  tn_run_nofile(int n);
/* Run this host's part of job->setup (job->host, is_proxy and, for a
 * proxy, the parent link set); returns the exit status. */
int  tn_run_agent(tn_run_job_t *job);

/* run_proxy.c: tern-run --proxy: read the SETUP frame from stdin and run
 * this host's part of the job.  Returns the exit status. */
int tn_run_proxy_main(void);

/* run_ofile.c: --output-filename DIR[:nocopy,nojobid], as in Open MPI 4.
 * The head writes the lines of each rank (from every host: OUT frames
 * carry the rank) to DIR/1/rank.N/stdout and DIR/1/rank.N/stderr, N
 * zero-padded to the number of digits of the job's size, as they are
 * shown (with the prefixes asked for); "nojobid" leaves out the "1/"
 * level, "nocopy" shows nothing on tern-run's stdout and stderr.  open
 * makes the directories and truncates every file before any rank starts;
 * returns 0 (nothing to do without the option), or -1 after saying why.
 * write returns whether the lines are also to be shown.  A file that
 * cannot be written is said once and then left. */
int  tn_run_ofile_open(tn_run_job_t *job);
int  tn_run_ofile_write(tn_run_job_t *job, int rank, int is_err,
                        const char *data, size_t len);
void tn_run_ofile_close(tn_run_job_t *job);

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
/* Remove the stats segments (include/tern/stats.h) of the job's ranks that
 * did not exit through MPI, in /dev/shm and TERN_MONITOR_DIR, unless
 * TERN_MONITOR_LINGER leaves them to the node agent. */
void tn_run_stats_cleanup(const char *kvsname);

/* --monitor (run_monitor.c): TERN_MONITOR=1 for the ranks and, with a
 * server, TERN_MONITOR_SERVER and TERN_MONITOR_LINGER; then on each host
 * that runs ranks (once per machine under --launcher fork) a node agent,
 * unless one serves the node already.  Failures are warned about; the job
 * runs on. */
void tn_run_monitor_env(const tn_run_opts_t *opts);
void tn_run_monitor_start(tn_run_job_t *job);
/* The value of name in the ranks' environment (block 0), or NULL. */
const char *tn_run_env_get(const char *name);

#endif

/* Hang reports: where each rank is.  The host's status segment
 * (include/tern/status.h) is made here before the ranks start; the ranks
 * publish their current MPI call in it and, when asked, their pending
 * requests.  A report is printed on --timeout (before the ranks are
 * killed), on SIGUSR1, and sent to `tern-run --status` (run_ctl.c).
 *
 *   rank 0 (pid 812 on node1): in MPI_Recv(comm=MPI_COMM_WORLD, source=2,
 *       tag=7, count=1 x MPI_INT (4 B)) for 12.3 s
 *     pending recv: source=2 tag=7 count=1 (4 B, 0 B in) comm=MPI_COMM_WORLD
 *   rank 1 (pid 813 on node1): not in an MPI call (computing) for 12.3 s;
 *       last call MPI_Send(...)
 *
 * Asking.  The launcher bumps each rank's ask word; a rank waiting inside
 * MPI answers within its sleep time (at most 200 ms); the report waits up
 * to TN_RUN_STATUS_ANSWER_MS for ranks inside a call and otherwise prints
 * what their call line says, without the request list.
 *
 * Threads.  The ctl thread (run_ctl.c) advances the segment's clock and
 * serves --status while the main thread runs the job; reports are taken
 * under one mutex.  What the ranks wrote is hostile: the slot is copied
 * and decoded (run_slot.h, no I/O, fuzzed by tests/fuzz/fuzz_status.c)
 * before anything is printed from it.
 *
 * Later: with one proxy per host, each proxy owns its host's segment and
 * sends its part of the report to the head. */
#ifndef TN_RUN_STATUS_H
#define TN_RUN_STATUS_H

#include "run.h"
#include "run_slot.h"

#define TN_RUN_STATUS_TICK_MS   10    /* the segment clock's period */

typedef struct tn_run_status tn_run_status_t;

/* Make the segment for the job's ranks (job->status; NULL when memfds or
 * mmap are not available: no reports then, said at -v). */
void tn_run_status_create(tn_run_job_t *job);
/* The descriptor the ranks inherit (TERN_STATUS_FD), -1 when none. */
int  tn_run_status_fd(const tn_run_job_t *job);
/* The ranks are started: close our descriptor, note their pids, start the
 * ctl thread (clock and --status socket). */
void tn_run_status_started(tn_run_job_t *job);
/* Rank's exit was observed (main thread). */
void tn_run_status_exited(tn_run_job_t *job, int rank);
/* Print a report to stderr, headed "tern-run: where the ranks are (why)";
 * nothing when no rank publishes (not Tern programs) unless always. */
void tn_run_status_print(tn_run_job_t *job, const char *why, int always);
/* Stop the thread, remove the socket, unmap. */
void tn_run_status_destroy(tn_run_job_t *job);

/* For run_ctl.c: advance the clock; build a report (any thread). */
void tn_run_status_tick(tn_run_status_t *st);
void tn_run_status_report(tn_run_status_t *st, const char *prefix, tn_run_buf_t *out);
/* One line about the job: "pid P: N ranks of PROG, running T s". */
void tn_run_status_summary(tn_run_status_t *st, tn_run_buf_t *out);

#endif

/* The rank's stats segment (include/tern/stats.h, docs/monitor.md): made at
 * MPI_Init when TERN_MONITOR is on, once the rank knows who it is and
 * before the transports start (their counters live in it), and removed at
 * exit unless TERN_MONITOR_LINGER is on.  Failures are warned about and
 * leave publication off; the job runs on. */
#ifndef TN_RUNTIME_MONITOR_H
#define TN_RUNTIME_MONITOR_H

void tn_rt_monitor_open(void);
/* MPI_THREAD_MULTIPLE was granted: calls counts may lose updates. */
void tn_rt_monitor_thread_multiple(int multiple);
/* MPI_Finalize is done: the values are final. */
void tn_rt_monitor_finalized(void);
/* The segment's file, NULL when not publishing. */
const char *tn_rt_monitor_path(void);

#endif

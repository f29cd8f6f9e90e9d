/* Finding the ranks of this node: the stats segments in a directory
 * (include/tern/stats.h), each read and decoded, with whether its process
 * is still alive, and its current call from wherever the rank publishes it.
 *
 * A root reader sees every user's segments; anyone else sees its own (the
 * files are 0600).  A file whose name says another owner than the file
 * has is skipped, so a user cannot pass a segment off as someone else's. */
#ifndef TN_MON_SCAN_H
#define TN_MON_SCAN_H

#include <stdint.h>
#include "mon_seg.h"

typedef enum {
    TN_MON_RANK_RUNNING = 0,    /* alive, between MPI_Init and MPI_Finalize */
    TN_MON_RANK_FINALIZED,      /* alive, MPI_Finalize returned */
    TN_MON_RANK_EXITED,         /* exited normally (a lingering segment) */
    TN_MON_RANK_DEAD,           /* gone without exiting through MPI */
} tn_mon_rank_state_t;

typedef struct {
    char                path[512];
    uint32_t            uid;        /* the file's owner */
    void               *buf;        /* the copy seg decodes */
    tn_mon_seg_t        seg;
    tn_mon_rank_state_t state;
    int                 in_call;    /* inside call.call now */
    tern_status_call_t  call;       /* its current or last published call */
    int                 has_call;
    int64_t             call_ms;    /* how long it has been in it, by the
                                     * launcher's clock; -1: unknown */
} tn_mon_rank_t;

typedef struct {
    tn_mon_rank_t *ranks;
    int            n;
    int            skipped;         /* files that did not decode */
} tn_mon_scan_t;

/* Read every segment of dir into scan (freed by tn_mon_scan_free).  -1
 * when dir cannot be read. */
int tn_mon_scan(const char *dir, tn_mon_scan_t *scan);
void tn_mon_scan_free(tn_mon_scan_t *scan);

/* Is pid alive and the process that started at pid_start (0: unknown)? */
int tn_mon_pid_alive(int pid, uint64_t pid_start);

/* The name of published call id (the generated table), or NULL when the
 * rank's table is another one. */
const char *tn_mon_call_name(const tn_mon_seg_t *seg, uint32_t id);

#endif

/* The loader's job-wide tables (trace_load.h): names of MPI functions and
 * algorithms unified over the ranks' files, and ranks' communicator
 * definitions unified into job communicators.  Private to trace_load.c. */
#ifndef TT_TRACE_UNIFY_H
#define TT_TRACE_UNIFY_H

#include <stdint.h>

#include "trace_load.h"

#define TL_MAX_JOB_NAMES 65535u

/* The index of name in the job's call (algos = 0) or algorithm names,
 * added if new.  0, or -1 with j->err (out of memory, too many names). */
int tl_name_index(tl_job_t *j, int algos, const char *name, uint16_t *idx_p);

/* The job communicator of a definition read from rank `rank`'s trace
 * (world ranks checked against the job's size here), and the group that
 * rank is in on an intercommunicator (*side_p).  0, or -1 with j->err. */
int tl_comm_unify(tl_job_t *j, const tt_comm_t *c, uint32_t rank, uint32_t *comm_p,
                  unsigned *side_p);

/* Free the tables (names, communicators and their keys). */
void tl_unify_free(tl_job_t *j);

#endif

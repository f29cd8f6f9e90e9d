/* A Slurm allocation's hosts, from the strings Slurm puts in a job's
 * environment, without I/O (run_opts.c reads the environment).
 *
 *   SLURM_JOB_NODELIST    a hostlist expression: comma-separated entries,
 *                         each literal text and bracket groups of ranges,
 *                         "h[0-3,7],gpu[01-02],login".  A range "lo-hi"
 *                         or a single number; numbers keep the width of
 *                         lo's digits ("[08-10]" is 08 09 10, "[8-10]" is
 *                         8 9 10).  Several groups in one entry expand as
 *                         their product, the first group outermost
 *                         ("a[1-2]b[3-4]" is a1b3 a1b4 a2b3 a2b4), as
 *                         Slurm does.  Empty entries are skipped.
 *   SLURM_TASKS_PER_NODE  counts in node order: comma-separated "N" or
 *   (SLURM_JOB_CPUS_PER_NODE) "N(xM)" (M nodes of N each), "2(x3),1".
 *
 * Both come from the environment: hostile until parsed.  Expansion is
 * bounded before anything is allocated: at most TN_RUN_HOSTS_MAX names
 * (a range of a billion nodes is an error, not an allocation), numbers of
 * at most 9 digits, counts from 1 to TN_RUN_HOST_SLOTS_MAX.  A name must
 * still pass tn_run_hosts_add's check.  Errors are a message in err that
 * quotes (a bounded piece of) the expression and says what was wanted. */
#ifndef TN_RUN_SLURM_H
#define TN_RUN_SLURM_H

#include "run_hosts.h"

#include <stddef.h>

/* Expand a hostlist expression: the names, each ended by a NUL, appended
 * to names, and their number in *n_p.  Returns 0, or -1 with a message in
 * err (names and *n_p are then unspecified; free names all the same). */
int tn_run_slurm_nodelist(const char *expr, tn_run_buf_t *names, int *n_p,
                          char *err, size_t errlen);

/* Expand a per-node count list into *counts_p (allocated, the caller
 * frees) of *n_p entries.  Returns 0, or -1 with a message in err (nothing
 * allocated). */
int tn_run_slurm_counts(const char *expr, int **counts_p, int *n_p, char *err,
                        size_t errlen);

/* Add the nodes of nodelist to hl, each with its slots from counts (the
 * same number of entries).  what names the two variables in messages
 * ("SLURM_JOB_NODELIST and SLURM_TASKS_PER_NODE").  Returns 0, or -1 with a
 * message in err. */
int tn_run_slurm_hosts(tn_run_hostlist_t *hl, const char *nodelist,
                       const char *counts, char *err, size_t errlen);

#endif

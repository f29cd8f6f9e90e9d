/* tern-coll-plan's --counts and --neighbors (plan_main.c): the blocks of
 * a vector collective, and the neighbours and blocks of a neighbourhood
 * collective, as whitespace-separated decimal numbers.  Their one decode
 * step, fuzzed by fuzz_collplan. */
#ifndef TN_PLAN_COUNTS_H
#define TN_PLAN_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define PL_COUNT_MAX ((int64_t)1 << 40)   /* bytes in one block, at most */
#define PL_NBR_MAX   ((int64_t)1 << 20)   /* a rank's in- or out-degree, at most */

/* Exactly want numbers, each 0 .. PL_COUNT_MAX, separated and surrounded
 * by blanks (space, tab, CR, LF) only, from buf[0..len) (no NUL needed)
 * into out[0..want).  0, or -1 with *why set. */
int pl_counts_parse(const char *buf, size_t len, size_t want, int64_t *out, const char **why);

/* --neighbors: for each of the n ranks in order,
 *     indegree outdegree sources[indegree] destinations[outdegree]
 *     sent[outdegree] received[indegree]
 * (neighbours are ranks 0 .. n-1 other than the rank itself, one may
 * appear several times; bytes 0 .. PL_COUNT_MAX), blanks as above.  Rank r's numbers start at
 * v[first[r]]; first[n] is their end. */
typedef struct {
    int64_t *v;
    size_t  *first;           /* [n + 1] */
} pl_nbrs_t;

/* 0 with nb's arrays malloc'ed (the caller frees them), or -1 with *why
 * set and nothing held. */
int pl_nbrs_parse(const char *buf, size_t len, int n, pl_nbrs_t *nb, const char **why);

#endif

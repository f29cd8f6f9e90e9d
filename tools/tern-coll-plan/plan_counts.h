/* tern-coll-plan's --counts (plan_main.c): the blocks of a vector
 * collective, whitespace-separated decimal byte counts.  Its one decode
 * step, fuzzed by fuzz_collplan. */
#ifndef TN_PLAN_COUNTS_H
#define TN_PLAN_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define PL_COUNT_MAX ((int64_t)1 << 40)   /* bytes in one block, at most */

/* Exactly want numbers, each 0 .. PL_COUNT_MAX, separated and surrounded
 * by blanks (space, tab, CR, LF) only, from buf[0..len) (no NUL needed)
 * into out[0..want).  0, or -1 with *why set. */
int pl_counts_parse(const char *buf, size_t len, size_t want, int64_t *out, const char **why);

#endif

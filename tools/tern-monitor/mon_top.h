/* tern-monitor top and dump (docs/monitor.md). */
#ifndef TN_MON_TOP_H
#define TN_MON_TOP_H

#include <stdio.h>

/* Every segment of dir as lines: "rank key=value ...", then "ctr <job>
 * <rank> <name>[<element>] <value>" for each nonzero process counter and
 * "peer <job> <rank> <peer|node<i>|other> <name>[<element>] <value>" for
 * each nonzero peer counter.  0, or 1 when dir cannot be read. */
int tn_mon_dump(FILE *out, const char *dir);

/* Redraw the jobs of dir every interval seconds, frames times (0: until
 * interrupted). */
int tn_mon_top(FILE *out, const char *dir, double interval, int frames);

#endif

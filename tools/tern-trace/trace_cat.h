/* tern-trace cat (docs/trace.md). */
#ifndef TT_TRACE_CAT_H
#define TT_TRACE_CAT_H

#include <stdio.h>
#include "trace_read.h"

/* Print the trace at path on o; clocks: the CLOCK records too.  0, or -1
 * with err set (what was decoded before the error is printed). */
int tc_cat(FILE *o, const char *path, int clocks, char *err, size_t errlen);

#endif

/* tern-trace export --otf2 (trace_otf2.c, docs/trace.md). */
#ifndef TT_TRACE_OTF2_H
#define TT_TRACE_OTF2_H

#include <stddef.h>
#include "trace_load.h"

/* Write job j (finished) as the OTF2 archive dir/name.otf2.  0, or -1 with
 * err set (also when tern-trace was built without the OTF2 library). */
int to_export_otf2(const tl_job_t *j, const char *dir, const char *name, char *err,
                   size_t errlen);

#endif

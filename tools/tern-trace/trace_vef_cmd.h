/* tern-trace export --vef and import --vef (docs/trace.md, "VEF"). */
#ifndef TT_TRACE_VEF_CMD_H
#define TT_TRACE_VEF_CMD_H

#include <stdio.h>

#include "trace_vef.h"

/* The commands, argv after "export" / "import".  0, 1 on an error (said
 * on stderr), 2 on a usage error. */
int vx_main(int argc, char **argv);
int vf_main(int argc, char **argv);

/* import's summary of a checked job: ranks, communicators, messages and
 * their bytes, collectives by op, dependencies by type, per rank. */
void vf_summary(FILE *o, const vf_job_t *j);

#endif

/* Fuzz harness: tern-trace's VEF reader (tools/tern-trace/trace_vef_read.c,
 * vf_parse), the one decode step of `tern-trace import --vef` and of
 * tern-sim's VEF replay.  An accepted job is walked as a replay would and
 * its invariants checked: every dependency names an earlier line of its
 * own task, every collective has one line per member of its communicator,
 * every index is in range; then the summary is printed (to /dev/null). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_vef.h"
#include "trace_vef_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_check(int cond)
{
    if (!cond) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vf_job_t j;
    if (vf_parse((const char *)data, size, &j) != 0) {
        fz_check(j.events == NULL && j.comms == NULL && j.err[0] != '\0');
        return 0;
    }
    fz_check(j.nranks > 0 && j.ncomms > 0 && j.comms[0].size == j.nranks);
    for (uint32_t c = 0; c < j.ncomms; c++) {
        fz_check(j.comms[c].size > 0 && j.comms[c].first + (size_t)j.comms[c].size <= j.nmembers);
        for (uint32_t k = 0; k < j.comms[c].size; k++) {
            fz_check(j.members[j.comms[c].first + k] < j.nranks);
        }
    }
    uint32_t *lines = calloc((size_t)j.ncolls + 1, sizeof(uint32_t));
    fz_check(lines != NULL);
    uint32_t msgs = 0;
    for (size_t i = 0; i < j.nevents; i++) {
        const vf_event_t *e = &j.events[i];
        fz_check(e->task < j.nranks && e->deptype < VF_NDEPS);
        if (e->coll == VF_NONE) {
            fz_check(e->id == msgs && j.msg_event[msgs] == i && e->dst < j.nranks);
            msgs++;
        } else {
            fz_check(e->coll < j.ncolls && e->comm == j.colls[e->coll].comm &&
                     e->op == j.colls[e->coll].op && e->op < VF_NOPS);
            lines[e->coll]++;
        }
        switch (e->deptype) {
        case VF_DEP_INDEPENDENT:
            fz_check(e->dep == VF_NONE);
            break;
        case VF_DEP_COLLECTIVE:
            /* complete before this line */
            fz_check(e->dep < j.ncolls && e->dep != e->coll &&
                     lines[e->dep] == j.comms[j.colls[e->dep].comm].size);
            break;
        default: {
            fz_check(e->dep < msgs - (e->coll == VF_NONE));
            const vf_event_t *d = &j.events[j.msg_event[e->dep]];
            fz_check(e->deptype == VF_DEP_SEND ? d->task == e->task : d->dst == e->task);
        }
        }
    }
    fz_check(msgs == j.nmsgs);
    for (uint32_t g = 0; g < j.ncolls; g++) {
        fz_check(lines[g] == j.colls[g].nlines && lines[g] == j.comms[j.colls[g].comm].size);
    }
    free(lines);
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull != NULL) {
        vf_summary(devnull, &j);
        fclose(devnull);
    }
    vf_free(&j);
    return 0;
}

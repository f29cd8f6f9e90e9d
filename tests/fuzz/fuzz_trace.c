/* Fuzz harness: the trace reader (tools/tern-trace/trace_read.c), the one
 * decode step of everything tern-trace and tern-sim read from trace files.
 * Every record it hands out is walked, and the text formatter runs on it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    FILE *f = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (f == NULL) {
        return 0;
    }
    tt_file_t t;
    if (tt_open_stream(&t, f, "fuzz") != 0) {
        return 0;                       /* tt_open_stream closed it */
    }
    tt_rec_t r;
    uint64_t sum = 0;
    for (int n = 0; n < 100000 && tt_next(&t, &r) == 1; n++) {
        sum += tt_ns(&t, r.t_enter) + tt_ns(&t, r.t_exit);
        sum += (uint64_t)tt_call_name(&t, r.call)[0];
        for (unsigned i = 0; i < r.nitems; i++) {
            const tt_item_t *it = &r.items[i];
            switch (it->type) {
            case TERN_TRACE_I_COLL:
                sum += (uint64_t)tt_algo_name(&t, it->u.coll.algo)[0];
                sum += (uint64_t)tt_coll_kind_name(it->u.coll.kind)[0];
                sum += (uint64_t)tt_op_name(it->u.coll.op)[0];
                break;
            case TERN_TRACE_I_SCOUNTS:
            case TERN_TRACE_I_RCOUNTS:
                for (uint32_t k = 0; k < it->u.counts.n; k++) {
                    sum += tt_count(it, k);
                }
                break;
            case TERN_TRACE_I_COMMDEF: {
                const tt_comm_t *c = tt_comm(&t, it->u.commdef);
                for (uint32_t k = 0; c != NULL && k < c->def.size + c->def.remote_size; k++) {
                    sum += (uint64_t)c->world[k];
                }
                break;
            }
            default:
                break;
            }
        }
    }
    tt_close(&t);
    return sum == 42 ? 0 : 0;
}

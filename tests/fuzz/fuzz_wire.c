/* tern-monitor serve's input from the network: an agent's frame
 * (tools/tern-monitor/mon_wire.c) applied to the live state (mon_state.c),
 * then everything the server derives from it (rates, snapshots, the JSON
 * of every job and node, /metrics).  Anyone who can reach the ingest port
 * (with the token, when one is set) writes these bytes.
 *
 * Input: a byte of flags (bit 0: apply a well-formed full frame of a small
 * job first, so that deltas land on something; bit 1: apply the input
 * twice), then the frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mon_api.h"
#include "mon_state.h"
#include "mon_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A full frame of node "n0": one metric (peer_bytes) and job "j" of 2 ranks. */
static void fz_base(tn_mon_buf_t *f)
{
    tn_mon_buf_t d = { 0 }, j = { 0 };
    tn_mon_wire_begin(f, TN_MON_WIRE_FULL, 1, 1000, "n0", "fuzz");
    tn_mon_wire_uint(&d, 1);
    tn_mon_wire_uint(&d, 0);
    tn_mon_wire_str(&d, "peer_bytes");
    tn_mon_wire_uint(&d, 0);
    tn_mon_wire_str(&d, "bytes");
    tn_mon_wire_str(&d, "h");
    tn_mon_wire_str(&d, "class");
    tn_mon_wire_uint(&d, 3);
    tn_mon_wire_str(&d, "p2p");
    tn_mon_wire_str(&d, "coll");
    tn_mon_wire_str(&d, "rma");
    tn_mon_wire_section(f, TN_MON_WIRE_DICT, &d);
    tn_mon_wire_str(&j, "j");
    tn_mon_wire_str(&j, "p");
    tn_mon_wire_uint(&j, 0);
    tn_mon_wire_uint(&j, 2);
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, 1);
    uint64_t rank[] = { 0, 0, 7, 0 };
    for (int i = 0; i < 4; i++) {
        tn_mon_wire_uint(&j, rank[i]);
    }
    tn_mon_wire_str(&j, "MPI_Send");
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, 5);
    tn_mon_wire_uint(&j, 2);
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, 2);
    tn_mon_wire_uint(&j, 0);
    tn_mon_wire_uint(&j, 0);
    tn_mon_wire_sint(&j, 100);
    tn_mon_wire_section(f, TN_MON_WIRE_JOB, &j);
    tn_mon_wire_end(f);
    tn_mon_buf_free(&d);
    tn_mon_buf_free(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t flags = data[0];
    uint8_t *frame = malloc(size);
    memcpy(frame, data + 1, size - 1);
    tn_mon_state_t s;
    tn_mon_state_init(&s);
    char why[160];
    if (flags & 1) {
        tn_mon_buf_t base = { 0 };
        fz_base(&base);
        if (tn_mon_state_apply(&s, base.data, base.len, 10, why, sizeof(why)) != 0) {
            abort();                    /* the harness's own frame must pass */
        }
        tn_mon_buf_free(&base);
    }
    for (int k = 0; k < ((flags & 2) ? 2 : 1); k++) {
        (void)tn_mon_state_apply(&s, frame, size - 1, 20 + (uint64_t)k, why, sizeof(why));
        tn_mon_state_tick(&s, 1000 + 20000 * (uint64_t)k);
    }
    tn_mon_buf_t out = { 0 };
    tn_mon_api_jobs(&s, 5000, &out, NULL, NULL);
    tn_mon_api_nodes(&s, 5000, &out);
    for (int i = 0; i < s.njobs; i++) {
        (void)tn_mon_api_job(&s, s.jobs[i]->id, -1, 2, 10, 5000, &out);
    }
    for (int i = 0; i < s.nnodes; i++) {
        (void)tn_mon_api_node(&s, s.nodes[i]->name, 5000, &out);
    }
    tn_mon_api_network(&s, NULL, &out);
    tn_mon_prom_write(&s, 5000, &out);
    tn_mon_buf_free(&out);
    tn_mon_state_fini(&s);
    free(frame);
    return 0;
}

/* The agent -> server frames (tools/tern-monitor/mon_wire.c) and the
 * server's live state (mon_state.c): frames made with the encoder, applied
 * and read back; deltas add up, a full frame replaces what its ranks said,
 * a resent frame is ignored, a frame naming what was never defined asks
 * for a full one, and damaged frames change nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mon_api.h"
#include "mon_state.h"
#include "mon_wire.h"
#include "tern/stats.h"

static int failures;

#define CHECK(cond, what)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "test_mon_state:%d: %s: %s\n", __LINE__, what, #cond); \
        }                                                                   \
    } while (0)

/* metric ids of the test's dictionary */
enum { M_BYTES = 0, M_PEER_BYTES = 1, M_PEER_MSGS = 2, M_RAIL_SENT = 3, M_RAIL_LOST = 4 };

static void dict(tn_mon_buf_t *f)
{
    tn_mon_buf_t d = { 0 };
    static const char *const paths[9] = { "p2p,eager", "p2p,rendezvous", "p2p,direct",
                                          "coll,eager", "coll,rendezvous", "coll,direct",
                                          "rma,eager", "rma,rendezvous", "rma,direct" };
    static const char *const cls[3] = { "p2p", "coll", "rma" };
    static const char *const rails[4] = { "0", "1", "2", "3" };
    tn_mon_wire_uint(&d, 5);
    struct { const char *name, *key; int n; const char *const *el; } m[5] = {
        { "mpi_bytes_sent", "class,protocol", 9, paths },
        { "peer_bytes", "class", 3, cls },
        { "peer_msgs", "class", 3, cls },
        { "udp_peer_rail_sent", "rail", 4, rails },
        { "udp_peer_rail_lost", "rail", 4, rails },
    };
    for (int i = 0; i < 5; i++) {
        tn_mon_wire_uint(&d, (uint64_t)i);
        tn_mon_wire_str(&d, m[i].name);
        tn_mon_wire_uint(&d, TERN_STATS_COUNTER);
        tn_mon_wire_str(&d, "bytes");
        tn_mon_wire_str(&d, "help text");
        tn_mon_wire_str(&d, m[i].key);
        tn_mon_wire_uint(&d, (uint64_t)m[i].n);
        for (int e = 0; e < m[i].n; e++) {
            tn_mon_wire_str(&d, m[i].el[e]);
        }
    }
    tn_mon_wire_section(f, TN_MON_WIRE_DICT, &d);
    tn_mon_buf_free(&d);
}

typedef struct { uint32_t rec, metric, elem; int64_t delta; } val_t;

/* A frame of node `node` for job "job1" (4 ranks on 2 nodes): rank `rank`
 * (on node_id) with vals. */
static void frame(tn_mon_buf_t *f, const char *node, int full, uint64_t seq, int rank,
                  int node_id, const val_t *vals, int nvals, int with_dict)
{
    tn_mon_buf_reset(f);
    tn_mon_wire_begin(f, full ? TN_MON_WIRE_FULL : 0, seq, 1000 * seq, node, "test");
    if (with_dict) {
        dict(f);
    }
    tn_mon_buf_t j = { 0 };
    tn_mon_wire_str(&j, "job1");
    tn_mon_wire_str(&j, "prog");
    tn_mon_wire_uint(&j, 1000);
    tn_mon_wire_uint(&j, 4);        /* world size */
    tn_mon_wire_uint(&j, 2);        /* nodes */
    tn_mon_wire_uint(&j, 5);        /* start */
    tn_mon_wire_uint(&j, 1);        /* ranks in this frame */
    tn_mon_wire_uint(&j, (uint64_t)rank);
    tn_mon_wire_uint(&j, 0);        /* running */
    tn_mon_wire_uint(&j, 100 + (uint64_t)rank);
    tn_mon_wire_uint(&j, (uint64_t)node_id);
    tn_mon_wire_str(&j, "MPI_Recv");
    tn_mon_wire_uint(&j, 1);
    tn_mon_wire_uint(&j, 70001);    /* 70 s in the call */
    tn_mon_wire_uint(&j, 4);        /* peer records */
    tn_mon_wire_uint(&j, (uint64_t)nvals);
    for (int i = 0; i < nvals; i++) {
        tn_mon_wire_uint(&j, vals[i].rec);
        tn_mon_wire_uint(&j, vals[i].metric);
        tn_mon_wire_uint(&j, vals[i].elem);
        tn_mon_wire_sint(&j, vals[i].delta);
    }
    tn_mon_wire_section(f, TN_MON_WIRE_JOB, &j);
    tn_mon_wire_end(f);
    tn_mon_buf_free(&j);
}

static uint64_t cell(const tn_mon_state_t *s, const tn_mon_job_t *j, int src, int dst)
{
    uint64_t out[16];
    tn_mon_state_matrix(s, j, -1, TN_MON_MAT_BYTES, 0, out);
    return out[src * 4 + dst];
}

int main(void)
{
    tn_mon_state_t s;
    tn_mon_state_init(&s);
    tn_mon_buf_t f = { 0 };
    char why[160];

    /* node a: rank 0 sent 1000 p2p bytes to rank 2 (record 3 = peer 2) */
    val_t v1[] = { { 0, M_BYTES, 0, 1000 }, { 3, M_PEER_BYTES, 0, 1000 }, { 3, M_PEER_MSGS, 0, 1 },
                   { 3, M_RAIL_SENT, 1, 50 } };
    frame(&f, "a", 0, 1, 0, 0, v1, 4, 1);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 10, why, sizeof(why)) == TN_MON_STATE_NEED_FULL,
          "a first frame that is not full");
    frame(&f, "a", 1, 1, 0, 0, v1, 4, 1);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 10, why, sizeof(why)) == 0, why);
    tn_mon_job_t *j = tn_mon_state_job(&s, "job1");
    CHECK(j != NULL && j->world_size == 4 && j->nnodes == 2, "job made");
    if (j == NULL) {
        return 1;
    }
    CHECK(cell(&s, j, 0, 2) == 1000, "matrix cell");
    /* a delta adds; a resend of it is ignored */
    val_t v2[] = { { 3, M_PEER_BYTES, 0, 24 }, { 3, M_RAIL_SENT, 1, 50 }, { 3, M_RAIL_LOST, 1, 2 } };
    frame(&f, "a", 0, 2, 0, 0, v2, 3, 0);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 20, why, sizeof(why)) == 0, why);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 21, why, sizeof(why)) == 0 &&
          s.resent_frames == 1, "resend ignored");
    CHECK(cell(&s, j, 0, 2) == 1024, "delta added once");
    /* node b's rank 2 makes node 1 known: the link a -> b rail 1 */
    frame(&f, "b", 1, 1, 2, 1, NULL, 0, 1);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 22, why, sizeof(why)) == 0, why);
    tn_mon_state_tick(&s, 1000);
    CHECK(j->nlinks == 1 && j->links[0].src == 0 && j->links[0].dst == 1 &&
          j->links[0].rail == 1 && j->links[0].sent == 100 && j->links[0].lost == 2,
          "link sums of the rails");
    /* an agent that restarted: a full frame replaces rank 0's values */
    val_t v3[] = { { 3, M_PEER_BYTES, 0, 2000 } };
    frame(&f, "a", 1, 1, 0, 0, v3, 1, 1);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 30, why, sizeof(why)) == 0, why);
    CHECK(cell(&s, j, 0, 2) == 2000, "a full frame counts from zero");
    CHECK(tn_mon_state_sum(j, tn_mon_state_metric(&s, "mpi_bytes_sent"), 0) == 0,
          "a full frame drops what it does not list again");
    /* a value naming a metric id never defined on this node */
    val_t v4[] = { { 0, 77, 0, 5 } };
    frame(&f, "a", 0, 2, 0, 0, v4, 1, 0);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 40, why, sizeof(why)) == TN_MON_STATE_NEED_FULL,
          "an undefined metric asks for a full frame");
    /* damaged frames: every truncation refused, nothing applied */
    frame(&f, "a", 0, 3, 0, 0, v2, 3, 0);
    uint64_t frames = s.frames;
    for (size_t cut = 0; cut < f.len; cut++) {
        CHECK(tn_mon_state_apply(&s, f.data, cut, 50, why, sizeof(why)) != 0, "a cut frame refused");
    }
    CHECK(s.frames == frames && cell(&s, j, 0, 2) == 2000, "nothing applied from cut frames");
    /* a rank outside the job */
    frame(&f, "a", 0, 3, 9, 0, NULL, 0, 0);
    CHECK(tn_mon_state_apply(&s, f.data, f.len, 60, why, sizeof(why)) == -1, "rank 9 of 4");

    /* the JSON and the Prometheus text come out whole */
    tn_mon_buf_t out = { 0 };
    CHECK(tn_mon_api_job(&s, "job1", -1, 0, 0, 100, &out) == 0 && strstr(out.data, "\"cells\"") &&
          strstr(out.data, "\"call_s\":70"), "job JSON");
    tn_mon_buf_reset(&out);
    tn_mon_prom_write(&s, 100, &out);
    CHECK(!out.failed && strstr(out.data, "tern_job_longest_call_seconds{jobid=\"job1\"} 70") != NULL,
          "metrics text");
    tn_mon_buf_free(&out);

    /* a node that stops listing its rank: the rank is gone */
    frame(&f, "b", 0, 2, 2, 1, NULL, 0, 0);
    tn_mon_buf_t empty = { 0 };
    tn_mon_wire_begin(&empty, 0, 3, 3000, "b", "test");
    tn_mon_wire_end(&empty);
    CHECK(tn_mon_state_apply(&s, empty.data, empty.len, 70, why, sizeof(why)) == 0, why);
    CHECK(j->ranks[2].state == 2 && !j->ranks[2].in_call, "a rank no longer listed exited");
    tn_mon_buf_free(&empty);
    tn_mon_buf_free(&f);
    tn_mon_state_fini(&s);
    if (failures == 0) {
        printf("test_mon_state: ok\n");
    }
    return failures != 0;
}

/* tern-sim's event queue (tools/tern-sim/sim_evq.c): random pushes, moves
 * and cancels, many at equal times, against a plain list; events come out
 * by time, then in the order they were pushed or moved there, with what
 * they carry; handles are reused; the queue grows past its first size.
 * Delays from now repeat (the lanes' case: few, more than there are
 * lanes, or fractions whose sums round) or do not (the heap's); with
 * the lanes on and off. */
#include "sim_evq.h"

#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sim_rng.h"

#define N 8000

typedef struct {
    int live;
    double t;
    uint64_t order;  /* when pushed or last moved */
    int32_t id;
} ref_t;

static ref_t ref[N];
static int32_t handle_of[N];

static void one_run(uint64_t seed, int times, double unit, int lanes)
{
    tn_sim_evq_t q;
    tn_sim_rng_t r;
    tn_sim_rng_seed(&r, seed);
    CHECK(tn_sim_evq_init(&q, 16) == TN_SIM_OK);
    tn_sim_evq_set_lanes(&q, lanes);
    memset(ref, 0, sizeof(ref));
    uint64_t order = 0;
    int live = 0;
    double now = 0;
    for (int step = 0; step < 6 * N; step++) {
        int op = (int)tn_sim_rng_below(&r, 10);
        int32_t i = (int32_t)tn_sim_rng_below(&r, N);
        /* few distinct times: ties everywhere */
        double t = now + unit * (double)tn_sim_rng_below(&r, (uint64_t)times);
        if (op < 5 && !ref[i].live) {
            handle_of[i] = tn_sim_evq_push_arg(&q, t, (unsigned)(i & 15), i, (uint32_t)i * 7u + 1u);
            CHECK(handle_of[i] >= 0);
            ref[i] = (ref_t){1, t, order++, i};
            live++;
        } else if (op < 7 && ref[i].live) {
            CHECK(tn_sim_evq_move(&q, handle_of[i], t) == 0);
            ref[i].t = t;
            ref[i].order = order++;
        } else if (op < 8 && ref[i].live) {
            tn_sim_evq_cancel(&q, handle_of[i]);
            ref[i].live = 0;
            live--;
        } else if (live > 0) {
            tn_sim_ev_t ev;
            CHECK(tn_sim_evq_pop(&q, &ev) == 1);
            /* the reference's earliest */
            int32_t best = -1;
            for (int32_t k = 0; k < N; k++) {
                if (ref[k].live && (best < 0 || ref[k].t < ref[best].t ||
                                    (ref[k].t == ref[best].t && ref[k].order < ref[best].order))) {
                    best = k;
                }
            }
            CHECK(ev.id == best && ev.t == ref[best].t && tn_sim_ev_kind(&ev) == (unsigned)(best & 15) &&
                  ev.arg == (uint32_t)best * 7u + 1u);
            if (ev.id != best) {
                break;
            }
            ref[best].live = 0;
            live--;
            now = ev.t;
        }
        CHECK(tn_sim_evq_empty(&q) == (live == 0));
    }
    tn_sim_ev_t ev;
    double last = -1;
    while (tn_sim_evq_pop(&q, &ev)) {
        CHECK(ev.t >= last);
        last = ev.t;
        live--;
    }
    CHECK(live == 0);
    tn_sim_evq_fini(&q);
}

int main(void)
{
    for (int lanes = 0; lanes < 2; lanes++) {
        one_run(1, 3, 1, lanes);
        one_run(2, 50, 1, lanes);
        one_run(3, 1 << 30, 1, lanes);
        one_run(4, 6, 0.1, lanes);
        one_run(5, 12, 1.0 / 3, lanes);
    }
    return tn_check_report("test_sim_evq");
}

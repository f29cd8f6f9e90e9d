/* tern-sim's event queue (tools/tern-sim/sim_evq.c): random pushes, moves
 * and cancels, many at equal times, against a plain list; events come out
 * by time, then in the order they were pushed or moved there; handles are
 * reused; the queue grows past its first size. */
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

static void one_run(uint64_t seed, int times)
{
    tn_sim_evq_t q;
    tn_sim_rng_t r;
    tn_sim_rng_seed(&r, seed);
    CHECK(tn_sim_evq_init(&q, 16) == TN_SIM_OK);
    memset(ref, 0, sizeof(ref));
    uint64_t order = 0;
    int live = 0;
    double now = 0;
    for (int step = 0; step < 6 * N; step++) {
        int op = (int)tn_sim_rng_below(&r, 10);
        int32_t i = (int32_t)tn_sim_rng_below(&r, N);
        /* few distinct times: ties everywhere */
        double t = now + (double)tn_sim_rng_below(&r, (uint64_t)times);
        if (op < 5 && !ref[i].live) {
            handle_of[i] = tn_sim_evq_push(&q, t, (unsigned)(i & 15), i);
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
            CHECK(ev.id == best && ev.t == ref[best].t && tn_sim_ev_kind(&ev) == (unsigned)(best & 15));
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
    one_run(1, 3);
    one_run(2, 50);
    one_run(3, 1 << 30);
    return tn_check_report("test_sim_evq");
}

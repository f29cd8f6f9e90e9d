/* The event table and its raising (events.h). */
#include "base/events.h"

#include "base/trace.h"

#include <stddef.h>
#include <time.h>

static const tn_event_desc_t tn_events[TN_EVENT_COUNT_] = {
#define TN_EVENT_D(id, name_, cat, verb_, n, help_)                            \
    [TN_EVENT_##id] = { .name = name_, .category = TN_CAT_##cat, .verb = TN_EVENT_VERB_##verb_, \
                        .nelems = n, .help = help_ },
#define TN_EVENT_VERB_USER 0
#define TN_EVENT_VERB_TUNER 1
#define TN_EVENT_VERB_DEV 2
    TN_EVENT_TABLE(TN_EVENT_D)
#undef TN_EVENT_D
};

int tn_event_armed[TN_EVENT_COUNT_];
static tn_event_sink_fn_t tn_event_sink;

const tn_event_desc_t *tn_event_desc(int i)
{
    return i >= 0 && i < TN_EVENT_COUNT_ ? &tn_events[i] : NULL;
}

void tn_event_set_sink(tn_event_sink_fn_t sink)
{
    __atomic_store_n(&tn_event_sink, sink, __ATOMIC_RELEASE);
}

/* Bit 0: a tool listens (the MPI_T layer); bit 1: the trace records it. */
void tn_event_arm(tn_event_t ev, int on)
{
    if (on) {
        __atomic_fetch_or(&tn_event_armed[ev], 1, __ATOMIC_RELEASE);
    } else {
        __atomic_fetch_and(&tn_event_armed[ev], ~1, __ATOMIC_RELEASE);
    }
}

void tn_event_trace(int on)
{
    for (int ev = 0; ev < TN_EVENT_COUNT_; ev++) {
        if (on) {
            __atomic_fetch_or(&tn_event_armed[ev], 2, __ATOMIC_RELEASE);
        } else {
            __atomic_fetch_and(&tn_event_armed[ev], ~2, __ATOMIC_RELEASE);
        }
    }
}

uint64_t tn_event_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tn_event_emit(tn_event_t ev, const int *elems, int n)
{
    if ((unsigned)ev >= TN_EVENT_COUNT_) {
        return;
    }
    int armed = __atomic_load_n(&tn_event_armed[ev], __ATOMIC_ACQUIRE);
    n = n < TN_EVENT_MAX_ELEMS ? n : TN_EVENT_MAX_ELEMS;
    tn_event_sink_fn_t sink = __atomic_load_n(&tn_event_sink, __ATOMIC_ACQUIRE);
    if ((armed & 1) && sink != NULL) {
        sink(ev, tn_event_now(), elems, n);
    }
    if (armed & 2) {
        tn_trace_event((unsigned)ev, elems, n);
    }
}

/* Events: rare things a tool may want to hear about at once (MPI_T events,
 * docs/mpi_t.md).  One table describes them; a layer raises one with
 * tn_event_raise(), which costs one load and a not-taken branch unless a
 * tool listens (the MPI_T layer installs the sink and arms the events that
 * have a registration).
 *
 * X(ID, name, cat, verb, nelems, help)
 *   ID      - TN_EVENT_<ID>
 *   nelems  - how many int elements the event carries (at most
 *             TN_EVENT_MAX_ELEMS); help names them in order */
#ifndef TN_BASE_EVENTS_H
#define TN_BASE_EVENTS_H

#include <stdint.h>
#include "base/category_table.h"

#define TN_EVENT_MAX_ELEMS 4

#define TN_EVENT_TABLE(X)                                                      \
    X(PEER_FAILURE, "udp_peer_failure", UDP, USER, 2,                          \
      "A udp peer is found dead (the job is about to end): peer (world rank), " \
      "reason (1: silent, 2: nothing acknowledged, 3: datagrams could not be sealed)") \
    X(RETRANSMIT_BURST, "udp_retransmit_burst", UDP, TUNER, 3,                 \
      "A loss-detection pass resends packets to a udp peer: peer (world rank), " \
      "packets, cause (0: fast retransmit from acks, 1: retransmission timeout, " \
      "2: tail-loss probe)")                                                   \
    X(RAIL_STATE, "udp_rail_state", UDP, TUNER, 3,                             \
      "A rail towards a udp peer is taken out of use or back into use: peer (world rank), " \
      "rail, state (0: down, 1: up)")

typedef enum {
#define TN_EVENT_ENUM(id, name, cat, verb, n, help) TN_EVENT_##id,
    TN_EVENT_TABLE(TN_EVENT_ENUM)
#undef TN_EVENT_ENUM
    TN_EVENT_COUNT_
} tn_event_t;

typedef struct {
    const char    *name;
    tn_category_t  category;
    int            verb;       /* tn_config_verb_t: 0 user, 1 tuner, 2 dev */
    int            nelems;
    const char    *help;
} tn_event_desc_t;

const tn_event_desc_t *tn_event_desc(int i);   /* NULL for a bad i */

/* The MPI_T layer's receiver of raised events; ts: CLOCK_MONOTONIC ns. */
typedef void (*tn_event_sink_fn_t)(tn_event_t ev, uint64_t ts, const int *elems, int n);
void tn_event_set_sink(tn_event_sink_fn_t sink);
/* Whether ev is raised (some tool listens); set by the MPI_T layer after
 * tn_event_set_sink, from any thread (release). */
void tn_event_arm(tn_event_t ev, int on);

/* The trace records every event (tn_trace_event) while on. */
void tn_event_trace(int on);

extern int tn_event_armed[TN_EVENT_COUNT_];
void tn_event_emit(tn_event_t ev, const int *elems, int n);

/* Nanoseconds of CLOCK_MONOTONIC: the events' time source. */
uint64_t tn_event_now(void);

/* The acquire pairs with tn_event_arm's release: a raise that sees the
 * event armed also sees the sink installed before it (a plain load on
 * x86). */
static inline void tn_event_raise(tn_event_t ev, int a, int b, int c)
{
    if (__builtin_expect(__atomic_load_n(&tn_event_armed[ev], __ATOMIC_ACQUIRE) != 0, 0)) {
        int e[3] = { a, b, c };
        tn_event_emit(ev, e, 3);
    }
}

#endif

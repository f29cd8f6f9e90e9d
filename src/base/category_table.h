/* The categories of configuration variables, counters and events: the
 * layers of the code (DESIGN.md).  MPI_T categories are exactly these, in
 * this order; tern-info groups by them.
 *
 * X(ID, name, parent, description)
 *   ID      - TN_CAT_<ID>, used by config_table.h, counters_table.h and
 *             events.h
 *   parent  - the ID of the enclosing category, or NONE for a top level
 *             one (a parent comes before its children) */
#ifndef TN_BASE_CATEGORY_TABLE_H
#define TN_BASE_CATEGORY_TABLE_H

#define TN_CATEGORY_TABLE(X)                                                   \
    X(BASE, "base", NONE, "Logging, backtraces and statistics")                \
    X(RUNTIME, "runtime", NONE,                                                \
      "Start-up and finalize, the process manager (PMI), waiting, hang "       \
      "reports and the choice of transport")                                   \
    X(XPORT, "xport", NONE, "The transports: shm on a node, udp across nodes, self") \
    X(SHM, "shm", XPORT, "Shared-memory transport: rings, cells, single-copy (CMA)") \
    X(SELF, "self", XPORT, "Messages a rank sends to itself")                  \
    X(UDP, "udp", XPORT,                                                       \
      "The reliable udp transport: rails, windows, retransmission, "           \
      "authentication, fault injection")                                       \
    X(P2P, "p2p", NONE, "Point-to-point protocols and matching")               \
    X(COLL, "coll", NONE, "Collective algorithms")                             \
    X(RUN, "run", NONE,                                                        \
      "tern-run, the launcher: variables it reads (shown for reference; "      \
      "writing them in a rank changes nothing)")

typedef enum {
    TN_CAT_NONE = -1,
#define TN_CAT_ENUM(id, name, parent, desc) TN_CAT_##id,
    TN_CATEGORY_TABLE(TN_CAT_ENUM)
#undef TN_CAT_ENUM
    TN_CAT_COUNT_
} tn_category_t;

#endif

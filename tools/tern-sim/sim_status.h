/* tern-sim's status codes: OK = 0, errors < 0, from one X-macro so that
 * names print for free.  tern-sim is a stand-alone tool (it does not link
 * the MPI library), so it has its own list rather than src/base/status.h. */
#ifndef TN_SIM_STATUS_H
#define TN_SIM_STATUS_H

#define TN_SIM_STATUS_LIST(X)                              \
    X(OK,            0, "success")                         \
    X(ERR_NOMEM,    -1, "out of memory")                   \
    X(ERR_INVAL,    -2, "invalid argument")                \
    X(ERR_IO,       -3, "input/output error")              \
    X(ERR_PARSE,    -4, "malformed input")                 \
    X(ERR_LIMIT,    -5, "beyond a limit")                  \
    X(ERR_UNSUPP,   -6, "not supported here")              \
    X(ERR_ROUTE,    -7, "no route")                        \
    X(ERR_INTERNAL, -8, "internal error")

typedef enum {
#define TN_SIM_STATUS_ENUM(name, val, str) TN_SIM_##name = val,
    TN_SIM_STATUS_LIST(TN_SIM_STATUS_ENUM)
#undef TN_SIM_STATUS_ENUM
} tn_sim_status_t;

/* "out of memory", ...; never NULL. */
const char *tn_sim_status_str(tn_sim_status_t status);

#endif

/* Internal status codes.  OK = 0, "in progress" > 0, errors < 0.
 * Mapped to MPI error classes only in src/mpi. */
#ifndef TN_BASE_STATUS_H
#define TN_BASE_STATUS_H

#define TN_STATUS_LIST(X)                                           \
    X(OK,              0, "success")                                \
    X(INPROGRESS,      1, "operation in progress")                  \
    X(ERR_AGAIN,      -1, "resource temporarily unavailable")       \
    X(ERR_NOMEM,      -2, "out of memory")                          \
    X(ERR_INVAL,      -3, "invalid argument")                       \
    X(ERR_IO,         -4, "input/output error")                     \
    X(ERR_UNSUPPORTED,-5, "operation not supported")                \
    X(ERR_TRUNCATE,   -6, "message truncated")                      \
    X(ERR_NOTFOUND,   -7, "not found")                              \
    X(ERR_TIMEOUT,    -8, "timed out")                              \
    X(ERR_PEER_DEAD,  -9, "peer process is gone")                   \
    X(ERR_PROTO,     -10, "protocol error")                         \
    X(ERR_INTERNAL,  -11, "internal error")

typedef enum {
#define TN_STATUS_ENUM(name, val, str) TN_##name = val,
    TN_STATUS_LIST(TN_STATUS_ENUM)
#undef TN_STATUS_ENUM
} tn_status_t;

/* Human-readable name of a status ("message truncated"). Never NULL. */
const char *tn_status_str(tn_status_t status);

#endif

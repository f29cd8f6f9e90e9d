/* Matching a loaded job's communication across ranks (trace_load.h):
 * point-to-point messages paired send to receive, collectives grouped.
 *
 * Messages.  MPI never lets a message overtake another between the same
 * two ranks on one communicator when both could match one receive, and a
 * receive takes the earliest message it matches.  So the messages from s
 * to r on communicator c with tag t are received in the order s sent
 * them, by r's receives that matched (s, t), in the order r posted them:
 * the k-th send of each (c, s, r, t) is paired with the k-th receive that
 * matched it.  A receive's (s, t) is its own when it named both, else the
 * matched source and tag its STATUS item (blocking receives) or the DONE
 * item of its request (nonblocking: found by request id in the wait or
 * test that completed it) recorded.
 *
 * Requests.  A request id names the request from the call that made it
 * (REQ) until a DONE (non-persistent), a FREE, or its id is made again;
 * a persistent send or receive (form PERSISTENT) is one message per
 * START, posted by the MPI_Start(all) that started it.  Sends and
 * receives to or from MPI_PROC_NULL and cancelled ones are no messages.
 *
 * What does not pair is reported, never fatal (a trace may be cut):
 * sends left over in their (c, s, r, t) sequence, receives left over, and
 * wildcard receives that never completed in the trace (their (s, t) is
 * unknown; such a receive may have taken a message a later one is then
 * paired with).  Not modelled: MPI_Mprobe/MPI_Mrecv (matched at the probe,
 * here at the receive), intercommunicator and neighbourhood collectives
 * (their records carry time only).
 *
 * Collectives.  The COLL items with the same job communicator and
 * sequence number are one collective (a persistent one: one per START,
 * counted per rank); tm_coll_t lists its members' calls. */
#ifndef TT_TRACE_MATCH_H
#define TT_TRACE_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "trace_load.h"

typedef struct {
    uint32_t comm;                      /* job communicator */
    int32_t  tag;
    uint32_t src, dst;                  /* world ranks */
    uint32_t send_rec;                  /* src's record that sent it (Send, Isend, Start...) */
    uint32_t send_done;                 /* src's record that completed the send (the send
                                         * itself when blocking), TL_NONE: not in the trace */
    uint32_t recv_rec;                  /* dst's record that posted the receive */
    uint32_t recv_done;                 /* dst's record that completed it (the receive
                                         * itself when blocking, else the wait or test
                                         * with its DONE), TL_NONE: not in the trace */
    uint64_t bytes;                     /* as sent */
    int64_t  t_send;                    /* send_rec's entry, job clock */
    uint8_t  mode;                      /* TERN_TRACE_STD.. */
} tm_msg_t;

enum {
    TM_LONE_CUT = 1,                    /* no partner in the traces */
    TM_LONE_UNRESOLVED = 2,             /* a wildcard receive that never completed */
};

/* A send or receive that is no part of a message. */
typedef struct {
    uint32_t rank;                      /* world rank that posted it */
    uint32_t rec, done;                 /* posting and completing records (done: TL_NONE) */
    uint32_t comm;
    int32_t  peer;                      /* world rank of the peer, -1: any */
    int32_t  tag;                       /* TERN_TRACE_ANY: any */
    uint64_t bytes;                     /* sent, or the receive buffer's capacity */
    uint8_t  why;                       /* TM_LONE_* */
} tm_lone_t;

typedef struct {
    uint32_t rank;                      /* world rank */
    uint32_t rec;                       /* the call with the COLL item (or the START) */
    uint32_t done;                      /* the call that completed it: rec when blocking,
                                         * the wait or test of its request, TL_NONE */
    uint32_t item;                      /* the COLL item, in the rank's items */
} tm_member_t;

typedef struct {
    uint32_t comm;
    uint16_t kind;                      /* TERN_TRACE_BARRIER.. of the first member */
    uint16_t algo;                      /* job algorithm index or TERN_TRACE_ALGO_UNKNOWN;
                                         * ALGO_UNKNOWN too when members disagree */
    uint64_t seq;
    uint32_t start;                     /* persistent: the k-th START, else 0 */
    uint32_t first, n;                  /* members[first .. first+n), by rank */
    uint8_t  mixed;                     /* members disagree on the kind */
} tm_coll_t;

typedef struct {
    tm_msg_t    *msgs;                  /* by (comm, src, dst, tag), then send order */
    size_t       nmsgs;
    tm_lone_t   *lone_sends, *lone_recvs;
    size_t       nlone_sends, nlone_recvs;
    tm_coll_t   *colls;                 /* by (comm, seq, start) */
    size_t       ncolls;
    tm_member_t *members;
    size_t       nmembers;
    uint64_t     cancelled;             /* cancelled sends and receives (not messages) */
} tm_match_t;

/* Match a job tl_job_finish accepted.  0, or -1 when memory ran out or
 * the job was not finished (m is then empty). */
int tm_match(const tl_job_t *j, tm_match_t *m);
void tm_free(tm_match_t *m);

/* The index of the member of world rank w among collective c's (they are
 * in world rank order, the communicator's may differ), or TL_NONE. */
uint32_t tm_member_of(const tm_match_t *m, const tm_coll_t *c, int32_t w);

#endif

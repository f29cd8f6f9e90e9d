/* PMI-1 server ("simple PMI" wire protocol of MPICH), without any I/O.
 *
 * Design note.  Every rank has one stream connection to tern-run (one end of
 * a socketpair, passed as PMI_FD).  The client writes text lines
 *     cmd=<name> key=value key=value ...\n
 * and the server answers with lines of the same shape.  Values hold no
 * spaces.  The server here only turns input bytes into state changes and
 * reply bytes: the caller feeds what it read from rank r's socket to
 * tn_pmi_srv_input() and writes out whatever accumulates in
 * srv->conns[r].out.  A command may put replies on other connections too
 * (barrier_out goes to every rank when the last one enters the barrier).
 *
 * Commands served (request -> reply):
 *   cmd=init pmi_version=1 pmi_subversion=1
 *                        -> cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
 *                           (rc=-1 for another version)
 *   cmd=initack pmiid=I  -> cmd=initack, cmd=set size=N, cmd=set rank=R,
 *                           cmd=set debug=0 (four lines)
 *   cmd=get_maxes        -> cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=1024
 *   cmd=get_appnum       -> cmd=appnum appnum=0
 *   cmd=get_universe_size -> cmd=universe_size size=N
 *   cmd=get_my_kvsname   -> cmd=my_kvsname kvsname=K
 *   cmd=put kvsname=K key=k value=v
 *                        -> cmd=put_result rc=0 msg=success (a put of an
 *                           existing key replaces it)
 *   cmd=get kvsname=K key=k
 *                        -> cmd=get_result rc=0 msg=success value=v
 *                         | cmd=get_result rc=-1 msg=key_<k>_not_found value=unknown
 *   cmd=barrier_in       -> cmd=barrier_out to all ranks once all have entered
 *   cmd=finalize         -> cmd=finalize_ack
 *   cmd=abort [exitcode=N] [internal=1] -> no reply; recorded for the
 *                                launcher (internal: Tern's own fatal
 *                                error, not the application's MPI_Abort)
 *   mcmd=spawn ... endcmd (one block per command)
 *                        -> cmd=spawn_result rc=0 errcodes=0,0,... once the
 *                           launcher started them (tn_pmi_srv_spawn_done);
 *                           rc=-1 for a request refused or failed
 *   anything else        -> cmd=<name>_result rc=-1
 *
 * Requests the server cannot parse get "cmd=error rc=-1 msg=<why>" and are
 * recorded (error_rank, error_msg) for the launcher, which ends the job
 * saying which rank sent what: a line whose first field is not cmd= or
 * mcmd=, a field without '=', more than PMI_MAX_PAIRS fields, bytes that
 * are not printable ASCII, a line longer than TN_PMI_LINE_MAX, and a line
 * cut off by the end of the connection (tn_pmi_srv_eof()).
 *
 * Limits, so that no rank can make the launcher grow without bound: the
 * key-value space holds at most kvs_max_keys keys and kvs_max_bytes bytes
 * of keys and values (a put beyond either gets
 * "cmd=put_result rc=-1 msg=kvs_full" and is recorded as an error), and at
 * most backlog_max bytes of replies may wait for a rank that does not read
 * them (beyond, the rank's replies are dropped and the error recorded).
 * The key-value space is pre-loaded with PMI_process_mapping=(vector,(0,1,N))
 * (all ranks on one node; tn_pmi_srv_put replaces it for several hosts),
 * which MPICH-derived clients look up.  The kvsname given in put/get is not
 * checked against ours: a job has one.
 *
 * Part of a job.  In a multi-host job each host's server has connections
 * for its own ranks only: connection i serves conns[i].rank of a job of
 * size ranks (tn_pmi_srv_init_part).  Its barrier is then one part of a
 * fence: once all of its connections have entered, fence_ready is set
 * instead of answering, the puts since the last fence are in delta (the
 * caller sends them up the launch tree), and tn_pmi_srv_fence_apply and
 * tn_pmi_srv_fence_release finish the fence when the union of every
 * host's puts comes back. */
#ifndef TN_PMI_SRV_H
#define TN_PMI_SRV_H

#include "pmi_kvs.h"
#include "run_util.h"

#include <stdint.h>

#define TN_PMI_KVSNAME_MAX 256
#define TN_PMI_KEYLEN_MAX  256
#define TN_PMI_VALLEN_MAX  1024
/* A longer line is a protocol error: the connection is to be closed. */
#define TN_PMI_LINE_MAX    65536

/* State of one rank's connection. */
typedef struct {
    int          rank;          /* the rank in the job this connection serves */
    int          appnum;        /* its MPMD block (cmd=get_appnum) */
    tn_run_buf_t in;            /* received bytes not yet ending a line */
    tn_run_buf_t out;           /* replies not yet written */
    unsigned     closed     : 1;/* tn_pmi_srv_closed() was called */
    unsigned     contacted  : 1;/* sent anything at all */
    unsigned     inited     : 1;/* sent cmd=init */
    unsigned     finalized  : 1;/* sent cmd=finalize */
    unsigned     in_barrier : 1;/* sent barrier_in, waits for barrier_out */
    unsigned     in_mcmd    : 1;/* inside an mcmd=... block, until endcmd */
    unsigned     spawning   : 1;/* ... whose lines go to srv->spawn */
    unsigned     aborted    : 1;/* sent cmd=abort */
    unsigned     gone       : 1;/* the process exited (tn_pmi_srv_gone()) */
    unsigned     broken     : 1;/* protocol error: input ignored from now on */
    unsigned     overflow   : 1;/* unread replies beyond backlog_max: dropped */
    int          abort_code;    /* exitcode of cmd=abort (1 when absent) */
    int          abort_internal;/* internal=1: Tern ended the job, not MPI_Abort */
} tn_pmi_conn_t;

/* A spawn request (PMI-1 "mcmd=spawn" blocks) the server collected for
 * the launcher to carry out (run_spawn.c): one app per block. */
typedef struct {
    int    nprocs;
    char  *exec;
    int    argc;
    int    argcnt_sent;         /* argcnt= came: argc is what it said */
    char **argv;                /* [argc] */
    int    ninfo;
    char **info_key, **info_val;
} tn_pmi_spawn_app_t;

/* Bytes of strings one spawn request may hold (its execnames, arguments,
 * info and preput pairs): a command line execve takes is smaller. */
#define TN_PMI_SPAWN_BYTES_MAX (1u << 20)

/* A rank's lines are hostile: a block is collected only while its rank's
 * connection is "spawning" (the block was accepted), every count
 * (totspawns <= 1024 commands, argcnt <= 4096, info_num and preput_num
 * <= 64) is said once, nothing beyond a count is taken, and strings are
 * held up to TN_PMI_SPAWN_BYTES_MAX; otherwise the request is dropped
 * and answered rc=-1. */
typedef struct {
    int                 rank;   /* the connection that asked, -1: none */
    int                 ready;  /* every block arrived: carry it out */
    int                 total;  /* totspawns */
    int                 napps;
    tn_pmi_spawn_app_t *apps;
    int                 npre;
    char              **pre_key, **pre_val;   /* of the first block */
    size_t              bytes;  /* of strings held */
} tn_pmi_spawn_t;

/* Defaults of the limits (tern-run takes TERN_RUN_KVS_KEYS,
 * TERN_RUN_KVS_BYTES and TERN_RUN_PMI_BACKLOG from the config table). */
#define TN_PMI_KVS_KEYS_DEF    65536
#define TN_PMI_KVS_BYTES_DEF   (64u << 20)
#define TN_PMI_BACKLOG_DEF     (1u << 20)

typedef struct {
    int            size;                        /* ranks in the job */
    int            nconns;                      /* ranks served here */
    char           kvsname[TN_PMI_KVSNAME_MAX];
    tn_pmi_kvs_t  *kvs;
    tn_pmi_conn_t *conns;                       /* [nconns] */
    int            nbarrier;                    /* ranks in the barrier */
    int            abort_rank;                  /* first connection to abort, or -1 */
    int            error_rank;                  /* first protocol error, or -1 */
    int            part;                        /* part of a job: see above */
    int            fence_ready;                 /* part: all connections entered */
    tn_run_buf_t   delta;                       /* part: puts since the last */
    uint32_t       ndelta;                      /* fence (run_proto pairs) */
    char           error_msg[240];              /* what it did, for the log */
    size_t         kvs_max_keys;                /* limits (see above); set */
    size_t         kvs_max_bytes;               /* after init to change the */
    size_t         backlog_max;                 /* defaults */
    tn_pmi_spawn_t spawn;                       /* a spawn being collected */
    int            nnames;                      /* name service: published */
    char         **names, **ports;              /* services and their ports */
} tn_pmi_srv_t;

/* Set up a server for size ranks with the given kvsname (shorter than
 * TN_PMI_KVSNAME_MAX). */
void tn_pmi_srv_init(tn_pmi_srv_t *srv, int size, const char *kvsname);
/* Set up a server for nconns of the size ranks of a job: connection i
 * serves ranks[i] (appnum 0 until the caller sets conns[i].appnum). */
void tn_pmi_srv_init_part(tn_pmi_srv_t *srv, int size, int nconns,
                          const int *ranks, const char *kvsname);
void tn_pmi_srv_fini(tn_pmi_srv_t *srv);

/* Part of a job: store the fence's union of puts (npairs pairs of
 * run_proto.h) and answer barrier_out to every connection. */
void tn_pmi_srv_fence_apply(tn_pmi_srv_t *srv, const char *pairs, size_t len);
void tn_pmi_srv_fence_release(tn_pmi_srv_t *srv);
/* Replace a key's value (the launcher's own keys). */
void tn_pmi_srv_put(tn_pmi_srv_t *srv, const char *key, const char *value);

/* Feed len bytes read from rank's connection.  Whole lines are served at
 * once; a partial line waits for the rest.  Returns 0, or -1 when the rank
 * broke the protocol beyond repair (a line over TN_PMI_LINE_MAX): the caller
 * should send what is queued (the error reply), close the connection and
 * call tn_pmi_srv_closed(). */
int tn_pmi_srv_input(tn_pmi_srv_t *srv, int rank, const char *data, size_t len);

/* Rank's connection reached end of file: a partial line left over is a
 * protocol error (an error reply is queued for a half-closed socket). */
void tn_pmi_srv_eof(tn_pmi_srv_t *srv, int rank);

/* Rank's process exited. */
void tn_pmi_srv_gone(tn_pmi_srv_t *srv, int rank);

/* A rank that is gone while others wait for it in a barrier that can thus
 * never complete, or -1. */
int tn_pmi_srv_stuck(const tn_pmi_srv_t *srv);

/* Rank's connection is gone: drop its pending output and stop queueing
 * replies for it.  Its recorded state (init, finalize, abort) is kept. */
void tn_pmi_srv_closed(tn_pmi_srv_t *srv, int rank);

/* The launcher carried out srv->spawn (rc 0: started; errcodes one per
 * process, or NULL for all 0): answer the rank and forget the request. */
void tn_pmi_srv_spawn_done(tn_pmi_srv_t *srv, int rc);

#endif

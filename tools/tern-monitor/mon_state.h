/* The server's live state (docs/monitor.md): what the node agents' frames
 * (mon_wire.h) add up to.  One thread: the server's loop applies frames and
 * answers queries from it.
 *
 * Metrics are named by the agents' dictionaries; the state keeps one table
 * of names for all nodes.  Per job it keeps each rank's state, current
 * call and totals as the rank's own segment has them (so a frame that
 * starts over from zero, after an agent restarted, replaces what its ranks
 * said before instead of adding to it), and from them the sums over ranks
 * (the size histogram, calls per function...), the communication matrix
 * (rank by rank up to TN_MON_STATE_RANKS_MAX ranks, node by node above,
 * snapshots every TN_MON_STATE_SNAP_S seconds for "the last N seconds")
 * and per link (node pair and rail) what its udp rails carried and lost.
 * Per node it keeps the network interfaces and UDP counters with rates.
 *
 * Frames are applied in order per node: one whose seq is not above the
 * node's last is a resend and ignored; one that is not full from a node
 * the state does not know (the server restarted) is refused with
 * TN_MON_STATE_NEED_FULL, which the server answers so that the agent
 * starts over with a full frame. */
#ifndef TN_MON_STATE_H
#define TN_MON_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "mon_index.h"

#define TN_MON_STATE_RANKS_MAX 256   /* rank-level matrix up to this */
#define TN_MON_STATE_SNAP_S    10
#define TN_MON_STATE_SNAPS     7     /* back 60 s */
#define TN_MON_STATE_SPARK     60    /* samples of a sparkline */
#define TN_MON_STATE_NICS      16
#define TN_MON_STATE_GONE_MS   3000  /* a job no node lists for this long ended */
#define TN_MON_STATE_NEED_FULL (-2)

/* values kept per peer record of a rank */
enum {
    TN_MON_RV_MSGS = 0,             /* peer_msgs by class */
    TN_MON_RV_BYTES = 3,            /* peer_bytes by class */
    TN_MON_RV_TOOK = 6, TN_MON_RV_TOOK_BYTES,
    TN_MON_RV_RAIL_SENT,            /* 4 rails */
    TN_MON_RV_RAIL_LOST = TN_MON_RV_RAIL_SENT + 4,
    TN_MON_RV_SRTT = TN_MON_RV_RAIL_LOST + 4,
    TN_MON_RV_RAILS_DOWN,
    TN_MON_RV_N
};

enum { TN_MON_CLS_P2P, TN_MON_CLS_COLL, TN_MON_CLS_RMA, TN_MON_NCLS };
/* the matrix arrays: bytes of each class, then messages of each class */
enum { TN_MON_MAT_BYTES = 0, TN_MON_MAT_MSGS = TN_MON_NCLS, TN_MON_NMAT = 2 * TN_MON_NCLS };

typedef struct {
    char     name[40];
    int      cls;                   /* TERN_STATS_COUNTER... */
    char     unit[32];
    char    *help;
    char     key[24];               /* the axis's label key, "" for scalars */
    int      nelems;                /* 0: a scalar */
    char   **elems;
} tn_mon_metric_t;

typedef struct {
    char     name[16];
    int      oper;
    uint32_t speed_mbps, mtu;
    uint64_t ctr[16], prev[16];
    double   rate[16];              /* per second over the last interval */
    double   spark_rx[TN_MON_STATE_SPARK], spark_tx[TN_MON_STATE_SPARK];
    int      have_prev, seen;
} tn_mon_nic_state_t;

#define TN_MON_STATE_IB 8

typedef struct {
    char     dev[64];
    uint32_t port, state;
    uint64_t rate_mbps;
    uint64_t ctr[16], prev[16];
    double   rate[16];              /* per second over the last interval */
    int      have_prev;
} tn_mon_ib_state_t;

typedef struct {
    char     name[64];
    int      index;                 /* in the state's nodes */
    uint64_t first_ms, last_ms, last_t_ms, prev_t_ms;
    uint64_t seq;                   /* of the last frame applied */
    int     *idmap;                 /* wire metric id -> metric index, -1 */
    int      nidmap;
    tn_mon_nic_state_t nic[TN_MON_STATE_NICS];
    int      nnic;
    tn_mon_ib_state_t ib[TN_MON_STATE_IB];
    int      nib;
    uint64_t snmp[16], snmp_prev[16];
    double   snmp_rate[16];
    int      snmp_have_prev;
    int      frames;
    /* the ranks its last frame listed: those the next one does not list
     * are gone */
    struct tn_mon_rankst **listed;
    int      nlisted, cap_listed;
} tn_mon_node_t;

enum { TN_MON_RANK_UNSEEN = -1 };   /* other states: TN_MON_RANK_* of mon_scan.h */

struct tn_mon_rankst;

/* What a rank did with one peer (or node) record: sparse, since most
 * ranks talk to few of their job's ranks. */
typedef struct {
    uint32_t rec;
    uint64_t v[TN_MON_RV_N];
} tn_mon_peerrec_t;

typedef struct tn_mon_rankst {
    int      state;                 /* TN_MON_RANK_*, or UNSEEN */
    int      node;                  /* index in the state's nodes, -1 */
    int      node_id;               /* the job's node index */
    int      pid, in_call;
    char     call[32];
    int64_t  call_ms;               /* -1 unknown */
    uint64_t last_ms;
    uint32_t peer_count;
    uint64_t **pv;                  /* per metric: its process values, or NULL */
    int      npv;
    uint32_t nrec;                  /* records the rank has (peers, nodes, other) */
    tn_mon_peerrec_t *recs;             /* the records it reported anything for */
    uint32_t nrecs, cap_recs;
    uint32_t *index;                /* open addressing: rec -> recs entry + 1 */
    uint32_t index_cap;             /* a power of two, > 2 * nrecs */
    struct tn_mon_job *job;         /* its job */
} tn_mon_rankst_t;

typedef struct {
    int      src, dst, rail;        /* the job's node indices */
    uint64_t sent, lost;
    uint64_t prev_sent, prev_lost;
    double   rate;                  /* lost / sent over the last interval */
    double   spark[TN_MON_STATE_SPARK];
} tn_mon_link_t;

enum { TN_MON_JOB_RUNNING, TN_MON_JOB_FINISHED, TN_MON_JOB_FAILED };

typedef struct tn_mon_job {
    char     id[96], program[32];
    uint32_t uid;
    int      world_size, nnodes;
    uint64_t start_ms, end_ms, last_ms;
    int      state;
    char   (*node_names)[64];       /* nnodes: which agent reported node_id */
    tn_mon_rankst_t *ranks;
    int      level_node;            /* the matrix is node by node */
    int      n;                     /* its side */
    uint64_t *snap[TN_MON_STATE_SNAPS][TN_MON_NMAT];   /* n * n, row = sender */
    uint64_t snap_ms[TN_MON_STATE_SNAPS];
    int      snap_head, nsnap;
    tn_mon_link_t *links;
    int      nlinks, cap_links;
    int      saw_dead;
    /* what the history (mon_hist.c) last wrote of it */
    uint64_t hist_ms, hist_bytes, hist_msgs, hist_put_ms;
    int      hist_final;
} tn_mon_job_t;

typedef struct {
    tn_mon_metric_t *metrics;
    int              nmetrics, cap_metrics;
    tn_mon_node_t  **nodes;
    int              nnodes;
    tn_mon_job_t   **jobs;
    int              njobs;
    tn_mon_index_t   node_ix, job_ix;       /* by name and by id */
    uint64_t         frames, bad_frames, resent_frames;
    /* metric indices the state itself uses, -1 until named */
    int m_msgs_sent, m_bytes_sent, m_peer_msgs, m_peer_bytes, m_took, m_took_bytes;
    int m_rail_sent, m_rail_lost, m_srtt, m_rails_down;
} tn_mon_state_t;

void tn_mon_state_init(tn_mon_state_t *s);
void tn_mon_state_fini(tn_mon_state_t *s);

/* Apply one frame (already authenticated); now_ms is the server's clock.
 * 0, or -1 with a reason (nothing applied). */
int tn_mon_state_apply(tn_mon_state_t *s, const void *frame, size_t len, uint64_t now_ms,
                       char *why, size_t whylen);

/* Once a second: rates, sparklines, snapshots, jobs that ended. */
void tn_mon_state_tick(tn_mon_state_t *s, uint64_t now_ms);

tn_mon_job_t *tn_mon_state_job(tn_mon_state_t *s, const char *id);
tn_mon_node_t *tn_mon_state_node(tn_mon_state_t *s, const char *name);
int tn_mon_state_metric(const tn_mon_state_t *s, const char *name);

/* The whole run's matrix: all TN_MON_NMAT arrays (n * n each, row = the
 * sender) into mat; the bytes no cell could take into *lost_p. */
void tn_mon_state_matrix_all(const tn_mon_state_t *s, const tn_mon_job_t *j, uint64_t **mat,
                             uint64_t *lost_p);
/* The matrix of class cls (-1: all) and kind (TN_MON_MAT_BYTES or _MSGS)
 * over the last window_s seconds (0: the whole run) into out (n * n). */
void tn_mon_state_matrix(const tn_mon_state_t *s, const tn_mon_job_t *j, int cls, int kind,
                         int window_s, uint64_t *out);
/* Both kinds at once (bytes or msgs may be NULL). */
void tn_mon_state_matrix2(const tn_mon_state_t *s, const tn_mon_job_t *j, int cls, int window_s,
                          uint64_t *bytes, uint64_t *msgs);
/* The sum over the job's ranks of element elem of metric m. */
uint64_t tn_mon_state_sum(const tn_mon_job_t *j, int m, int elem);
/* A rank's process value. */
uint64_t tn_mon_state_rank_value(const tn_mon_rankst_t *r, int m, int elem);

#endif

/* Collective entry points: the table of algorithms, the automatic choice and
 * forcing.
 *
 * Every call describes itself (communicator size, a message size, whether
 * the op commutes, MPI_IN_PLACE, whether it is a vector form) with values
 * that are the same on every rank of a correct program, so every rank
 * picks the same algorithm.  Ranks whose counts disagree would pick
 * different ones and wait for each other forever: on a communicator with a
 * shared-memory slot every sized call goes through the kind's shm entry,
 * where the ranks compare their sizes before any of them picks
 * (coll_shm.h), and a mismatch returns TN_ERR_TRUNCATE; elsewhere (several
 * nodes, no slot, the vector forms) the sizes are not compared.
 * A forced algorithm (TERN_COLL_<KIND>=<name>) runs when its restrictions
 * hold; otherwise, and with "auto", the first rule of tn_coll_rules for the
 * kind whose window contains the call and whose algorithm's restrictions
 * hold decides.  The message size a rule looks at, per kind:
 *
 *   bcast, reduce, allreduce, scan: the vector, count * size of the type
 *   reduce_scatter:                 the whole vector, sum of recvcounts
 *   allgather:                      the result, n * one rank's block
 *   gather, scatter, alltoall:      one block (one rank's part)
 *   vector forms (gatherv, ...):    0 (blocks differ between ranks)
 *
 * The thresholds are first guesses from the usual analysis (latency-bound
 * trees and Bruck for short messages, bandwidth-bound scatter/allgather,
 * ring and pipeline shapes for long ones) and meant to be retuned with
 * bench/ numbers.
 *
 * Topology: when a communicator spans several nodes with more than one of
 * its ranks on some node (TN_COLL_R_MULTINODE, from the node map that every
 * rank holds, comm/comm_node.c), the two-level algorithms come first: work
 * inside each node over shared memory, then among the node leaders.  Where
 * they pay only with enough ranks per node (the leaders' extra copies
 * against the network messages saved), their rules say so with min_ppn. */
#include <stdint.h>
#include <strings.h>
#include "base/config.h"
#include "base/log.h"
#include "base/trace.h"
#include "coll/coll_util.h"
#include "runtime/rt.h"

#define COMM TN_COLL_R_COMMUTATIVE
#define POW2 TN_COLL_R_POW2
#define UNIF TN_COLL_R_UNIFORM
#define MULTI TN_COLL_R_MULTINODE
#define NORD TN_COLL_R_NODE_ORDER
#define NBLK TN_COLL_R_NODE_BLOCKS
#define SHM TN_COLL_R_SHM

const tn_coll_algo_t tn_coll_algos[] = {
    { TN_COLL_BARRIER,   "dissemination",     0,    { .barrier = tn_coll_barrier_dissemination } },
    { TN_COLL_BARRIER,   "flat",              0,    { .barrier = tn_coll_barrier_flat } },
    { TN_COLL_BARRIER,   "twolevel",          MULTI, { .barrier = tn_coll_barrier_twolevel } },
    { TN_COLL_BARRIER,   "shm",               SHM,  { .barrier = tn_coll_barrier_shm } },
    { TN_COLL_BCAST,     "binomial",          0,    { .bcast = tn_coll_bcast_binomial } },
    { TN_COLL_BCAST,     "scatter_allgather", 0,    { .bcast = tn_coll_bcast_scatter_allgather } },
    { TN_COLL_BCAST,     "pipeline",          0,    { .bcast = tn_coll_bcast_pipeline } },
    { TN_COLL_BCAST,     "twolevel",          MULTI, { .bcast = tn_coll_bcast_twolevel } },
    { TN_COLL_BCAST,     "shm",               SHM,  { .bcast = tn_coll_bcast_shm } },
    { TN_COLL_REDUCE,    "binomial",          0,    { .reduce = tn_coll_reduce_binomial } },
    { TN_COLL_REDUCE,    "rabenseifner",      COMM, { .reduce = tn_coll_reduce_rabenseifner } },
    { TN_COLL_REDUCE,    "twolevel",          MULTI | NORD, { .reduce = tn_coll_reduce_twolevel } },
    { TN_COLL_REDUCE,    "shm",               SHM,  { .reduce = tn_coll_reduce_shm } },
    { TN_COLL_ALLREDUCE, "recdbl",            0,    { .allreduce = tn_coll_allreduce_recdbl } },
    { TN_COLL_ALLREDUCE, "reduce_bcast",      0,    { .allreduce = tn_coll_allreduce_reduce_bcast } },
    { TN_COLL_ALLREDUCE, "rabenseifner",      COMM, { .allreduce = tn_coll_allreduce_rabenseifner } },
    { TN_COLL_ALLREDUCE, "ring",              COMM, { .allreduce = tn_coll_allreduce_ring } },
    { TN_COLL_ALLREDUCE, "twolevel",          MULTI | NORD,
      { .allreduce = tn_coll_allreduce_twolevel } },
    { TN_COLL_ALLREDUCE, "shm",               SHM,  { .allreduce = tn_coll_allreduce_shm } },
    { TN_COLL_GATHER,    "binomial",          UNIF, { .gather = tn_coll_gather_binomial } },
    { TN_COLL_GATHER,    "linear",            0,    { .gather = tn_coll_gather_linear } },
    { TN_COLL_GATHER,    "twolevel",          MULTI | UNIF, { .gather = tn_coll_gather_twolevel } },
    { TN_COLL_GATHER,    "shm",               SHM | UNIF, { .gather = tn_coll_gather_shm } },
    { TN_COLL_SCATTER,   "binomial",          UNIF, { .scatter = tn_coll_scatter_binomial } },
    { TN_COLL_SCATTER,   "linear",            0,    { .scatter = tn_coll_scatter_linear } },
    { TN_COLL_SCATTER,   "twolevel",          MULTI | UNIF,
      { .scatter = tn_coll_scatter_twolevel } },
    { TN_COLL_SCATTER,   "shm",               SHM | UNIF, { .scatter = tn_coll_scatter_shm } },
    { TN_COLL_ALLGATHER, "ring",              0,    { .allgather = tn_coll_allgather_ring } },
    { TN_COLL_ALLGATHER, "recdbl",            POW2 | UNIF, { .allgather = tn_coll_allgather_recdbl } },
    { TN_COLL_ALLGATHER, "bruck",             UNIF, { .allgather = tn_coll_allgather_bruck } },
    { TN_COLL_ALLGATHER, "twolevel",          MULTI | NBLK | UNIF,
      { .allgather = tn_coll_allgather_twolevel } },
    { TN_COLL_ALLGATHER, "shm",               SHM | UNIF, { .allgather = tn_coll_allgather_shm } },
    { TN_COLL_ALLTOALL,  "pairwise",          0,    { .alltoall = tn_coll_alltoall_pairwise } },
    { TN_COLL_ALLTOALL,  "bruck",             UNIF, { .alltoall = tn_coll_alltoall_bruck } },
    { TN_COLL_ALLTOALL,  "scattered",         0,    { .alltoall = tn_coll_alltoall_scattered } },
    { TN_COLL_ALLTOALL,  "twolevel",          MULTI | UNIF,
      { .alltoall = tn_coll_alltoall_twolevel } },
    { TN_COLL_ALLTOALL,  "shm",               SHM | UNIF, { .alltoall = tn_coll_alltoall_shm } },
    { TN_COLL_REDUCE_SCATTER, "rechalving",   COMM | POW2,
      { .reduce_scatter = tn_coll_reduce_scatter_rechalving } },
    { TN_COLL_REDUCE_SCATTER, "pairwise",     0,
      { .reduce_scatter = tn_coll_reduce_scatter_pairwise } },
    { TN_COLL_REDUCE_SCATTER, "twolevel",     MULTI | NORD,
      { .reduce_scatter = tn_coll_reduce_scatter_twolevel } },
    { TN_COLL_REDUCE_SCATTER, "shm",          SHM,
      { .reduce_scatter = tn_coll_reduce_scatter_shm } },
    { TN_COLL_SCAN,      "recdbl",            0,    { .scan = tn_coll_scan_recdbl } },
    { TN_COLL_SCAN,      "linear",            0,    { .scan = tn_coll_scan_linear } },
    { TN_COLL_KIND_COUNT_, NULL, 0, { NULL } },
};

#undef COMM
#undef POW2
#undef UNIF
#undef MULTI
#undef NORD
#undef NBLK
#undef SHM

/* The automatic choice: per kind, in order, the first rule whose window
 * holds the call and whose algorithm's restrictions hold wins.  Windows:
 * min_ranks <= n <= max_ranks, min_bytes <= bytes < max_bytes, ppn >=
 * min_ppn, where ppn is the communicator's ranks per node (n / nodes,
 * rounded up) (0: no bound); cores 1: not when oversubscribed, -1: only
 * then.  Each kind ends with a rule every call
 * passes. */
typedef struct {
    tn_coll_kind_t kind;
    const char    *algo;
    int            min_ranks, max_ranks;
    size_t         min_bytes, max_bytes;
    int            min_ppn;
    int            cores;     /* 1: only when the node's ranks do not
                               * outnumber its cores, -1: only when they do */
} tn_coll_rule_t;

#define KiB ((size_t)1024)
#define MiB (KiB * 1024)

static const tn_coll_rule_t tn_coll_rules[] = {
    /* several nodes: two-level first (its restrictions say when) */
    { TN_COLL_BARRIER,   "twolevel",          0, 0, 0, 0 },
    { TN_COLL_BCAST,     "twolevel",          0, 0, 0, 0 },
    { TN_COLL_REDUCE,    "twolevel",          0, 0, 0, 0 },
    { TN_COLL_ALLREDUCE, "twolevel",          0, 0, 0, 0 },
    { TN_COLL_ALLGATHER, "twolevel",          0, 0, 0, 0 },
    /* rooted: the root sends or receives one network message per node
     * instead of one per rank; a long block, where the network time is
     * the same either way, streams straight between the root and its peer
     * instead of stopping at the leader */
    { TN_COLL_GATHER,    "twolevel",          0, 0, 0, 256 * KiB, 2 },
    { TN_COLL_SCATTER,   "twolevel",          0, 0, 0, 256 * KiB, 2 },
    /* one network message per pair of nodes instead of per pair of ranks
     * pays for short blocks and many ranks per node; the leaders copy the
     * node's data twice and hold it twice, which long blocks do not repay */
    { TN_COLL_ALLTOALL,  "twolevel",          0, 0, 0, 1 * KiB, 4 },
    /* each node sends and receives about one vector across the network
     * instead of one per rank */
    { TN_COLL_REDUCE_SCATTER, "twolevel",     0, 0, 0, 0, 2 },
    /* one node: short collectives through the communicator's shared-memory
     * slot, a cache-line hand-off instead of messages (the algorithms fall
     * back when the data outgrows TERN_SHM_COLL_BYTES).  Bcast and scatter
     * only when every rank has a core: their point-to-point versions let
     * the root run many calls ahead (the slot's words let it too, its 4
     * buffers only 3), and with more ranks than cores the waits cost
     * context switches (measured, bcast 4 B on 2 cores: 4 ranks shm 1.4 us,
     * binomial 0.6; 8 ranks 3.3 against 2.4).  Reduce and gather always:
     * there every rank must see every rank's size before a message
     * algorithm starts (coll_shm.h), which with more ranks than cores costs
     * more than the slot (a loop of 4 B reduces, 4 ranks on 2 cores: shm
     * 1.5-2.4 us, binomial after the sizes 13-20) */
    { TN_COLL_BARRIER,   "shm",               0, 0, 0, 0 },
    { TN_COLL_BCAST,     "shm",               0, 0, 0, 8 * KiB + 1, 0, 1 },
    { TN_COLL_REDUCE,    "shm",               0, 0, 0, 4 * KiB + 1 },
    { TN_COLL_ALLREDUCE, "shm",               0, 0, 0, 4 * KiB + 1 },
    { TN_COLL_GATHER,    "shm",               0, 0, 0, 4 * KiB + 1 },
    { TN_COLL_SCATTER,   "shm",               0, 0, 0, 1 * KiB + 1, 0, 1 },
    { TN_COLL_ALLGATHER, "shm",               0, 0, 0, 16 * KiB + 1 },
    { TN_COLL_ALLTOALL,  "shm",               0, 2, 0, 2 * KiB + 1 },
    { TN_COLL_ALLTOALL,  "shm",               0, 0, 0, 1 * KiB + 1 },
    { TN_COLL_REDUCE_SCATTER, "shm",          0, 0, 0, 4 * KiB + 1 },
    /* two ranks: one exchange; up to 16, 2 (n-1) messages through one
     * rank beat log2 n rounds (measured: 8 ranks on 2 cores, flat 13-15 us,
     * dissemination 19-23 us); beyond, the rounds win */
    { TN_COLL_BARRIER,   "dissemination",     0, 2, 0, 0 },
    { TN_COLL_BARRIER,   "flat",              0, 16, 0, 0 },
    { TN_COLL_BARRIER,   "dissemination",     0, 0, 0, 0 },
    /* short: log2 n latency; medium: scatter + allgather moves ~2 buffers
     * per rank; long: a segmented chain streams at link speed */
    /* more ranks than cores: the tree's log2 n messages beat the scatter
     * + allgather's many (measured on 2 cores, 8 ranks: 16 KiB 9.3 against
     * 19.7 us, 256 KiB 129 against 298; 4 ranks: 16 KiB 3.7-6.0 against
     * 5.9-8.6, 128 KiB 23-30 against 40-46) */
    { TN_COLL_BCAST,     "binomial",          0, 0, 0, 512 * KiB, 0, -1 },
    { TN_COLL_BCAST,     "binomial",          0, 0, 0, 12 * KiB },
    { TN_COLL_BCAST,     "binomial",          0, 2, 0, 0 },
    { TN_COLL_BCAST,     "scatter_allgather", 0, 0, 0, 512 * KiB },
    { TN_COLL_BCAST,     "pipeline",          0, 0, 0, 0 },
    { TN_COLL_REDUCE,    "rabenseifner",      0, 0, 64 * KiB, 0 },
    { TN_COLL_REDUCE,    "binomial",          0, 0, 0, 0 },
    { TN_COLL_ALLREDUCE, "recdbl",            0, 0, 0, 8 * KiB },
    /* two ranks: two exchanges of half vectors at any length (the ring
     * would move the same data with more copies) */
    { TN_COLL_ALLREDUCE, "rabenseifner",      0, 2, 0, 0 },
    { TN_COLL_ALLREDUCE, "rabenseifner",      0, 0, 0, 1 * MiB },
    { TN_COLL_ALLREDUCE, "ring",              0, 0, 0, 0 },
    { TN_COLL_ALLREDUCE, "reduce_bcast",      0, 0, 0, 0 },  /* long, non-commutative */
    { TN_COLL_GATHER,    "binomial",          0, 0, 0, 32 * KiB },
    { TN_COLL_GATHER,    "linear",            0, 0, 0, 0 },
    { TN_COLL_SCATTER,   "binomial",          0, 0, 0, 32 * KiB },
    { TN_COLL_SCATTER,   "linear",            0, 0, 0, 0 },
    /* two ranks: one exchange, my block copied while it runs */
    { TN_COLL_ALLGATHER, "recdbl",            0, 2, 0, 0 },
    { TN_COLL_ALLGATHER, "recdbl",            0, 0, 0, 512 * KiB },
    { TN_COLL_ALLGATHER, "bruck",             0, 0, 0, 80 * KiB },
    { TN_COLL_ALLGATHER, "ring",              0, 0, 0, 0 },
    /* Bruck pays off in per-message costs once there are many peers */
    { TN_COLL_ALLTOALL,  "bruck",             8, 0, 0, 256 },
    { TN_COLL_ALLTOALL,  "scattered",         0, 0, 0, 32 * KiB },
    /* more ranks than cores: every exchange posted at once lets each
     * rank move whatever its scheduled peers offer, where pairwise steps
     * wait for one peer at a time (measured, 2 cores: 4 ranks 32 KiB 22
     * against 33 us, 128 KiB 60-73 against 85-94, 1 MiB 1.0-1.3 against
     * 1.4-1.5 ms; 8 ranks 32 KiB 125-256 against 242-350 us, equal from
     * 128 KiB) */
    { TN_COLL_ALLTOALL,  "scattered",         0, 0, 0, 0, 0, -1 },
    { TN_COLL_ALLTOALL,  "pairwise",          0, 0, 0, 0 },
    /* two ranks: one exchange straight into the result block; long
     * vectors: recursive halving copies and allocates the whole vector
     * twice per call (measured, 1 MiB total: 2 ranks pairwise 125 us,
     * rechalving 2171 us; 4 ranks 319 us against 2753 us; even at 64 KiB) */
    { TN_COLL_REDUCE_SCATTER, "pairwise",     0, 2, 0, 0 },
    { TN_COLL_REDUCE_SCATTER, "rechalving",   0, 0, 0, 64 * KiB },
    { TN_COLL_REDUCE_SCATTER, "pairwise",     0, 0, 0, 0 },
    { TN_COLL_SCAN,      "recdbl",            0, 0, 0, 0 },
};

#undef KiB
#undef MiB

static const char *const tn_coll_kind_names[TN_COLL_KIND_COUNT_] = {
    [TN_COLL_BARRIER] = "BARRIER",     [TN_COLL_BCAST] = "BCAST",
    [TN_COLL_REDUCE] = "REDUCE",       [TN_COLL_ALLREDUCE] = "ALLREDUCE",
    [TN_COLL_GATHER] = "GATHER",       [TN_COLL_SCATTER] = "SCATTER",
    [TN_COLL_ALLGATHER] = "ALLGATHER", [TN_COLL_ALLTOALL] = "ALLTOALL",
    [TN_COLL_REDUCE_SCATTER] = "REDUCE_SCATTER", [TN_COLL_SCAN] = "SCAN",
};

const char *tn_coll_kind_name(tn_coll_kind_t kind)
{
    return kind < TN_COLL_KIND_COUNT_ ? tn_coll_kind_names[kind] : "?";
}

/* What the choice looks at; the same on every rank. */
typedef struct {
    int    n;
    size_t bytes;
    int    commutative;
    int    inplace;      /* unrooted kinds only */
    int    vector;
    int    multinode;    /* TN_COLL_R_MULTINODE holds */
    int    ppn;          /* ranks per node, n / nodes rounded up */
    int    blocked;      /* every node's ranks are consecutive */
    int    shm;          /* TN_COLL_R_SHM holds */
    int    oversub;      /* this node's ranks outnumber its cores */
    tn_comm_t *comm;     /* (call_shape fills the fields above from it) */
} tn_coll_call_t;

static int algo_fits(const tn_coll_algo_t *a, const tn_coll_call_t *c)
{
    return !((a->restrict_ & TN_COLL_R_COMMUTATIVE) && !c->commutative) &&
           !((a->restrict_ & TN_COLL_R_POW2) && !tn_coll_is_pof2(c->n)) &&
           !((a->restrict_ & TN_COLL_R_NO_INPLACE) && c->inplace) &&
           !((a->restrict_ & TN_COLL_R_UNIFORM) && c->vector) &&
           !((a->restrict_ & TN_COLL_R_MULTINODE) && !c->multinode) &&
           !((a->restrict_ & TN_COLL_R_NODE_ORDER) && !c->commutative && !c->blocked) &&
           !((a->restrict_ & TN_COLL_R_NODE_BLOCKS) && !c->blocked) &&
           !((a->restrict_ & TN_COLL_R_SHM) && !c->shm);
}

static int algo_find(tn_coll_kind_t kind, const char *name)
{
    int i;

    for (i = 0; tn_coll_algos[i].name != NULL; i++) {
        if (tn_coll_algos[i].kind == kind && strcasecmp(tn_coll_algos[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static const char *forced_name(tn_coll_kind_t kind)
{
    switch (kind) {
    case TN_COLL_BARRIER:        return tn_cfg.coll_barrier;
    case TN_COLL_BCAST:          return tn_cfg.coll_bcast;
    case TN_COLL_REDUCE:         return tn_cfg.coll_reduce;
    case TN_COLL_ALLREDUCE:      return tn_cfg.coll_allreduce;
    case TN_COLL_GATHER:         return tn_cfg.coll_gather;
    case TN_COLL_SCATTER:        return tn_cfg.coll_scatter;
    case TN_COLL_ALLGATHER:      return tn_cfg.coll_allgather;
    case TN_COLL_ALLTOALL:       return tn_cfg.coll_alltoall;
    case TN_COLL_REDUCE_SCATTER: return tn_cfg.coll_reduce_scatter;
    case TN_COLL_SCAN:           return tn_cfg.coll_scan;
    default:                     return NULL;
    }
}

/* Index of the algorithm TERN_COLL_<KIND> forces, or -1 for auto.  Parsed
 * once per configuration generation: an MPI_T write of TERN_COLL_<KIND>
 * (tn_config_set) applies to the collectives started after it. */
static int forced_algo(tn_coll_kind_t kind)
{
    static int forced[TN_COLL_KIND_COUNT_];
    static unsigned parsed[TN_COLL_KIND_COUNT_];   /* generation + 1; 0: never */

    if ((unsigned)kind >= TN_COLL_KIND_COUNT_) {
        return -1;
    }
    if (parsed[kind] != tn_config_generation + 1) {
        const char *name = forced_name(kind);

        forced[kind] = -1;
        if (name != NULL && name[0] != '\0' && strcasecmp(name, "auto") != 0) {
            forced[kind] = algo_find(kind, name);
            if (forced[kind] < 0) {
                tn_log_warn("coll", "TERN_COLL_%s=%s names no %s algorithm; using auto "
                            "(tern-info lists them)", tn_coll_kind_name(kind), name,
                            tn_coll_kind_name(kind));
            }
        }
        parsed[kind] = tn_config_generation + 1;
    }
    return forced[kind];
}

const char *tn_coll_forced(tn_coll_kind_t kind)
{
    int f = forced_algo(kind);

    return f >= 0 ? tn_coll_algos[f].name : NULL;
}

/* The algorithm index of rule i, looked up by name once (this runs on
 * every collective call). */
static int rule_algo(size_t i)
{
    enum { NRULES = sizeof tn_coll_rules / sizeof tn_coll_rules[0] };
    static int idx[NRULES];
    static int resolved;

    if (!resolved) {
        for (size_t k = 0; k < NRULES; k++) {
            idx[k] = algo_find(tn_coll_rules[k].kind, tn_coll_rules[k].algo);
        }
        resolved = 1;
    }
    return idx[i];
}

/* The algorithm for a call: forced when it fits, else the first rule that
 * fits. */
static const tn_coll_algo_t *coll_pick_(tn_coll_kind_t kind, const tn_coll_call_t *c)
{
    static unsigned char fallback_logged[TN_COLL_KIND_COUNT_];
    int f = forced_algo(kind);
    size_t i;

    if (f >= 0) {
        if (algo_fits(&tn_coll_algos[f], c)) {
            return &tn_coll_algos[f];
        }
        if (!fallback_logged[kind]) {
            fallback_logged[kind] = 1;
            tn_log_debug("coll", "TERN_COLL_%s=%s does not apply to a call on %d ranks "
                         "(%s%s%s); automatic choice (logged once)",
                         tn_coll_kind_name(kind), tn_coll_algos[f].name, c->n,
                         c->commutative ? "commutative" : "non-commutative",
                         c->inplace ? ", in place" : "", c->vector ? ", vector form" : "");
        }
    }
    for (i = 0; i < sizeof tn_coll_rules / sizeof tn_coll_rules[0]; i++) {
        const tn_coll_rule_t *r = &tn_coll_rules[i];
        int a;

        if (r->kind != kind || (r->min_ranks && c->n < r->min_ranks) ||
            (r->max_ranks && c->n > r->max_ranks) || c->bytes < r->min_bytes ||
            (r->max_bytes && c->bytes >= r->max_bytes) || c->ppn < r->min_ppn ||
            (r->cores > 0 && c->oversub) || (r->cores < 0 && !c->oversub)) {
            continue;
        }
        a = rule_algo(i);
        if (a >= 0 && algo_fits(&tn_coll_algos[a], c)) {
            return &tn_coll_algos[a];
        }
    }
    /* not reached: every kind ends with a rule that always fits */
    return NULL;
}

/* What the communicator's shape adds to a call (the node map, the shared-
 * memory slot, oversubscription): the same for every call on comm until its
 * slot claim fails, so only looked at when the choice is made afresh. */
static void call_shape(tn_coll_call_t *c, tn_comm_t *comm)
{
    /* cached after the first call on comm; NULL (out of memory) counts as
     * one node */
    const tn_comm_nodes_t *nm = tn_comm_nodes(comm);

    c->multinode = nm != NULL && nm->nnodes > 1 && nm->max_local > 1;
    c->blocked = nm != NULL && nm->blocked;
    c->ppn = nm != NULL ? (comm->size + nm->nnodes - 1) / nm->nnodes : comm->size;
    c->shm = tn_coll_shm_eligible(comm);
    c->oversub = tn_rt.oversubscribed;
}

/* The algorithm for a call on comm.  The last choice made on comm is kept
 * with what it depended on (kind, size, op and buffer flags): a loop of the
 * same call, the common case, skips the rules (a quarter of a short
 * collective's time on one node).  tn_coll_pick_forget drops it. */
static const tn_coll_algo_t *coll_pick(tn_coll_kind_t kind, tn_coll_call_t *c)
{
    tn_comm_t *comm = c->comm;
    const tn_coll_algo_t *a;
    unsigned key = 1u | (unsigned)kind << 1 | (unsigned)(c->commutative != 0) << 6 |
                   (unsigned)(c->inplace != 0) << 7 | (unsigned)(c->vector != 0) << 8;

    if (comm->coll_pick_key == key && comm->coll_pick_bytes == c->bytes) {
        a = comm->coll_pick_algo;
        tn_trace_algo((unsigned)(a - tn_coll_algos));
        return a;
    }
    call_shape(c, comm);
    a = coll_pick_(kind, c);
    tn_trace_algo((unsigned)(a - tn_coll_algos));
    comm->coll_pick_key = key;
    comm->coll_pick_bytes = c->bytes;
    comm->coll_pick_algo = a;

    tn_log_trace("coll", "%s on %d ranks, %zu bytes%s%s: %s", tn_coll_kind_name(kind), c->n,
                 c->bytes, c->commutative ? "" : ", non-commutative",
                 c->vector ? ", vector form" : "", a->name);
    return a;
}

void tn_coll_pick_forget(tn_comm_t *comm)
{
    comm->coll_pick_key = 0;
    comm->coll_pick_algo = NULL;
}

static void call_init(tn_coll_call_t *c, tn_comm_t *comm, size_t bytes)
{
    c->comm = comm;
    c->n = comm->size;
    c->bytes = bytes;
    c->commutative = 1;
    c->inplace = 0;
    c->vector = 0;
}

const tn_coll_algo_t *tn_coll_pick(tn_coll_kind_t kind, tn_comm_t *comm, size_t bytes,
                                   int commutative, int inplace, int vector)
{
    tn_coll_call_t c;

    call_init(&c, comm, bytes);
    c.commutative = commutative;
    c.inplace = inplace;
    c.vector = vector;
    return coll_pick(kind, &c);
}

/* Uniform blocks of count elements of dt. */
static void blocks_uniform(tn_coll_blocks_t *b, size_t count, const tn_dt_t *dt)
{
    b->counts = NULL;
    b->displs = NULL;
    b->wide = 0;
    b->count = count;
    b->dt = dt;
    b->dts = NULL;
}

/* ---- entry points ------------------------------------------------------ */
tn_status_t tn_coll_barrier(tn_comm_t *comm)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return TN_OK;
    }
    call_init(&c, comm, 0);
    return coll_pick(TN_COLL_BARRIER, &c)->fn.barrier(comm);
}

tn_status_t tn_coll_bcast(void *buf, size_t count, const tn_dt_t *dt, int root,
                          tn_comm_t *comm)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return TN_OK;
    }
    if (tn_coll_shm_eligible(comm)) {
        return tn_coll_bcast_shm(buf, count, dt, root, comm);
    }
    if (tn_dt_bytes(dt, count) == 0) {
        return TN_OK;
    }
    call_init(&c, comm, tn_dt_bytes(dt, count));
    return coll_pick(TN_COLL_BCAST, &c)->fn.bcast(buf, count, dt, root, comm);
}

tn_status_t tn_coll_reduce(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, int root, tn_comm_t *comm)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE ? TN_OK : tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
    }
    if (tn_coll_shm_eligible(comm)) {
        return tn_coll_reduce_shm(sbuf, rbuf, count, dt, op, root, comm);
    }
    if (count == 0) {
        return TN_OK;
    }
    call_init(&c, comm, tn_dt_bytes(dt, count));
    c.commutative = op->commutative;
    return coll_pick(TN_COLL_REDUCE, &c)->fn.reduce(sbuf, rbuf, count, dt, op, root, comm);
}

tn_status_t tn_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                              const tn_dt_t *dt, const tn_op_t *op, tn_comm_t *comm)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE ? TN_OK : tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
    }
    if (tn_coll_shm_eligible(comm)) {
        return tn_coll_allreduce_shm(sbuf, rbuf, count, dt, op, comm);
    }
    if (count == 0) {
        return TN_OK;
    }
    call_init(&c, comm, tn_dt_bytes(dt, count));
    c.commutative = op->commutative;
    c.inplace = sbuf == TN_IN_PLACE;
    return coll_pick(TN_COLL_ALLREDUCE, &c)->fn.allreduce(sbuf, rbuf, count, dt, op, comm);
}

/* gather and gatherv; rb is only read at the root */
static tn_status_t gather_any(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                              void *rbuf, const tn_coll_blocks_t *rb, int root,
                              tn_comm_t *comm, size_t bytes, int vector)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE ? TN_OK
                                   : tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, 0),
                                                  tn_coll_blk_count(rb, 0), rb->dt, comm);
    }
    if (!vector && tn_coll_shm_eligible(comm)) {
        return tn_coll_gather_shm(sbuf, scount, sdt, rbuf, rb, root, comm);
    }
    call_init(&c, comm, bytes);
    c.vector = vector;
    return coll_pick(TN_COLL_GATHER, &c)->fn.gather(sbuf, scount, sdt, rbuf, rb, root, comm);
}

tn_status_t tn_coll_gather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                           void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                           tn_comm_t *comm)
{
    tn_coll_blocks_t rb;
    size_t bytes = sbuf == TN_IN_PLACE ? tn_dt_bytes(rdt, rcount) : tn_dt_bytes(sdt, scount);

    blocks_uniform(&rb, rcount, rdt);
    return gather_any(sbuf, scount, sdt, rbuf, &rb, root, comm, bytes, 0);
}

tn_status_t tn_coll_gatherv(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                            void *rbuf, const tn_coll_blocks_t *rb, int root,
                            tn_comm_t *comm)
{
    return gather_any(sbuf, scount, sdt, rbuf, rb, root, comm, 0, 1);
}

/* scatter and scatterv; sb is only read at the root */
static tn_status_t scatter_any(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                               size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm,
                               size_t bytes, int vector)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return rbuf == TN_IN_PLACE ? TN_OK
                                   : tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, 0),
                                                  tn_coll_blk_count(sb, 0), sb->dt, rbuf,
                                                  rcount, rdt, comm);
    }
    if (!vector && tn_coll_shm_eligible(comm)) {
        return tn_coll_scatter_shm(sbuf, sb, rbuf, rcount, rdt, root, comm);
    }
    call_init(&c, comm, bytes);
    c.vector = vector;
    return coll_pick(TN_COLL_SCATTER, &c)->fn.scatter(sbuf, sb, rbuf, rcount, rdt, root, comm);
}

tn_status_t tn_coll_scatter(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                            void *rbuf, size_t rcount, const tn_dt_t *rdt, int root,
                            tn_comm_t *comm)
{
    tn_coll_blocks_t sb;
    size_t bytes = comm->rank == root ? tn_dt_bytes(sdt, scount) : tn_dt_bytes(rdt, rcount);

    blocks_uniform(&sb, scount, sdt);
    return scatter_any(sbuf, &sb, rbuf, rcount, rdt, root, comm, bytes, 0);
}

tn_status_t tn_coll_scatterv(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                             size_t rcount, const tn_dt_t *rdt, int root, tn_comm_t *comm)
{
    return scatter_any(sbuf, sb, rbuf, rcount, rdt, root, comm, 0, 1);
}

static tn_status_t allgather_any(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                                 void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm,
                                 size_t bytes, int vector)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE ? TN_OK
                                   : tn_coll_copy(sbuf, scount, sdt, tn_coll_blk_ptr(rb, rbuf, 0),
                                                  tn_coll_blk_count(rb, 0), rb->dt, comm);
    }
    if (!vector && tn_coll_shm_eligible(comm)) {
        return tn_coll_allgather_shm(sbuf, scount, sdt, rbuf, rb, comm);
    }
    call_init(&c, comm, bytes);
    c.inplace = sbuf == TN_IN_PLACE;
    c.vector = vector;
    return coll_pick(TN_COLL_ALLGATHER, &c)->fn.allgather(sbuf, scount, sdt, rbuf, rb, comm);
}

tn_status_t tn_coll_allgather(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                              void *rbuf, size_t rcount, const tn_dt_t *rdt,
                              tn_comm_t *comm)
{
    tn_coll_blocks_t rb;
    size_t blk = sbuf == TN_IN_PLACE ? tn_dt_bytes(rdt, rcount) : tn_dt_bytes(sdt, scount);

    blocks_uniform(&rb, rcount, rdt);
    return allgather_any(sbuf, scount, sdt, rbuf, &rb, comm, blk * (size_t)comm->size, 0);
}

tn_status_t tn_coll_allgatherv(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                               void *rbuf, const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    return allgather_any(sbuf, scount, sdt, rbuf, rb, comm, 0, 1);
}

static tn_status_t alltoall_any(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                                const tn_coll_blocks_t *rb, tn_comm_t *comm, size_t bytes,
                                int vector)
{
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE
                   ? TN_OK
                   : tn_coll_copy(tn_coll_blk_ptr(sb, sbuf, 0), tn_coll_blk_count(sb, 0),
                                  tn_coll_blk_dt(sb, 0), tn_coll_blk_ptr(rb, rbuf, 0),
                                  tn_coll_blk_count(rb, 0), tn_coll_blk_dt(rb, 0), comm);
    }
    if (!vector && tn_coll_shm_eligible(comm)) {
        return tn_coll_alltoall_shm(sbuf, sb, rbuf, rb, comm);
    }
    call_init(&c, comm, bytes);
    c.inplace = sbuf == TN_IN_PLACE;
    c.vector = vector;
    return coll_pick(TN_COLL_ALLTOALL, &c)->fn.alltoall(sbuf, sb, rbuf, rb, comm);
}

tn_status_t tn_coll_alltoall(const void *sbuf, size_t scount, const tn_dt_t *sdt,
                             void *rbuf, size_t rcount, const tn_dt_t *rdt,
                             tn_comm_t *comm)
{
    tn_coll_blocks_t sb, rb;
    size_t blk = sbuf == TN_IN_PLACE ? tn_dt_bytes(rdt, rcount) : tn_dt_bytes(sdt, scount);

    blocks_uniform(&sb, scount, sdt);
    blocks_uniform(&rb, rcount, rdt);
    return alltoall_any(sbuf, &sb, rbuf, &rb, comm, blk, 0);
}

tn_status_t tn_coll_alltoallv(const void *sbuf, const tn_coll_blocks_t *sb, void *rbuf,
                              const tn_coll_blocks_t *rb, tn_comm_t *comm)
{
    return alltoall_any(sbuf, sb, rbuf, rb, comm, 0, 1);
}

tn_status_t tn_coll_reduce_scatter(const void *sbuf, void *rbuf, const tn_coll_blocks_t *rc,
                                   const tn_op_t *op, tn_comm_t *comm)
{
    size_t total = tn_coll_blk_prefix(rc, comm->size);
    tn_coll_call_t c;

    if (comm->size == 1) {
        return sbuf == TN_IN_PLACE || total == 0
                   ? TN_OK
                   : tn_coll_copy(sbuf, total, rc->dt, rbuf, total, rc->dt, comm);
    }
    if (tn_coll_shm_eligible(comm)) {
        return tn_coll_reduce_scatter_shm(sbuf, rbuf, rc, op, comm);
    }
    if (total == 0) {
        return TN_OK;
    }
    call_init(&c, comm, tn_dt_bytes(rc->dt, total));
    c.commutative = op->commutative;
    c.inplace = sbuf == TN_IN_PLACE;
    c.vector = !tn_coll_blk_uniform(rc);
    return coll_pick(TN_COLL_REDUCE_SCATTER, &c)->fn.reduce_scatter(sbuf, rbuf, rc, op, comm);
}

static tn_status_t scan_any(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                            const tn_op_t *op, int exclusive, tn_comm_t *comm)
{
    tn_coll_call_t c;

    if (count == 0) {
        return TN_OK;
    }
    if (comm->size == 1) {
        return exclusive || sbuf == TN_IN_PLACE
                   ? TN_OK
                   : tn_coll_copy(sbuf, count, dt, rbuf, count, dt, comm);
    }
    call_init(&c, comm, tn_dt_bytes(dt, count));
    c.commutative = op->commutative;
    c.inplace = sbuf == TN_IN_PLACE;
    return coll_pick(TN_COLL_SCAN, &c)->fn.scan(sbuf, rbuf, count, dt, op, exclusive, comm);
}

tn_status_t tn_coll_scan(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                         const tn_op_t *op, tn_comm_t *comm)
{
    return scan_any(sbuf, rbuf, count, dt, op, 0, comm);
}

tn_status_t tn_coll_exscan(const void *sbuf, void *rbuf, size_t count, const tn_dt_t *dt,
                           const tn_op_t *op, tn_comm_t *comm)
{
    return scan_any(sbuf, rbuf, count, dt, op, 1, comm);
}

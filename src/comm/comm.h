/* Communicators and groups.
 *
 * A group is an ordered list of world ranks.  A communicator is a group plus
 * a context id: point-to-point traffic uses ctx, collective traffic ctx + 1,
 * so the two never match each other.  Context ids are agreed collectively
 * (max of every member's next free id), never reused within a job.
 *
 * Reference counts: MPI_Comm_free / MPI_Group_free drop the user's reference;
 * pending operations hold their own, so freeing a communicator with traffic
 * in flight is safe. */
#ifndef TN_COMM_COMM_H
#define TN_COMM_COMM_H

#include <stdint.h>
#include "base/status.h"

#define TN_GROUP_MAGIC 0x5447524fu    /* "TGRO" */
#define TN_COMM_MAGIC  0x54434f4du    /* "TCOM" */

typedef struct tn_group {
    uint32_t  magic;
    int       refcount;
    int       predefined;     /* MPI_GROUP_EMPTY */
    int       size;
    int       rank;           /* my rank in the group, or -32766 (MPI_UNDEFINED) */
    int      *world;          /* world[i] = world rank of group rank i */
} tn_group_t;

struct tn_match_ctx;
struct tn_errh;
struct tn_comm_nodes;

typedef struct tn_comm {
    uint32_t  magic;
    int       refcount;
    int       predefined;     /* COMM_WORLD, COMM_SELF */
    int       mon_class;      /* what its point-to-point context carries for
                               * the monitor: TN_MON_P2P, or TN_MON_RMA on a
                               * window's private communicator */
    uintptr_t handle;         /* ABI handle for predefined comms, else 0 */
    uint32_t  ctx;            /* p2p context id (even); collectives use ctx+1 */
    int       rank;
    int       size;
    tn_group_t *group;
    struct tn_match_ctx *match[2];   /* [0] p2p, [1] collectives */
    struct tn_errh *errh;            /* error handler (mpi layer object) */
    char      name[128];
    uint32_t  coll_seq;              /* collective sequence (tags for schedules) */
    uint32_t  coll_pseq;             /* persistent collectives initialized on it */
    int       pending;               /* sends and receives on it not complete yet,
                                      * user-freed ones included (p2p/; read by
                                      * MPI_Comm_disconnect) */
    void     *attrs;                 /* attribute list (mpi layer) */
    struct tn_topo *topo;            /* Cartesian/graph topology, or NULL */
    void     *info;                  /* hints (tn_info_t), or NULL */
    void     *session;               /* the MPI session it derives from (mpi layer
                                      * object, inherited by tn_comm_new), or NULL */
    /* Intercommunicators (remote != NULL): group/rank/size describe the
     * local group, point-to-point ranks name the remote group, and local is
     * an intracommunicator over the local group (context ctx + 2) that the
     * intercommunicator collectives use inside each group. */
    tn_group_t     *remote;
    struct tn_comm *local;
    /* World ranks of the ranks point-to-point calls name: group->world, or
     * remote->world on an intercommunicator (one load on the send path). */
    const int      *peer_world;
    struct tn_comm_nodes *nodes;     /* node map (comm/comm_node.c), or NULL
                                      * until first asked for */
    /* Shared-memory collectives (coll/coll_shm.c): 0 not looked at yet, 1
     * eligible (one node, shm peers), -1 not eligible or no slot could be
     * agreed; the slot once claimed, or NULL. */
    int                   coll_shm_state;
    struct tn_coll_shm   *coll_shm;
    /* The last algorithm the automatic choice made on it and what that
     * depended on (coll/coll.c), 0/NULL for none. */
    unsigned              coll_pick_key;
    size_t                coll_pick_bytes;
    const void           *coll_pick_algo;
    /* The trace (mpi/mpi_trace.c): this rank's id for it, 0 until named,
     * and the collectives it has traced on it. */
    uint32_t              trace_id;
    uint64_t              trace_coll;
} tn_comm_t;

extern tn_comm_t tn_comm_world;
extern tn_comm_t tn_comm_self;
extern tn_group_t tn_group_empty;

/* Set up COMM_WORLD and COMM_SELF once the runtime knows rank and size. */
tn_status_t tn_comm_init(int world_rank, int world_size);
void tn_comm_finalize(void);

/* World rank of communicator rank r. */
static inline int tn_comm_world_rank(const tn_comm_t *comm, int r)
{
    return comm->peer_world[r];
}

/* Number of ranks point-to-point calls on comm may name. */
static inline int tn_comm_peer_size(const tn_comm_t *comm)
{
    return comm->remote != NULL ? comm->remote->size : comm->size;
}

/* Groups. tn_group_new takes ownership of world (malloc'ed). */
tn_status_t tn_group_new(int size, int *world, tn_group_t **group_p);
void tn_group_retain(tn_group_t *group);
void tn_group_release(tn_group_t *group);
/* Rank of world rank w in group, or -32766 (MPI_UNDEFINED). */
int tn_group_rank_of_world(const tn_group_t *group, int w);

/* Group algebra (comm/group.c): no communication, unit-tested alone.
 * Results are new groups with one reference, or &tn_group_empty (predefined:
 * retain/release are no-ops on it) when empty.  Ranks passed in must have
 * been checked with tn_group_check_ranks. */
enum { TN_GROUP_IDENT = 0, TN_GROUP_SIMILAR = 1, TN_GROUP_UNEQUAL = 2 };
enum { TN_GROUP_RANKS_OK = 0, TN_GROUP_RANKS_RANGE = 1, TN_GROUP_RANKS_DUP = 2 };

/* Tell the group code my world rank (tn_comm_init does; unit tests too). */
void tn_group_init(int my_world_rank);
/* A group of n world ranks copied from world. */
tn_status_t tn_group_from_world_list(int n, const int *world, tn_group_t **group_p);
/* TN_GROUP_RANKS_OK, or _RANGE / _DUP with *bad_p = index of the bad entry. */
int tn_group_check_ranks(const tn_group_t *group, int n, const int *ranks, int *bad_p);
tn_status_t tn_group_incl(const tn_group_t *group, int n, const int *ranks,
                          tn_group_t **group_p);
tn_status_t tn_group_excl(const tn_group_t *group, int n, const int *ranks,
                          tn_group_t **group_p);
/* Expand MPI (first, last, stride) triplets into a malloc'ed rank list; every
 * triplet must be valid for group and no rank may appear twice, otherwise
 * TN_ERR_INVAL with *bad_p = index of the offending triplet. */
tn_status_t tn_group_range_expand(const tn_group_t *group, int n, int (*ranges)[3],
                                  int **ranks_p, int *count_p, int *bad_p);
tn_status_t tn_group_union(const tn_group_t *a, const tn_group_t *b, tn_group_t **group_p);
tn_status_t tn_group_intersection(const tn_group_t *a, const tn_group_t *b,
                                  tn_group_t **group_p);
tn_status_t tn_group_difference(const tn_group_t *a, const tn_group_t *b,
                                tn_group_t **group_p);
/* TN_GROUP_IDENT (same members, same order), _SIMILAR (same members), _UNEQUAL. */
int tn_group_compare(const tn_group_t *a, const tn_group_t *b);
/* ranks_b[i] = rank in b of a's rank ranks_a[i]; -3 (PROC_NULL) stays -3;
 * -32766 (MPI_UNDEFINED) when not in b. */
void tn_group_translate_ranks(const tn_group_t *a, int n, const int *ranks_a,
                              const tn_group_t *b, int *ranks_b);
/* Is every member of sub a member of of? */
int tn_group_is_subset(const tn_group_t *sub, const tn_group_t *of);

/* Communicators.  Collective over parent: every member calls it; members
 * not in group get *comm_p = NULL. */
tn_status_t tn_comm_create_from_group(tn_comm_t *parent, tn_group_t *group,
                                      tn_comm_t **comm_p);
/* MPI_Comm_create_group: collective over the members of group only (a
 * subset of parent's group), who agree on a context id among themselves
 * with messages on parent's collective context under a tag derived from
 * the user's tag (>= 0), so concurrent calls with different tags do not
 * mix.  A caller not in group gets *comm_p = NULL without communicating. */
tn_status_t tn_comm_create_group(tn_comm_t *parent, tn_group_t *group, int tag,
                                 tn_comm_t **comm_p);
/* The duplicate shares comm's info hints (comm->info is copy-on-write: it
 * is replaced, never changed in place) but no attributes: copying those
 * runs user callbacks, which is the MPI layer's business.
 * tn_comm_release frees what is left of both (no callbacks). */
tn_status_t tn_comm_dup(tn_comm_t *comm, tn_comm_t **comm_p);
tn_status_t tn_comm_split(tn_comm_t *comm, int color, int key, tn_comm_t **comm_p);

/* Intercommunicators (comm/comm_inter.c).
 * tn_comm_intercomm_create: collective over local; the leaders (local's
 * rank local_leader, and peer's rank remote_leader on the other side) talk
 * over peer's collective context with a tag derived from tag; peer is only
 * read at the leader (NULL elsewhere).  Both groups agree on one context id
 * (max of every member's next free id).  The groups must be disjoint
 * (TN_ERR_INVAL otherwise); a failure at a leader reaches its group, not
 * the other group, which the MPI layer prevents by checking the leader's
 * arguments first. */
tn_status_t tn_comm_intercomm_create(tn_comm_t *local, int local_leader, tn_comm_t *peer,
                                     int remote_leader, int tag, tn_comm_t **comm_p);
/* The intracommunicator over both groups: the group whose members pass
 * high = 0 comes first (both equal: the group whose leader has the lower
 * world rank). */
tn_status_t tn_comm_intercomm_merge(tn_comm_t *inter, int high, tn_comm_t **comm_p);
/* Split of an intercommunicator: local members of one color with the remote
 * members of that color; NULL when either side is empty or color is
 * MPI_UNDEFINED. */
tn_status_t tn_comm_inter_split(tn_comm_t *inter, int color, int key, tn_comm_t **comm_p);
/* The intercommunicator over local group lg and remote group rg (both
 * references taken over) with contexts ctx..ctx+3, already agreed. */
tn_status_t tn_comm_inter_new(tn_group_t *lg, tn_group_t *rg, uint32_t ctx,
                              const tn_comm_t *parent, tn_comm_t **comm_p);
/* Dynamic processes (comm/comm_dyn.c): collective over comm; the root
 * holds fd, a port connection to the other group's root (-1 when it could
 * not get one: the whole group then fails with TN_ERR_IO).  accept_side is
 * 1 on one group and 0 on the other.  Builds the intercommunicator between
 * comm's group and the other group, on a context id both agree on.  The
 * caller closes fd. */
tn_status_t tn_comm_dyn_meet(int fd, int accept_side, int root, tn_comm_t *comm,
                             tn_comm_t **inter_p);
/* Used by comm.c for intercommunicators. */
tn_status_t tn_comm_inter_dup(tn_comm_t *inter, tn_comm_t **comm_p);
/* MPI_Comm_idup / MPI_Comm_idup_with_info: the duplicate is made at once
 * (same group, hints and topology; an intercommunicator's remote group)
 * but has no context id until *req_p completes: the agreement runs as a
 * schedule on comm's collective context, progressed by the engine, so the
 * call never waits for the other members. */
struct tn_req;
tn_status_t tn_comm_idup(tn_comm_t *comm, tn_comm_t **comm_p, struct tn_req **req_p);

/* Whether this process has claimed context id ctx (COMM_WORLD's and
 * COMM_SELF's, or in an agreement it took part in: comm_ctx.c).  Every
 * member of a communicator claims its ids before any member can learn
 * them, so a message from a peer on any other id cannot belong to a
 * communicator of ours, not even one this process has yet to finish making
 * (p2p/am_decode.c).  Claims are few and ranges: O(log claims). */
int tn_comm_ctx_claimed(uint32_t ctx);

/* Internal to comm/. */
/* Context ids (comm_ctx.c).  tn_comm_ctx_agree: over participants map[0..n)
 * of comm (comm ranks; NULL: every rank, n = comm->size), me my index,
 * messages on comm's collective context under tag: agree on an id ctx such
 * that [ctx, ctx + span) is free on every participant, and claim it on all
 * of them.  first >= 0: the max of every participant's tn_comm_ctx_next(),
 * already gathered (split), else -1.  Threads may run agreements on
 * different communicators at once. */
/* Forget every claim but COMM_WORLD's and COMM_SELF's (init and finalize). */
void tn_comm_ctx_reset(void);
int64_t tn_comm_ctx_next(void);
/* Take [v, v + span) if free here: 1, else 0 (nothing changes). */
int tn_comm_ctx_claim(int64_t v, uint32_t span);
tn_status_t tn_comm_ctx_agree(tn_comm_t *comm, int n, int me, const int *map, int tag,
                              uint32_t span, int64_t first, uint32_t *ctx_p);
/* vals[0..nv) (nv <= 4) = element-wise max over every rank of comm
 * (collective context, TN_COLL_TAG_COMM_CTX). */
tn_status_t tn_comm_allreduce_max(int64_t *vals, int nv, tn_comm_t *comm);
tn_status_t tn_comm_new(tn_group_t *group, uint32_t ctx, const tn_comm_t *parent,
                        tn_comm_t **comm_p);
/* A duplicate of comm without a context id (and of its local communicator
 * for an intercommunicator): tn_comm_attach gives it ctx (and ctx + 2). */
tn_status_t tn_comm_dup_shell(tn_comm_t *comm, tn_comm_t **comm_p);
tn_status_t tn_comm_attach(tn_comm_t *comm, uint32_t ctx);

/* Node map of an intracommunicator (comm/comm_node.c), computed on first
 * use from the runtime's map of world ranks to nodes, without messages,
 * and cached in comm->nodes.  Nodes are numbered 0..nnodes-1 in order of
 * their lowest comm rank, their leader.  The same on every member. */
typedef struct tn_comm_nodes {
    int  nnodes;          /* nodes comm spans */
    int  max_local;       /* most comm ranks on one node */
    int  blocked;         /* every node's ranks are consecutive comm ranks */
    int  my_node;         /* my node's index */
    int *node_of;         /* comm rank -> node index */
    int *leaders;         /* node index -> its leader (lowest comm rank) */
    int *nlocal;          /* node index -> ranks of comm on it */
    int *order;           /* comm ranks grouped by node: node k's ranks, in
                           * comm order, at order[start[k]] ..
                           * order[start[k] + nlocal[k] - 1] */
    int *start;           /* node index -> its first entry in order */
    /* Sub-communicators, made by tn_comm_node_comms on first use */
    int  subs_made;
    struct tn_comm *node_comm;     /* my node's ranks in comm order */
    struct tn_comm *leader_comm;   /* the leaders in comm order; NULL when
                                    * I do not lead */
} tn_comm_nodes_t;

/* comm's node map, or NULL when it could not be allocated. */
const tn_comm_nodes_t *tn_comm_nodes(tn_comm_t *comm);
/* The node and leader sub-communicators of comm (see tn_comm_nodes_t).
 * Collective over comm on first use (one context id agreement on comm's
 * collective context); cached after.  Every member must call it at the
 * same point of its collective sequence. */
tn_status_t tn_comm_node_comms(tn_comm_t *comm, tn_comm_t **node_p, tn_comm_t **leader_p);
/* Drop comm's node map and sub-communicators (tn_comm_release does). */
void tn_comm_nodes_free(tn_comm_t *comm);

void tn_comm_retain(tn_comm_t *comm);
void tn_comm_release(tn_comm_t *comm);

#endif

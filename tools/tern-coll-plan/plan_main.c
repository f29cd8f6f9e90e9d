/* tern-coll-plan: print the messages one of Tern's collectives sends
 * (plan.h; docs/sim.md, "Collectives from Tern's own code").
 *
 *   tern-coll-plan --kind allreduce --algo ring --ranks 8 --bytes 65536
 *                  [--root R] [--elem 1|2|4|8] [--nodes 0,0,1,1,... | --ppn P]
 *                  [--noncommutative] [--no-shm] [--shm-slot BYTES] [--oversubscribed]
 *                  [--max-ops N] [--counts FILE|-]
 *   tern-coll-plan --kind neighbor_alltoall|neighbor_allgather --ranks N
 *                  --neighbors FILE|-
 *   tern-coll-plan --list          every algorithm, with its restrictions
 *
 * --algo auto is Tern's automatic choice; a name forces the algorithm the
 * way TERN_COLL_<KIND>=name does (an algorithm whose restrictions do not
 * hold gives way to the automatic choice; the plan's header names what
 * ran); nbc is the schedule of the nonblocking (and persistent) form, as
 * its builder in coll/nbc makes it (plan_sched.c).  --bytes: the vector of bcast, reduce, allreduce, scan and exscan;
 * one block of gather, scatter, allgather, alltoall (per pair of ranks)
 * and reduce_scatter (each rank's result).
 *
 * --counts makes the call the vector form, with blocks of the given bytes
 * (whitespace-separated decimal numbers; "-": standard input): for
 * alltoall (alltoallv) ranks x ranks numbers, row i the bytes rank i
 * sends to each rank; for gather (gatherv), scatter (scatterv), allgather
 * (allgatherv) and reduce_scatter (with recvcounts) one number per rank,
 * its block.  --bytes is then ignored; the header gives the largest block.
 *
 * --neighbors gives a neighbourhood collective every rank's neighbours and
 * blocks (plan_counts.h: for each rank, indegree outdegree, its sources,
 * its destinations, the bytes it sends to each destination, the bytes it
 * receives from each source).  Each rank runs Tern's schedule builder
 * (coll/nbc/nbc_neighbor.c, the one its blocking, nonblocking and
 * persistent forms use) on a distributed-graph topology of those lists;
 * neighbor_allgather sends one block, the same to every destination.
 *
 * Output (text, one operation per line, ranks in order):
 *   tern-coll-plan 1
 *   kind K algo A ranks N bytes B root R messages M groups G
 *   rank I ops K
 *   s ID PEER BYTES     post the send of message ID to member PEER
 *   r ID PEER BYTES     post the receive of message ID from PEER
 *   w ID...             wait until these of my posts complete
 *   c BYTES             reduce BYTES locally
 *   m BYTES             copy BYTES locally (consecutive copies in one)
 *   y GID BYTES         shared-memory collective GID of BYTES (all its
 *                       members join, then all leave)
 *   end
 * Exit status 0, or 1 with a message on stderr (bad arguments, messages
 * left unmatched, out of memory, more than --max-ops operations). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "coll/coll.h"
#include "coll/coll_sched.h"
#include "comm/comm.h"
#include "comm/topo.h"
#include "dt/dt.h"
#include "dt/op.h"
#include "runtime/rt.h"

#include "plan.h"
#include "plan_counts.h"

#define PL_MAX_RANKS (1 << 20)

static const char *const kinds[] = {
    "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
    "reduce_scatter", "scan", "exscan", "neighbor_allgather", "neighbor_alltoall",
};
enum { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_SCATTER, K_ALLGATHER,
       K_ALLTOALL, K_REDUCE_SCATTER, K_SCAN, K_EXSCAN, K_NBR_ALLGATHER, K_NBR_ALLTOALL,
       K_COUNT };

typedef struct {
    int         kind;
    const char *algo;
    int         n;
    uint64_t    bytes;
    int         root;
    int         elem;
    int         commutative;
    int64_t    *counts;     /* --counts: [n] or [n * n] (alltoall), bytes; NULL: none */
    pl_nbrs_t   nbrs;       /* --neighbors (v NULL: none) */
} pl_args_t;

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "tern-coll-plan: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static long long num(const char *s, const char *what, long long lo, long long hi)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        die("%s: not a number in range", what);
    }
    return v;
}

static void nodes_parse(const char *spec, int n)
{
    const char *p = spec;

    for (int i = 0; i < n; i++) {
        char *end;
        long v;

        errno = 0;
        v = strtol(p, &end, 10);
        if (errno != 0 || end == p || v < 0 || v >= n || (*end != ',' && *end != '\0') ||
            (*end == '\0' && i != n - 1)) {
            die("--nodes: %s: one node index (0..ranks-1) per rank, comma-separated", spec);
        }
        pl_run.node_of[i] = (int)v;
        p = end + 1;
    }
    if (p[-1] != '\0') {
        die("--nodes: %s: more entries than ranks", spec);
    }
}

/* Nodes renumbered in order of their lowest member (comm_node.c's order;
 * the runtime numbers world nodes the same way). */
static void nodes_number(void)
{
    int *map = malloc(sizeof(int) * (size_t)pl_run.n);

    if (map == NULL) {
        die("%s", "out of memory");
    }
    for (int i = 0; i < pl_run.n; i++) {
        map[i] = -1;
    }
    pl_run.nnodes = 0;
    for (int i = 0; i < pl_run.n; i++) {
        int k = pl_run.node_of[i];
        if (map[k] < 0) {
            map[k] = pl_run.nnodes++;
        }
        pl_run.node_of[i] = map[k];
    }
    free(map);
}

/* The blocks of the vector and neighbourhood forms: this member's counts
 * and displacements, in bytes. */
static struct {
    int64_t *scount, *sdispl, *rcount, *rdispl;
} vblk;

/* The file (or standard input) of option opt whole, at most cap bytes;
 * *n_p its length. */
static char *file_read(const char *opt, const char *path, size_t cap, size_t *n_p)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "tern-coll-plan: %s %s: cannot open it\n", opt, path);
        exit(1);
    }
    size_t have = 4096, n = 0, k;
    char *buf = malloc(have);
    for (;;) {
        if (buf == NULL) {
            die("%s", "out of memory");
        }
        if ((k = fread(buf + n, 1, have - n, f)) == 0) {
            break;
        }
        n += k;
        if (n == have) {
            if (have >= cap) {
                fprintf(stderr, "tern-coll-plan: %s %s: longer than its numbers can be\n", opt, path);
                exit(1);
            }
            have = have * 2 < cap ? have * 2 : cap;
            char *nb = realloc(buf, have);
            if (nb == NULL) {
                free(buf);
            }
            buf = nb;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "tern-coll-plan: %s %s: cannot read it\n", opt, path);
        exit(1);
    }
    if (f != stdin) {
        fclose(f);
    }
    *n_p = n;
    return buf;
}

/* --counts: the file whole, then its decode step. */
static int64_t *counts_read(const char *path, size_t want)
{
    /* 2^40 is 13 digits: anything longer than want of them and a blank
     * each, with room for CRLF, cannot be right */
    size_t n = 0;
    char *buf = file_read("--counts", path, want * 16 + 4096, &n);
    int64_t *v = malloc(sizeof(int64_t) * (want + 1));
    if (v == NULL) {
        die("%s", "out of memory");
    }
    const char *why = NULL;
    if (pl_counts_parse(buf, n, want, v, &why) != 0) {
        fprintf(stderr, "tern-coll-plan: --counts %s: %s\n", path, why);
        exit(1);
    }
    free(buf);
    return v;
}

/* --neighbors: the file whole (at most 1 GiB), then its decode step; the
 * largest block into a->bytes, the most a rank sends or receives back. */
static size_t nbrs_read(const char *path, pl_args_t *a)
{
    size_t n = 0;
    char *buf = file_read("--neighbors", path, (size_t)1 << 30, &n);
    const char *why = NULL;
    if (pl_nbrs_parse(buf, n, a->n, &a->nbrs, &why) != 0) {
        fprintf(stderr, "tern-coll-plan: --neighbors %s: %s\n", path, why);
        exit(1);
    }
    free(buf);
    uint64_t most = 0, block = 0;
    int64_t deg = 1;
    for (int r = 0; r < a->n; r++) {
        const int64_t *v = a->nbrs.v + a->nbrs.first[r];
        int64_t in = v[0], out = v[1];
        const int64_t *sent = v + 2 + in + out, *got = sent + out;
        uint64_t s = 0, g = 0;
        for (int64_t j = 0; j < out; j++) {
            if (a->kind == K_NBR_ALLGATHER && sent[j] != sent[0]) {
                die("%s", "--neighbors: a neighbour allgather sends the same block to all");
            }
            s += (uint64_t)sent[j];
            block = (uint64_t)sent[j] > block ? (uint64_t)sent[j] : block;
        }
        for (int64_t i = 0; i < in; i++) {
            g += (uint64_t)got[i];
        }
        most = s > most ? s : most;
        most = g > most ? g : most;
        deg = in > deg ? in : deg;
        deg = out > deg ? out : deg;
    }
    vblk.scount = malloc(sizeof(int64_t) * (size_t)deg);
    vblk.sdispl = malloc(sizeof(int64_t) * (size_t)deg);
    vblk.rcount = malloc(sizeof(int64_t) * (size_t)deg);
    vblk.rdispl = malloc(sizeof(int64_t) * (size_t)deg);
    if (vblk.scount == NULL || vblk.sdispl == NULL || vblk.rcount == NULL || vblk.rdispl == NULL) {
        die("%s", "out of memory");
    }
    a->bytes = block;
    a->elem = 1;
    return (size_t)most;
}

static const tn_dt_t *elem_type(int elem)
{
    const char *want = elem == 8 ? "MPI_DOUBLE" : elem == 4 ? "MPI_INT" : elem == 2 ? "MPI_SHORT"
                     : "MPI_BYTE";

    for (int i = 0; i < tn_dt_predefined_count(); i++) {
        const tn_dt_t *d = tn_dt_predefined_at(i);
        if (d != NULL && d->name != NULL && strcmp(d->name, want) == 0) {
            return d;
        }
    }
    return tn_dt_byte();
}

static const char **forced_slot(int kind)
{
    switch (kind) {
    case K_BARRIER:        return &tn_cfg.coll_barrier;
    case K_BCAST:          return &tn_cfg.coll_bcast;
    case K_REDUCE:         return &tn_cfg.coll_reduce;
    case K_ALLREDUCE:      return &tn_cfg.coll_allreduce;
    case K_GATHER:         return &tn_cfg.coll_gather;
    case K_SCATTER:        return &tn_cfg.coll_scatter;
    case K_ALLGATHER:      return &tn_cfg.coll_allgather;
    case K_ALLTOALL:       return &tn_cfg.coll_alltoall;
    case K_REDUCE_SCATTER: return &tn_cfg.coll_reduce_scatter;
    default:               return &tn_cfg.coll_scan;
    }
}

/* The vector forms, blocking (s NULL) or as a schedule's builder: every
 * rank's blocks from --counts, in bytes. */
static tn_status_t run_member_v(const pl_args_t *a, char *sbuf, char *rbuf, tn_comm_t *comm,
                                const tn_op_t *op, tn_sched_t *s)
{
    const tn_dt_t *b = tn_dt_byte();
    int n = a->n, me = comm->rank;
    const int64_t *cv = a->counts;
    int64_t so = 0, ro = 0;
    for (int i = 0; i < n; i++) {
        /* alltoall: row me is what I send, column me what I receive */
        vblk.scount[i] = a->kind == K_ALLTOALL ? cv[(size_t)me * (size_t)n + (size_t)i] : cv[i];
        vblk.rcount[i] = a->kind == K_ALLTOALL ? cv[(size_t)i * (size_t)n + (size_t)me] : cv[i];
        vblk.sdispl[i] = so;
        vblk.rdispl[i] = ro;
        so += vblk.scount[i];
        ro += vblk.rcount[i];
    }
    tn_coll_blocks_t sb = { vblk.scount, vblk.sdispl, 1, 0, b, NULL, 1 };
    tn_coll_blocks_t rb = { vblk.rcount, vblk.rdispl, 1, 0, b, NULL, 1 };
    tn_coll_blocks_t rs = { vblk.rcount, NULL, 1, 0, b, NULL, 1 };
    size_t mine = (size_t)cv[me];
    if (s == NULL) {
        switch (a->kind) {
        case K_GATHER:    return tn_coll_gatherv(sbuf, mine, b, rbuf, &rb, a->root, comm);
        case K_SCATTER:   return tn_coll_scatterv(sbuf, &sb, rbuf, mine, b, a->root, comm);
        case K_ALLGATHER: return tn_coll_allgatherv(sbuf, mine, b, rbuf, &rb, comm);
        case K_ALLTOALL:  return tn_coll_alltoallv(sbuf, &sb, rbuf, &rb, comm);
        default:          return tn_coll_reduce_scatter(sbuf, rbuf, &rs, op, comm);
        }
    }
    switch (a->kind) {
    case K_GATHER:    tn_nbc_gather(s, sbuf, mine, b, rbuf, &rb, a->root, comm); break;
    case K_SCATTER:   tn_nbc_scatter(s, sbuf, &sb, rbuf, mine, b, a->root, comm); break;
    case K_ALLGATHER: tn_nbc_allgather(s, sbuf, mine, b, rbuf, &rb, comm); break;
    case K_ALLTOALL:  tn_nbc_alltoall(s, sbuf, &sb, rbuf, &rb, comm); break;
    default:          tn_nbc_reduce_scatter(s, sbuf, rbuf, &rs, op, comm); break;
    }
    return TN_OK;
}

/* One member's call, through the library's entry point. */
static tn_status_t run_member(const pl_args_t *a, const tn_dt_t *dt, size_t count, char *sbuf,
                              char *rbuf, tn_comm_t *comm)
{
    static tn_op_t op;
    tn_coll_blocks_t rc = { NULL, NULL, 0, count, dt, NULL, 0 };

    op.commutative = a->commutative;
    op.name = a->commutative ? "MPI_SUM" : "user";
    if (a->counts != NULL) {
        return run_member_v(a, sbuf, rbuf, comm, &op, NULL);
    }
    switch (a->kind) {
    case K_BARRIER:   return tn_coll_barrier(comm);
    case K_BCAST:     return tn_coll_bcast(sbuf, count, dt, a->root, comm);
    case K_REDUCE:    return tn_coll_reduce(sbuf, rbuf, count, dt, &op, a->root, comm);
    case K_ALLREDUCE: return tn_coll_allreduce(sbuf, rbuf, count, dt, &op, comm);
    case K_GATHER:    return tn_coll_gather(sbuf, count, dt, rbuf, count, dt, a->root, comm);
    case K_SCATTER:   return tn_coll_scatter(sbuf, count, dt, rbuf, count, dt, a->root, comm);
    case K_ALLGATHER: return tn_coll_allgather(sbuf, count, dt, rbuf, count, dt, comm);
    case K_ALLTOALL:  return tn_coll_alltoall(sbuf, count, dt, rbuf, count, dt, comm);
    case K_REDUCE_SCATTER: return tn_coll_reduce_scatter(sbuf, rbuf, &rc, &op, comm);
    case K_SCAN:      return tn_coll_scan(sbuf, rbuf, count, dt, &op, comm);
    default:          return tn_coll_exscan(sbuf, rbuf, count, dt, &op, comm);
    }
}

/* A neighbourhood collective's schedule for this member: its lists from
 * --neighbors as a distributed-graph topology on the world communicator. */
static void run_member_nbr(const pl_args_t *a, char *sbuf, char *rbuf, tn_comm_t *comm,
                           tn_sched_t *s)
{
    const tn_dt_t *b = tn_dt_byte();
    const int64_t *v = a->nbrs.v + a->nbrs.first[comm->rank];
    int in = (int)v[0], out = (int)v[1];
    const int64_t *src = v + 2, *dst = src + in, *sent = dst + out, *got = sent + out;
    tn_topo_t *t = tn_topo_alloc(TN_TOPO_DIST_GRAPH, in, out);
    if (t == NULL) {
        tn_sched_fail(s, TN_ERR_NOMEM);
        return;
    }
    int64_t so = 0, ro = 0;
    for (int i = 0; i < in; i++) {
        t->u.dist.sources[i] = (int)src[i];
        t->u.dist.sweights[i] = 1;
        vblk.rcount[i] = got[i];
        vblk.rdispl[i] = ro;
        ro += got[i];
    }
    for (int j = 0; j < out; j++) {
        t->u.dist.dests[j] = (int)dst[j];
        t->u.dist.dweights[j] = 1;
        vblk.scount[j] = sent[j];
        vblk.sdispl[j] = so;
        so += sent[j];
    }
    tn_coll_blocks_t sb = { vblk.scount, vblk.sdispl, 1, 0, b, NULL, 1 };
    tn_coll_blocks_t rb = { vblk.rcount, vblk.rdispl, 1, 0, b, NULL, 1 };
    comm->topo = t;
    if (a->kind == K_NBR_ALLGATHER) {
        tn_nbc_neighbor_allgather(s, sbuf, out > 0 ? (size_t)sent[0] : 0, b, rbuf, &rb, comm);
    } else {
        tn_nbc_neighbor_alltoall(s, sbuf, &sb, rbuf, &rb, comm);
    }
    comm->topo = NULL;
    tn_topo_free(t);
}

/* One member's call as a nonblocking collective: the schedule its
 * builder (coll/nbc) makes. */
static tn_status_t run_member_nbc(const pl_args_t *a, const tn_dt_t *dt, size_t count, char *sbuf,
                                  char *rbuf, tn_comm_t *comm)
{
    static tn_op_t op;
    tn_coll_blocks_t b = { NULL, NULL, 0, count, dt, NULL, 0 };
    tn_sched_t *s = tn_sched_new(comm);
    tn_status_t st;

    if (s == NULL) {
        return TN_ERR_NOMEM;
    }
    op.commutative = a->commutative;
    op.name = a->commutative ? "MPI_SUM" : "user";
    if (a->nbrs.v != NULL) {
        run_member_nbr(a, sbuf, rbuf, comm, s);
    } else if (a->counts != NULL) {
        run_member_v(a, sbuf, rbuf, comm, &op, s);
    } else switch (a->kind) {
    case K_BARRIER:   tn_nbc_barrier(s, comm); break;
    case K_BCAST:     tn_nbc_bcast(s, sbuf, count, dt, a->root, comm); break;
    case K_REDUCE:    tn_nbc_reduce(s, sbuf, rbuf, count, dt, &op, a->root, comm); break;
    case K_ALLREDUCE: tn_nbc_allreduce(s, sbuf, rbuf, count, dt, &op, comm); break;
    case K_GATHER:    tn_nbc_gather(s, sbuf, count, dt, rbuf, &b, a->root, comm); break;
    case K_SCATTER:   tn_nbc_scatter(s, sbuf, &b, rbuf, count, dt, a->root, comm); break;
    case K_ALLGATHER: tn_nbc_allgather(s, sbuf, count, dt, rbuf, &b, comm); break;
    case K_ALLTOALL:  tn_nbc_alltoall(s, sbuf, &b, rbuf, &b, comm); break;
    case K_REDUCE_SCATTER: tn_nbc_reduce_scatter(s, sbuf, rbuf, &b, &op, comm); break;
    default:          tn_nbc_scan(s, sbuf, rbuf, count, dt, &op, a->kind == K_EXSCAN, comm); break;
    }
    tn_sched_barrier(s);
    st = tn_sched_status(s);
    tn_sched_free(s);
    return st;
}

/* ---- pairing ------------------------------------------------------------ */
typedef struct {
    uint32_t ctx;
    int32_t  tag;
    int32_t  src, dst;
    uint64_t seq;      /* posting order of its rank */
    int32_t  rank;
    uint32_t op;
} pl_end_t;

static int end_cmp(const void *x, const void *y)
{
    const pl_end_t *a = x, *b = y;

    if (a->ctx != b->ctx) return a->ctx < b->ctx ? -1 : 1;
    if (a->tag != b->tag) return a->tag < b->tag ? -1 : 1;
    if (a->src != b->src) return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

static int same_key(const pl_end_t *a, const pl_end_t *b)
{
    return a->ctx == b->ctx && a->tag == b->tag && a->src == b->src && a->dst == b->dst;
}

/* Gives every send and receive its message id (the send's rank-major
 * position) and every shared-memory step its group; 0 or -1 with why. */
static int pair(int64_t *nmsg_p, int64_t *ngroups_p, const char **why)
{
    size_t ns = 0, nr = 0, ny = 0;

    for (int i = 0; i < pl_run.n; i++) {
        for (size_t k = 0; k < pl_run.ranks[i].nops; k++) {
            uint8_t t = pl_run.ranks[i].ops[k].type;
            ns += t == PL_SEND;
            nr += t == PL_RECV;
            ny += t == PL_SYNC;
        }
    }
    if (ns != nr) {
        *why = "sends and receives differ in number";
        return -1;
    }
    pl_end_t *s = malloc(sizeof(*s) * (ns + 1)), *r = malloc(sizeof(*r) * (nr + 1));
    pl_end_t *y = malloc(sizeof(*y) * (ny + 1));
    if (s == NULL || r == NULL || y == NULL) {
        free(s);
        free(r);
        free(y);
        *why = "out of memory";
        return -1;
    }
    ns = nr = ny = 0;
    for (int i = 0; i < pl_run.n; i++) {
        uint64_t seq = 0;
        for (size_t k = 0; k < pl_run.ranks[i].nops; k++) {
            pl_op_t *o = &pl_run.ranks[i].ops[k];
            pl_end_t e = { o->ctx, o->tag, i, o->peer, seq++, i, (uint32_t)k };
            if (o->type == PL_SEND) {
                o->id = (int64_t)ns;
                s[ns++] = e;
            } else if (o->type == PL_RECV) {
                e.src = o->peer;
                e.dst = i;
                r[nr++] = e;
            } else if (o->type == PL_SYNC) {
                /* its ordinal among my steps on the same communicator */
                e.src = o->tag;
                e.dst = 0;
                e.seq = 0;
                for (size_t q = 0; q < k; q++) {
                    const pl_op_t *p = &pl_run.ranks[i].ops[q];
                    e.seq += p->type == PL_SYNC && p->ctx == o->ctx && p->tag == o->tag;
                }
                y[ny++] = e;
            }
        }
    }
    qsort(s, ns, sizeof(*s), end_cmp);
    qsort(r, nr, sizeof(*r), end_cmp);
    int rc = 0;
    for (size_t k = 0; k < ns; k++) {
        pl_op_t *so = &pl_run.ranks[s[k].rank].ops[s[k].op];
        pl_op_t *ro = &pl_run.ranks[r[k].rank].ops[r[k].op];
        if (!same_key(&s[k], &r[k])) {
            *why = "a send has no matching receive";
            rc = -1;
            break;
        }
        if (ro->bytes < so->bytes) {
            *why = "a message is longer than its receive buffer";
            rc = -1;
            break;
        }
        ro->id = so->id;
        ro->bytes = so->bytes;
    }
    /* groups: the k-th shared-memory step of each member of one
     * communicator (context, first member) forms group k */
    qsort(y, ny, sizeof(*y), end_cmp);
    int64_t ng = 0;
    for (size_t k = 0; k < ny && rc == 0;) {
        size_t e = k;
        while (e < ny && same_key(&y[e], &y[k]) && y[e].seq == y[k].seq) {
            e++;
        }
        if ((int32_t)(e - k) != pl_run.ranks[y[k].rank].ops[y[k].op].peer) {
            *why = "a shared-memory step misses members";
            rc = -1;
        }
        for (size_t q = k; q < e; q++) {
            pl_run.ranks[y[q].rank].ops[y[q].op].id = ng;
        }
        ng++;
        k = e;
    }
    free(s);
    free(r);
    free(y);
    *nmsg_p = (int64_t)ns;
    *ngroups_p = ng;
    return rc;
}

int main(int argc, char **argv)
{
    pl_args_t a = { -1, "auto", 0, 0, -1, 0, 1, NULL, { NULL, NULL } };
    const char *nodes = NULL, *counts_path = NULL, *nbrs_path = NULL;
    int ppn = 0;

    pl_run.shm = 1;
    pl_run.slot = 8192;
    pl_run.max_ops = 200000000;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;

        if (strcmp(o, "--list") == 0) {
            /* every algorithm: kind, name, and whether it needs a
             * commutative op, a power-of-two size, several nodes */
            for (int k = 0; tn_coll_algos[k].name != NULL; k++) {
                const tn_coll_algo_t *al = &tn_coll_algos[k];
                printf("%s %s%s%s%s%s\n", kinds[al->kind], al->name,
                       al->restrict_ & TN_COLL_R_COMMUTATIVE ? " commutative" : "",
                       al->restrict_ & TN_COLL_R_POW2 ? " pow2" : "",
                       al->restrict_ & TN_COLL_R_MULTINODE ? " multinode" : "",
                       al->restrict_ & TN_COLL_R_SHM ? " shm" : "");
            }
            return 0;
        } else if (strcmp(o, "--noncommutative") == 0) {
            a.commutative = 0;
            takes = 0;
        } else if (strcmp(o, "--no-shm") == 0) {
            pl_run.shm = 0;
            takes = 0;
        } else if (strcmp(o, "--oversubscribed") == 0) {
            tn_rt.oversubscribed = 1;
            takes = 0;
        } else if (v == NULL) {
            die("%s: needs a value (tern-coll-plan --help)", o);
        } else if (strcmp(o, "--kind") == 0) {
            for (int k = 0; k < K_COUNT; k++) {
                if (strcmp(v, kinds[k]) == 0) {
                    a.kind = k;
                }
            }
            if (a.kind < 0) {
                die("--kind %s: barrier, bcast, reduce, allreduce, gather, scatter, allgather, "
                    "alltoall, reduce_scatter, scan, exscan, neighbor_allgather or "
                    "neighbor_alltoall", v);
            }
        } else if (strcmp(o, "--algo") == 0) {
            a.algo = v;
        } else if (strcmp(o, "--ranks") == 0) {
            a.n = (int)num(v, "--ranks", 1, PL_MAX_RANKS);
        } else if (strcmp(o, "--bytes") == 0) {
            a.bytes = (uint64_t)num(v, "--bytes", 0, (long long)1 << 40);
        } else if (strcmp(o, "--root") == 0) {
            a.root = (int)num(v, "--root", -1, PL_MAX_RANKS);
        } else if (strcmp(o, "--elem") == 0) {
            a.elem = (int)num(v, "--elem", 1, 8);
        } else if (strcmp(o, "--nodes") == 0) {
            nodes = v;
        } else if (strcmp(o, "--ppn") == 0) {
            ppn = (int)num(v, "--ppn", 1, PL_MAX_RANKS);
        } else if (strcmp(o, "--shm-slot") == 0) {
            pl_run.slot = (uint64_t)num(v, "--shm-slot", 0, 16 << 20);
        } else if (strcmp(o, "--counts") == 0) {
            counts_path = v;
        } else if (strcmp(o, "--neighbors") == 0) {
            nbrs_path = v;
        } else if (strcmp(o, "--max-ops") == 0) {
            pl_run.max_ops = (size_t)num(v, "--max-ops", 1, (long long)1 << 40);
        } else {
            die("%s: unknown option (see the top of tools/tern-coll-plan/plan_main.c or "
                "docs/sim.md)", o);
        }
        i += takes;
    }
    if (a.kind < 0 || a.n <= 0) {
        die("%s", "--kind and --ranks are required");
    }
    int rooted = a.kind == K_BCAST || a.kind == K_REDUCE || a.kind == K_GATHER ||
                 a.kind == K_SCATTER;
    if (!rooted) {
        a.root = -1;
    } else if (a.root < 0) {
        a.root = 0;
    }
    if (a.root >= a.n) {
        die("%s", "--root: not a rank");
    }
    size_t big_v = 0;
    int nbr = a.kind == K_NBR_ALLGATHER || a.kind == K_NBR_ALLTOALL;
    if (nbr != (nbrs_path != NULL)) {
        die("%s", nbr ? "--neighbors: a neighbourhood collective needs its lists"
                      : "--neighbors: only for neighbor_allgather and neighbor_alltoall");
    }
    if (nbr) {
        if (counts_path != NULL || (strcmp(a.algo, "auto") != 0 && strcmp(a.algo, "nbc") != 0)) {
            die("%s", "a neighbourhood collective has one schedule (--algo auto or nbc), its "
                      "blocks in --neighbors");
        }
        a.algo = "nbc";     /* the blocking forms run the same schedule */
        big_v = nbrs_read(nbrs_path, &a);
    }
    if (counts_path != NULL) {
        if (a.kind != K_GATHER && a.kind != K_SCATTER && a.kind != K_ALLGATHER &&
            a.kind != K_ALLTOALL && a.kind != K_REDUCE_SCATTER) {
            die("--counts: %s has no vector form (gather, scatter, allgather, alltoall, "
                "reduce_scatter)", kinds[a.kind]);
        }
        size_t want = a.kind == K_ALLTOALL ? (size_t)a.n * (size_t)a.n : (size_t)a.n;
        if (a.kind == K_ALLTOALL && a.n > 8192) {
            die("%s", "--counts: an alltoall of at most 8192 ranks");
        }
        a.counts = counts_read(counts_path, want);
        vblk.scount = malloc(sizeof(int64_t) * (size_t)a.n);
        vblk.sdispl = malloc(sizeof(int64_t) * (size_t)a.n);
        vblk.rcount = malloc(sizeof(int64_t) * (size_t)a.n);
        vblk.rdispl = malloc(sizeof(int64_t) * (size_t)a.n);
        if (vblk.scount == NULL || vblk.sdispl == NULL || vblk.rcount == NULL || vblk.rdispl == NULL) {
            die("%s", "out of memory");
        }
        /* the buffers: the most any rank sends or receives; the header's
         * bytes: the largest block */
        uint64_t most = 0, block = 0, total = 0;
        for (int i = 0; i < a.n; i++) {
            uint64_t out = 0, in = 0;
            for (int k = 0; k < a.n && a.kind == K_ALLTOALL; k++) {
                out += (uint64_t)a.counts[(size_t)i * (size_t)a.n + (size_t)k];
                in += (uint64_t)a.counts[(size_t)k * (size_t)a.n + (size_t)i];
                block = (uint64_t)a.counts[(size_t)i * (size_t)a.n + (size_t)k] > block
                            ? (uint64_t)a.counts[(size_t)i * (size_t)a.n + (size_t)k] : block;
            }
            if (a.kind != K_ALLTOALL) {
                /* a root, allgatherv's every rank, reduce_scatter's input:
                 * all the blocks */
                total += (uint64_t)a.counts[i];
                block = (uint64_t)a.counts[i] > block ? (uint64_t)a.counts[i] : block;
            }
            most = out > most ? out : most;
            most = in > most ? in : most;
        }
        most = total > most ? total : most;
        big_v = (size_t)most;
        a.bytes = block;
        a.elem = 1;
    }
    if (a.elem == 0) {
        a.elem = a.bytes % 8 == 0 ? 8 : a.bytes % 4 == 0 ? 4 : a.bytes % 2 == 0 ? 2 : 1;
    }
    if ((a.elem != 1 && a.elem != 2 && a.elem != 4 && a.elem != 8) || a.bytes % (uint64_t)a.elem) {
        die("%s", "--elem: 1, 2, 4 or 8, dividing --bytes");
    }
    int nbc = strcmp(a.algo, "nbc") == 0;
    if (strcmp(a.algo, "auto") != 0 && !nbc) {
        int known = 0;
        for (int i = 0; tn_coll_algos[i].name != NULL; i++) {
            known |= (int)tn_coll_algos[i].kind == (a.kind == K_EXSCAN ? K_SCAN : a.kind) &&
                     strcasecmp(tn_coll_algos[i].name, a.algo) == 0;
        }
        if (!known) {
            die("--algo %s: no such algorithm of this kind (tern-info lists them)", a.algo);
        }
        *forced_slot(a.kind) = a.algo;
    }
    pl_run.n = a.n;
    pl_run.node_of = calloc((size_t)a.n, sizeof(int));
    pl_run.ranks = calloc((size_t)a.n, sizeof(pl_rank_t));
    if (pl_run.node_of == NULL || pl_run.ranks == NULL) {
        die("%s", "out of memory");
    }
    if (nodes != NULL) {
        nodes_parse(nodes, a.n);
    } else {
        for (int i = 0; i < a.n; i++) {
            pl_run.node_of[i] = ppn > 0 ? i / ppn : i;
        }
    }
    nodes_number();
    tn_rt.local_size = 0;
    for (int i = 0; i < a.n; i++) {
        tn_rt.local_size += pl_run.node_of[i] == 0;
    }

    const tn_dt_t *dt = elem_type(a.elem);
    size_t count = (size_t)(a.bytes / (uint64_t)a.elem);
    size_t big = a.counts != NULL || nbr ? big_v
                 : (size_t)a.bytes * (rooted || a.kind == K_ALLGATHER || a.kind == K_ALLTOALL ||
                                      a.kind == K_REDUCE_SCATTER ? (size_t)a.n : 1);
    /* untouched pages of a large calloc cost nothing: nothing is copied */
    char *sbuf = calloc(1, big + 64), *rbuf = calloc(1, big + 64);
    if (sbuf == NULL || rbuf == NULL) {
        die("%s", "out of memory");
    }
    int picked = -1;
    for (int me = 0; me < a.n; me++) {
        pl_rec_begin(me);
        pl_run.picked = -1;
        tn_comm_t *comm = pl_rec_world();
        tn_status_t st = comm == NULL ? TN_ERR_NOMEM
                         : nbc ? run_member_nbc(&a, dt, count, sbuf, rbuf, comm)
                               : run_member(&a, dt, count, sbuf, rbuf, comm);
        pl_rec_end();
        if (pl_run.failed && pl_run.total_ops >= pl_run.max_ops) {
            die("%s", "more operations than --max-ops");
        }
        if (st != TN_OK || pl_run.failed) {
            die("the algorithm failed: %s", tn_status_str(st != TN_OK ? st : TN_ERR_NOMEM));
        }
        if (me == 0) {
            picked = pl_run.picked;
        } else if (pl_run.picked != picked) {
            die("%s", "ranks chose different algorithms");
        }
    }
    free(sbuf);
    free(rbuf);
    free(a.counts);
    free(a.nbrs.v);
    free(a.nbrs.first);
    free(vblk.scount);
    free(vblk.sdispl);
    free(vblk.rcount);
    free(vblk.rdispl);
    int64_t nmsg = 0, ngroups = 0;
    const char *why = NULL;
    if (pair(&nmsg, &ngroups, &why) != 0) {
        die("%s", why);
    }

    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
    printf("tern-coll-plan 1\n");
    printf("kind %s algo %s ranks %d bytes %" PRIu64 " root %d messages %" PRId64
           " groups %" PRId64 "\n", kinds[a.kind],
           nbc ? "nbc" : picked >= 0 ? tn_coll_algos[picked].name : a.n == 1 ? "none" : "?", a.n, a.bytes,
           a.root, nmsg, ngroups);
    for (int i = 0; i < a.n; i++) {
        const pl_rank_t *r = &pl_run.ranks[i];
        printf("rank %d ops %zu\n", i, r->nops);
        for (size_t k = 0; k < r->nops; k++) {
            const pl_op_t *o = &r->ops[k];
            switch (o->type) {
            case PL_SEND:
                printf("s %" PRId64 " %d %" PRIu64 "\n", o->id, o->peer, o->bytes);
                break;
            case PL_RECV:
                printf("r %" PRId64 " %d %" PRIu64 "\n", o->id, o->peer, o->bytes);
                break;
            case PL_CALC:
                printf("c %" PRIu64 "\n", o->bytes);
                break;
            case PL_COPY:
                printf("m %" PRIu64 "\n", o->bytes);
                break;
            case PL_SYNC:
                printf("y %" PRId64 " %" PRIu64 "\n", o->id, o->bytes);
                break;
            default:
                fputc('w', stdout);
                for (uint32_t q = 0; q < o->wn; q++) {
                    printf(" %" PRId64, r->ops[r->waits[o->wfirst + q]].id);
                }
                fputc('\n', stdout);
                break;
            }
        }
    }
    printf("end\n");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        die("%s", "cannot write the plan");
    }
    return 0;
}

/* tern-trace export --vef: the chains and their order (trace_vef_export.h). */
#include "trace_vef_export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_vef.h"

/* Tern's collective kinds as VEF ops; -1: not exported.  Kinds VEF has
 * no op for become the op that moves the same data between all members
 * (counted in vx_stats_t.approx_kinds). */
static const int vx_kind_op[TERN_TRACE_NKINDS] = {
    [0] = -1,
    [TERN_TRACE_BARRIER] = VF_OP_BARRIER,
    [TERN_TRACE_BCAST] = VF_OP_BROADCAST,
    [TERN_TRACE_REDUCE] = VF_OP_REDUCE,
    [TERN_TRACE_ALLREDUCE] = VF_OP_ALLREDUCE,
    [TERN_TRACE_GATHER] = VF_OP_GATHER,
    [TERN_TRACE_SCATTER] = VF_OP_SCATTER,
    [TERN_TRACE_ALLGATHER] = VF_OP_ALLGATHER,
    [TERN_TRACE_ALLTOALL] = VF_OP_ALLTOALL,
    [TERN_TRACE_REDUCE_SCATTER] = VF_OP_ALLREDUCE,
    [TERN_TRACE_SCAN] = VF_OP_ALLREDUCE,
    [TERN_TRACE_EXSCAN] = VF_OP_ALLREDUCE,
    [TERN_TRACE_NBR_ALLGATHER] = -1,
    [TERN_TRACE_NBR_ALLTOALL] = -1,
};

enum { VX_POST = 0, VX_DONE = 1 };
enum { VX_MSG = 0, VX_COLL = 1 };
enum { VX_A_SEND, VX_A_COLL, VX_A_RECVD, VX_A_SENT, VX_A_COLLD };

/* Something a rank's record did: posted a send or entered a collective,
 * completed a receive, a send or a collective. */
typedef struct {
    uint32_t rank, rec;
    uint8_t  phase, what;
    uint32_t idx;                       /* message, or member */
    uint32_t ord;                       /* keeps the sort stable */
} vx_act_t;

/* One line to write, in its rank's chain. */
typedef struct {
    uint8_t  what;                      /* VX_MSG, VX_COLL */
    uint8_t  deptype;                   /* VF_DEP_* */
    uint32_t idx;                       /* message, or member */
    uint32_t dep;                       /* message or collective (job indices) */
    uint64_t delay;
} vx_ev_t;

typedef struct {
    const tl_job_t   *j;
    const tm_match_t *m;
    FILE             *o;
    vx_stats_t       *st;
    int              *op;               /* per collective: VF op, -1 not exported */
    uint32_t         *vcomm;            /* per collective: VEF communicator */
    int64_t          *cscore;           /* per collective: its last member's entry */
    uint32_t         *coll_of;          /* per member */
    vx_ev_t          *ev;
    size_t            nev;
    uint32_t         *first, *cur;      /* per rank: chain [first[r], first[r+1]) */
    uint32_t         *member_ev;        /* per member: its event, VF_NONE */
    uint8_t          *marr, *memit;     /* per member: arrived, written */
    uint32_t         *msg_id, *gid;     /* VEF numbers, VF_NONE until written */
    uint32_t         *left, *need, *arrived;   /* per collective: lines */
    uint32_t         *stack;
    uint8_t          *inq;
    uint32_t          nstack, next_msg, next_g;
    size_t            written, total;
} vx_state_t;

static int vx_cmp_act(const void *a, const void *b)
{
    const vx_act_t *x = a, *y = b;
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    if (x->rec != y->rec) {
        return x->rec < y->rec ? -1 : 1;
    }
    if (x->phase != y->phase) {
        return x->phase < y->phase ? -1 : 1;
    }
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static const tl_item_t *vx_item(const vx_state_t *s, uint32_t member)
{
    const tm_member_t *mb = &s->m->members[member];
    return &s->j->ranks[mb->rank].items[mb->item];
}

static int vx_same_members(const int32_t *a, const int32_t *b, uint32_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(int32_t)) == 0;
}

/* Which collectives are written, with which op, on which VEF
 * communicator (communicators with the same members in the same order
 * are one: VEF has no context ids; C0 is the world). */
static int vx_colls(vx_state_t *s, const tl_comm_t ***vc_p)
{
    const tl_job_t *j = s->j;
    const tm_match_t *m = s->m;
    const tl_comm_t **vc = calloc(m->ncolls + 1, sizeof(*vc));
    uint32_t *of = malloc(((size_t)j->ncomms + 1) * sizeof(uint32_t));
    if (vc == NULL || of == NULL) {
        free(vc);
        free(of);
        return -1;
    }
    for (uint32_t i = 0; i < j->ncomms; i++) {
        of[i] = VF_NONE;
    }
    uint32_t nvc = 1;                   /* C0 is written from j->size */
    for (size_t c = 0; c < m->ncolls; c++) {
        const tm_coll_t *tc = &m->colls[c];
        s->op[c] = -1;
        s->cscore[c] = INT64_MIN;
        for (uint32_t k = tc->first; k < tc->first + tc->n; k++) {
            s->coll_of[k] = (uint32_t)c;
        }
        if (tc->comm >= j->ncomms || tc->kind >= TERN_TRACE_NKINDS) {
            s->st->colls_skipped++;
            continue;
        }
        const tl_comm_t *cm = &j->comms[tc->comm];
        int op = vx_kind_op[tc->kind];
        int ok = op >= 0 && !tc->mixed && !(cm->flags & TERN_TRACE_COMM_INTER) && tc->n == cm->size;
        uint32_t roots = 0;
        for (uint32_t k = tc->first; ok && k < tc->first + tc->n; k++) {
            const tl_item_t *it = vx_item(s, k);
            const tm_member_t *mb = &m->members[k];
            ok = !(it->mode & TERN_TRACE_C_NEIGHBOR) &&
                 (k == tc->first || m->members[k - 1].rank < mb->rank);
            roots += it->world >= 0 && (uint32_t)it->world == mb->rank;
            const tl_rec_t *r = &j->ranks[mb->rank].recs[mb->rec];
            s->cscore[c] = r->t_enter > s->cscore[c] ? r->t_enter : s->cscore[c];
        }
        if (!ok || (op == VF_OP_REDUCE && roots != 1)) {
            s->st->colls_skipped++;
            continue;
        }
        s->op[c] = op;
        s->st->approx_kinds += tc->kind == TERN_TRACE_REDUCE_SCATTER || tc->kind == TERN_TRACE_SCAN ||
                               tc->kind == TERN_TRACE_EXSCAN;
        if (of[tc->comm] == VF_NONE) {
            int world = cm->size == j->size;
            for (uint32_t i = 0; world && i < cm->size; i++) {
                world = cm->world[i] == (int32_t)i;
            }
            uint32_t v = world ? 0 : VF_NONE;
            for (uint32_t i = 1; v == VF_NONE && i < nvc; i++) {
                if (vc[i]->size == cm->size && vx_same_members(vc[i]->world, cm->world, cm->size)) {
                    v = i;
                }
            }
            if (v == VF_NONE) {
                vc[nvc] = cm;
                v = nvc++;
            }
            of[tc->comm] = v;
        }
        s->vcomm[c] = of[tc->comm];
        s->st->colls++;
        s->st->coll_lines += tc->n;
    }
    free(of);
    s->st->comms = nvc;
    *vc_p = vc;
    return 0;
}

/* Of what a call completed, the one whose other side started last. */
static int64_t vx_score(const vx_state_t *s, const vx_act_t *a)
{
    const tm_msg_t *msg = a->what == VX_A_COLLD ? NULL : &s->m->msgs[a->idx];
    switch (a->what) {
    case VX_A_RECVD:
        return msg->t_send;
    case VX_A_SENT:
        if (msg->mode == TERN_TRACE_SYNC) {
            return s->j->ranks[msg->dst].recs[msg->recv_rec].t_enter;
        }
        return INT64_MIN;
    default:
        return s->cscore[s->coll_of[a->idx]];
    }
}

/* Each rank's chain (vx_ev_t in rank order). */
static int vx_chains(vx_state_t *s)
{
    const tl_job_t *j = s->j;
    const tm_match_t *m = s->m;
    size_t cap = 3 * m->nmsgs + 2 * m->nmembers, n = 0;
    vx_act_t *a = malloc((cap + 1) * sizeof(*a));
    s->ev = malloc((m->nmsgs + m->nmembers + 1) * sizeof(vx_ev_t));
    if (a == NULL || s->ev == NULL) {
        free(a);
        return -1;
    }
    for (size_t i = 0; i < m->nmsgs; i++) {
        const tm_msg_t *g = &m->msgs[i];
        a[n] = (vx_act_t){ g->src, g->send_rec, VX_POST, VX_A_SEND, (uint32_t)i, (uint32_t)n };
        n++;
        if (g->send_done != TL_NONE) {
            a[n] = (vx_act_t){ g->src, g->send_done, VX_DONE, VX_A_SENT, (uint32_t)i, (uint32_t)n };
            n++;
        }
        if (g->recv_done != TL_NONE) {
            a[n] = (vx_act_t){ g->dst, g->recv_done, VX_DONE, VX_A_RECVD, (uint32_t)i, (uint32_t)n };
            n++;
        }
    }
    for (size_t k = 0; k < m->nmembers; k++) {
        const tm_member_t *mb = &m->members[k];
        s->member_ev[k] = VF_NONE;
        if (s->op[s->coll_of[k]] < 0) {
            continue;
        }
        a[n] = (vx_act_t){ mb->rank, mb->rec, VX_POST, VX_A_COLL, (uint32_t)k, (uint32_t)n };
        n++;
        if (mb->done != TL_NONE) {
            a[n] = (vx_act_t){ mb->rank, mb->done, VX_DONE, VX_A_COLLD, (uint32_t)k, (uint32_t)n };
            n++;
        }
    }
    qsort(a, n, sizeof(*a), vx_cmp_act);
    size_t i = 0;
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        uint8_t last = VF_DEP_INDEPENDENT;
        uint32_t last_idx = VF_NONE;
        int64_t last_t = rk->init_exit;
        s->first[r] = (uint32_t)s->nev;
        while (i < n && a[i].rank == r) {
            uint32_t rec = a[i].rec;
            for (; i < n && a[i].rank == r && a[i].rec == rec && a[i].phase == VX_POST; i++) {
                int64_t d = rk->recs[rec].t_enter - last_t;
                if (a[i].what == VX_A_COLL) {
                    s->member_ev[a[i].idx] = (uint32_t)s->nev;
                }
                s->ev[s->nev++] = (vx_ev_t){ a[i].what == VX_A_SEND ? VX_MSG : VX_COLL, last,
                                             a[i].idx, last_idx, d > 0 ? (uint64_t)d : 0 };
            }
            const vx_act_t *best = NULL;
            int64_t best_score = 0;
            unsigned ndone = 0;
            for (; i < n && a[i].rank == r && a[i].rec == rec; i++) {
                int64_t sc = vx_score(s, &a[i]);
                if (best == NULL || sc > best_score) {
                    best = &a[i];
                    best_score = sc;
                }
                ndone++;
            }
            if (best != NULL) {
                s->st->multi += ndone > 1;
                last = best->what == VX_A_RECVD ? VF_DEP_RECEIVE
                     : best->what == VX_A_SENT  ? VF_DEP_SEND : VF_DEP_COLLECTIVE;
                last_idx = best->what == VX_A_COLLD ? s->coll_of[best->idx] : best->idx;
                last_t = rk->recs[rec].t_exit;
            }
        }
    }
    s->first[j->nranks] = (uint32_t)s->nev;
    free(a);
    return 0;
}

static void vx_push(vx_state_t *s, uint32_t r)
{
    if (!s->inq[r]) {
        s->inq[r] = 1;
        s->stack[s->nstack++] = r;
    }
}

static void vx_dep_text(const vx_state_t *s, const vx_ev_t *e, char *buf, size_t len)
{
    if (e->deptype == VF_DEP_INDEPENDENT) {
        snprintf(buf, len, "-1");
    } else if (e->deptype == VF_DEP_COLLECTIVE) {
        snprintf(buf, len, "G%" PRIu32, s->gid[e->dep]);
    } else {
        snprintf(buf, len, "%" PRIu32, s->msg_id[e->dep]);
    }
}

static int vx_ready(const vx_state_t *s, const vx_ev_t *e)
{
    switch (e->deptype) {
    case VF_DEP_INDEPENDENT:
        return 1;
    case VF_DEP_COLLECTIVE:
        return s->left[e->dep] == 0;
    default:
        return s->msg_id[e->dep] != VF_NONE;
    }
}

static void vx_write_msg(vx_state_t *s, const vx_ev_t *e)
{
    const tm_msg_t *g = &s->m->msgs[e->idx];
    char dep[24];
    vx_dep_text(s, e, dep, sizeof(dep));
    s->msg_id[e->idx] = s->next_msg++;
    fprintf(s->o, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %u %" PRIu64 " %s\n",
            s->msg_id[e->idx], g->src, g->dst, g->bytes, e->deptype, e->delay, dep);
    s->written++;
    vx_push(s, g->dst);
}

/* The lines of collective c's members that arrived. */
static void vx_write_group(vx_state_t *s, uint32_t c)
{
    const tm_coll_t *tc = &s->m->colls[c];
    if (s->gid[c] == VF_NONE) {
        s->gid[c] = s->next_g++;
    }
    for (uint32_t k = tc->first; k < tc->first + tc->n; k++) {
        if (!s->marr[k] || s->memit[k]) {
            continue;
        }
        const tm_member_t *mb = &s->m->members[k];
        const tl_item_t *it = vx_item(s, k);
        const vx_ev_t *e = &s->ev[s->member_ev[k]];
        uint64_t send = it->bytes, recv = it->rbytes;
        if (s->op[c] == VF_OP_REDUCE) {
            int root = it->world >= 0 && (uint32_t)it->world == mb->rank;
            recv = root ? (recv != 0 ? recv : 1) : 0;
        } else if (s->op[c] == VF_OP_ALLTOALL) {
            recv = 1;                   /* send is the task's total */
        }
        char dep[24];
        vx_dep_text(s, e, dep, sizeof(dep));
        fprintf(s->o, "G%" PRIu32 " %" PRIu32 " %d %" PRIu32 " %" PRIu64 " %" PRIu64 " %u %" PRIu64
                " %s\n", s->gid[c], s->vcomm[c], s->op[c], mb->rank, send, recv, e->deptype, e->delay,
                dep);
        s->memit[k] = 1;
        s->cur[mb->rank]++;
        s->left[c]--;
        s->written++;
        vx_push(s, mb->rank);
    }
    s->need[c] -= s->arrived[c];
    s->arrived[c] = 0;
    if (s->left[c] == 0) {
        for (uint32_t k = tc->first; k < tc->first + tc->n; k++) {
            vx_push(s, s->m->members[k].rank);
        }
    }
}

/* Write rank r's chain as far as its dependencies allow. */
static void vx_advance(vx_state_t *s, uint32_t r)
{
    while (s->cur[r] < s->first[r + 1]) {
        const vx_ev_t *e = &s->ev[s->cur[r]];
        if (e->what == VX_MSG) {
            if (!vx_ready(s, e)) {
                return;
            }
            vx_write_msg(s, e);
            s->cur[r]++;
            continue;
        }
        uint32_t c = s->coll_of[e->idx];
        if (s->marr[e->idx] || !vx_ready(s, e)) {
            return;
        }
        s->marr[e->idx] = 1;
        if (++s->arrived[c] < s->need[c]) {
            return;
        }
        vx_write_group(s, c);
    }
}

/* No rank can go on: break the cycle (trace_vef_export.h). */
static void vx_break(vx_state_t *s)
{
    for (uint32_t c = 0; c < s->m->ncolls; c++) {
        if (s->arrived[c] != 0) {
            s->st->split++;
            vx_write_group(s, c);
            return;
        }
    }
    for (uint32_t r = 0; r < s->j->nranks; r++) {
        if (s->cur[r] < s->first[r + 1]) {
            vx_ev_t *e = &s->ev[s->cur[r]];
            e->deptype = VF_DEP_INDEPENDENT;
            e->dep = VF_NONE;
            s->st->dropped++;
            vx_push(s, r);
            return;
        }
    }
}

static void vx_emit(vx_state_t *s, const tl_comm_t **vc)
{
    const tl_job_t *j = s->j;
    uint32_t global = 0;
    for (size_t c = 0; c < s->m->ncolls; c++) {
        global += s->op[c] >= 0 && s->vcomm[c] == 0;
    }
    fprintf(s->o, "VEF %" PRIu32 " %zu %" PRIu32 " %" PRIu32 " %" PRIu64 " TRUE\n", j->nranks,
            s->m->nmsgs, s->st->comms, global, s->st->colls - global);
    fputs("C0", s->o);
    for (uint32_t r = 0; r < j->size; r++) {
        fprintf(s->o, " %" PRIu32, r);
    }
    fputc('\n', s->o);
    for (uint32_t v = 1; v < s->st->comms; v++) {
        fprintf(s->o, "C%" PRIu32, v);
        for (uint32_t i = 0; i < vc[v]->size; i++) {
            fprintf(s->o, " %" PRId32, vc[v]->world[i]);
        }
        fputc('\n', s->o);
    }
    s->total = s->nev;
    for (uint32_t r = j->nranks; r-- > 0;) {
        s->cur[r] = s->first[r];
        vx_push(s, r);
    }
    while (s->written < s->total) {
        while (s->nstack > 0) {
            uint32_t r = s->stack[--s->nstack];
            s->inq[r] = 0;
            vx_advance(s, r);
        }
        if (s->written < s->total) {
            vx_break(s);
        }
    }
}

int vx_export(FILE *o, const tl_job_t *j, const tm_match_t *m, vx_stats_t *st)
{
    memset(st, 0, sizeof(*st));
    vx_state_t s;
    memset(&s, 0, sizeof(s));
    s.j = j;
    s.m = m;
    s.o = o;
    s.st = st;
    st->msgs = m->nmsgs;
    st->lone_sends = m->nlone_sends;
    st->lone_recvs = m->nlone_recvs;
    size_t nc = m->ncolls + 1, nm = m->nmembers + 1, nr = (size_t)j->nranks + 1;
    const tl_comm_t **vc = NULL;
    int rc = -1;
    s.op = malloc(nc * sizeof(int));
    s.vcomm = calloc(nc, sizeof(uint32_t));
    s.cscore = malloc(nc * sizeof(int64_t));
    s.coll_of = malloc(nm * sizeof(uint32_t));
    s.member_ev = malloc(nm * sizeof(uint32_t));
    s.marr = calloc(nm, 1);
    s.memit = calloc(nm, 1);
    s.msg_id = malloc((m->nmsgs + 1) * sizeof(uint32_t));
    s.gid = malloc(nc * sizeof(uint32_t));
    s.left = malloc(nc * sizeof(uint32_t));
    s.need = malloc(nc * sizeof(uint32_t));
    s.arrived = calloc(nc, sizeof(uint32_t));
    s.first = malloc(nr * sizeof(uint32_t));
    s.cur = malloc(nr * sizeof(uint32_t));
    s.stack = malloc(nr * sizeof(uint32_t));
    s.inq = calloc(nr, 1);
    if (s.op == NULL || s.vcomm == NULL || s.cscore == NULL || s.coll_of == NULL ||
        s.member_ev == NULL || s.marr == NULL || s.memit == NULL || s.msg_id == NULL ||
        s.gid == NULL || s.left == NULL || s.need == NULL || s.arrived == NULL ||
        s.first == NULL || s.cur == NULL || s.stack == NULL || s.inq == NULL ||
        m->nmsgs >= VF_NONE || m->ncolls >= VF_NONE) {
        goto out;
    }
    for (size_t i = 0; i < m->nmsgs; i++) {
        s.msg_id[i] = VF_NONE;
    }
    for (size_t c = 0; c < m->ncolls; c++) {
        s.gid[c] = VF_NONE;
        s.left[c] = s.need[c] = m->colls[c].n;
    }
    if (vx_colls(&s, &vc) != 0 || vx_chains(&s) != 0) {
        goto out;
    }
    vx_emit(&s, vc);
    rc = ferror(o) ? -1 : 0;
out:
    free(vc);
    free(s.ev);
    free(s.op);
    free(s.vcomm);
    free(s.cscore);
    free(s.coll_of);
    free(s.member_ev);
    free(s.marr);
    free(s.memit);
    free(s.msg_id);
    free(s.gid);
    free(s.left);
    free(s.need);
    free(s.arrived);
    free(s.first);
    free(s.cur);
    free(s.stack);
    free(s.inq);
    return rc;
}

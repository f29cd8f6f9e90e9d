/* A replay program from a Tern trace directory (sim_replay.h): the job
 * read and checked by tools/tern-trace's loader (trace_load.h, the one
 * decode step of the hostile files), messages paired and collectives
 * grouped by its matcher (trace_match.h); this file only walks the
 * checked structures. */
#include "sim_replay.h"
#include "sim_replay_coll.h"

#include <stdlib.h>
#include <string.h>

#include "trace_load.h"
#include "trace_match.h"

typedef struct {
    tn_sim_prog_t *p;
    const tl_job_t *j;
    const tm_match_t *m;
    const tn_sim_replay_conf_t *rc;
    int32_t **ent;     /* [rank][record] the entry node of a depth-0 record, -1 */
    uint32_t **top;    /* [rank][record] the depth-0 record it ran in, TL_NONE */
    tn_sim_status_t st;
} rt_t;

static int32_t rt_entry(const rt_t *t, uint32_t rank, uint32_t rec)
{
    if (rank >= t->j->nranks || rec >= t->j->ranks[rank].nrecs || t->top[rank][rec] == TL_NONE) {
        return -1;
    }
    return t->ent[rank][t->top[rank][rec]];
}

/* The exit node of the call rec ran in; it now ends when its traffic
 * does, not after its traced duration. */
static int32_t rt_exit(rt_t *t, uint32_t rank, uint32_t rec)
{
    int32_t e = rt_entry(t, rank, rec);
    if (e < 0) {
        return -1;
    }
    t->p->delay[e + 1] = 0;
    return e + 1;
}

static tn_sim_status_t rt_calls(rt_t *t)
{
    const tl_job_t *j = t->j;
    for (uint32_t r = 0; r < j->nranks && t->st == TN_SIM_OK; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        t->ent[r] = malloc(sizeof(int32_t) * ((size_t)rk->nrecs + 1));
        t->top[r] = malloc(sizeof(uint32_t) * ((size_t)rk->nrecs + 1));
        if (t->ent[r] == NULL || t->top[r] == NULL) {
            return TN_SIM_ERR_NOMEM;
        }
        /* nested calls come before the call they ran in */
        uint32_t up = TL_NONE;
        for (uint32_t k = rk->nrecs; k-- > 0;) {
            if (rk->recs[k].depth == 0) {
                up = k;
            }
            t->top[r][k] = up;
        }
        int32_t prev = -1;
        int64_t prev_exit = 0;
        for (uint32_t k = 0; k < rk->nrecs; k++) {
            const tl_rec_t *c = &rk->recs[k];
            t->ent[r][k] = -1;
            if (c->depth != 0) {
                continue;
            }
            int fin = strcmp(tl_call_name(j, c->call), "MPI_Finalize") == 0;
            double gap = (double)(c->t_enter - (prev < 0 ? 0 : prev_exit));
            double dur = fin ? 0 : (double)(c->t_exit - c->t_enter);
            int32_t e = tn_sim_prog_node(t->p, (int32_t)r, -1, 0, gap);
            int32_t x = tn_sim_prog_node(t->p, (int32_t)r, -1, 0, dur);
            if (e < 0 || x < 0) {
                return TN_SIM_ERR_NOMEM;
            }
            tn_sim_status_t st = tn_sim_prog_edge(t->p, e, x);
            if (st == TN_SIM_OK && prev >= 0) {
                st = tn_sim_prog_edge(t->p, prev, e);
            }
            if (st != TN_SIM_OK) {
                return st;
            }
            t->ent[r][k] = e;
            prev = x;
            prev_exit = c->t_exit;
            t->p->trace_end[r] = (double)(fin ? c->t_enter : c->t_exit);
        }
    }
    return TN_SIM_OK;
}

static tn_sim_status_t rt_msgs(rt_t *t)
{
    for (size_t k = 0; k < t->m->nmsgs; k++) {
        const tm_msg_t *g = &t->m->msgs[k];
        int32_t s = rt_entry(t, g->src, g->send_rec);
        if (s < 0 || g->dst >= t->j->nranks) {
            t->p->skipped_msgs++;
            continue;
        }
        int rndv = g->bytes > t->rc->eager || g->mode == TERN_TRACE_SYNC;
        int32_t msg = tn_sim_prog_node(t->p, (int32_t)g->src, (int32_t)g->dst, g->bytes, 0);
        if (msg < 0) {
            return TN_SIM_ERR_NOMEM;
        }
        tn_sim_status_t st = tn_sim_prog_edge(t->p, s, msg);
        int32_t rp = g->recv_rec == TL_NONE ? -1 : rt_entry(t, g->dst, g->recv_rec);
        if (st == TN_SIM_OK && rndv && rp >= 0) {
            st = tn_sim_prog_edge(t->p, rp, msg);
        }
        int32_t sd = g->send_done == TL_NONE ? -1 : rt_exit(t, g->src, g->send_done);
        if (st == TN_SIM_OK && rndv && sd >= 0) {
            st = tn_sim_prog_edge(t->p, msg, sd);
        }
        int32_t rd = g->recv_done == TL_NONE ? -1 : rt_exit(t, g->dst, g->recv_done);
        if (st == TN_SIM_OK && rd >= 0) {
            st = tn_sim_prog_edge(t->p, msg, rd);
            int64_t tr = t->j->ranks[g->dst].recs[g->recv_done].t_exit - g->t_send;
            if (st == TN_SIM_OK && tn_sim_prog_measure(t->p, s, rd, tr >= 0 ? (double)tr : -1, g->bytes) != 0) {
                st = TN_SIM_ERR_NOMEM;
            }
        }
        if (st != TN_SIM_OK) {
            return st;
        }
    }
    return TN_SIM_OK;
}

static tn_sim_ckind_t rt_kind(unsigned kind)
{
    switch (kind) {
    case TERN_TRACE_BARRIER:   return TN_SIM_C_BARRIER;
    case TERN_TRACE_BCAST:     return TN_SIM_C_BCAST;
    case TERN_TRACE_REDUCE:    return TN_SIM_C_REDUCE;
    case TERN_TRACE_ALLREDUCE: return TN_SIM_C_ALLREDUCE;
    case TERN_TRACE_ALLGATHER: return TN_SIM_C_ALLGATHER;
    case TERN_TRACE_ALLTOALL:  return TN_SIM_C_ALLTOALL;
    case TERN_TRACE_GATHER:    return TN_SIM_C_GATHER;
    case TERN_TRACE_SCATTER:   return TN_SIM_C_SCATTER;
    case TERN_TRACE_REDUCE_SCATTER: return TN_SIM_C_REDUCE_SCATTER;
    case TERN_TRACE_SCAN:      return TN_SIM_C_SCAN;
    case TERN_TRACE_EXSCAN:    return TN_SIM_C_EXSCAN;
    case TERN_TRACE_NBR_ALLGATHER: return TN_SIM_C_NBR_ALLGATHER;
    case TERN_TRACE_NBR_ALLTOALL:  return TN_SIM_C_NBR_ALLTOALL;
    default:                   return TN_SIM_C_OTHER;
    }
}

/* Member arrays for a communicator of up to n members, by communicator
 * rank (mem: the collective's member of that rank). */
typedef struct {
    int32_t *world, *state;
    uint64_t *sb, *rb;
    int32_t *exit;
    const tm_member_t **mem;
} rt_cbuf_t;

/* The n counts of the given type (TERN_TRACE_I_SCOUNTS / RCOUNTS) in a
 * member's record of a collective, or NULL. */
static const uint64_t *rt_citem(const rt_t *t, const tm_member_t *mb, unsigned type, uint32_t n)
{
    const tl_rank_t *rk = &t->j->ranks[mb->rank];
    const tl_rec_t *r = &rk->recs[mb->rec];
    for (uint32_t k = r->item; k < r->item + r->nitems && k < rk->nitems; k++) {
        const tl_item_t *it = &rk->items[k];
        if (it->type == type && it->bytes == n && it->id <= rk->ncounts && n <= rk->ncounts - it->id) {
            return rk->counts + it->id;
        }
    }
    return NULL;
}

/* A vector collective's blocks as the planner takes them (sim_replay_coll.h,
 * tn_sim_coll_t.counts): malloc'ed, or NULL when the trace does not hold
 * them (alltoallw, a root's counts missing). */
static uint64_t *rt_vcounts(const rt_t *t, const tm_member_t *const *mb, uint32_t n, tn_sim_ckind_t kind,
                            int32_t root)
{
    int rows = kind == TN_SIM_C_ALLTOALL ? (int)n : 1;
    if ((uint64_t)rows * n > t->rc->coll_plan_ops) {
        return NULL;
    }
    uint64_t *cv = malloc(sizeof(uint64_t) * (size_t)rows * n);
    if (cv == NULL) {
        return NULL;
    }
    for (int i = 0; i < rows; i++) {
        const uint64_t *row = NULL;
        switch (kind) {
        case TN_SIM_C_ALLTOALL:  row = rt_citem(t, mb[i], TERN_TRACE_I_SCOUNTS, n); break;
        case TN_SIM_C_GATHER:    row = root >= 0 ? rt_citem(t, mb[root], TERN_TRACE_I_RCOUNTS, n) : NULL; break;
        case TN_SIM_C_SCATTER:   row = root >= 0 ? rt_citem(t, mb[root], TERN_TRACE_I_SCOUNTS, n) : NULL; break;
        case TN_SIM_C_ALLGATHER:
        case TN_SIM_C_REDUCE_SCATTER: row = rt_citem(t, mb[0], TERN_TRACE_I_RCOUNTS, n); break;
        default: break;
        }
        if (row == NULL) {
            free(cv);
            return NULL;
        }
        memcpy(cv + (size_t)i * n, row, sizeof(uint64_t) * n);
    }
    return cv;
}

/* The item of the given type in a member's collective record (NULL: none). */
static const tl_item_t *rt_ritem(const rt_t *t, const tm_member_t *mb, unsigned type)
{
    return tl_rec_item(&t->j->ranks[mb->rank], mb->rec, type);
}

/* A neighbourhood collective's lists and blocks (tn_sim_coll_t.nbrs) from
 * its members' NBRS, SCOUNTS and RCOUNTS items, without the neighbours
 * that are MPI_PROC_NULL or the member itself, and their blocks (a
 * message to oneself is a local copy in Tern): 0 with *v_p and *first_p
 * malloc'ed, or -1 when a member's items are missing or disagree (older
 * traces: the fallback runs it). */
static int rt_nbrs(const rt_t *t, const tm_coll_t *co, const tm_member_t *const *mb, uint32_t n, int64_t **v_p,
                   size_t **first_p)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tl_item_t *it = rt_ritem(t, mb[i], TERN_TRACE_I_NBRS);
        if (it == NULL || it->comm != co->comm) {
            return -1;
        }
        total += 2 + 2 * (size_t)(it->bytes + it->rbytes);
    }
    if (total > (t->rc->coll_plan_ops > 0 ? t->rc->coll_plan_ops : 20000000) + 2 * (size_t)n) {
        return -1;
    }
    int64_t *v = malloc(sizeof(int64_t) * (total + 1));
    size_t *first = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (v == NULL || first == NULL) {
        free(v);
        free(first);
        return -1;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tl_rank_t *rk = &t->j->ranks[mb[i]->rank];
        const tl_item_t *nb = rt_ritem(t, mb[i], TERN_TRACE_I_NBRS);
        uint32_t in = (uint32_t)nb->bytes, out = (uint32_t)nb->rbytes;
        const uint64_t *sent = rt_citem(t, mb[i], TERN_TRACE_I_SCOUNTS, out);
        const uint64_t *got = rt_citem(t, mb[i], TERN_TRACE_I_RCOUNTS, in);
        if ((out > 0 && sent == NULL) || (in > 0 && got == NULL) ||
            nb->id + (uint64_t)in + out > rk->ncounts) {
            free(v);
            free(first);
            return -1;
        }
        first[i] = o;
        size_t hdr = o;
#define RT_NBR_KEPT(r) ((r) >= 0 && (uint32_t)(r) < n && (uint32_t)(r) != i)
        int64_t kin = 0, kout = 0;
        o += 2;
        /* sources, destinations (members), then their blocks, without
         * the MPI_PROC_NULL ones */
        for (int side = 0; side < 2; side++) {
            for (uint32_t k = side ? in : 0; k < (side ? in + out : in); k++) {
                int32_t r = tl_nbr(rk, nb, k);
                if (RT_NBR_KEPT(r)) {
                    v[o++] = r;
                    *(side ? &kout : &kin) += 1;
                } else if (r != TERN_TRACE_PROC_NULL && (r < 0 || (uint32_t)r >= n)) {
                    free(v);
                    free(first);
                    return -1;
                }
            }
        }
        for (uint32_t k = 0; k < out; k++) {
            if (RT_NBR_KEPT(tl_nbr(rk, nb, in + k))) {
                v[o++] = (int64_t)sent[k];
            }
        }
        for (uint32_t k = 0; k < in; k++) {
            if (RT_NBR_KEPT(tl_nbr(rk, nb, k))) {
                v[o++] = (int64_t)got[k];
            }
        }
#undef RT_NBR_KEPT
        v[hdr] = kin;
        v[hdr + 1] = kout;
    }
    first[n] = o;
    *v_p = v;
    *first_p = first;
    return 0;
}

static tn_sim_status_t rt_coll(rt_t *t, const tm_coll_t *co, rt_cbuf_t *b)
{
    const tl_job_t *j = t->j;
    if (co->comm >= j->ncomms) {
        t->p->opaque_colls++;
        return TN_SIM_OK;
    }
    const tl_comm_t *cm = &j->comms[co->comm];
    if (cm->flags != 0 || co->n != cm->size || co->mixed) {
        t->p->opaque_colls++;   /* intercommunicator or cut: its calls keep their traced time */
        return TN_SIM_OK;
    }
    tn_sim_coll_t c = {.n = (int32_t)cm->size, .world = b->world, .state = b->state, .sbytes = b->sb,
                       .rbytes = b->rb, .root = -1, .one_node = 1, .shm_lat = t->rc->shm_lat};
    for (uint32_t i = 0; i < cm->size; i++) {
        /* members are in world rank order, the communicator's may differ */
        uint32_t k = tm_member_of(t->m, co, cm->world[i]);
        const tm_member_t *mb = k == TL_NONE ? NULL : &t->m->members[k];
        b->mem[i] = mb;
        if (mb == NULL || mb->item >= j->ranks[mb->rank].nitems || mb->done == TL_NONE) {
            t->p->opaque_colls++;
            return TN_SIM_OK;
        }
        const tl_item_t *it = &j->ranks[mb->rank].items[mb->item];
        b->world[i] = cm->world[i];
        b->state[i] = rt_entry(t, mb->rank, mb->rec);
        b->exit[i] = rt_exit(t, mb->rank, mb->done);
        if (b->state[i] < 0 || b->exit[i] < 0) {
            t->p->opaque_colls++;
            return TN_SIM_OK;
        }
        b->sb[i] = it->bytes;
        b->rb[i] = it->rbytes;
        if (it->peer >= 0 && (uint32_t)it->peer < cm->size) {
            c.root = it->peer;
        }
        c.vector |= (it->mode & TERN_TRACE_C_VECTOR) != 0;
        c.noncommutative |= it->v.op == TERN_TRACE_OP_USER;
        if (t->rc->slot_mode != TN_SIM_SLOT_TRACE || t->p->node[cm->world[i]] != t->p->node[cm->world[0]]) {
            c.one_node = 0;
        }
    }
    const char *name = co->algo == TERN_TRACE_ALGO_UNKNOWN ? "" : tl_algo_name(j, co->algo);
    if (co->algo == TERN_TRACE_ALGO_UNKNOWN) {
        /* a nonblocking (MPI_I...) or persistent (..._init) collective
         * records no algorithm: its schedule is the coll/nbc builder's */
        const tm_member_t *m0 = b->mem[0];
        const char *call = tl_call_name(j, j->ranks[m0->rank].recs[m0->rec].call);
        size_t cl = strlen(call);
        if (strncmp(call, "MPI_I", 5) == 0 || (cl > 5 && strcmp(call + cl - 5, "_init") == 0)) {
            name = "nbc";
        }
    }
    int64_t *nv = NULL;
    size_t *nfirst = NULL;
    if (rt_kind(co->kind) == TN_SIM_C_NBR_ALLGATHER || rt_kind(co->kind) == TN_SIM_C_NBR_ALLTOALL) {
        name = "nbc";   /* blocking or not, Tern runs the coll/nbc schedule */
        if (rt_nbrs(t, co, b->mem, cm->size, &nv, &nfirst) == 0) {
            c.nbrs = nv;
            c.nbr_first = nfirst;
        }
    }
    const char *colon = strchr(name, ':');
    int fb = 0, planned = 0;
    tn_sim_status_t st = TN_SIM_OK;
    if (t->rc->bcast_mcast && rt_kind(co->kind) == TN_SIM_C_BCAST) {
        c.root = c.root >= 0 ? c.root : 0;  /* none recorded: member 0, as the models take */
        st = tn_sim_coll_mcast(t->p, &c);
        planned = 1;
    } else {
        uint64_t *cv = NULL;
        if (c.vector && t->rc->coll_plan != NULL) {
            cv = rt_vcounts(t, b->mem, cm->size, rt_kind(co->kind), c.root);
            c.counts = cv;
        }
        st = tn_sim_coll_plan(t->p, rt_kind(co->kind), colon ? colon + 1 : name, &c, t->rc, &planned);
        free(cv);
    }
    if (st == TN_SIM_OK && !planned) {
        st = tn_sim_coll_expand(t->p, rt_kind(co->kind), colon ? colon + 1 : name, &c, &fb);
        t->p->fallback_colls += (uint64_t)fb;
    }
    free(nv);
    free(nfirst);
    for (uint32_t i = 0; i < cm->size && st == TN_SIM_OK; i++) {
        st = tn_sim_prog_edge(t->p, b->state[i], b->exit[i]);
        /* the call's time, from its entry to the exit of the call that
         * completed it (both checked above; state[i] has moved on to the
         * member's last step) */
        const tm_member_t *mb = b->mem[i];
        const tl_rec_t *recs = j->ranks[mb->rank].recs;
        int64_t tr = recs[mb->done].t_exit - recs[mb->rec].t_enter;
        if (st == TN_SIM_OK && tn_sim_prog_measure_call(t->p, rt_entry(t, mb->rank, mb->rec), b->exit[i],
                                                        tr >= 0 ? (double)tr : -1, rt_kind(co->kind)) != 0) {
            st = TN_SIM_ERR_NOMEM;
        }
    }
    return st;
}

static tn_sim_status_t rt_colls(rt_t *t)
{
    uint32_t maxn = 1;
    for (uint32_t c = 0; c < t->j->ncomms; c++) {
        maxn = t->j->comms[c].size > maxn ? t->j->comms[c].size : maxn;
    }
    rt_cbuf_t b = {malloc(sizeof(int32_t) * maxn), malloc(sizeof(int32_t) * maxn), malloc(sizeof(uint64_t) * maxn),
                   malloc(sizeof(uint64_t) * maxn), malloc(sizeof(int32_t) * maxn),
                   malloc(sizeof(tm_member_t *) * maxn)};
    tn_sim_status_t st = TN_SIM_ERR_NOMEM;
    if (b.world != NULL && b.state != NULL && b.sb != NULL && b.rb != NULL && b.exit != NULL && b.mem != NULL) {
        st = TN_SIM_OK;
        for (size_t k = 0; k < t->m->ncolls && st == TN_SIM_OK; k++) {
            st = rt_coll(t, &t->m->colls[k], &b);
        }
    }
    free(b.world);
    free(b.state);
    free(b.sb);
    free(b.rb);
    free(b.exit);
    free(b.mem);
    return st;
}

tn_sim_status_t tn_sim_replay_from_trace(tn_sim_prog_t *p, const char *dir, const tn_sim_replay_conf_t *rc,
                                         char *why, size_t whylen)
{
    static tl_job_t j;
    tm_match_t m;
    memset(&m, 0, sizeof(m));
    tn_sim_prog_init(p);
    tl_job_init(&j, NULL);
    rt_t t = {.p = p, .j = &j, .m = &m, .rc = rc, .st = TN_SIM_OK};
    int32_t *dense = NULL;
    tn_sim_status_t st = TN_SIM_ERR_PARSE;
    if (tl_job_add_dir(&j, dir) != 0 || tl_job_finish(&j) != 0) {
        snprintf(why, whylen, "replay: %s: %s", dir, j.err);
        goto out;
    }
    if (j.nranks == 0 || j.nranks > TN_SIM_MAX_EP) {
        snprintf(why, whylen, "replay: %s: %u ranks (1 to %d)", dir, j.nranks, TN_SIM_MAX_EP);
        goto out;
    }
    st = TN_SIM_ERR_NOMEM;
    if (tm_match(&j, &m) != 0 || tn_sim_prog_ranks(p, (int32_t)j.nranks) != TN_SIM_OK) {
        snprintf(why, whylen, "replay: out of memory matching %s", dir);
        goto out;
    }
    /* the node map: nodes as the headers number them, checked against
     * the job's node count, then renumbered densely */
    p->nnodes = 0;
    dense = malloc(sizeof(int32_t) * ((size_t)j.nnodes + 1));
    if (dense == NULL) {
        snprintf(why, whylen, "replay: out of memory");
        goto out;
    }
    for (uint32_t q = 0; q < j.nnodes; q++) {
        dense[q] = -1;
    }
    for (uint32_t r = 0; r < j.nranks; r++) {
        uint32_t q = j.ranks[r].node;
        if (q >= j.nnodes) {
            snprintf(why, whylen, "replay: rank %u on node %u of %u", r, q, j.nnodes);
            st = TN_SIM_ERR_PARSE;
            goto out;
        }
        if (dense[q] < 0) {
            dense[q] = p->nnodes++;
        }
        p->node[r] = dense[q];
    }
    t.ent = calloc(j.nranks, sizeof(int32_t *));
    t.top = calloc(j.nranks, sizeof(uint32_t *));
    if (t.ent == NULL || t.top == NULL) {
        snprintf(why, whylen, "replay: out of memory");
        goto out;
    }
    st = rt_calls(&t);
    if (st == TN_SIM_OK) {
        st = rt_msgs(&t);
    }
    if (st == TN_SIM_OK) {
        st = rt_colls(&t);
    }
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "replay: %s: %s", dir, tn_sim_status_str(st));
    }
out:
    for (uint32_t r = 0; t.ent != NULL && r < j.nranks; r++) {
        free(t.ent[r]);
        free(t.top != NULL ? t.top[r] : NULL);
    }
    free(dense);
    free(t.ent);
    free(t.top);
    tm_free(&m);
    tl_job_free(&j);
    if (st != TN_SIM_OK) {
        tn_sim_prog_free(p);
    }
    return st;
}

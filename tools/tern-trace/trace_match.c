/* Matching messages and grouping collectives (trace_match.h). */
#include "trace_match.h"

#include <stdlib.h>
#include <string.h>

enum { TM_OK = 0, TM_CANCELLED, TM_NOMSG, TM_UNRESOLVED };

/* A send or a receive as posted by one rank. */
typedef struct {
    uint32_t comm;
    uint32_t src, dst;                  /* world ranks; a receive's src once resolved */
    int32_t  tag;
    uint32_t rank;
    uint32_t rec, done;
    uint32_t gid;                       /* its (comm, src, dst, tag) sequence, once kept */
    int32_t  peer_spec, tag_spec;       /* a receive's own source (world) and tag */
    uint64_t bytes;
    uint8_t  state;                     /* TM_OK.. */
    uint8_t  mode, side;
} tm_op_t;

typedef struct {
    uint32_t comm;
    uint32_t start;
    uint64_t seq;
    tm_member_t m;
} tm_inst_t;

/* A live request of the rank being walked. */
typedef struct {
    uint64_t id;
    uint8_t  used;
    uint8_t  persistent;
    uint32_t tsend, trecv, tcoll;       /* persistent: the init's items (TL_NONE) */
    uint32_t send, recv, coll;          /* what it is doing now (TL_NONE) */
    uint32_t nstart;
} tm_req_t;

typedef struct {
    tm_req_t *slot;
    uint32_t  cap, n;                   /* cap a power of two */
} tm_reqs_t;

typedef struct {
    const tl_job_t *j;
    tm_op_t   *sends, *recvs;
    size_t     nsends, nrecvs, scap, rcap;
    tm_inst_t *insts;
    size_t     ninsts, icap;
    tm_reqs_t  reqs;
    uint64_t   cancelled;
} tm_state_t;

/* ------------------------------------------------------------- requests */

static uint32_t tm_home(const tm_reqs_t *q, uint64_t id)
{
    return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (q->cap - 1);
}

static tm_req_t *tm_req_find(tm_reqs_t *q, uint64_t id)
{
    if (q->cap == 0) {
        return NULL;
    }
    for (uint32_t k = tm_home(q, id); q->slot[k].used; k = (k + 1) & (q->cap - 1)) {
        if (q->slot[k].id == id) {
            return &q->slot[k];
        }
    }
    return NULL;
}

/* A fresh entry for id (an id made again replaces the old request). */
static tm_req_t *tm_req_put(tm_reqs_t *q, uint64_t id)
{
    tm_req_t *e = tm_req_find(q, id);
    if (e == NULL) {
        if ((q->n + 1) * 2 > q->cap) {
            uint32_t nc = q->cap ? q->cap * 2 : 256;
            tm_req_t *ns = calloc(nc, sizeof(*ns));
            if (ns == NULL) {
                return NULL;
            }
            tm_reqs_t nq = { ns, nc, 0 };
            for (uint32_t i = 0; i < q->cap; i++) {
                if (q->slot[i].used) {
                    uint32_t k = tm_home(&nq, q->slot[i].id);
                    while (ns[k].used) {
                        k = (k + 1) & (nc - 1);
                    }
                    ns[k] = q->slot[i];
                }
            }
            nq.n = q->n;
            free(q->slot);
            *q = nq;
        }
        uint32_t k = tm_home(q, id);
        while (q->slot[k].used) {
            k = (k + 1) & (q->cap - 1);
        }
        e = &q->slot[k];
        q->n++;
    }
    *e = (tm_req_t){ .id = id, .used = 1, .tsend = TL_NONE, .trecv = TL_NONE, .tcoll = TL_NONE,
                     .send = TL_NONE, .recv = TL_NONE, .coll = TL_NONE };
    return e;
}

/* Remove an entry, shifting back the ones its slot had pushed along. */
static void tm_req_del(tm_reqs_t *q, tm_req_t *e)
{
    uint32_t i = (uint32_t)(e - q->slot), mask = q->cap - 1;
    for (uint32_t j = (i + 1) & mask; q->slot[j].used; j = (j + 1) & mask) {
        uint32_t k = tm_home(q, q->slot[j].id);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            q->slot[i] = q->slot[j];
            i = j;
        }
    }
    q->slot[i].used = 0;
    q->n--;
}

static void tm_reqs_reset(tm_reqs_t *q)
{
    if (q->n != 0) {
        free(q->slot);
        *q = (tm_reqs_t){ NULL, 0, 0 };
    }
}

/* ----------------------------------------------------------- operations */

static int tm_grow(void **p, size_t *cap, size_t elem, size_t need)
{
    if (need <= *cap) {
        return 0;
    }
    size_t nc = *cap ? *cap * 2 : 1024;
    while (nc < need) {
        nc *= 2;
    }
    void *q = realloc(*p, nc * elem);
    if (q == NULL) {
        return -1;
    }
    *p = q;
    *cap = nc;
    return 0;
}

/* A send posted by record rec through item it; TL_NONE when
 * it is no message (to MPI_PROC_NULL), UINT32_MAX - 1 out of memory. */
#define TM_NOMEM (UINT32_MAX - 1)

static uint32_t tm_send(tm_state_t *s, uint32_t rank, uint32_t rec, const tl_item_t *it)
{
    if (it->peer < 0 || it->world < 0) {
        return TL_NONE;
    }
    if (s->nsends + 1 >= TM_NOMEM ||
        tm_grow((void **)&s->sends, &s->scap, sizeof(tm_op_t), s->nsends + 1) != 0) {
        return TM_NOMEM;
    }
    tm_op_t *o = &s->sends[s->nsends];
    *o = (tm_op_t){ .comm = it->comm, .src = rank, .dst = (uint32_t)it->world, .tag = it->u.tag,
                    .rank = rank, .rec = rec,
                    .done = it->form == TERN_TRACE_BLOCKING ? rec : TL_NONE,
                    .bytes = it->bytes, .mode = it->mode, .side = it->side };
    return (uint32_t)s->nsends++;
}

static uint32_t tm_recv(tm_state_t *s, uint32_t rank, uint32_t rec, const tl_item_t *it)
{
    if (it->peer == TERN_TRACE_PROC_NULL) {
        return TL_NONE;
    }
    if (s->nrecvs + 1 >= TM_NOMEM ||
        tm_grow((void **)&s->recvs, &s->rcap, sizeof(tm_op_t), s->nrecvs + 1) != 0) {
        return TM_NOMEM;
    }
    tm_op_t *o = &s->recvs[s->nrecvs];
    *o = (tm_op_t){ .comm = it->comm, .dst = rank, .rank = rank, .rec = rec,
                    .done = TL_NONE, .peer_spec = it->peer >= 0 ? it->world : -1,
                    .tag_spec = it->u.tag, .bytes = it->bytes, .side = it->side,
                    .state = TM_UNRESOLVED };
    if (o->peer_spec >= 0 && o->tag_spec >= 0) {
        o->src = (uint32_t)o->peer_spec;
        o->tag = o->tag_spec;
        o->state = TM_OK;               /* matchable even if its completion is cut off */
    }
    return (uint32_t)s->nrecvs++;
}

/* What a STATUS or DONE item says a receive matched. */
static void tm_resolve(tm_state_t *s, tm_op_t *o, const tl_item_t *st)
{
    if (st->mode != 0) {
        o->state = TM_CANCELLED;
        s->cancelled++;
        return;
    }
    if (st->peer == TERN_TRACE_PROC_NULL) {
        o->state = TM_NOMSG;
        return;
    }
    int32_t src = o->peer_spec >= 0 ? o->peer_spec
                                    : tl_peer_world(s->j, o->comm, o->side, st->peer);
    int32_t tag = o->tag_spec >= 0 ? o->tag_spec : st->u.tag;
    if (src < 0 || tag < 0) {
        o->state = TM_UNRESOLVED;
        return;
    }
    o->src = (uint32_t)src;
    o->tag = tag;
    o->state = TM_OK;
}

static uint32_t tm_coll(tm_state_t *s, uint32_t rank, uint32_t rec, uint32_t item,
                        const tl_item_t *it, uint32_t start)
{
    if (s->ninsts + 1 >= TM_NOMEM ||
        tm_grow((void **)&s->insts, &s->icap, sizeof(tm_inst_t), s->ninsts + 1) != 0) {
        return TM_NOMEM;
    }
    s->insts[s->ninsts] = (tm_inst_t){
        .comm = it->comm, .seq = it->id, .start = start,
        .m = { .rank = rank, .rec = rec, .item = item,
               .done = it->form == TERN_TRACE_BLOCKING ? rec : TL_NONE },
    };
    return (uint32_t)s->ninsts++;
}

/* A request completed by record rec (its DONE item it). */
static void tm_done(tm_state_t *s, tm_req_t *e, uint32_t rec, const tl_item_t *it)
{
    if (e->send != TL_NONE) {
        s->sends[e->send].done = rec;
        if (it->mode != 0) {
            s->sends[e->send].state = TM_CANCELLED;
            s->cancelled++;
        }
    }
    if (e->recv != TL_NONE) {
        s->recvs[e->recv].done = rec;
        tm_resolve(s, &s->recvs[e->recv], it);
    }
    if (e->coll != TL_NONE) {
        s->insts[e->coll].m.done = rec;
    }
    e->send = e->recv = e->coll = TL_NONE;
    if (!e->persistent) {
        tm_req_del(&s->reqs, e);
    }
}

/* A persistent request started by record rec. */
static int tm_start(tm_state_t *s, const tl_rank_t *r, tm_req_t *e, uint32_t rec)
{
    if (e->tsend != TL_NONE &&
        (e->send = tm_send(s, r->rank, rec, &r->items[e->tsend])) == TM_NOMEM) {
        return -1;
    }
    if (e->trecv != TL_NONE &&
        (e->recv = tm_recv(s, r->rank, rec, &r->items[e->trecv])) == TM_NOMEM) {
        return -1;
    }
    if (e->tcoll != TL_NONE &&
        (e->coll = tm_coll(s, r->rank, rec, e->tcoll, &r->items[e->tcoll], e->nstart)) ==
            TM_NOMEM) {
        return -1;
    }
    e->nstart++;
    return 0;
}

static int tm_walk_rank(tm_state_t *s, const tl_rank_t *r)
{
    for (uint32_t k = 0; k < r->nrecs; k++) {
        const tl_rec_t *rc = &r->recs[k];
        uint32_t send = TL_NONE, recv = TL_NONE, coll = TL_NONE;
        uint32_t tsend = TL_NONE, trecv = TL_NONE, tcoll = TL_NONE;
        for (uint32_t i = rc->item; i < rc->item + rc->nitems; i++) {
            const tl_item_t *it = &r->items[i];
            tm_req_t *e;
            switch (it->type) {
            case TERN_TRACE_I_SEND:
                if (it->form == TERN_TRACE_PERSISTENT) {
                    tsend = i;
                } else if ((send = tm_send(s, r->rank, k, it)) == TM_NOMEM) {
                    return -1;
                }
                break;
            case TERN_TRACE_I_RECV:
                if (it->form == TERN_TRACE_PERSISTENT) {
                    trecv = i;
                } else if ((recv = tm_recv(s, r->rank, k, it)) == TM_NOMEM) {
                    return -1;
                } else if (recv != TL_NONE && it->form == TERN_TRACE_BLOCKING) {
                    s->recvs[recv].done = k;
                }
                break;
            case TERN_TRACE_I_STATUS:
                if (recv != TL_NONE) {
                    tm_resolve(s, &s->recvs[recv], it);
                }
                break;
            case TERN_TRACE_I_COLL:
                if (it->form == TERN_TRACE_PERSISTENT) {
                    tcoll = i;
                } else if ((coll = tm_coll(s, r->rank, k, i, it, 0)) == TM_NOMEM) {
                    return -1;
                }
                break;
            case TERN_TRACE_I_REQ:
                if ((e = tm_req_put(&s->reqs, it->id)) == NULL) {
                    return -1;
                }
                e->persistent = tsend != TL_NONE || trecv != TL_NONE || tcoll != TL_NONE;
                if (e->persistent) {
                    e->tsend = tsend;
                    e->trecv = trecv;
                    e->tcoll = tcoll;
                } else {
                    e->send = send;
                    e->recv = recv;
                    e->coll = coll;
                }
                break;
            case TERN_TRACE_I_START:
                if ((e = tm_req_find(&s->reqs, it->id)) != NULL && e->persistent &&
                    tm_start(s, r, e, k) != 0) {
                    return -1;
                }
                break;
            case TERN_TRACE_I_DONE:
                if ((e = tm_req_find(&s->reqs, it->id)) != NULL) {
                    tm_done(s, e, k, it);
                }
                break;
            case TERN_TRACE_I_FREE:
                if ((e = tm_req_find(&s->reqs, it->id)) != NULL) {
                    tm_req_del(&s->reqs, e);
                }
                break;
            default:
                break;
            }
        }
    }
    tm_reqs_reset(&s->reqs);
    return 0;
}

/* ------------------------------------------------------------- pairing */

/* A (comm, src, dst, tag) sequence: its sends and receives, counted, then
 * placed.  Operations were collected rank by rank in program order, and
 * one sequence's sends all come from its src (its receives all from its
 * dst), so a stable placement by sequence keeps each in MPI's order
 * without comparing operations. */
typedef struct {
    uint32_t comm, src, dst;
    int32_t  tag;
    uint32_t nsend, nrecv;
    size_t   sfirst, rfirst;
} tm_key_t;

typedef struct {
    tm_key_t *keys;
    uint32_t  n, cap;
    uint32_t *slot;                     /* key index + 1, 0 empty */
    uint32_t  nslot;                    /* a power of two */
} tm_keys_t;

static uint32_t tm_key_hash(const tm_op_t *o, uint32_t mask)
{
    uint64_t h = ((uint64_t)o->comm << 32 | o->src) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)o->dst << 32 | (uint32_t)o->tag) * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h >> 32 ^ h) & mask;
}

static int tm_keys_grow(tm_keys_t *k)
{
    uint32_t ns = k->nslot ? k->nslot * 2 : 1024;
    uint32_t *sl = calloc(ns, sizeof(*sl));
    if (sl == NULL) {
        return -1;
    }
    for (uint32_t i = 0; i < k->n; i++) {
        tm_op_t o = { .comm = k->keys[i].comm, .src = k->keys[i].src, .dst = k->keys[i].dst,
                      .tag = k->keys[i].tag };
        uint32_t h = tm_key_hash(&o, ns - 1);
        while (sl[h] != 0) {
            h = (h + 1) & (ns - 1);
        }
        sl[h] = i + 1;
    }
    free(k->slot);
    k->slot = sl;
    k->nslot = ns;
    return 0;
}

/* The sequence of an operation, made if new; UINT32_MAX out of memory. */
static uint32_t tm_key_of(tm_keys_t *k, const tm_op_t *o)
{
    if ((k->n + 1) * 2 > k->nslot && tm_keys_grow(k) != 0) {
        return UINT32_MAX;
    }
    uint32_t h = tm_key_hash(o, k->nslot - 1);
    for (; k->slot[h] != 0; h = (h + 1) & (k->nslot - 1)) {
        const tm_key_t *x = &k->keys[k->slot[h] - 1];
        if (x->comm == o->comm && x->src == o->src && x->dst == o->dst && x->tag == o->tag) {
            return k->slot[h] - 1;
        }
    }
    if (k->n == k->cap) {
        if (k->cap >= UINT32_MAX / 4) {
            return UINT32_MAX;
        }
        uint32_t nc = k->cap ? k->cap * 2 : 1024;
        tm_key_t *nk = realloc(k->keys, nc * sizeof(*nk));
        if (nk == NULL) {
            return UINT32_MAX;
        }
        k->keys = nk;
        k->cap = nc;
    }
    k->keys[k->n] = (tm_key_t){ .comm = o->comm, .src = o->src, .dst = o->dst, .tag = o->tag };
    k->slot[h] = k->n + 1;
    return k->n++;
}

static int tm_cmp_key(const void *a, const void *b)
{
    const tm_key_t *x = a, *y = b;
    if (x->comm != y->comm) {
        return x->comm < y->comm ? -1 : 1;
    }
    if (x->src != y->src) {
        return x->src < y->src ? -1 : 1;
    }
    if (x->dst != y->dst) {
        return x->dst < y->dst ? -1 : 1;
    }
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void tm_lone(tm_lone_t *l, const tm_op_t *o, int send, uint8_t why)
{
    *l = (tm_lone_t){ .rank = o->rank, .rec = o->rec, .done = o->done, .comm = o->comm,
                      .peer = send ? (int32_t)o->dst : (why == TM_LONE_UNRESOLVED ? o->peer_spec
                                                                                 : (int32_t)o->src),
                      .tag = send || why != TM_LONE_UNRESOLVED ? o->tag : o->tag_spec,
                      .bytes = o->bytes, .why = why };
}

/* Keep the operations in state TM_OK (others counted or made lone) and
 * give each its sequence. */
static int tm_keep(tm_keys_t *k, tm_op_t *ops, size_t *n, int send, tm_lone_t *lone,
                   size_t *nlone)
{
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (ops[i].state == TM_OK) {
            ops[kept] = ops[i];
            if ((ops[kept].gid = tm_key_of(k, &ops[kept])) == UINT32_MAX) {
                return -1;
            }
            if (send) {
                k->keys[ops[kept].gid].nsend++;
            } else {
                k->keys[ops[kept].gid].nrecv++;
            }
            kept++;
        } else if (ops[i].state == TM_UNRESOLVED && !send) {
            tm_lone(&lone[(*nlone)++], &ops[i], 0, TM_LONE_UNRESOLVED);
        }
    }
    *n = kept;
    return 0;
}

/* Operations' indices by sequence (sorted), each sequence in order. */
static size_t *tm_place(const tm_keys_t *k, const uint32_t *rank_of, const tm_op_t *ops,
                        size_t n, int send)
{
    size_t *at = malloc((k->n + 1) * sizeof(*at));
    size_t *out = malloc((n + 1) * sizeof(*out));
    if (at == NULL || out == NULL) {
        free(at);
        free(out);
        return NULL;
    }
    for (uint32_t i = 0; i < k->n; i++) {
        at[i] = send ? k->keys[i].sfirst : k->keys[i].rfirst;
    }
    for (size_t i = 0; i < n; i++) {
        out[at[rank_of[ops[i].gid]]++] = i;
    }
    free(at);
    return out;
}

static int tm_pair(tm_state_t *s, const tl_job_t *j, tm_match_t *m)
{
    tm_keys_t k = { 0 };
    uint32_t *rank_of = NULL;
    size_t *so = NULL, *ro = NULL;
    int status = -1;
    m->lone_sends = malloc((s->nsends + 1) * sizeof(tm_lone_t));
    m->lone_recvs = malloc((s->nrecvs + 1) * sizeof(tm_lone_t));
    m->msgs = malloc(((s->nsends < s->nrecvs ? s->nsends : s->nrecvs) + 1) * sizeof(tm_msg_t));
    if (m->lone_sends == NULL || m->lone_recvs == NULL || m->msgs == NULL ||
        tm_keep(&k, s->sends, &s->nsends, 1, NULL, NULL) != 0 ||
        tm_keep(&k, s->recvs, &s->nrecvs, 0, m->lone_recvs, &m->nlone_recvs) != 0) {
        goto out;
    }
    /* sequences in (comm, src, dst, tag) order; rank_of: a key's place */
    uint32_t nk = k.n;
    tm_key_t *sorted = malloc((nk + 1) * sizeof(*sorted));
    rank_of = calloc((size_t)nk + 1, sizeof(*rank_of));  /* zeroed: -O3 cannot see every gid < nk */
    if (sorted == NULL || rank_of == NULL) {
        free(sorted);
        goto out;
    }
    for (uint32_t i = 0; i < nk; i++) {
        sorted[i] = k.keys[i];
        sorted[i].sfirst = i;           /* remember where it came from */
    }
    if (nk > 1) {
        qsort(sorted, nk, sizeof(*sorted), tm_cmp_key);
    }
    size_t sf = 0, rf = 0;
    for (uint32_t i = 0; i < nk; i++) {
        rank_of[sorted[i].sfirst] = i;
        sorted[i].sfirst = sf;
        sorted[i].rfirst = rf;
        sf += sorted[i].nsend;
        rf += sorted[i].nrecv;
    }
    free(k.keys);
    k.keys = sorted;                    /* now in order, indexed by rank_of */
    so = tm_place(&k, rank_of, s->sends, s->nsends, 1);
    ro = tm_place(&k, rank_of, s->recvs, s->nrecvs, 0);
    if (so == NULL || ro == NULL) {
        goto out;
    }
    for (uint32_t i = 0; i < nk; i++) {
        const tm_key_t *q = &k.keys[i];
        uint32_t both = q->nsend < q->nrecv ? q->nsend : q->nrecv;
        for (uint32_t c = 0; c < both; c++) {
            const tm_op_t *x = &s->sends[so[q->sfirst + c]], *y = &s->recvs[ro[q->rfirst + c]];
            m->msgs[m->nmsgs++] = (tm_msg_t){
                .comm = x->comm, .tag = x->tag, .src = x->src, .dst = x->dst,
                .send_rec = x->rec, .send_done = x->done, .recv_rec = y->rec,
                .recv_done = y->done, .bytes = x->bytes,
                .t_send = j->ranks[x->src].recs[x->rec].t_enter, .mode = x->mode,
            };
        }
        for (uint32_t c = both; c < q->nsend; c++) {
            tm_lone(&m->lone_sends[m->nlone_sends++], &s->sends[so[q->sfirst + c]], 1,
                    TM_LONE_CUT);
        }
        for (uint32_t c = both; c < q->nrecv; c++) {
            tm_lone(&m->lone_recvs[m->nlone_recvs++], &s->recvs[ro[q->rfirst + c]], 0,
                    TM_LONE_CUT);
        }
    }
    status = 0;
out:
    free(k.keys);
    free(k.slot);
    free(rank_of);
    free(so);
    free(ro);
    return status;
}

static int tm_cmp_inst(const void *a, const void *b)
{
    const tm_inst_t *x = a, *y = b;
    if (x->comm != y->comm) {
        return x->comm < y->comm ? -1 : 1;
    }
    if (x->seq != y->seq) {
        return x->seq < y->seq ? -1 : 1;
    }
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    return x->m.rank < y->m.rank ? -1 : x->m.rank > y->m.rank;
}

static int tm_group(tm_state_t *s, const tl_job_t *j, tm_match_t *m)
{
    if (s->ninsts > 1) {
        qsort(s->insts, s->ninsts, sizeof(tm_inst_t), tm_cmp_inst);
    }
    m->members = malloc((s->ninsts + 1) * sizeof(tm_member_t));
    m->colls = malloc((s->ninsts + 1) * sizeof(tm_coll_t));
    if (m->members == NULL || m->colls == NULL) {
        return -1;
    }
    for (size_t i = 0; i < s->ninsts; i++) {
        const tm_inst_t *x = &s->insts[i];
        const tl_item_t *it = &j->ranks[x->m.rank].items[x->m.item];
        tm_coll_t *c = m->ncolls ? &m->colls[m->ncolls - 1] : NULL;
        if (c == NULL || c->comm != x->comm || c->seq != x->seq || c->start != x->start) {
            c = &m->colls[m->ncolls++];
            *c = (tm_coll_t){ .comm = x->comm, .kind = it->u.coll.kind,
                              .algo = it->u.coll.algo, .seq = x->seq, .start = x->start,
                              .first = (uint32_t)i };
        } else {
            c->mixed |= c->kind != it->u.coll.kind;
            if (c->algo != it->u.coll.algo) {
                c->algo = TERN_TRACE_ALGO_UNKNOWN;
            }
        }
        c->n++;
        m->members[m->nmembers++] = x->m;
    }
    return 0;
}

int tm_match(const tl_job_t *j, tm_match_t *m)
{
    memset(m, 0, sizeof(*m));
    if (!j->finished) {
        return -1;
    }
    tm_state_t s = { .j = j };
    int status = 0;
    for (uint32_t r = 0; r < j->nranks && status == 0; r++) {
        status = tm_walk_rank(&s, &j->ranks[r]);
    }
    if (status == 0) {
        status = tm_pair(&s, j, m);
    }
    if (status == 0) {
        status = tm_group(&s, j, m);
    }
    m->cancelled = s.cancelled;
    free(s.sends);
    free(s.recvs);
    free(s.insts);
    free(s.reqs.slot);
    if (status != 0) {
        tm_free(m);
    }
    return status;
}

void tm_free(tm_match_t *m)
{
    free(m->msgs);
    free(m->lone_sends);
    free(m->lone_recvs);
    free(m->colls);
    free(m->members);
    memset(m, 0, sizeof(*m));
}

uint32_t tm_member_of(const tm_match_t *m, const tm_coll_t *c, int32_t w)
{
    uint32_t lo = c->first, hi = c->first + c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((int64_t)m->members[mid].rank < (int64_t)w) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < c->first + c->n && (int64_t)m->members[lo].rank == (int64_t)w ? lo : TL_NONE;
}

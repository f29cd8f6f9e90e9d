/* Intercommunicators: creation from two intracommunicators, dup, split,
 * merge.
 *
 * Context ids.  One agreement covers both groups: each group takes the max
 * of its members' next free id, the two leaders swap their maxima, and each
 * leader broadcasts the larger one in its group.  Every member of both
 * groups then moves past ctx + 3: ctx/ctx+1 are the intercommunicator's
 * point-to-point and collective contexts, ctx+2/ctx+3 those of the local
 * intracommunicator of each group (the two groups are disjoint, so their
 * local communicators may share the id).
 *
 * Messages between the leaders of a new intercommunicator go over the peer
 * communicator's collective context; those of dup/split/merge over the
 * parent intercommunicator's collective context, local rank 0 to remote
 * rank 0.  Inside a group everything runs on the local intracommunicator. */
#include <stdlib.h>
#include <string.h>
#include "comm/comm.h"
#include "comm/info.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "p2p/p2p.h"

#define TN_UNDEFINED (-32766)

/* Tag of the leaders' exchange on the peer communicator's collective
 * context: one tag per user tag (mod 2^30), so concurrent creations over
 * one peer communicator with different tags stay apart, and all of them
 * negative, apart from the TN_COLL_TAG_* kinds.  They share the negative
 * range with MPI_Comm_create_group's tags (comm.c); a clash needs both
 * calls in flight between the same two processes of the peer communicator
 * with matching tags. */
static int inter_create_tag(int tag)
{
    return (int)(INT32_MIN / 2) - (tag & 0x3fffffff);
}

/* Fixed tag of the leaders' exchanges of dup/split/merge. */
#define TN_INTER_TAG_CTRL TN_COLL_TAG_COMM_CTX

static const tn_dt_t *byte_dt(void)
{
    return tn_dt_byte();
}

/* The intercommunicator over local group lg (reference taken over) and
 * remote group rg (reference taken over), contexts ctx..ctx+3. */
static tn_status_t inter_new(tn_group_t *lg, tn_group_t *rg, uint32_t ctx,
                             const tn_comm_t *parent, tn_comm_t **comm_p)
{
    tn_comm_t *ic = NULL, *lc = NULL;
    tn_status_t st;

    tn_group_retain(lg);
    st = tn_comm_new(lg, ctx + 2, parent, &lc);
    if (st != TN_OK) {
        tn_group_release(lg);
        tn_group_release(rg);
        return st;
    }
    st = tn_comm_new(lg, ctx, parent, &ic);
    if (st != TN_OK) {
        tn_comm_release(lc);
        tn_group_release(rg);
        return st;
    }
    ic->remote = rg;
    ic->peer_world = rg->world;
    ic->local = lc;
    *comm_p = ic;
    return TN_OK;
}

tn_status_t tn_comm_inter_new(tn_group_t *lg, tn_group_t *rg, uint32_t ctx,
                              const tn_comm_t *parent, tn_comm_t **comm_p)
{
    return inter_new(lg, rg, ctx, parent, comm_p);
}

/* Swap hdr[0..nh) and then the world lists with the other leader: peer rank
 * r of comm pc, under tag.  *rworld_p gets a malloc'ed list of rhdr[0]
 * entries. */
static tn_status_t leader_swap(const int64_t *hdr, int64_t *rhdr, int nh, const int *world,
                               int n, int **rworld_p, tn_comm_t *pc, int r, int tag)
{
    int *rw;
    tn_status_t st;

    st = tn_p2p_sendrecv(hdr, (size_t)nh * sizeof(*hdr), byte_dt(), r, tag, rhdr,
                         (size_t)nh * sizeof(*rhdr), byte_dt(), r, tag, pc, 1, NULL);
    if (st != TN_OK) {
        return st;
    }
    if (rhdr[0] <= 0 || rhdr[0] > INT32_MAX / (int64_t)sizeof(int)) {
        return TN_ERR_INVAL;
    }
    rw = malloc((size_t)rhdr[0] * sizeof(int));
    if (rw == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_p2p_sendrecv(world, (size_t)n * sizeof(int), byte_dt(), r, tag, rw,
                         (size_t)rhdr[0] * sizeof(int), byte_dt(), r, tag, pc, 1, NULL);
    if (st != TN_OK) {
        free(rw);
        return st;
    }
    *rworld_p = rw;
    return TN_OK;
}

/* The common part of every constructor: agree on a context id over both
 * groups and learn the remote group.  local is an intracommunicator over my
 * group, leader my group's leader in it; the leaders talk over pc (rank r,
 * tag).  hdr[2..nh) carry constructor data (the same on every member of a
 * group), rhdr gets the remote group's.  rworld: remote world list. */
static tn_status_t inter_agree(tn_comm_t *local, int leader, tn_comm_t *pc, int r, int tag,
                               int64_t *hdr, int64_t *rhdr, int nh, int **rworld_p,
                               uint32_t *ctx_p)
{
    int64_t v = tn_comm_ctx_next();
    int *rw = NULL;
    int64_t rn;
    tn_status_t st;

    st = tn_comm_allreduce_max(&v, 1, local);
    if (st != TN_OK) {
        return st;
    }
    hdr[0] = local->size;
    hdr[1] = v;
    if (local->rank == leader) {
        st = leader_swap(hdr, rhdr, nh, local->group->world, local->size, &rw, pc, r, tag);
        if (st != TN_OK) {
            rhdr[0] = -1;         /* tell the group it failed */
        }
    }
    if (tn_coll_bcast(rhdr, (size_t)nh * sizeof(*rhdr), byte_dt(), leader, local) != TN_OK ||
        rhdr[0] <= 0) {
        free(rw);
        return st != TN_OK ? st : TN_ERR_INVAL;
    }
    rn = rhdr[0];
    if (rw == NULL && (rw = malloc((size_t)rn * sizeof(int))) == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_coll_bcast(rw, (size_t)rn * sizeof(int), byte_dt(), leader, local);
    if (st != TN_OK) {
        free(rw);
        return st;
    }
    if (rhdr[1] > v) {
        v = rhdr[1];
    }
    /* Claim v..v+3 on every member of both groups; when some member's
     * claim failed (another agreement took the id meanwhile), retry with
     * the largest next free id of them all (comm_ctx.c). */
    for (;;) {
        int64_t f[2], rf[2];

        f[0] = !tn_comm_ctx_claim(v, 4);
        f[1] = tn_comm_ctx_next();
        st = tn_comm_allreduce_max(f, 2, local);
        if (st == TN_OK && local->rank == leader) {
            st = tn_p2p_sendrecv(f, sizeof(f), byte_dt(), r, tag, rf, sizeof(rf), byte_dt(), r,
                                 tag, pc, 1, NULL);
            if (st == TN_OK) {
                f[0] = rf[0] > f[0] ? rf[0] : f[0];
                f[1] = rf[1] > f[1] ? rf[1] : f[1];
            } else {
                f[0] = -1;        /* tell the group it failed */
            }
        }
        if (st == TN_OK || local->rank == leader) {
            tn_status_t bst = tn_coll_bcast(f, sizeof(f), byte_dt(), leader, local);
            if (st == TN_OK) {
                st = bst != TN_OK ? bst : f[0] < 0 ? TN_ERR_INTERNAL : TN_OK;
            }
        }
        if (st != TN_OK) {
            free(rw);
            return st;
        }
        if (f[0] == 0) {
            break;
        }
        v = f[1];
    }
    *rworld_p = rw;
    *ctx_p = (uint32_t)v;
    return TN_OK;
}

tn_status_t tn_comm_intercomm_create(tn_comm_t *local, int local_leader, tn_comm_t *peer,
                                     int remote_leader, int tag, tn_comm_t **comm_p)
{
    int64_t hdr[2], rhdr[2] = { 0, 0 };
    int *rw = NULL;
    tn_group_t *rg;
    uint32_t ctx;
    int i;
    tn_status_t st;

    st = inter_agree(local, local_leader, peer, remote_leader, inter_create_tag(tag), hdr,
                     rhdr, 2, &rw, &ctx);
    if (st != TN_OK) {
        return st;
    }
    for (i = 0; i < (int)rhdr[0]; i++) {
        if (tn_group_rank_of_world(local->group, rw[i]) != TN_UNDEFINED) {
            free(rw);
            return TN_ERR_INVAL;      /* overlapping groups */
        }
    }
    st = tn_group_new((int)rhdr[0], rw, &rg);
    if (st != TN_OK) {
        return st;
    }
    tn_group_retain(local->group);
    return inter_new(local->group, rg, ctx, local, comm_p);
}

tn_status_t tn_comm_inter_dup(tn_comm_t *inter, tn_comm_t **comm_p)
{
    int64_t hdr[2], rhdr[2] = { 0, 0 };
    int *rw = NULL;
    uint32_t ctx;
    tn_comm_t *nc = NULL;
    tn_status_t st;

    st = inter_agree(inter->local, 0, inter, 0, TN_INTER_TAG_CTRL, hdr, rhdr, 2, &rw, &ctx);
    if (st != TN_OK) {
        return st;
    }
    free(rw);      /* the same remote group */
    tn_group_retain(inter->group);
    tn_group_retain(inter->remote);
    st = inter_new(inter->group, inter->remote, ctx, inter, &nc);
    if (st != TN_OK) {
        return st;
    }
    if (inter->info != NULL) {
        tn_info_retain(inter->info);
        nc->info = inter->info;
    }
    *comm_p = nc;
    return TN_OK;
}

typedef struct {
    int key;
    int rank;
} inter_ent_t;

static int inter_ent_cmp(const void *a, const void *b)
{
    const inter_ent_t *x = a, *y = b;

    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The world ranks of the members of color in a group of n whose (color,
 * key) pairs are ck[2i], ck[2i+1], ordered by key then rank; world[i] is
 * group rank i's world rank.  *k_p: how many (0: *list_p = NULL). */
static tn_status_t inter_color_group(const int *ck, int n, const int *world, int color,
                                     int **list_p, int *k_p)
{
    inter_ent_t *ents;
    int *list;
    int i, k = 0;

    *list_p = NULL;
    *k_p = 0;
    if (color == TN_UNDEFINED) {
        return TN_OK;
    }
    ents = malloc((size_t)n * sizeof(*ents));
    if (ents == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        if (ck[2 * i] == color) {
            ents[k].key = ck[2 * i + 1];
            ents[k].rank = i;
            k++;
        }
    }
    if (k == 0) {
        free(ents);
        return TN_OK;
    }
    qsort(ents, (size_t)k, sizeof(*ents), inter_ent_cmp);
    list = malloc((size_t)k * sizeof(int));
    if (list == NULL) {
        free(ents);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < k; i++) {
        list[i] = world[ents[i].rank];
    }
    free(ents);
    *list_p = list;
    *k_p = k;
    return TN_OK;
}

tn_status_t tn_comm_inter_split(tn_comm_t *inter, int color, int key, tn_comm_t **comm_p)
{
    tn_comm_t *lc = inter->local;
    int n = lc->size, rn = inter->remote->size;
    int mine[2] = { color, key };
    int *lck, *rck = NULL, *ll = NULL, *rl = NULL;
    int lk, rk;
    int64_t hdr[2], rhdr[2] = { 0, 0 };
    int *rw = NULL;
    uint32_t ctx;
    tn_group_t *lg, *rg;
    tn_status_t st;

    *comm_p = NULL;
    lck = malloc((size_t)n * sizeof(mine));
    rck = malloc((size_t)rn * sizeof(mine));
    if (lck == NULL || rck == NULL) {
        free(lck);
        free(rck);
        return TN_ERR_NOMEM;
    }
    st = tn_coll_allgather(mine, sizeof(mine), byte_dt(), lck, sizeof(mine), byte_dt(), lc);
    if (st == TN_OK && lc->rank == 0) {
        st = tn_p2p_sendrecv(lck, (size_t)n * sizeof(mine), byte_dt(), 0, TN_INTER_TAG_CTRL,
                             rck, (size_t)rn * sizeof(mine), byte_dt(), 0, TN_INTER_TAG_CTRL,
                             inter, 1, NULL);
    }
    if (st == TN_OK) {
        st = tn_coll_bcast(rck, (size_t)rn * sizeof(mine), byte_dt(), 0, lc);
    }
    if (st == TN_OK) {
        st = inter_agree(lc, 0, inter, 0, TN_INTER_TAG_CTRL, hdr, rhdr, 2, &rw, &ctx);
        free(rw);
    }
    if (st == TN_OK) {
        st = inter_color_group(lck, n, inter->group->world, color, &ll, &lk);
    }
    if (st == TN_OK) {
        st = inter_color_group(rck, rn, inter->remote->world, color, &rl, &rk);
    }
    free(lck);
    free(rck);
    if (st != TN_OK || lk == 0 || rk == 0) {
        free(ll);
        free(rl);
        return st;
    }
    st = tn_group_new(lk, ll, &lg);
    if (st != TN_OK) {
        free(rl);
        return st;
    }
    st = tn_group_new(rk, rl, &rg);
    if (st != TN_OK) {
        tn_group_release(lg);
        return st;
    }
    return inter_new(lg, rg, ctx, inter, comm_p);
}

tn_status_t tn_comm_intercomm_merge(tn_comm_t *inter, int high, tn_comm_t **comm_p)
{
    int64_t hdr[3], rhdr[3] = { 0, 0, 0 };
    int *rw = NULL, *world;
    int n = inter->size, rn = inter->remote->size;
    int low_first;
    uint32_t ctx;
    tn_group_t *g;
    tn_status_t st;

    hdr[2] = high != 0;
    st = inter_agree(inter->local, 0, inter, 0, TN_INTER_TAG_CTRL, hdr, rhdr, 3, &rw, &ctx);
    if (st != TN_OK) {
        return st;
    }
    free(rw);
    /* Am I in the group that goes first?  Only the leaders' flags count
     * (the standard asks every member of a group for the same value). */
    if (hdr[2] != rhdr[2]) {
        low_first = hdr[2] == 0;
    } else {
        low_first = inter->group->world[0] < inter->remote->world[0];
    }
    world = malloc((size_t)(n + rn) * sizeof(int));
    if (world == NULL) {
        return TN_ERR_NOMEM;
    }
    if (low_first) {
        memcpy(world, inter->group->world, (size_t)n * sizeof(int));
        memcpy(world + n, inter->remote->world, (size_t)rn * sizeof(int));
    } else {
        memcpy(world, inter->remote->world, (size_t)rn * sizeof(int));
        memcpy(world + rn, inter->group->world, (size_t)n * sizeof(int));
    }
    st = tn_group_new(n + rn, world, &g);
    if (st != TN_OK) {
        return st;
    }
    return tn_comm_new(g, ctx, inter, comm_p);
}

/* Communicators: COMM_WORLD, COMM_SELF, and the collective constructors
 * (create from a group, dup, split).
 *
 * Context ids.  Every process keeps the next context id it has never used
 * (next_ctx, even, starting at 4: 0 is COMM_WORLD, 2 COMM_SELF; ctx + 1 is
 * the collective context).  A constructor agrees on an id that is free on
 * every member and every member moves next_ctx past it (comm_ctx.c: the
 * maximum of the members' next_ctx, claimed and checked, retried when a
 * concurrent agreement in some member took it first).  So an id is never
 * used twice by one process, and two communicators that share an id (the disjoint results of
 * one split) have no process in common, hence no message of one can reach
 * the other.  Non-members of the new communicator take part in the agreement
 * too: they are members of the parent and every member of it must call.
 * MPI_Comm_create_group is the exception: only the members of the new
 * group agree, among themselves.  The rule still holds: a later agreement
 * that includes any one of them yields a larger id, so the id can only
 * recur in a communicator disjoint from this one. */
#include <stdlib.h>
#include <string.h>
#include "base/objreg.h"
#include "comm/comm.h"
#include "comm/attr.h"
#include "comm/info.h"
#include "comm/topo.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "p2p/p2p.h"

#define TN_UNDEFINED (-32766)
/* Handles of the standard ABI. */
#define TN_ABI_MPI_COMM_WORLD 0x101u
#define TN_ABI_MPI_COMM_SELF  0x102u

tn_comm_t tn_comm_world = {
    .magic = TN_COMM_MAGIC,
    .refcount = 1,
    .predefined = 1,
    .handle = TN_ABI_MPI_COMM_WORLD,
    .ctx = 0,
    .name = "MPI_COMM_WORLD",
};

tn_comm_t tn_comm_self = {
    .magic = TN_COMM_MAGIC,
    .refcount = 1,
    .predefined = 1,
    .handle = TN_ABI_MPI_COMM_SELF,
    .ctx = 2,
    .name = "MPI_COMM_SELF",
};

/* Attribute storage and hints of a communicator that goes away: no
 * callbacks here (the MPI layer ran them at MPI_Comm_free). */
static void comm_drop_attrs_info(tn_comm_t *comm)
{
    tn_attr_list_destroy(comm->attrs);
    comm->attrs = NULL;
    if (comm->info != NULL) {
        tn_info_release(comm->info);
        comm->info = NULL;
    }
}

static const tn_dt_t *comm_byte_dt(void)
{
    return tn_dt_byte();
}

tn_status_t tn_comm_init(int world_rank, int world_size)
{
    int *wl, *sl;
    tn_status_t st;
    int i;

    tn_group_init(world_rank);
    wl = malloc((size_t)world_size * sizeof(int));
    sl = malloc(sizeof(int));
    if (wl == NULL || sl == NULL) {
        free(wl);
        free(sl);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < world_size; i++) {
        wl[i] = i;
    }
    sl[0] = world_rank;
    st = tn_group_new(world_size, wl, &tn_comm_world.group);
    if (st != TN_OK) {
        free(sl);
        return st;
    }
    st = tn_group_new(1, sl, &tn_comm_self.group);
    if (st != TN_OK) {
        goto err_world_group;
    }

    tn_comm_world.peer_world = tn_comm_world.group->world;
    tn_comm_self.peer_world = tn_comm_self.group->world;
    tn_comm_world.ctx = 0;
    tn_comm_world.rank = world_rank;
    tn_comm_world.size = world_size;
    tn_comm_self.ctx = 2;
    tn_comm_self.rank = 0;
    tn_comm_self.size = 1;
    tn_comm_ctx_reset();

    st = tn_p2p_comm_attach(&tn_comm_world);
    if (st != TN_OK) {
        goto err_self_group;
    }
    st = tn_p2p_comm_attach(&tn_comm_self);
    if (st != TN_OK) {
        goto err_world_attach;
    }
    return TN_OK;

err_world_attach:
    tn_p2p_comm_detach(&tn_comm_world);
err_self_group:
    tn_group_release(tn_comm_self.group);
    tn_comm_self.group = NULL;
err_world_group:
    tn_group_release(tn_comm_world.group);
    tn_comm_world.group = NULL;
    return st;
}

void tn_comm_finalize(void)
{
    tn_coll_shm_free(&tn_comm_self);
    tn_coll_shm_free(&tn_comm_world);
    tn_comm_nodes_free(&tn_comm_self);
    tn_comm_nodes_free(&tn_comm_world);
    comm_drop_attrs_info(&tn_comm_self);
    comm_drop_attrs_info(&tn_comm_world);
    if (tn_comm_self.group != NULL) {
        tn_p2p_comm_detach(&tn_comm_self);
        tn_group_release(tn_comm_self.group);
        tn_comm_self.group = NULL;
    }
    if (tn_comm_world.group != NULL) {
        tn_p2p_comm_detach(&tn_comm_world);
        tn_group_release(tn_comm_world.group);
        tn_comm_world.group = NULL;
    }
    tn_comm_ctx_reset();
}

static tn_status_t comm_agree_ctx(tn_comm_t *parent, uint32_t *ctx_p)
{
    return tn_comm_ctx_agree(parent, parent->size, parent->rank, NULL, TN_COLL_TAG_COMM_CTX,
                             2, -1, ctx_p);
}

/* ---- construction ------------------------------------------------------ */

/* A communicator over group (whose reference is taken over) with no
 * context yet (tn_comm_attach gives it one), for a member of group.
 * Inherits parent's error handler. */
static tn_comm_t *comm_alloc(tn_group_t *group, const tn_comm_t *parent)
{
    tn_comm_t *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        tn_group_release(group);
        return NULL;
    }
    if (tn_objreg_add(c, TN_OBJ_COMM) != TN_OK) {
        tn_group_release(group);
        free(c);
        return NULL;
    }
    c->magic = TN_COMM_MAGIC;
    c->refcount = 1;
    c->predefined = 0;
    c->handle = 0;
    c->rank = group->rank;
    c->size = group->size;
    c->group = group;
    c->peer_world = group->world;
    c->errh = parent->errh;
    c->session = parent->session;
    c->name[0] = '\0';
    return c;
}

tn_status_t tn_comm_new(tn_group_t *group, uint32_t ctx, const tn_comm_t *parent,
                        tn_comm_t **comm_p)
{
    tn_comm_t *c = comm_alloc(group, parent);
    tn_status_t st;

    if (c == NULL) {
        return TN_ERR_NOMEM;
    }
    c->ctx = ctx;
    st = tn_p2p_comm_attach(c);
    if (st != TN_OK) {
        tn_group_release(group);
        c->magic = 0;
        tn_objreg_del(c);
        free(c);
        return st;
    }
    *comm_p = c;
    return TN_OK;
}

tn_status_t tn_comm_create_from_group(tn_comm_t *parent, tn_group_t *group,
                                      tn_comm_t **comm_p)
{
    uint32_t ctx;
    tn_status_t st;

    st = comm_agree_ctx(parent, &ctx);
    if (st != TN_OK) {
        return st;
    }
    if (group->rank == TN_UNDEFINED) {
        *comm_p = NULL;
        return TN_OK;
    }
    tn_group_retain(group);
    return tn_comm_new(group, ctx, parent, comm_p);
}

/* The tag of MPI_Comm_create_group's messages on the parent's collective
 * context: user tags 0..0x7ffffffd map to -3 down to INT32_MIN, the two
 * largest to INT32_MAX and INT32_MAX - 1.  One to one, and apart from the
 * small positive TN_COLL_TAG_* values and TN_ANY_TAG (-2). */
static int comm_create_group_tag(int tag)
{
    return (int)(int32_t)(UINT32_C(0xfffffffd) - (uint32_t)tag);
}

tn_status_t tn_comm_create_group(tn_comm_t *parent, tn_group_t *group, int tag,
                                 tn_comm_t **comm_p)
{
    int *map;
    uint32_t ctx;
    int i;
    tn_status_t st;

    if (group->rank == TN_UNDEFINED) {
        *comm_p = NULL;
        return TN_OK;
    }
    map = malloc((size_t)group->size * sizeof(*map));
    if (map == NULL) {
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < group->size; i++) {
        map[i] = tn_group_rank_of_world(parent->group, group->world[i]);
        if (map[i] == TN_UNDEFINED) {
            free(map);
            return TN_ERR_INVAL;      /* not a subset: the MPI layer checks */
        }
    }
    st = tn_comm_ctx_agree(parent, group->size, group->rank, map, comm_create_group_tag(tag),
                           2, -1, &ctx);
    free(map);
    if (st != TN_OK) {
        return st;
    }
    tn_group_retain(group);
    return tn_comm_new(group, ctx, parent, comm_p);
}

tn_status_t tn_comm_dup(tn_comm_t *comm, tn_comm_t **comm_p)
{
    uint32_t ctx;
    tn_comm_t *nc = NULL;
    tn_status_t st;

    if (comm->remote != NULL) {
        return tn_comm_inter_dup(comm, comm_p);
    }
    /* agree first: a member that fails to allocate after it still took
     * part, so no one waits for it */
    st = comm_agree_ctx(comm, &ctx);
    if (st != TN_OK) {
        return st;
    }
    st = tn_comm_dup_shell(comm, &nc);
    if (st == TN_OK && (st = tn_comm_attach(nc, ctx)) != TN_OK) {
        tn_comm_release(nc);
    }
    if (st == TN_OK) {
        *comm_p = nc;
    }
    return st;
}

tn_status_t tn_comm_attach(tn_comm_t *comm, uint32_t ctx)
{
    tn_status_t st;

    if (comm->local != NULL) {
        comm->local->ctx = ctx + 2;
        st = tn_p2p_comm_attach(comm->local);
        if (st != TN_OK) {
            return st;
        }
    }
    comm->ctx = ctx;
    return tn_p2p_comm_attach(comm);
}

tn_status_t tn_comm_dup_shell(tn_comm_t *comm, tn_comm_t **comm_p)
{
    tn_comm_t *nc;

    tn_group_retain(comm->group);
    nc = comm_alloc(comm->group, comm);
    if (nc == NULL) {
        return TN_ERR_NOMEM;
    }
    if (comm->remote != NULL) {
        tn_group_retain(comm->group);
        nc->local = comm_alloc(comm->group, comm);
        if (nc->local == NULL) {
            tn_comm_release(nc);
            return TN_ERR_NOMEM;
        }
        tn_group_retain(comm->remote);
        nc->remote = comm->remote;
        nc->peer_world = comm->remote->world;
    }
    if (comm->info != NULL) {
        tn_info_retain(comm->info);
        nc->info = comm->info;
    }
    if (comm->topo != NULL && (nc->topo = tn_topo_dup(comm->topo)) == NULL) {
        tn_comm_release(nc);
        return TN_ERR_NOMEM;
    }
    *comm_p = nc;
    return TN_OK;
}

typedef struct {
    int key;
    int rank;      /* rank in the parent */
} split_ent_t;

static int split_cmp(const void *a, const void *b)
{
    const split_ent_t *x = a, *y = b;

    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One allgather of (color, key, next_ctx) serves both the split and the
 * context agreement. */
tn_status_t tn_comm_split(tn_comm_t *comm, int color, int key, tn_comm_t **comm_p)
{
    int n = comm->size;
    int mine[3];
    int *all;
    split_ent_t *ents;
    int *world;
    tn_group_t *group;
    uint32_t ctx = 0;
    int64_t first = 0;
    int i, k = 0;
    tn_status_t st;

    all = malloc((size_t)n * sizeof(mine));
    if (all == NULL) {
        return TN_ERR_NOMEM;
    }
    mine[0] = color;
    mine[1] = key;
    mine[2] = (int)tn_comm_ctx_next();
    st = tn_coll_allgather(mine, sizeof(mine), comm_byte_dt(), all, sizeof(mine),
                           comm_byte_dt(), comm);
    if (st != TN_OK) {
        free(all);
        return st;
    }
    for (i = 0; i < n; i++) {
        if ((uint32_t)all[3 * i + 2] > first) {
            first = (uint32_t)all[3 * i + 2];
        }
    }
    st = tn_comm_ctx_agree(comm, n, comm->rank, NULL, TN_COLL_TAG_COMM_CTX, 2, first, &ctx);
    if (st != TN_OK) {
        free(all);
        return st;
    }
    if (color == TN_UNDEFINED) {
        free(all);
        *comm_p = NULL;
        return TN_OK;
    }

    ents = malloc((size_t)n * sizeof(*ents));
    if (ents == NULL) {
        free(all);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < n; i++) {
        if (all[3 * i] == color) {
            ents[k].key = all[3 * i + 1];
            ents[k].rank = i;
            k++;
        }
    }
    free(all);
    qsort(ents, (size_t)k, sizeof(*ents), split_cmp);
    world = malloc((size_t)k * sizeof(int));
    if (world == NULL) {
        free(ents);
        return TN_ERR_NOMEM;
    }
    for (i = 0; i < k; i++) {
        world[i] = tn_comm_world_rank(comm, ents[i].rank);
    }
    free(ents);
    st = tn_group_new(k, world, &group);
    if (st != TN_OK) {
        return st;
    }
    return tn_comm_new(group, ctx, comm, comm_p);
}

void tn_comm_retain(tn_comm_t *comm)
{
    comm->refcount++;
}

void tn_comm_release(tn_comm_t *comm)
{
    if (--comm->refcount > 0 || comm->predefined) {
        return;
    }
    tn_p2p_comm_detach(comm);
    tn_coll_shm_free(comm);
    tn_comm_nodes_free(comm);
    comm_drop_attrs_info(comm);
    tn_topo_free(comm->topo);
    comm->topo = NULL;
    if (comm->remote != NULL) {
        tn_group_release(comm->remote);
        tn_comm_release(comm->local);
    }
    tn_group_release(comm->group);
    comm->magic = 0;
    tn_objreg_del(comm);
    free(comm);
}

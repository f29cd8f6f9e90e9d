/* The node map of a communicator and its node / leader sub-communicators,
 * for the two-level collectives (coll/<kind>/<kind>_twolevel.c).
 *
 * The map is derived from tn_rt.node_of_world, which every rank learnt at
 * init, so it costs no message.  The sub-communicators need context ids:
 * one agreement over comm reserves two consecutive ids, the first for every
 * node communicator (they are disjoint, like the results of one split), the
 * second for the leaders' communicator. */
#include <stdlib.h>
#include "comm/comm.h"
#include "coll/coll.h"
#include "runtime/rt.h"

static void nodes_destroy(tn_comm_nodes_t *m)
{
    if (m == NULL) {
        return;
    }
    if (m->node_comm != NULL) {
        tn_comm_release(m->node_comm);
    }
    if (m->leader_comm != NULL) {
        tn_comm_release(m->leader_comm);
    }
    free(m->node_of);
    free(m->leaders);
    free(m->nlocal);
    free(m->order);
    free(m->start);
    free(m);
}

const tn_comm_nodes_t *tn_comm_nodes(tn_comm_t *comm)
{
    tn_comm_nodes_t *m;
    int n = comm->size, r, k, nworld, *of_world;

    if (comm->nodes != NULL) {
        return comm->nodes;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return NULL;
    }
    m->node_of = malloc(sizeof(int) * (size_t)n);
    m->leaders = malloc(sizeof(int) * (size_t)n);
    m->nlocal = calloc((size_t)n, sizeof(int));
    m->order = malloc(sizeof(int) * (size_t)n);
    m->start = malloc(sizeof(int) * (size_t)n);
    /* world node index -> comm node index (-1: not seen yet) */
    nworld = tn_rt.node_of_world != NULL && tn_rt.nnodes > 0 ? tn_rt.nnodes : 1;
    of_world = malloc(sizeof(int) * (size_t)nworld);
    if (m->node_of == NULL || m->leaders == NULL || m->nlocal == NULL || m->order == NULL ||
        m->start == NULL || of_world == NULL) {
        free(of_world);
        nodes_destroy(m);
        return NULL;
    }
    for (k = 0; k < nworld; k++) {
        of_world[k] = -1;
    }
    m->blocked = 1;
    for (r = 0; r < n; r++) {
        int w = tn_comm_world_rank(comm, r);
        int wn = tn_rt.node_of_world != NULL ? tn_rt.node_of_world[w] : 0;

        if (of_world[wn] < 0) {
            of_world[wn] = m->nnodes;
            m->leaders[m->nnodes++] = r;
        } else if (m->node_of[r - 1] != of_world[wn]) {
            m->blocked = 0;    /* back on a node left before */
        }
        m->node_of[r] = of_world[wn];
        if (++m->nlocal[of_world[wn]] > m->max_local) {
            m->max_local = m->nlocal[of_world[wn]];
        }
    }
    free(of_world);
    /* ranks grouped by node: start[k] counts the ranks of nodes before k,
     * then advances as node k's ranks are placed, and is put back */
    for (k = 0, r = 0; k < m->nnodes; k++) {
        m->start[k] = r;
        r += m->nlocal[k];
    }
    for (r = 0; r < n; r++) {
        m->order[m->start[m->node_of[r]]++] = r;
    }
    for (k = 0; k < m->nnodes; k++) {
        m->start[k] -= m->nlocal[k];
    }
    m->my_node = m->node_of[comm->rank];
    comm->nodes = m;
    return m;
}

tn_status_t tn_comm_node_comms(tn_comm_t *comm, tn_comm_t **node_p, tn_comm_t **leader_p)
{
    const tn_comm_nodes_t *cm = tn_comm_nodes(comm);
    tn_comm_nodes_t *m = comm->nodes;
    tn_group_t *g = NULL;
    int *world = NULL, n = comm->size, r, cnt;
    uint32_t ctx;
    tn_status_t st;

    if (cm == NULL) {
        return TN_ERR_NOMEM;
    }
    if (!m->subs_made) {
        st = tn_comm_ctx_agree(comm, n, comm->rank, NULL, TN_COLL_TAG_COMM_CTX, 4, -1, &ctx);
        if (st != TN_OK) {
            return st;
        }
        /* my node's ranks */
        world = malloc(sizeof(int) * (size_t)m->nlocal[m->my_node]);
        if (world == NULL) {
            return TN_ERR_NOMEM;
        }
        for (r = 0, cnt = 0; r < n; r++) {
            if (m->node_of[r] == m->my_node) {
                world[cnt++] = tn_comm_world_rank(comm, r);
            }
        }
        if ((st = tn_group_new(cnt, world, &g)) != TN_OK ||
            (st = tn_comm_new(g, ctx, comm, &m->node_comm)) != TN_OK) {
            return st;
        }
        if (m->leaders[m->my_node] == comm->rank) {
            world = malloc(sizeof(int) * (size_t)m->nnodes);
            if (world == NULL) {
                return TN_ERR_NOMEM;
            }
            for (cnt = 0; cnt < m->nnodes; cnt++) {
                world[cnt] = tn_comm_world_rank(comm, m->leaders[cnt]);
            }
            if ((st = tn_group_new(cnt, world, &g)) != TN_OK ||
                (st = tn_comm_new(g, ctx + 2, comm, &m->leader_comm)) != TN_OK) {
                tn_comm_release(m->node_comm);
                m->node_comm = NULL;
                return st;
            }
        }
        m->subs_made = 1;
    }
    *node_p = m->node_comm;
    *leader_p = m->leader_comm;
    return TN_OK;
}

void tn_comm_nodes_free(tn_comm_t *comm)
{
    nodes_destroy(comm->nodes);
    comm->nodes = NULL;
}

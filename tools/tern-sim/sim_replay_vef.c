/* A replay program from a VEF file (sim_replay.h), read and checked by
 * tools/tern-trace's trace_vef_read.c (trace_vef.h).
 *
 * A message line is a post (a join: its dependency, then delay_ns) and
 * the message after it; a collective line is its task's start (the same)
 * and, once expanded, its end.  Dependencies: SEND on a message's post,
 * RECEIVE on its arrival, COLLECTIVE on the end of the task's line of
 * that collective.  Collectives run the expansion of sim_replay_coll.h
 * for the op's usual algorithm (VEF names no algorithm): broadcast and
 * reduce binomial, allreduce recursive doubling, allgather ring, barrier
 * dissemination, all-to-all pairwise, gather and scatter the fallback.
 * VEF has no node map: every task is an endpoint of its own; it has no
 * times either, so nothing is compared with a trace. */
#include "sim_replay.h"
#include "sim_replay_coll.h"

#include <stdlib.h>
#include <string.h>

#include "trace_vef.h"

static void vx_kind(unsigned op, tn_sim_ckind_t *k_p, const char **algo_p)
{
    static const struct {
        tn_sim_ckind_t k;
        const char *a;
    } tab[VF_NOPS] = {
        [VF_OP_BROADCAST] = {TN_SIM_C_BCAST, "binomial"},   [VF_OP_REDUCE] = {TN_SIM_C_REDUCE, "binomial"},
        [VF_OP_ALLREDUCE] = {TN_SIM_C_ALLREDUCE, "recdbl"}, [VF_OP_GATHER] = {TN_SIM_C_OTHER, ""},
        [VF_OP_SCATTER] = {TN_SIM_C_OTHER, ""},             [VF_OP_ALLGATHER] = {TN_SIM_C_ALLGATHER, "ring"},
        [VF_OP_BARRIER] = {TN_SIM_C_BARRIER, "dissemination"},
        [VF_OP_ALLTOALL] = {TN_SIM_C_ALLTOALL, "pairwise"},
    };
    *k_p = op < VF_NOPS ? tab[op].k : TN_SIM_C_OTHER;
    *algo_p = op < VF_NOPS ? tab[op].a : "";
}

/* The event of task's line in collective g (vf_parse checked it has one). */
static int32_t vx_line(const vf_job_t *v, const int32_t *cl, const uint32_t *cbase, uint32_t g, uint32_t task)
{
    const vf_comm_t *cm = &v->comms[v->colls[g].comm];
    for (uint32_t i = 0; i < cm->size; i++) {
        if (v->members[cm->first + i] == task) {
            return cl[cbase[g] + i];
        }
    }
    return -1;
}

tn_sim_status_t tn_sim_replay_from_vef(tn_sim_prog_t *p, const char *path, const tn_sim_replay_conf_t *rc,
                                       char *why, size_t whylen)
{
    vf_job_t v;
    tn_sim_prog_init(p);
    if (vf_load(path, &v) != 0) {
        snprintf(why, whylen, "replay: %s: %s", path, v.err);
        return TN_SIM_ERR_PARSE;
    }
    tn_sim_status_t st = TN_SIM_ERR_NOMEM;
    int32_t *node = malloc(sizeof(int32_t) * (v.nevents + 1));   /* post / start */
    int32_t *end = malloc(sizeof(int32_t) * (v.nevents + 1));    /* arrival / end */
    uint32_t *cbase = malloc(sizeof(uint32_t) * ((size_t)v.ncolls + 1));
    int32_t *cl = NULL, *world = NULL, *state = NULL;
    uint64_t *sb = NULL, *rb = NULL;
    size_t ncl = 0, maxn = 1;
    if (node == NULL || end == NULL || cbase == NULL ||
        tn_sim_prog_ranks(p, (int32_t)v.nranks) != TN_SIM_OK) {
        goto out;
    }
    for (uint32_t r = 0; r < v.nranks; r++) {
        p->node[r] = (int32_t)r;
    }
    p->nnodes = (int32_t)v.nranks;
    for (uint32_t g = 0; g < v.ncolls; g++) {
        cbase[g] = (uint32_t)ncl;
        ncl += v.comms[v.colls[g].comm].size;
        maxn = v.comms[v.colls[g].comm].size > maxn ? v.comms[v.colls[g].comm].size : maxn;
    }
    cl = malloc(sizeof(int32_t) * (ncl + 1));
    world = malloc(sizeof(int32_t) * maxn);
    state = malloc(sizeof(int32_t) * maxn);
    sb = malloc(sizeof(uint64_t) * maxn);
    rb = malloc(sizeof(uint64_t) * maxn);
    if (cl == NULL || world == NULL || state == NULL || sb == NULL || rb == NULL) {
        goto out;
    }
    /* nodes of every line */
    for (size_t e = 0; e < v.nevents; e++) {
        const vf_event_t *ev = &v.events[e];
        node[e] = tn_sim_prog_node(p, (int32_t)ev->task, -1, 0, (double)ev->delay_ns);
        end[e] = node[e];
        if (node[e] < 0) {
            goto out;
        }
        if (ev->coll == VF_NONE) {
            end[e] = tn_sim_prog_node(p, (int32_t)ev->task, (int32_t)ev->dst, ev->size, 0);
            if (end[e] < 0 || tn_sim_prog_edge(p, node[e], end[e]) != TN_SIM_OK ||
                tn_sim_prog_measure(p, node[e], end[e], -1, ev->size) != 0) {
                goto out;
            }
        } else {
            const vf_comm_t *cm = &v.comms[v.colls[ev->coll].comm];
            for (uint32_t i = 0; i < cm->size; i++) {
                if (v.members[cm->first + i] == ev->task) {
                    cl[cbase[ev->coll] + i] = (int32_t)e;
                }
            }
        }
    }
    /* collectives expanded; each line's end joins its member's last state */
    for (uint32_t g = 0; g < v.ncolls; g++) {
        const vf_comm_t *cm = &v.comms[v.colls[g].comm];
        tn_sim_coll_t c = {.n = (int32_t)cm->size, .world = world, .state = state, .sbytes = sb, .rbytes = rb,
                           .root = -1, .one_node = 0};
        for (uint32_t i = 0; i < cm->size; i++) {
            const vf_event_t *ev = &v.events[cl[cbase[g] + i]];
            world[i] = (int32_t)v.members[cm->first + i];
            state[i] = node[cl[cbase[g] + i]];
            sb[i] = ev->size;
            rb[i] = ev->rsize;
            if (v.colls[g].op == VF_OP_REDUCE && ev->rsize != 0) {
                c.root = (int32_t)i;
            }
        }
        tn_sim_ckind_t k;
        const char *algo;
        vx_kind(v.colls[g].op, &k, &algo);
        int fb = 0;
        if (k == TN_SIM_C_BCAST && rc != NULL && rc->bcast_mcast) {
            c.root = 0;  /* VEF records no broadcast root: member 0, as the model takes */
            st = tn_sim_coll_mcast(p, &c);
        } else {
            st = tn_sim_coll_expand(p, k, algo, &c, &fb);
        }
        p->fallback_colls += (uint64_t)fb;
        for (uint32_t i = 0; i < cm->size && st == TN_SIM_OK; i++) {
            int32_t x = tn_sim_prog_node(p, world[i], -1, 0, 0);
            st = x < 0 ? TN_SIM_ERR_NOMEM : tn_sim_prog_edge(p, state[i], x);
            end[cl[cbase[g] + i]] = x;
        }
        if (st != TN_SIM_OK) {
            goto out;
        }
    }
    /* dependencies */
    st = TN_SIM_OK;
    for (size_t e = 0; e < v.nevents && st == TN_SIM_OK; e++) {
        const vf_event_t *ev = &v.events[e];
        int32_t from = -1;
        switch (ev->deptype) {
        case VF_DEP_SEND:
            from = node[v.msg_event[ev->dep]];
            break;
        case VF_DEP_RECEIVE:
            from = end[v.msg_event[ev->dep]];
            break;
        case VF_DEP_COLLECTIVE: {
            int32_t line = vx_line(&v, cl, cbase, ev->dep, ev->task);
            from = line < 0 ? -1 : end[line];
            break;
        }
        default:
            break;
        }
        if (from >= 0) {
            st = tn_sim_prog_edge(p, from, node[e]);
        }
    }
out:
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "replay: %s: %s", path, tn_sim_status_str(st));
        tn_sim_prog_free(p);
    }
    free(node);
    free(end);
    free(cbase);
    free(cl);
    free(world);
    free(state);
    free(sb);
    free(rb);
    vf_free(&v);
    return st;
}

/* Set-up and one run of a simulation (sim_run.h). */
#include "sim_run.h"

#include "sim_coll_job.h"
#include "sim_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tn_sim_status_t tn_sim_setup(tn_sim_run_t *r, tn_sim_conf_t *c, const char *graph_text, size_t glen,
                             char *why, size_t whylen)
{
    memset(r, 0, sizeof(*r));
    tn_sim_topo_params_t p;
    tn_sim_conf_topo_params(c, &p);
    p.graph_text = graph_text;
    p.graph_len = glen;
    tn_sim_status_t st = tn_sim_topo_build(&r->topo, &p, why, whylen);
    if (st != TN_SIM_OK) {
        return st;
    }
    st = tn_sim_route_init(&r->rt, &r->topo, (tn_sim_route_alg_t)c->route, why, whylen);
    if (st != TN_SIM_OK) {
        tn_sim_topo_free(&r->topo);
        return st;
    }
    if (c->mode == TN_SIM_MODE_BATCH && c->nsweep > 0) {
        snprintf(why, whylen, "sweep is of offered loads: it needs mode = open");
        tn_sim_teardown(r);
        return TN_SIM_ERR_INVAL;
    }
    for (int j = 0; j < c->njobs && c->mode == TN_SIM_MODE_OPEN; j++) {
        if (c->job[j].pattern == TN_SIM_PAT_COLL) {
            snprintf(why, whylen, "job %d: pattern coll is a batch workload: it needs mode = batch", j);
            tn_sim_teardown(r);
            return TN_SIM_ERR_INVAL;
        }
    }
    for (int j = 0; j < c->njobs && c->fidelity == 1; j++) {
        int mc = c->job[j].pattern == TN_SIM_PAT_COLL && c->job[j].coll_algo == TN_SIM_CA_MCAST;
        if ((mc || (j == 0 && c->bcast_mcast && c->replay[0] != '\0')) && c->cc != TN_SIM_CC_NONE) {
            snprintf(why, whylen,
                     "%s: a hardware multicast at fidelity = packet has no congestion control (DCQCN's "
                     "notifications and ACC's stamps come back from one destination): it needs cc = none",
                     mc ? "coll_algo = mcast" : "bcast_mcast = on");
            tn_sim_teardown(r);
            return TN_SIM_ERR_UNSUPP;
        }
    }
    if (c->share == 1 && (c->fidelity == 1 || c->heatmap == 1)) {
        snprintf(why, whylen, "share = fifo is a flow-level discipline without heatmaps (the packet "
                              "engine queues its packets itself): it needs fidelity = flow, heatmap = off");
        tn_sim_teardown(r);
        return TN_SIM_ERR_UNSUPP;
    }
    if (c->fidelity == 1 && c->store_fwd > 0) {
        snprintf(why, whylen, "store_forward is a flow-level term: the packet engine forwards its "
                              "packets whole already (it needs fidelity = flow)");
        tn_sim_teardown(r);
        return TN_SIM_ERR_UNSUPP;
    }
    if (c->mode == TN_SIM_MODE_OPEN && !(c->warmup < c->time)) {
        snprintf(why, whylen, "warmup (%g ns) must end before time (%g ns)", c->warmup, c->time);
        tn_sim_teardown(r);
        return TN_SIM_ERR_INVAL;
    }
    r->njobs = c->njobs;
    st = tn_sim_jobs_place(&r->topo, c->job, c->njobs, c->seed, r->jobs, why, whylen);
    if (st != TN_SIM_OK) {
        r->njobs = 0;
        tn_sim_teardown(r);
        return st;
    }
    tn_sim_conf_resolve(c, &r->topo, &r->rt, r->jobs);
    return TN_SIM_OK;
}

void tn_sim_run_clear(tn_sim_run_t *r)
{
    if (r->have_pkt) {
        tn_sim_pkt_fini(&r->pkt);
        r->have_pkt = 0;
    }
    if (r->have_eng) {
        tn_sim_eng_fini(&r->eng);
        r->have_eng = 0;
    }
    for (int j = 0; j < r->njobs; j++) {
        tn_sim_dag_src_fini(&r->dsrc[j]);
        tn_sim_dag_free(&r->dag[j]);
        tn_sim_open_src_fini(&r->osrc[j]);
        r->src[j] = NULL;
    }
}

/* The switch-to-switch links on the route between a replay's slots
 * (their job's endpoints), as the router takes it with no load. */
typedef struct {
    const tn_sim_run_t *r;
    int32_t path[256];
} run_hops_t;

static double run_no_load(void *ctx, int32_t port)
{
    (void)ctx;
    (void)port;
    return 0;
}

static int run_ss_hops(void *ctx, int32_t s, int32_t d)
{
    run_hops_t *x = ctx;
    const tn_sim_topo_t *t = &x->r->topo;
    const tn_sim_job_t *job = &x->r->jobs[0];
    if (s < 0 || d < 0 || s >= job->n || d >= job->n) {
        return 0;
    }
    tn_sim_rhdr_t h;
    tn_sim_route_begin(&x->r->rt, &h, job->ep[s], job->ep[d], 0, run_no_load, NULL);
    int n = tn_sim_route_path(&x->r->rt, &h, run_no_load, NULL, x->path, NULL,
                              x->r->rt.max_hops < 256 ? x->r->rt.max_hops : 256);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int32_t l = x->path[i];
        k += t->peer[l] >= t->n_ep && t->peer[t->peer_port[l]] >= t->n_ep;
    }
    return k;
}

tn_sim_status_t tn_sim_run_once(tn_sim_run_t *r, const tn_sim_conf_t *c, double load, char *why,
                                size_t whylen)
{
    tn_sim_status_t st = TN_SIM_OK;
    int open = c->mode == TN_SIM_MODE_OPEN;
    for (int j = 0; j < r->njobs && st == TN_SIM_OK; j++) {
        if (load >= 0) {
            r->jobs[j].c.load = load;
        }
        if (open) {
            st = tn_sim_open_src_init(&r->osrc[j], j, &r->jobs[j], &r->topo, c->arrival == 1, c->time,
                                      c->seed);
            r->src[j] = &r->osrc[j].base;
        } else {
            if (j == 0 && r->prog != NULL) {
                tn_sim_replay_conf_t rc;
                static run_hops_t hops;
                tn_sim_replay_conf(c, &rc);
                hops.r = r;
                rc.ss_hops = run_ss_hops;
                rc.ss_ctx = &hops;
                st = tn_sim_prog_dag(r->prog, &rc, &r->dag[j], why, whylen);
            } else if (r->jobs[j].c.pattern == TN_SIM_PAT_COLL) {
                tn_sim_replay_conf_t rc;
                tn_sim_replay_conf(c, &rc);
                st = tn_sim_coll_dag(&r->jobs[j], &r->topo, &rc, j, &r->dag[j], why, whylen);
            } else {
                st = tn_sim_dag_generate(&r->jobs[j], c->seed, j, &r->dag[j], why, whylen);
            }
            if (st == TN_SIM_OK) {
                st = tn_sim_dag_src_init(&r->dsrc[j], j, &r->jobs[j], &r->dag[j]);
            }
            r->src[j] = &r->dsrc[j].base;
        }
        if (st != TN_SIM_OK && why[0] == '\0') {
            snprintf(why, whylen, "job %d: %s", j, tn_sim_status_str(st));
        }
    }
    if (st != TN_SIM_OK) {
        tn_sim_run_clear(r);
        return st;
    }
    tn_sim_eng_conf_t ec = {
        .t_end = open ? c->time : INFINITY,
        .w0 = open ? c->warmup : 0,
        .bins = c->bins,
        .bin_w = open ? c->time / c->bins : 1000,
        .full = c->maxmin == 1,
        .heat = c->heatmap == 1 && c->nsweep == 0,
        .heat_queues = c->fidelity == 1,
        .heat_bins = c->bins < TN_SIM_HEAT_BINS ? c->bins : TN_SIM_HEAT_BINS,
        .heat_bin_w = open ? c->time / (c->bins < TN_SIM_HEAT_BINS ? c->bins : TN_SIM_HEAT_BINS) : 1000,
        .seed = c->seed,
        .store_fwd = c->store_fwd,
        .fifo = c->share == 1,
    };
    st = tn_sim_eng_init(&r->eng, &r->topo, &r->rt, r->jobs, r->src, r->njobs, &ec);
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "%s", r->eng.why);
        tn_sim_run_clear(r);
        return st;
    }
    r->have_eng = 1;
    if (c->fidelity == 1) {
        tn_sim_pkt_conf_t pc = {.mtu = c->mtu, .hdr = c->hdr, .buf = c->buf, .cc = c->cc,
                                .kmin = c->ecn_kmin, .kmax = c->ecn_kmax, .pmax = c->ecn_pmax,
                                .pfc = c->pfc, .xoff = c->pfc_xoff, .xon = c->pfc_xon};
        if (c->buf < c->mtu + c->hdr || !(c->ecn_kmin < c->ecn_kmax) || !(c->pfc_xon < c->pfc_xoff)) {
            snprintf(why, whylen,
                     "buf must hold a packet (mtu + hdr), ecn_kmin < ecn_kmax, pfc_xon < pfc_xoff");
            tn_sim_run_clear(r);
            return TN_SIM_ERR_INVAL;
        }
        st = tn_sim_pkt_init(&r->pkt, &r->topo, &r->rt, &pc, c->seed);
        if (st != TN_SIM_OK) {
            snprintf(why, whylen, "packet engine set-up: %s", tn_sim_status_str(st));
            tn_sim_run_clear(r);
            return st;
        }
        r->have_pkt = 1;
        r->eng.pkt = &r->pkt;
        tn_sim_evq_set_lanes(&r->eng.q, 1);
    }
    st = tn_sim_eng_run(&r->eng);
    if (st != TN_SIM_OK) {
        snprintf(why, whylen, "%s", r->eng.why);
        tn_sim_run_clear(r);
        return st;
    }
    for (int j = 0; j < r->njobs && st == TN_SIM_OK; j++) {
        st = tn_sim_result(&r->eng, c, j, &r->res[j]);
        if (!open && r->dag[j].done != r->dag[j].n && st == TN_SIM_OK) {
            snprintf(why, whylen, "job %d: %d of %d messages and joins completed", j, r->dag[j].done,
                     r->dag[j].n);
            st = TN_SIM_ERR_INTERNAL;
        }
    }
    if (st == TN_SIM_OK && r->prog != NULL && tn_sim_prog_collect(r->prog, &r->dag[0]) != TN_SIM_OK) {
        snprintf(why, whylen, "replay: out of memory");
        st = TN_SIM_ERR_NOMEM;
    }
    if (st != TN_SIM_OK) {
        tn_sim_run_clear(r);
    }
    return st;
}

void tn_sim_replay_conf(const tn_sim_conf_t *c, tn_sim_replay_conf_t *rc)
{
    rc->eager = c->eager;
    rc->shm_lat = c->shm_lat;
    rc->shm_bw = c->shm_bw / 8;  /* Gbit/s -> bytes/ns */
    rc->slot_mode = c->replay_slots;
    rc->coll_plan_max = c->coll_plan_max;
    rc->coll_plan_ops = c->coll_plan_ops;
    rc->op_bw = c->coll_op_bw / 8;
    rc->copy_bw = c->coll_copy_bw / 8;
    rc->cpu_o = c->cpu_o;
    rc->cpu_cores = c->cpu_cores;
    rc->cpu_share = c->cpu_share;
    rc->cpu_wait = c->cpu_charge;
    rc->cpu_fwd = c->cpu_fwd;
    rc->cpu_frame = c->cpu_frame;
    rc->ss_hops = NULL;
    rc->ss_ctx = NULL;
    rc->bcast_mcast = c->bcast_mcast;
    rc->coll_plan = NULL;
    if (strcmp(c->coll_plan, "auto") == 0) {
        static char beside[TN_SIM_PATH_MAX];
        if (beside[0] != '\0' || tn_sim_plan_beside(beside, sizeof(beside)) == 0) {
            rc->coll_plan = beside;
        }
    } else if (strcmp(c->coll_plan, "off") != 0 && c->coll_plan[0] != '\0') {
        rc->coll_plan = c->coll_plan;
    }
}

void tn_sim_teardown(tn_sim_run_t *r)
{
    tn_sim_run_clear(r);
    tn_sim_jobs_free(r->jobs, r->njobs);
    tn_sim_route_fini(&r->rt);
    tn_sim_topo_free(&r->topo);
}

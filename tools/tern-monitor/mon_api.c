/* tern-monitor serve: the JSON answers of the web page (mon_api.h). */
#include "mon_api.h"
#include "mon_json.h"
#include "mon_nic.h"
#include "mon_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const job_states[] = { "running", "finished", "failed" };
static const char *const rank_states[] = { "running", "finalized", "exited", "dead" };

static const char *rank_state(int st)
{
    return st >= 0 && st < 4 ? rank_states[st] : "unseen";
}

/* Totals of a job: messages and bytes of every class. */
static void job_totals(const tn_mon_state_t *s, const tn_mon_job_t *j, uint64_t *msgs,
                       uint64_t *bytes)
{
    *msgs = *bytes = 0;
    for (int e = 0; e < 9; e++) {
        *msgs += tn_mon_state_sum(j, s->m_msgs_sent, e);
        *bytes += tn_mon_state_sum(j, s->m_bytes_sent, e);
    }
}

/* The facts a job's entry and its page share. */
static void api_job_facts(tn_mon_json_t *j, const tn_mon_job_t *x)
{
    tn_mon_json_kstr(j, "id", x->id);
    tn_mon_json_kstr(j, "program", x->program);
    tn_mon_json_kuint(j, "uid", x->uid);
    tn_mon_json_kstr(j, "state", job_states[x->state]);
    tn_mon_json_kuint(j, "start", x->start_ms);
    tn_mon_json_key(j, "end");
    if (x->end_ms != 0) {
        tn_mon_json_uint(j, x->end_ms);
    } else {
        tn_mon_json_null(j);
    }
}

static int rank_stuck(const tn_mon_rankst_t *r)
{
    return r->in_call && r->call_ms >= 60000;
}

void tn_mon_api_jobs(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *out,
                     void (*more)(void *arg, tn_mon_json_t *j), void *arg)
{
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_kuint(&j, "now", now_ms);
    tn_mon_json_key(&j, "jobs");
    tn_mon_json_arr(&j);
    for (int k = s->njobs - 1; k >= 0; k--) {       /* newest first */
        const tn_mon_job_t *x = s->jobs[k];
        uint64_t msgs, bytes;
        int stuck = 0, dead = 0;
        job_totals(s, x, &msgs, &bytes);
        for (int r = 0; r < x->world_size; r++) {
            stuck += rank_stuck(&x->ranks[r]);
            dead += x->ranks[r].state == TN_MON_RANK_DEAD;
        }
        tn_mon_json_obj(&j);
        api_job_facts(&j, x);
        tn_mon_json_kint(&j, "ranks", x->world_size);
        tn_mon_json_kint(&j, "nodes", x->nnodes);
        tn_mon_json_kuint(&j, "bytes", bytes);
        tn_mon_json_kuint(&j, "msgs", msgs);
        tn_mon_json_kint(&j, "stuck", stuck);
        tn_mon_json_kint(&j, "dead", dead);
        tn_mon_json_obj_end(&j);
    }
    if (more != NULL) {
        more(arg, &j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
}

/* Elements of metric m summed over the job, as [{key: name, count: v}],
 * largest first when top > 0 (at most top of them), else in order. */
static void api_elems(tn_mon_json_t *j, const tn_mon_state_t *s, const tn_mon_job_t *x, int m,
                      const char *key, int top)
{
    tn_mon_json_arr(j);
    if (m < 0) {
        tn_mon_json_arr_end(j);
        return;
    }
    const tn_mon_metric_t *mt = &s->metrics[m];
    int n = mt->nelems > 0 ? mt->nelems : 1;
    uint64_t *v = calloc((size_t)n, sizeof(uint64_t));
    int *order = calloc((size_t)n, sizeof(int));
    for (int e = 0; v != NULL && order != NULL && e < n; e++) {
        v[e] = tn_mon_state_sum(x, m, e);
        order[e] = e;
    }
    if (top > 0 && v != NULL && order != NULL) {
        for (int a = 1; a < n; a++) {           /* a short list: insertion sort */
            int o = order[a], b = a;
            while (b > 0 && v[order[b - 1]] < v[o]) {
                order[b] = order[b - 1];
                b--;
            }
            order[b] = o;
        }
    }
    for (int i = 0; v != NULL && order != NULL && i < n && (top <= 0 || i < top); i++) {
        int e = order[i];
        if (top > 0 && v[e] == 0) {
            break;
        }
        tn_mon_json_obj(j);
        tn_mon_json_kstr(j, key, mt->nelems > 0 ? mt->elems[e] : mt->name);
        tn_mon_json_kuint(j, "count", v[e]);
        tn_mon_json_obj_end(j);
    }
    free(v);
    free(order);
    tn_mon_json_arr_end(j);
}

int tn_mon_api_job(const tn_mon_state_t *s, const char *id, int cls, int what, int window_s,
                   uint64_t now_ms, tn_mon_buf_t *out)
{
    const tn_mon_job_t *x = tn_mon_state_job((tn_mon_state_t *)s, id);
    if (x == NULL) {
        return -1;
    }
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    api_job_facts(&j, x);
    tn_mon_json_kuint(&j, "now", now_ms);
    tn_mon_json_key(&j, "nodes");
    tn_mon_json_arr(&j);
    for (int n = 0; n < x->nnodes; n++) {
        tn_mon_json_str(&j, x->node_names[n]);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "ranks");
    tn_mon_json_arr(&j);
    for (int r = 0; r < x->world_size; r++) {
        const tn_mon_rankst_t *k = &x->ranks[r];
        uint64_t msgs = 0, bytes = 0;
        for (int e = 0; e < 9; e++) {
            msgs += tn_mon_state_rank_value(k, s->m_msgs_sent, e);
            bytes += tn_mon_state_rank_value(k, s->m_bytes_sent, e);
        }
        tn_mon_json_obj(&j);
        tn_mon_json_kint(&j, "rank", r);
        tn_mon_json_kstr(&j, "node", k->node_id >= 0 ? x->node_names[k->node_id] : NULL);
        tn_mon_json_kint(&j, "pid", k->pid);
        tn_mon_json_kstr(&j, "state", rank_state(k->state));
        tn_mon_json_kstr(&j, "call", k->call[0] != '\0' ? k->call : NULL);
        tn_mon_json_kbool(&j, "in_call", k->in_call);
        tn_mon_json_key(&j, "call_s");
        if (k->in_call && k->call_ms >= 0) {
            tn_mon_json_double(&j, (double)k->call_ms / 1000.0);
        } else {
            tn_mon_json_null(&j);
        }
        tn_mon_json_kuint(&j, "msgs", msgs);
        tn_mon_json_kuint(&j, "bytes", bytes);
        tn_mon_json_obj_end(&j);
    }
    tn_mon_json_arr_end(&j);

    /* the matrix (average size: bytes over messages of the same cells) */
    size_t cells = (size_t)x->n * (size_t)x->n;
    uint64_t *a = calloc(cells ? cells : 1, sizeof(uint64_t));
    uint64_t *b = calloc(cells ? cells : 1, sizeof(uint64_t));
    tn_mon_json_key(&j, "matrix");
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "level", x->level_node ? "node" : "rank");
    tn_mon_json_key(&j, "labels");
    tn_mon_json_arr(&j);
    for (int i = 0; i < x->n; i++) {
        char lab[80];
        snprintf(lab, sizeof(lab), "%d", i);
        tn_mon_json_str(&j, x->level_node ? x->node_names[i] : lab);
    }
    tn_mon_json_arr_end(&j);
    static const char *const cls_names[] = { "p2p", "coll", "rma" };
    static const char *const what_names[] = { "bytes", "msgs", "avg" };
    tn_mon_json_kstr(&j, "class", cls >= 0 ? cls_names[cls] : "all");
    tn_mon_json_kstr(&j, "what", what_names[what]);
    tn_mon_json_kint(&j, "window", window_s);
    tn_mon_json_key(&j, "cells");
    tn_mon_json_arr(&j);
    if (a != NULL && b != NULL) {
        /* a: what is shown; b: the messages an average divides by */
        if (what == 2) {
            tn_mon_state_matrix2(s, x, cls, window_s, a, b);
        } else {
            tn_mon_state_matrix(s, x, cls, what == 1 ? TN_MON_MAT_MSGS : TN_MON_MAT_BYTES,
                                window_s, a);
        }
        for (int r = 0; r < x->n; r++) {
            tn_mon_json_arr(&j);
            for (int c = 0; c < x->n; c++) {
                size_t i = (size_t)r * x->n + (size_t)c;
                if (what == 2) {
                    tn_mon_json_double(&j, b[i] > 0 ? (double)a[i] / (double)b[i] : 0.0);
                } else {
                    tn_mon_json_uint(&j, a[i]);
                }
            }
            tn_mon_json_arr_end(&j);
        }
    }
    free(a);
    free(b);
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);

    tn_mon_json_key(&j, "hist");
    api_elems(&j, s, x, tn_mon_state_metric(s, "mpi_size_hist"), "le", 0);
    tn_mon_json_key(&j, "calls");
    api_elems(&j, s, x, tn_mon_state_metric(s, "mpi_calls"), "fn", 20);

    /* transport health: node pair and rail */
    tn_mon_json_key(&j, "transport");
    tn_mon_json_arr(&j);
    for (int l = 0; l < x->nlinks; l++) {
        const tn_mon_link_t *k = &x->links[l];
        double rtt = 0;
        int nrtt = 0;
        for (int r = 0; r < x->world_size; r++) {
            const tn_mon_rankst_t *q = &x->ranks[r];
            for (uint32_t e = 0; q->node_id == k->src && e < q->nrecs; e++) {
                uint32_t rec = q->recs[e].rec;
                if (rec >= q->peer_count || rec >= (uint32_t)x->world_size) {
                    continue;
                }
                uint64_t v = q->recs[e].v[TN_MON_RV_SRTT];
                if (v != 0 && x->ranks[rec].node_id == k->dst) {
                    rtt += (double)v;
                    nrtt++;
                }
            }
        }
        tn_mon_json_obj(&j);
        tn_mon_json_kstr(&j, "src", x->node_names[k->src]);
        tn_mon_json_kstr(&j, "dst", x->node_names[k->dst]);
        tn_mon_json_kint(&j, "rail", k->rail);
        tn_mon_json_kuint(&j, "sent", k->sent);
        tn_mon_json_kuint(&j, "retrans", k->lost);
        tn_mon_json_kdouble(&j, "retrans_rate", k->rate);
        tn_mon_json_kdouble(&j, "rtt_us", nrtt > 0 ? rtt / nrtt / 1000.0 : 0.0);
        tn_mon_json_kuint(&j, "errors", 0);
        tn_mon_json_key(&j, "spark");
        tn_mon_json_arr(&j);
        for (int i = 0; i < TN_MON_STATE_SPARK; i++) {
            tn_mon_json_double(&j, k->spark[i]);
        }
        tn_mon_json_arr_end(&j);
        tn_mon_json_obj_end(&j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    return 0;
}

static void api_node(tn_mon_json_t *j, const tn_mon_state_t *s, const tn_mon_node_t *n,
                     uint64_t now_ms, int detail)
{
    tn_mon_json_obj(j);
    tn_mon_json_kstr(j, "name", n->name);
    tn_mon_json_kuint(j, "last", n->last_ms);
    tn_mon_json_kbool(j, "agent_up", now_ms < n->last_ms + 5000);
    int ranks = 0;
    for (int k = 0; k < s->njobs; k++) {
        const tn_mon_job_t *x = s->jobs[k];
        for (int r = 0; x->state == TN_MON_JOB_RUNNING && r < x->world_size; r++) {
            ranks += x->ranks[r].node >= 0 && s->nodes[x->ranks[r].node] == n &&
                     x->ranks[r].state == TN_MON_RANK_RUNNING;
        }
    }
    tn_mon_json_kint(j, "ranks", ranks);
    tn_mon_json_key(j, "nics");
    tn_mon_json_arr(j);
    for (int i = 0; i < n->nnic; i++) {
        const tn_mon_nic_state_t *c = &n->nic[i];
        double rx = c->rate[TN_MON_NIC_IF_RX_BYTES], tx = c->rate[TN_MON_NIC_IF_TX_BYTES];
        tn_mon_json_obj(j);
        tn_mon_json_kstr(j, "name", c->name);
        tn_mon_json_kdouble(j, "rx_Bps", rx);
        tn_mon_json_kdouble(j, "tx_Bps", tx);
        tn_mon_json_kuint(j, "speed_mbps", c->speed_mbps);
        tn_mon_json_key(j, "util");
        if (c->speed_mbps > 0) {
            double cap = (double)c->speed_mbps * 1e6 / 8.0;
            tn_mon_json_double(j, (rx > tx ? rx : tx) / cap);
        } else {
            tn_mon_json_null(j);
        }
        tn_mon_json_kuint(j, "errors", c->ctr[TN_MON_NIC_IF_RX_ERRORS] + c->ctr[TN_MON_NIC_IF_TX_ERRORS] +
                                        c->ctr[TN_MON_NIC_IF_RX_CRC_ERRORS]);
        const char *oper = tn_mon_nic_oper_name(c->oper);
        tn_mon_json_kstr(j, "oper", oper != NULL ? oper : "unknown");
        if (detail) {
            tn_mon_json_key(j, "spark_rx");
            tn_mon_json_arr(j);
            for (int k = 0; k < TN_MON_STATE_SPARK; k++) {
                tn_mon_json_double(j, c->spark_rx[k]);
            }
            tn_mon_json_arr_end(j);
            tn_mon_json_key(j, "spark_tx");
            tn_mon_json_arr(j);
            for (int k = 0; k < TN_MON_STATE_SPARK; k++) {
                tn_mon_json_double(j, c->spark_tx[k]);
            }
            tn_mon_json_arr_end(j);
        }
        tn_mon_json_obj_end(j);
    }
    tn_mon_json_arr_end(j);
    tn_mon_json_key(j, "ib");
    tn_mon_json_arr(j);
    for (int i = 0; i < n->nib; i++) {
        const tn_mon_ib_state_t *p = &n->ib[i];
        tn_mon_json_obj(j);
        tn_mon_json_kstr(j, "device", p->dev);
        tn_mon_json_kuint(j, "port", p->port);
        tn_mon_json_kstr(j, "state", p->state == 4 ? "active" : p->state == 1 ? "down" : "other");
        tn_mon_json_kuint(j, "rate_mbps", p->rate_mbps);
        tn_mon_json_kdouble(j, "xmit_Bps", p->rate[TN_MON_NIC_IB_XMIT_BYTES]);
        tn_mon_json_kdouble(j, "rcv_Bps", p->rate[TN_MON_NIC_IB_RCV_BYTES]);
        tn_mon_json_kuint(j, "symbol_errors", p->ctr[TN_MON_NIC_IB_SYMBOL_ERROR]);
        tn_mon_json_kuint(j, "link_downed", p->ctr[TN_MON_NIC_IB_LINK_DOWNED]);
        tn_mon_json_kuint(j, "rcv_errors", p->ctr[TN_MON_NIC_IB_RCV_ERRORS]);
        tn_mon_json_obj_end(j);
    }
    tn_mon_json_arr_end(j);
    tn_mon_json_key(j, "udp");
    tn_mon_json_obj(j);
    tn_mon_json_kdouble(j, "rcvbuf_errors_rate", n->snmp_rate[TN_MON_NIC_UDP_RCVBUF_ERRORS]);
    tn_mon_json_kdouble(j, "in_errors_rate", n->snmp_rate[TN_MON_NIC_UDP_IN_ERRORS]);
    tn_mon_json_obj_end(j);
    if (detail) {
        tn_mon_json_key(j, "jobs");
        tn_mon_json_arr(j);
        for (int k = 0; k < s->njobs; k++) {
            const tn_mon_job_t *x = s->jobs[k];
            int here = 0;
            for (int r = 0; r < x->world_size && !here; r++) {
                here = x->ranks[r].node >= 0 && s->nodes[x->ranks[r].node] == n;
            }
            if (here) {
                tn_mon_json_str(j, x->id);
            }
        }
        tn_mon_json_arr_end(j);
    }
    tn_mon_json_obj_end(j);
}

void tn_mon_api_nodes(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *out)
{
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_key(&j, "nodes");
    tn_mon_json_arr(&j);
    for (int i = 0; i < s->nnodes; i++) {
        api_node(&j, s, s->nodes[i], now_ms, 0);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
}

int tn_mon_api_node(const tn_mon_state_t *s, const char *name, uint64_t now_ms, tn_mon_buf_t *out)
{
    const tn_mon_node_t *n = tn_mon_state_node((tn_mon_state_t *)s, name);
    if (n == NULL) {
        return -1;
    }
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    api_node(&j, s, n, now_ms, 1);
    return 0;
}

void tn_mon_api_network(const tn_mon_state_t *s, const tn_mon_switch_map_t *map, tn_mon_buf_t *out)
{
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_key(&j, "switches");
    tn_mon_json_arr(&j);
    for (int w = 0; map != NULL && w < map->nswitches; w++) {
        tn_mon_json_obj(&j);
        tn_mon_json_kstr(&j, "name", map->switches[w]);
        tn_mon_json_key(&j, "nodes");
        tn_mon_json_arr(&j);
        for (int h = 0; h < map->nhosts; h++) {
            if (map->switch_of[h] == w) {
                tn_mon_json_str(&j, map->hosts[h]);
            }
        }
        tn_mon_json_arr_end(&j);
        tn_mon_json_obj_end(&j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "nodes");
    tn_mon_json_arr(&j);
    for (int i = 0; i < s->nnodes; i++) {
        tn_mon_json_str(&j, s->nodes[i]->name);
    }
    tn_mon_json_arr_end(&j);
    /* links observed by the running jobs' udp rails, summed per node pair */
    tn_mon_json_key(&j, "links");
    tn_mon_json_arr(&j);
    for (int k = 0; k < s->njobs; k++) {
        const tn_mon_job_t *x = s->jobs[k];
        for (int l = 0; x->state == TN_MON_JOB_RUNNING && l < x->nlinks; l++) {
            const tn_mon_link_t *q = &x->links[l];
            tn_mon_json_obj(&j);
            tn_mon_json_kstr(&j, "a", x->node_names[q->src]);
            tn_mon_json_kstr(&j, "b", x->node_names[q->dst]);
            tn_mon_json_kint(&j, "rail", q->rail);
            tn_mon_json_kstr(&j, "jobid", x->id);
            tn_mon_json_kdouble(&j, "bytes_rate", 0.0);
            tn_mon_json_kdouble(&j, "retrans_rate", q->rate);
            tn_mon_json_kstr(&j, "state", q->rate > 0.01 ? "bad" : q->rate > 0.001 ? "warn" : "ok");
            tn_mon_json_obj_end(&j);
        }
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
}

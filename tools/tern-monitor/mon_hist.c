/* tern-monitor serve's history (mon_hist.h): what the live state writes to
 * the database each second, and what the API reads back from it. */
#include "mon_hist.h"
#include "mon_json.h"
#include "mon_nic.h"
#include "mon_store_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hist_job_states[] = { "running", "finished", "failed" };

/* One sample of key metric{labels} (n pairs). */
static void hist_sample(tn_mon_store_t *st, uint64_t now, const char *metric,
                        const char *const *names, const char *const *values, size_t n, double v)
{
    char key[TN_MON_KEY_MAX + 1];
    if (tn_mon_key_make(key, sizeof(key), metric, names, values, n) > 0) {
        (void)tn_mon_store_sample(st, key, (int64_t)now, v);
    }
}

static void hist_job_put(tn_mon_store_t *st, const tn_mon_state_t *s, const tn_mon_job_t *j)
{
    uint64_t msgs = 0, bytes = 0;
    for (int e = 0; e < 9; e++) {
        msgs += tn_mon_state_sum(j, s->m_msgs_sent, e);
        bytes += tn_mon_state_sum(j, s->m_bytes_sent, e);
    }
    tn_mon_store_job_t row = {
        .id = j->id, .program = j->program, .uid = j->uid, .ranks = (uint32_t)j->world_size,
        .nodes = (uint32_t)j->nnodes, .state = hist_job_states[j->state],
        .start_ms = (int64_t)j->start_ms, .end_ms = (int64_t)j->end_ms,
        .bytes = bytes, .msgs = msgs,
    };
    (void)tn_mon_store_job_put(st, &row);
}

/* The job's final matrices, once it has ended. */
static void hist_job_final(tn_mon_store_t *st, const tn_mon_state_t *s, const tn_mon_job_t *j)
{
    size_t cells = (size_t)j->n * (size_t)j->n;
    uint64_t *mat[TN_MON_NMAT];
    char **labels = calloc((size_t)j->n + 1, sizeof(char *));
    int ok = labels != NULL && j->n > 0 && j->n <= TN_MON_MAT_N_MAX;
    for (int a = 0; a < TN_MON_NMAT; a++) {
        mat[a] = calloc(cells ? cells : 1, sizeof(uint64_t));
        ok = ok && mat[a] != NULL;
    }
    for (int i = 0; ok && i < j->n; i++) {
        char num[16];
        snprintf(num, sizeof(num), "%d", i);
        labels[i] = strdup(j->level_node ? j->node_names[i] : num);
        ok = labels[i] != NULL;
    }
    if (ok) {
        tn_mon_state_matrix_all(s, j, mat, NULL);
        (void)tn_mon_store_job_matrix_put(st, j->id, j->level_node ? "node" : "rank", (uint32_t)j->n,
                                          (const char *const *)labels,
                                          (const uint64_t *const *)mat);
    }
    for (int i = 0; labels != NULL && i < j->n; i++) {
        free(labels[i]);
    }
    free(labels);
    for (int a = 0; a < TN_MON_NMAT; a++) {
        free(mat[a]);
    }
}

void tn_mon_hist_tick(tn_mon_hist_t *h, const tn_mon_state_t *s, uint64_t now)
{
    tn_mon_store_t *st = h->store;
    if (st == NULL || tn_mon_store_begin(st) != 0) {
        return;
    }
    static const char *const nd[2] = { "node", "device" };
    for (int k = 0; k < s->nnodes; k++) {
        const tn_mon_node_t *n = s->nodes[k];
        if (n->last_ms + 5000 < now) {
            continue;                   /* a silent agent: no sample */
        }
        for (int f = 0; f < n->nnic; f++) {
            const char *v[2] = { n->name, n->nic[f].name };
            hist_sample(st, now, "tern_node_receive_bytes_rate", nd, v, 2,
                        (double)(uint64_t)n->nic[f].rate[TN_MON_NIC_IF_RX_BYTES]);
            hist_sample(st, now, "tern_node_transmit_bytes_rate", nd, v, 2,
                        (double)(uint64_t)n->nic[f].rate[TN_MON_NIC_IF_TX_BYTES]);
        }
        hist_sample(st, now, "tern_node_udp_receive_buffer_errors_rate", nd, (const char *[]){ n->name },
                    1, (double)(uint64_t)n->snmp_rate[TN_MON_NIC_UDP_RCVBUF_ERRORS]);
    }
    static const char *const jl[1] = { "jobid" };
    static const char *const ll[4] = { "jobid", "src", "dst", "rail" };
    for (int k = 0; k < s->njobs; k++) {
        tn_mon_job_t *j = s->jobs[k];
        if (j->state == TN_MON_JOB_RUNNING) {
            uint64_t bytes = 0, msgs = 0;
            for (int e = 0; e < 9; e++) {
                msgs += tn_mon_state_sum(j, s->m_msgs_sent, e);
                bytes += tn_mon_state_sum(j, s->m_bytes_sent, e);
            }
            /* per-second rates from the totals of the previous tick */
            if (j->hist_ms != 0 && now > j->hist_ms && bytes >= j->hist_bytes && msgs >= j->hist_msgs) {
                double dt = (double)(now - j->hist_ms) / 1000.0;
                hist_sample(st, now, "tern_job_bytes_rate", jl, (const char *[]){ j->id }, 1,
                            (double)(uint64_t)((double)(bytes - j->hist_bytes) / dt));
                hist_sample(st, now, "tern_job_msgs_rate", jl, (const char *[]){ j->id }, 1,
                            (double)(uint64_t)((double)(msgs - j->hist_msgs) / dt));
            }
            j->hist_ms = now;
            j->hist_bytes = bytes;
            j->hist_msgs = msgs;
            for (int l = 0; l < j->nlinks; l++) {
                const tn_mon_link_t *q = &j->links[l];
                char rail[8];
                snprintf(rail, sizeof(rail), "%d", q->rail);
                const char *v[4] = { j->id, j->node_names[q->src], j->node_names[q->dst], rail };
                hist_sample(st, now, "tern_link_loss_ratio", ll, v, 4, q->rate);
                hist_sample(st, now, "tern_link_sent_packets_rate", ll, v, 4,
                            (double)(q->sent >= q->prev_sent ? q->sent - q->prev_sent : 0));
            }
            if (now >= j->hist_put_ms + 10000) {
                hist_job_put(st, s, j);
                j->hist_put_ms = now;
            }
        } else if (!j->hist_final) {
            /* ended: its row and its final matrices, once */
            hist_job_put(st, s, j);
            hist_job_final(st, s, j);
            j->hist_final = 1;
        }
    }
    if (now >= h->maintained_ms + 10000) {
        (void)tn_mon_store_maintain(st, (int64_t)now);
        h->maintained_ms = now;
    }
    if (tn_mon_store_commit(st) != 0) {
        (void)tn_mon_store_rollback(st);
    }
}

void tn_mon_hist_alert(tn_mon_hist_t *h, const tn_mon_alert_t *a, const tn_mon_rule_t *r)
{
    if (h->store == NULL) {
        return;
    }
    char id[48];
    /* ids restart with the server: its start time makes them unique */
    snprintf(id, sizeof(id), "%llu-%llu", (unsigned long long)h->epoch_ms,
             (unsigned long long)a->id);
    tn_mon_store_alert_t row = {
        .id = id, .rule = r->name, .severity = r->severity, .target = a->target,
        .state = a->state == TN_MON_ALERT_FIRING ? "firing" : "resolved", .message = r->summary,
        .since_ms = (int64_t)a->since_ms, .resolved_ms = (int64_t)a->resolved_ms, .value = a->value,
    };
    (void)tn_mon_store_alert_put(h->store, &row);
}

/* ---- what the API reads back ------------------------------------------- */

typedef struct {
    tn_mon_json_t        *j;
    const tn_mon_state_t *s;
} jobs_ctx_t;

static int hist_job_json(void *arg, const tn_mon_store_job_t *row)
{
    jobs_ctx_t *c = arg;
    if (tn_mon_state_job((tn_mon_state_t *)c->s, row->id) != NULL) {
        return 0;                       /* live: listed from memory */
    }
    tn_mon_json_t *j = c->j;
    tn_mon_json_obj(j);
    tn_mon_json_kstr(j, "id", row->id);
    tn_mon_json_kstr(j, "program", row->program);
    tn_mon_json_kuint(j, "uid", row->uid);
    tn_mon_json_kuint(j, "ranks", row->ranks);
    tn_mon_json_kuint(j, "nodes", row->nodes);
    tn_mon_json_kstr(j, "state", row->state);
    tn_mon_json_kint(j, "start", row->start_ms);
    tn_mon_json_key(j, "end");
    if (row->end_ms != 0) {
        tn_mon_json_int(j, row->end_ms);
    } else {
        tn_mon_json_null(j);
    }
    tn_mon_json_kuint(j, "bytes", row->bytes);
    tn_mon_json_kuint(j, "msgs", row->msgs);
    tn_mon_json_kint(j, "stuck", 0);
    tn_mon_json_kint(j, "dead", 0);
    tn_mon_json_kbool(j, "stored", 1);
    tn_mon_json_obj_end(j);
    return 0;
}

void tn_mon_hist_jobs(tn_mon_hist_t *h, const tn_mon_state_t *s, tn_mon_json_t *j)
{
    jobs_ctx_t c = { j, s };
    if (h->store != NULL) {
        (void)tn_mon_store_jobs(h->store, 200, 0, hist_job_json, &c);
    }
}

typedef struct {
    tn_mon_store_job_t row;
    char id[128], program[64], state[16];
    int  found;
} job_copy_t;

static int hist_job_copy(void *arg, const tn_mon_store_job_t *row)
{
    job_copy_t *c = arg;
    c->row = *row;
    snprintf(c->id, sizeof(c->id), "%s", row->id);
    snprintf(c->program, sizeof(c->program), "%s", row->program != NULL ? row->program : "");
    snprintf(c->state, sizeof(c->state), "%s", row->state != NULL ? row->state : "");
    c->found = 1;
    return 0;
}

int tn_mon_hist_job(tn_mon_hist_t *h, const char *id, int cls, int what, tn_mon_buf_t *out)
{
    job_copy_t c = { .found = 0 };
    if (h->store == NULL || tn_mon_store_job_get(h->store, id, hist_job_copy, &c) != 1) {
        return -1;
    }
    tn_mon_store_matrix_t m;
    int have = tn_mon_store_job_matrix_get(h->store, id, "rank", &m);
    const char *level = "rank";
    if (have != 1) {
        have = tn_mon_store_job_matrix_get(h->store, id, "node", &m);
        level = "node";
    }
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "id", c.id);
    tn_mon_json_kstr(&j, "program", c.program);
    tn_mon_json_kuint(&j, "uid", c.row.uid);
    tn_mon_json_kstr(&j, "state", c.state);
    tn_mon_json_kint(&j, "start", c.row.start_ms);
    tn_mon_json_key(&j, "end");
    if (c.row.end_ms != 0) {
        tn_mon_json_int(&j, c.row.end_ms);
    } else {
        tn_mon_json_null(&j);
    }
    tn_mon_json_kbool(&j, "stored", 1);
    tn_mon_json_key(&j, "nodes");
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "ranks");
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "matrix");
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "level", level);
    tn_mon_json_key(&j, "labels");
    tn_mon_json_arr(&j);
    for (uint32_t i = 0; have == 1 && i < m.n; i++) {
        tn_mon_json_str(&j, m.labels[i]);
    }
    tn_mon_json_arr_end(&j);
    static const char *const cls_names[] = { "p2p", "coll", "rma" };
    static const char *const what_names[] = { "bytes", "msgs", "avg" };
    tn_mon_json_kstr(&j, "class", cls >= 0 ? cls_names[cls] : "all");
    tn_mon_json_kstr(&j, "what", what_names[what]);
    tn_mon_json_kint(&j, "window", 0);
    tn_mon_json_key(&j, "cells");
    tn_mon_json_arr(&j);
    for (uint32_t r = 0; have == 1 && r < m.n; r++) {
        tn_mon_json_arr(&j);
        for (uint32_t col = 0; col < m.n; col++) {
            size_t i = (size_t)r * m.n + col;
            uint64_t b = 0, n = 0;
            for (int k = 0; k < 3; k++) {
                if (cls < 0 || k == cls) {
                    b += m.cells[TN_MON_MAT_BYTES_P2P + k][i];
                    n += m.cells[TN_MON_MAT_MSGS_P2P + k][i];
                }
            }
            if (what == 2) {
                tn_mon_json_double(&j, n > 0 ? (double)b / (double)n : 0.0);
            } else {
                tn_mon_json_uint(&j, what == 1 ? n : b);
            }
        }
        tn_mon_json_arr_end(&j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    tn_mon_json_key(&j, "hist");
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "calls");
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_key(&j, "transport");
    tn_mon_json_arr(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    if (have == 1) {
        tn_mon_store_matrix_free(&m);
    }
    return 0;
}

static int hist_point(void *arg, const tn_mon_store_point_t *p)
{
    tn_mon_json_t *j = arg;
    tn_mon_json_arr(j);
    tn_mon_json_int(j, p->t_ms);
    tn_mon_json_double(j, p->avg);
    tn_mon_json_double(j, p->min);
    tn_mon_json_double(j, p->max);
    tn_mon_json_arr_end(j);
    return 0;
}

int tn_mon_hist_series(tn_mon_hist_t *h, const char *key, int64_t from, int64_t to, int64_t step,
                       tn_mon_buf_t *out)
{
    char canon[TN_MON_KEY_MAX + 1];
    if (h->store == NULL || tn_mon_key_canon(key, strlen(key), canon, sizeof(canon)) < 0) {
        return -1;
    }
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "key", canon);
    tn_mon_json_key(&j, "points");              /* [t, avg, min, max] */
    tn_mon_json_arr(&j);
    int rc = tn_mon_store_query(h->store, canon, from, to, step, hist_point, &j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    return rc < 0 ? -1 : 0;
}

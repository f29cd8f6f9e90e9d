/* /metrics (mon_api.h): the live state in Prometheus' text format, names
 * and labels by its conventions (base units, counters end in _total, the
 * job's label is jobid: Prometheus keeps "job" for the scrape job). */
#include "mon_api.h"
#include "mon_nic.h"
#include "mon_scan.h"

#include <stdio.h>
#include <string.h>
#include "tern/stats.h"

/* A label value with \, " and newlines escaped. */
static void prom_value(tn_mon_buf_t *o, const char *v)
{
    for (; *v != '\0'; v++) {
        if (*v == '\\' || *v == '"') {
            tn_mon_buf_printf(o, "\\%c", *v);
        } else if (*v == '\n') {
            tn_mon_buf_str(o, "\\n");
        } else {
            tn_mon_buf_append(o, v, 1);
        }
    }
}

static void prom_head(tn_mon_buf_t *o, const char *name, const char *type, const char *help)
{
    tn_mon_buf_printf(o, "# HELP %s ", name);
    for (const char *h = help; *h != '\0'; h++) {   /* help: \ and newlines escaped */
        if (*h == '\\') {
            tn_mon_buf_str(o, "\\\\");
        } else if (*h == '\n') {
            tn_mon_buf_str(o, "\\n");
        } else {
            tn_mon_buf_append(o, h, 1);
        }
    }
    tn_mon_buf_printf(o, "\n# TYPE %s %s\n", name, type);
}

/* The exported name of metric m: tern_<name>, a timer's _ns as _seconds,
 * counters with _total. */
static void prom_name(const tn_mon_metric_t *m, char *out, size_t len)
{
    char base[64];
    snprintf(base, sizeof(base), "%s", m->name);
    size_t n = strlen(base);
    int timer = m->cls == TERN_STATS_TIMER;
    if (timer && n > 3 && strcmp(base + n - 3, "_ns") == 0) {
        base[n - 3] = '\0';
    }
    int counter = m->cls == TERN_STATS_COUNTER || timer;
    int ns_gauge = !counter && n > 3 && strcmp(base + n - 3, "_ns") == 0;
    if (ns_gauge) {
        base[n - 3] = '\0';
    }
    snprintf(out, len, "tern_%s%s%s", base, timer || ns_gauge ? "_seconds" : "",
             counter ? "_total" : "");
}

/* Labels of element e of m: {jobid="..",class="p2p",protocol="eager"}. */
static void prom_labels(tn_mon_buf_t *o, const char *jobid, const tn_mon_metric_t *m, int e)
{
    tn_mon_buf_str(o, "{jobid=\"");
    prom_value(o, jobid);
    tn_mon_buf_str(o, "\"");
    if (m->nelems > 0 && e < m->nelems) {
        char keys[24], vals[256];
        snprintf(keys, sizeof(keys), "%s", m->key);
        snprintf(vals, sizeof(vals), "%s", m->elems[e]);
        char *ks = NULL, *vs = NULL;
        char *k = strtok_r(keys, ",", &ks), *v = strtok_r(vals, ",", &vs);
        for (; k != NULL && v != NULL; k = strtok_r(NULL, ",", &ks), v = strtok_r(NULL, ",", &vs)) {
            /* "le" is the histogram's own: the size axis is exported as one */
            tn_mon_buf_printf(o, ",%s=\"", strcmp(k, "le") == 0 ? "size_le" : k);
            prom_value(o, v);
            tn_mon_buf_str(o, "\"");
        }
    }
    tn_mon_buf_str(o, "}");
}

static void prom_jobs(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *o)
{
    static const char *const job_states[] = { "running", "finished", "failed" };
    (void)now_ms;
    prom_head(o, "tern_job_info", "gauge", "A Tern job the monitor knows (1), with its program, user and state");
    for (int k = 0; k < s->njobs; k++) {
        const tn_mon_job_t *x = s->jobs[k];
        tn_mon_buf_str(o, "tern_job_info{jobid=\"");
        prom_value(o, x->id);
        tn_mon_buf_str(o, "\",program=\"");
        prom_value(o, x->program);
        tn_mon_buf_printf(o, "\",uid=\"%u\",state=\"%s\"} 1\n", x->uid, job_states[x->state]);
    }
    static const char *const names[3] = { "tern_job_ranks", "tern_job_dead_ranks",
                                          "tern_job_longest_call_seconds" };
    static const char *const helps[3] = {
        "Ranks of the job", "Ranks of the job that died",
        "Longest time one of the job's ranks has been inside its current MPI call" };
    for (int i = 0; i < 3; i++) {
        prom_head(o, names[i], "gauge", helps[i]);
        for (int k = 0; k < s->njobs; k++) {
            const tn_mon_job_t *x = s->jobs[k];
            int dead = 0;
            double longest = 0;
            for (int r = 0; r < x->world_size; r++) {
                dead += x->ranks[r].state == TN_MON_RANK_DEAD;
                if (x->ranks[r].in_call && x->ranks[r].call_ms >= 0 &&
                    (double)x->ranks[r].call_ms / 1000.0 > longest) {
                    longest = (double)x->ranks[r].call_ms / 1000.0;
                }
            }
            double vals[3] = { x->world_size, dead, longest };
            tn_mon_buf_printf(o, "%s{jobid=\"", names[i]);
            prom_value(o, x->id);
            tn_mon_buf_printf(o, "\"} %.17g\n", vals[i]);
        }
    }
    /* every process counter, summed over the job's ranks */
    int hist = tn_mon_state_metric(s, "mpi_size_hist");
    for (int m = 0; m < s->nmetrics; m++) {
        const tn_mon_metric_t *mt = &s->metrics[m];
        if (m == hist || strncmp(mt->name, "peer_", 5) == 0 ||
            strncmp(mt->name, "udp_peer_", 9) == 0) {
            continue;                   /* the histogram below; per peer: links */
        }
        char name[96];
        prom_name(mt, name, sizeof(name));
        int counter = mt->cls == TERN_STATS_COUNTER || mt->cls == TERN_STATS_TIMER;
        double scale = mt->cls == TERN_STATS_TIMER || strstr(name, "_seconds") != NULL ? 1e-9 : 1.0;
        int any = 0;
        for (int k = 0; k < s->njobs; k++) {
            const tn_mon_job_t *x = s->jobs[k];
            for (int e = 0; e < (mt->nelems > 0 ? mt->nelems : 1); e++) {
                uint64_t v = tn_mon_state_sum(x, m, e);
                if (v == 0 && mt->nelems > 0) {
                    continue;           /* calls of 600 functions: the ones made */
                }
                if (!any) {
                    prom_head(o, name, counter ? "counter" : "gauge",
                              mt->help != NULL ? mt->help : mt->name);
                    any = 1;
                }
                tn_mon_buf_str(o, name);
                prom_labels(o, x->id, mt, e);
                tn_mon_buf_printf(o, " %.17g\n", (double)v * scale);
            }
        }
    }
    if (hist >= 0) {
        const tn_mon_metric_t *mt = &s->metrics[hist];
        prom_head(o, "tern_mpi_message_size_bytes", "histogram",
                  "Sizes of the messages the job's ranks sent");
        int bytes = s->m_bytes_sent;
        for (int k = 0; k < s->njobs; k++) {
            const tn_mon_job_t *x = s->jobs[k];
            uint64_t cum = 0, sum = 0;
            for (int e = 0; e < mt->nelems; e++) {
                cum += tn_mon_state_sum(x, hist, e);
                tn_mon_buf_str(o, "tern_mpi_message_size_bytes_bucket{jobid=\"");
                prom_value(o, x->id);
                tn_mon_buf_printf(o, "\",le=\"%s\"} %llu\n", mt->elems[e], (unsigned long long)cum);
            }
            for (int e = 0; bytes >= 0 && e < 9; e++) {
                sum += tn_mon_state_sum(x, bytes, e);
            }
            tn_mon_buf_str(o, "tern_mpi_message_size_bytes_sum{jobid=\"");
            prom_value(o, x->id);
            tn_mon_buf_printf(o, "\"} %llu\n", (unsigned long long)sum);
            tn_mon_buf_str(o, "tern_mpi_message_size_bytes_count{jobid=\"");
            prom_value(o, x->id);
            tn_mon_buf_printf(o, "\"} %llu\n", (unsigned long long)cum);
        }
    }
}

static void prom_links(const tn_mon_state_t *s, tn_mon_buf_t *o)
{
    static const char *const names[3] = { "tern_link_sent_packets_total",
                                          "tern_link_lost_packets_total",
                                          "tern_link_loss_ratio" };
    static const char *const helps[3] = {
        "Packets the job's ranks on src sent to its ranks on dst over the rail",
        "Of those, packets declared lost and sent again",
        "Lost over sent packets in the last second" };
    for (int i = 0; i < 3; i++) {
        prom_head(o, names[i], i < 2 ? "counter" : "gauge", helps[i]);
        for (int k = 0; k < s->njobs; k++) {
            const tn_mon_job_t *x = s->jobs[k];
            for (int l = 0; l < x->nlinks; l++) {
                const tn_mon_link_t *q = &x->links[l];
                tn_mon_buf_printf(o, "%s{jobid=\"", names[i]);
                prom_value(o, x->id);
                tn_mon_buf_str(o, "\",src=\"");
                prom_value(o, x->node_names[q->src]);
                tn_mon_buf_str(o, "\",dst=\"");
                prom_value(o, x->node_names[q->dst]);
                double v = i == 0 ? (double)q->sent : i == 1 ? (double)q->lost : q->rate;
                tn_mon_buf_printf(o, "\",rail=\"%d\"} %.17g\n", q->rail, v);
            }
        }
    }
}

static void prom_rail_failures(const tn_mon_state_t *s, tn_mon_buf_t *o)
{
    prom_head(o, "tern_job_rail_failures_total", "counter",
              "Rails the job's ranks took out of use (reported or found dead), per peer");
    for (int k = 0; k < s->njobs; k++) {
        const tn_mon_job_t *x = s->jobs[k];
        uint64_t down = 0;
        for (int r = 0; r < x->world_size; r++) {
            const tn_mon_rankst_t *q = &x->ranks[r];
            for (uint32_t e = 0; e < q->nrecs; e++) {
                down += q->recs[e].v[TN_MON_RV_RAILS_DOWN];
            }
        }
        tn_mon_buf_str(o, "tern_job_rail_failures_total{jobid=\"");
        prom_value(o, x->id);
        tn_mon_buf_printf(o, "\"} %llu\n", (unsigned long long)down);
    }
}

static void prom_nodes(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *o)
{
    static const struct { int ctr; const char *name, *help; } nics[] = {
        { TN_MON_NIC_IF_RX_BYTES, "tern_node_network_receive_bytes_total", "Bytes the interface received" },
        { TN_MON_NIC_IF_TX_BYTES, "tern_node_network_transmit_bytes_total", "Bytes the interface sent" },
        { TN_MON_NIC_IF_RX_ERRORS, "tern_node_network_receive_errors_total", "Receive errors of the interface" },
        { TN_MON_NIC_IF_TX_ERRORS, "tern_node_network_transmit_errors_total", "Transmit errors of the interface" },
        { TN_MON_NIC_IF_RX_DROPPED, "tern_node_network_receive_drop_total", "Received packets the interface dropped" },
        { TN_MON_NIC_IF_RX_CRC_ERRORS, "tern_node_network_receive_crc_errors_total", "Frames received with a bad CRC" },
    };
    for (size_t i = 0; i < sizeof(nics) / sizeof(nics[0]); i++) {
        prom_head(o, nics[i].name, "counter", nics[i].help);
        for (int k = 0; k < s->nnodes; k++) {
            const tn_mon_node_t *n = s->nodes[k];
            for (int f = 0; f < n->nnic; f++) {
                tn_mon_buf_printf(o, "%s{node=\"", nics[i].name);
                prom_value(o, n->name);
                tn_mon_buf_str(o, "\",device=\"");
                prom_value(o, n->nic[f].name);
                tn_mon_buf_printf(o, "\"} %llu\n", (unsigned long long)n->nic[f].ctr[nics[i].ctr]);
            }
        }
    }
    prom_head(o, "tern_node_network_utilization_ratio", "gauge",
              "The busier direction of the interface over its speed, last second (absent: speed unknown)");
    for (int k = 0; k < s->nnodes; k++) {
        const tn_mon_node_t *n = s->nodes[k];
        for (int f = 0; f < n->nnic; f++) {
            const tn_mon_nic_state_t *c = &n->nic[f];
            if (c->speed_mbps == 0) {
                continue;
            }
            double rx = c->rate[TN_MON_NIC_IF_RX_BYTES], tx = c->rate[TN_MON_NIC_IF_TX_BYTES];
            tn_mon_buf_str(o, "tern_node_network_utilization_ratio{node=\"");
            prom_value(o, n->name);
            tn_mon_buf_str(o, "\",device=\"");
            prom_value(o, c->name);
            tn_mon_buf_printf(o, "\"} %.17g\n", (rx > tx ? rx : tx) / ((double)c->speed_mbps * 125000.0));
        }
    }
    static const struct { int ctr; const char *name, *help; } udp[] = {
        { TN_MON_NIC_UDP_RCVBUF_ERRORS, "tern_node_udp_receive_buffer_errors_total",
          "UDP datagrams the kernel dropped because a socket's receive buffer was full" },
        { TN_MON_NIC_UDP_IN_ERRORS, "tern_node_udp_receive_errors_total", "UDP receive errors" },
    };
    for (size_t i = 0; i < sizeof(udp) / sizeof(udp[0]); i++) {
        prom_head(o, udp[i].name, "counter", udp[i].help);
        for (int k = 0; k < s->nnodes; k++) {
            tn_mon_buf_printf(o, "%s{node=\"", udp[i].name);
            prom_value(o, s->nodes[k]->name);
            tn_mon_buf_printf(o, "\"} %llu\n", (unsigned long long)s->nodes[k]->snmp[udp[i].ctr]);
        }
    }
    /* InfiniBand ports: every counter the agent read, the data ones in bytes */
    for (int c = 0; c < TN_MON_NIC_IB_NCTR; c++) {
        const char *cn = tn_mon_nic_ib_ctr_name(c);
        char name[96];
        int data = c == TN_MON_NIC_IB_XMIT_BYTES || c == TN_MON_NIC_IB_RCV_BYTES;
        snprintf(name, sizeof(name), "tern_node_infiniband_%s%s_total", cn,
                 data ? "_bytes" : "");
        int any = 0;
        for (int k = 0; k < s->nnodes; k++) {
            const tn_mon_node_t *n = s->nodes[k];
            for (int i = 0; i < n->nib; i++) {
                if (!any) {
                    char help[160];
                    snprintf(help, sizeof(help), "InfiniBand port counter %s%s", cn,
                             data ? " (bytes)" : "");
                    prom_head(o, name, "counter", help);
                    any = 1;
                }
                tn_mon_buf_printf(o, "%s{node=\"", name);
                prom_value(o, n->name);
                tn_mon_buf_str(o, "\",device=\"");
                prom_value(o, n->ib[i].dev);
                tn_mon_buf_printf(o, "\",port=\"%u\"} %llu\n", n->ib[i].port,
                                  (unsigned long long)n->ib[i].ctr[c]);
            }
        }
    }
    prom_head(o, "tern_node_agent_up", "gauge", "1 while the node's agent sent a frame in the last 5 s");
    for (int k = 0; k < s->nnodes; k++) {
        tn_mon_buf_str(o, "tern_node_agent_up{node=\"");
        prom_value(o, s->nodes[k]->name);
        tn_mon_buf_printf(o, "\"} %d\n", now_ms < s->nodes[k]->last_ms + 5000);
    }
}

void tn_mon_prom_write(const tn_mon_state_t *s, uint64_t now_ms, tn_mon_buf_t *o)
{
    prom_jobs(s, now_ms, o);
    prom_links(s, o);
    prom_rail_failures(s, o);
    prom_nodes(s, now_ms, o);
    prom_head(o, "tern_monitor_frames_total", "counter", "Frames the server applied");
    tn_mon_buf_printf(o, "tern_monitor_frames_total %llu\n", (unsigned long long)s->frames);
    prom_head(o, "tern_monitor_bad_frames_total", "counter", "Frames the server refused as malformed");
    tn_mon_buf_printf(o, "tern_monitor_bad_frames_total %llu\n", (unsigned long long)s->bad_frames);
}

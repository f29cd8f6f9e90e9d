/* The server's live state (mon_state.h): what queries see, and the work of
 * each second (rates, sparklines, snapshots, ended jobs). */
#include "mon_state.h"
#include "mon_nic.h"
#include "mon_scan.h"

#include <stdlib.h>
#include <string.h>

uint64_t tn_mon_state_rank_value(const tn_mon_rankst_t *r, int m, int elem)
{
    return m >= 0 && m < r->npv && r->pv[m] != NULL ? r->pv[m][elem] : 0;
}

uint64_t tn_mon_state_sum(const tn_mon_job_t *j, int m, int elem)
{
    uint64_t v = 0;
    for (int i = 0; i < j->world_size; i++) {
        v += tn_mon_state_rank_value(&j->ranks[i], m, elem);
    }
    return v;
}

/* The matrix index of world rank `rank` of j, -1 when unknown. */
static int mat_index(const tn_mon_job_t *j, int rank)
{
    if (rank < 0 || rank >= j->world_size) {
        return -1;
    }
    return j->level_node ? j->ranks[rank].node_id : rank;
}

void tn_mon_state_matrix_all(const tn_mon_state_t *s, const tn_mon_job_t *j, uint64_t **mat,
                             uint64_t *lost_p)
{
    size_t cells = (size_t)j->n * (size_t)j->n;
    uint64_t lost = 0;
    (void)s;
    for (int a = 0; a < TN_MON_NMAT; a++) {
        memset(mat[a], 0, cells * sizeof(uint64_t));
    }
    for (int src = 0; src < j->world_size; src++) {
        const tn_mon_rankst_t *r = &j->ranks[src];
        int me = mat_index(j, src);
        for (uint32_t k = 0; k < r->nrecs; k++) {
            uint32_t rec = r->recs[k].rec;
            const uint64_t *v = r->recs[k].v;
            int peer;
            if (rec < r->peer_count) {
                peer = mat_index(j, (int)rec);
            } else {
                /* a node record: a node-level matrix takes it */
                int node = (int)(rec - r->peer_count);
                peer = j->level_node && node < j->nnodes ? node : -1;
            }
            for (int c = 0; c < TN_MON_NCLS; c++) {
                uint64_t b = v[TN_MON_RV_BYTES + c], m = v[TN_MON_RV_MSGS + c];
                if (me < 0 || peer < 0) {
                    lost += b;
                    continue;
                }
                mat[TN_MON_MAT_BYTES + c][(size_t)me * j->n + (size_t)peer] += b;
                mat[TN_MON_MAT_MSGS + c][(size_t)me * j->n + (size_t)peer] += m;
            }
            /* what this rank took from the peer's buffer: the peer sent it */
            if (me < 0 || peer < 0) {
                lost += v[TN_MON_RV_TOOK_BYTES];
            } else {
                mat[TN_MON_MAT_BYTES + TN_MON_CLS_COLL][(size_t)peer * j->n + (size_t)me] +=
                    v[TN_MON_RV_TOOK_BYTES];
                mat[TN_MON_MAT_MSGS + TN_MON_CLS_COLL][(size_t)peer * j->n + (size_t)me] +=
                    v[TN_MON_RV_TOOK];
            }
        }
    }
    if (lost_p != NULL) {
        *lost_p = lost;
    }
}

void tn_mon_state_matrix2(const tn_mon_state_t *s, const tn_mon_job_t *j, int cls, int window_s,
                          uint64_t *bytes, uint64_t *msgs)
{
    size_t cells = (size_t)j->n * (size_t)j->n;
    uint64_t *mat[TN_MON_NMAT];
    int ok = 1;
    for (int a = 0; a < TN_MON_NMAT; a++) {
        mat[a] = calloc(cells ? cells : 1, sizeof(uint64_t));
        ok = ok && mat[a] != NULL;
    }
    uint64_t *out[2] = { bytes, msgs };
    for (int k = 0; k < 2; k++) {
        if (out[k] != NULL) {
            memset(out[k], 0, cells * sizeof(uint64_t));
        }
    }
    if (ok) {
        tn_mon_state_matrix_all(s, j, mat, NULL);
        /* the snapshot taken about window_s ago, if one is */
        const uint64_t *const *base = NULL;
        if (window_s > 0 && j->nsnap > 0) {
            int back = (window_s + TN_MON_STATE_SNAP_S - 1) / TN_MON_STATE_SNAP_S;
            if (back > j->nsnap) {
                back = j->nsnap;
            }
            int k = (j->snap_head - back + TN_MON_STATE_SNAPS) % TN_MON_STATE_SNAPS;
            base = (const uint64_t *const *)j->snap[k];
        }
        for (int k = 0; k < 2; k++) {
            for (int c = 0; out[k] != NULL && c < TN_MON_NCLS; c++) {
                if (cls >= 0 && c != cls) {
                    continue;
                }
                int a = (k == 0 ? TN_MON_MAT_BYTES : TN_MON_MAT_MSGS) + c;
                for (size_t i = 0; i < cells; i++) {
                    uint64_t v = mat[a][i], b = base != NULL && base[a] != NULL ? base[a][i] : 0;
                    out[k][i] += v >= b ? v - b : v;
                }
            }
        }
    }
    for (int a = 0; a < TN_MON_NMAT; a++) {
        free(mat[a]);
    }
}

void tn_mon_state_matrix(const tn_mon_state_t *s, const tn_mon_job_t *j, int cls, int kind,
                         int window_s, uint64_t *out)
{
    tn_mon_state_matrix2(s, j, cls, window_s, kind == TN_MON_MAT_BYTES ? out : NULL,
                         kind == TN_MON_MAT_BYTES ? NULL : out);
}

static void spark_push(double *spark, double v)
{
    memmove(spark, spark + 1, (TN_MON_STATE_SPARK - 1) * sizeof(double));
    spark[TN_MON_STATE_SPARK - 1] = v;
}

static tn_mon_link_t *job_link(tn_mon_job_t *j, int src, int dst, int rail)
{
    for (int i = 0; i < j->nlinks; i++) {
        tn_mon_link_t *l = &j->links[i];
        if (l->src == src && l->dst == dst && l->rail == rail) {
            return l;
        }
    }
    if (j->nlinks == j->cap_links) {
        int cap = j->cap_links ? 2 * j->cap_links : 16;
        tn_mon_link_t *nl = realloc(j->links, (size_t)cap * sizeof(*nl));
        if (nl == NULL) {
            return NULL;
        }
        j->links = nl;
        j->cap_links = cap;
    }
    tn_mon_link_t *l = &j->links[j->nlinks++];
    memset(l, 0, sizeof(*l));
    l->src = src;
    l->dst = dst;
    l->rail = rail;
    return l;
}

/* Links: the sums of the rails' counters of ranks on src towards ranks on dst. */
static void job_links(tn_mon_job_t *j)
{
    for (int i = 0; i < j->nlinks; i++) {
        j->links[i].prev_sent = j->links[i].sent;
        j->links[i].prev_lost = j->links[i].lost;
        j->links[i].sent = j->links[i].lost = 0;
    }
    for (int src = 0; src < j->world_size; src++) {
        const tn_mon_rankst_t *r = &j->ranks[src];
        for (uint32_t k = 0; k < r->nrecs; k++) {
            uint32_t rec = r->recs[k].rec;
            const uint64_t *v = r->recs[k].v;
            int dst = rec < r->peer_count ? (rec < (uint32_t)j->world_size
                                                 ? j->ranks[rec].node_id : -1)
                                          : (int)(rec - r->peer_count);
            if (r->node_id < 0 || dst < 0 || dst >= j->nnodes) {
                continue;
            }
            for (int rail = 0; rail < 4; rail++) {
                uint64_t sent = v[TN_MON_RV_RAIL_SENT + rail], lost = v[TN_MON_RV_RAIL_LOST + rail];
                if (sent == 0 && lost == 0) {
                    continue;
                }
                tn_mon_link_t *l = job_link(j, r->node_id, dst, rail);
                if (l != NULL) {
                    l->sent += sent;
                    l->lost += lost;
                }
            }
        }
    }
    for (int i = 0; i < j->nlinks; i++) {
        tn_mon_link_t *l = &j->links[i];
        uint64_t ds = l->sent >= l->prev_sent ? l->sent - l->prev_sent : l->sent;
        uint64_t dl = l->lost >= l->prev_lost ? l->lost - l->prev_lost : l->lost;
        l->rate = ds > 0 ? (double)dl / (double)ds : 0.0;
        spark_push(l->spark, l->rate);
    }
}

static void job_snapshot(const tn_mon_state_t *s, tn_mon_job_t *j, uint64_t now_ms)
{
    if (j->nsnap > 0) {
        int last = (j->snap_head - 1 + TN_MON_STATE_SNAPS) % TN_MON_STATE_SNAPS;
        if (now_ms < j->snap_ms[last] + TN_MON_STATE_SNAP_S * 1000u) {
            return;
        }
    }
    size_t cells = (size_t)j->n * (size_t)j->n;
    int k = j->snap_head;
    for (int a = 0; a < TN_MON_NMAT; a++) {
        if (j->snap[k][a] == NULL && (j->snap[k][a] = calloc(cells ? cells : 1, 8)) == NULL) {
            return;
        }
    }
    tn_mon_state_matrix_all(s, j, j->snap[k], NULL);
    j->snap_ms[k] = now_ms;
    j->snap_head = (k + 1) % TN_MON_STATE_SNAPS;
    if (j->nsnap < TN_MON_STATE_SNAPS) {
        j->nsnap++;
    }
}

static void node_rates(tn_mon_node_t *n)
{
    double dt = n->prev_t_ms != 0 && n->last_t_ms > n->prev_t_ms
                ? (double)(n->last_t_ms - n->prev_t_ms) / 1000.0 : 0.0;
    for (int i = 0; i < n->nnic; i++) {
        tn_mon_nic_state_t *x = &n->nic[i];
        for (int c = 0; c < 16; c++) {
            x->rate[c] = x->have_prev && dt > 0 && x->ctr[c] >= x->prev[c]
                         ? (double)(x->ctr[c] - x->prev[c]) / dt : 0.0;
            x->prev[c] = x->ctr[c];
        }
        x->have_prev = 1;
        spark_push(x->spark_rx, x->rate[TN_MON_NIC_IF_RX_BYTES]);
        spark_push(x->spark_tx, x->rate[TN_MON_NIC_IF_TX_BYTES]);
    }
    for (int c = 0; c < 16; c++) {
        n->snmp_rate[c] = n->snmp_have_prev && dt > 0 && n->snmp[c] >= n->snmp_prev[c]
                          ? (double)(n->snmp[c] - n->snmp_prev[c]) / dt : 0.0;
        n->snmp_prev[c] = n->snmp[c];
    }
    n->snmp_have_prev = 1;
    for (int i = 0; i < n->nib; i++) {
        tn_mon_ib_state_t *x = &n->ib[i];
        for (int c = 0; c < 16; c++) {
            x->rate[c] = x->have_prev && dt > 0 && x->ctr[c] >= x->prev[c]
                         ? (double)(x->ctr[c] - x->prev[c]) / dt : 0.0;
            x->prev[c] = x->ctr[c];
        }
        x->have_prev = 1;
    }
    n->prev_t_ms = n->last_t_ms;
}

void tn_mon_state_tick(tn_mon_state_t *s, uint64_t now_ms)
{
    for (int i = 0; i < s->nnodes; i++) {
        tn_mon_node_t *n = s->nodes[i];
        if (n->last_t_ms != n->prev_t_ms) {
            node_rates(n);
        }
    }
    for (int k = 0; k < s->njobs; k++) {
        tn_mon_job_t *j = s->jobs[k];
        if (j->state != TN_MON_JOB_RUNNING) {
            continue;
        }
        job_links(j);
        job_snapshot(s, j, now_ms);
        /* no node has listed a rank of it for a while: it ended */
        int listed = 0, dead = j->saw_dead;
        for (int r = 0; r < j->world_size; r++) {
            const tn_mon_rankst_t *x = &j->ranks[r];
            listed |= x->state == TN_MON_RANK_RUNNING || x->state == TN_MON_RANK_FINALIZED;
            dead |= x->state == TN_MON_RANK_DEAD;
        }
        if (!listed && now_ms > j->last_ms + TN_MON_STATE_GONE_MS) {
            j->state = dead ? TN_MON_JOB_FAILED : TN_MON_JOB_FINISHED;
            j->end_ms = j->last_ms;
            for (int r = 0; r < j->world_size; r++) {
                j->ranks[r].in_call = 0;
            }
        }
    }
}

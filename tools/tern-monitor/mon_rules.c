/* tern-monitor serve's alert rules (mon_rules.h). */
#include "mon_rules.h"
#include "mon_json.h"
#include "mon_nic.h"
#include "mon_index.h"
#include "mon_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_LINK, T_JOB, T_NIC, T_IBPORT, T_NODE, T_RANK };
enum { K_RATIO, K_INCREASE, K_GAUGE };

#define RING 61                     /* one sample a second: a minute back */
#define LOG_MAX 1000                /* alerts kept for the page */

typedef struct {
    int      rule;
    char     key[256];              /* "<rule>|<target's key>" */
    char     target[160];
    int      nlabels;
    char     lk[4][16];
    char     lv[4][100];
    double   a[RING], b[RING];
    int      n, head;               /* samples held; where the next goes */
    int      seen;
    uint64_t pending_since;         /* 0: the condition does not hold */
    int      firing;
    int      log;                   /* its entry in the log while firing */
} inst_t;

struct tn_mon_rules {
    tn_mon_rule_t     rules[TN_MON_NRULES];
    inst_t           *inst;
    int               ninst, cap;
    tn_mon_index_t    ix;           /* instances by key */
    tn_mon_alert_t   *log;          /* oldest first */
    int               nlog;
    uint64_t          next_id;
    tn_mon_alert_fn_t cb;
    void             *arg;
};

static const tn_mon_rule_t tn_mon_rule_table[TN_MON_NRULES] = {
#define TN_MON_RULE_ROW(id, name_, sev, tgt, knd, win, hold, thr, q, sum)     \
    [TN_MON_RULE_##id] = { .name = name_, .severity = sev, .promql = q, .summary = sum, \
                           .target = T_##tgt, .kind = K_##knd, .window_s = win,           \
                           .hold_s = hold, .threshold = thr, .enabled = 1 },
    TN_MON_RULES(TN_MON_RULE_ROW)
#undef TN_MON_RULE_ROW
};

tn_mon_rules_t *tn_mon_rules_new(tn_mon_alert_fn_t cb, void *arg)
{
    tn_mon_rules_t *rs = calloc(1, sizeof(*rs));
    if (rs == NULL) {
        return NULL;
    }
    memcpy(rs->rules, tn_mon_rule_table, sizeof(rs->rules));
    rs->log = calloc(LOG_MAX, sizeof(*rs->log));
    if (rs->log == NULL) {
        free(rs);
        return NULL;
    }
    rs->cb = cb;
    rs->arg = arg;
    rs->next_id = 1;
    return rs;
}

void tn_mon_rules_free(tn_mon_rules_t *rs)
{
    if (rs != NULL) {
        tn_mon_index_free(&rs->ix);
        free(rs->inst);
        free(rs->log);
        free(rs);
    }
}

const tn_mon_rule_t *tn_mon_rules_get(const tn_mon_rules_t *rs, int i)
{
    return i >= 0 && i < TN_MON_NRULES ? &rs->rules[i] : NULL;
}

int tn_mon_rules_tune(tn_mon_rules_t *rs, const char *line, char *why, size_t whylen)
{
    char copy[512], *save = NULL;
    snprintf(copy, sizeof(copy), "%s", line);
    char *name = strtok_r(copy, " \t\r\n", &save);
    if (name == NULL || name[0] == '#') {
        return 0;                       /* blank or a comment */
    }
    tn_mon_rule_t *r = NULL;
    for (int i = 0; i < TN_MON_NRULES; i++) {
        if (strcmp(rs->rules[i].name, name) == 0) {
            r = &rs->rules[i];
        }
    }
    if (r == NULL) {
        snprintf(why, whylen, "no rule named %s", name);
        return -1;
    }
    tn_mon_rule_t t = *r;
    for (char *kv; (kv = strtok_r(NULL, " \t\r\n", &save)) != NULL;) {
        char *eq = strchr(kv, '='), *end;
        if (eq == NULL) {
            snprintf(why, whylen, "%s: want key=value, not %s", name, kv);
            return -1;
        }
        *eq = '\0';
        double v = strtod(eq + 1, &end);
        if (*end != '\0' || end == eq + 1 || !(v >= 0 && v <= 1e12)) {
            snprintf(why, whylen, "%s: %s needs a number >= 0", name, kv);
            return -1;
        }
        if (strcmp(kv, "window") == 0 && v >= 1 && v < RING) {
            t.window_s = (int)v;
        } else if (strcmp(kv, "hold") == 0 && v <= 86400) {
            t.hold_s = (int)v;
        } else if (strcmp(kv, "threshold") == 0) {
            t.threshold = v;
        } else if (strcmp(kv, "enabled") == 0 && (v == 0 || v == 1)) {
            t.enabled = (int)v;
        } else {
            snprintf(why, whylen, "%s: %s is not window (1..%d), hold, threshold or enabled",
                     name, kv, RING - 1);
            return -1;
        }
    }
    *r = t;
    return 0;
}

/* ---- evaluation ---------------------------------------------------------- */

static const char *inst_key(const void *table, uint32_t pos)
{
    return ((const inst_t *)table)[pos].key;
}

static inst_t *rules_inst(tn_mon_rules_t *rs, int rule, const char *key)
{
    char k[256];
    snprintf(k, sizeof(k), "%d|%s", rule, key);
    int64_t i = tn_mon_index_find(&rs->ix, k, rs->inst, inst_key);
    if (i >= 0) {
        return &rs->inst[i];
    }
    if (rs->ninst == rs->cap) {
        int cap = rs->cap ? 2 * rs->cap : 64;
        inst_t *ni = realloc(rs->inst, (size_t)cap * sizeof(*ni));
        if (ni == NULL) {
            return NULL;
        }
        rs->inst = ni;
        rs->cap = cap;
    }
    inst_t *x = &rs->inst[rs->ninst];
    memset(x, 0, sizeof(*x));
    x->rule = rule;
    x->log = -1;
    snprintf(x->key, sizeof(x->key), "%s", k);
    if (tn_mon_index_add(&rs->ix, x->key, (uint32_t)rs->ninst, rs->inst, inst_key) != 0) {
        return NULL;
    }
    rs->ninst++;
    return x;
}

static tn_mon_alert_t *rules_log_new(tn_mon_rules_t *rs, int *index_p)
{
    if (rs->nlog == LOG_MAX) {
        /* drop the oldest resolved one (or the oldest) */
        int drop = 0;
        for (int i = 0; i < rs->nlog; i++) {
            if (rs->log[i].state == TN_MON_ALERT_RESOLVED) {
                drop = i;
                break;
            }
        }
        memmove(&rs->log[drop], &rs->log[drop + 1], (size_t)(rs->nlog - drop - 1) * sizeof(rs->log[0]));
        rs->nlog--;
        for (int i = 0; i < rs->ninst; i++) {
            if (rs->inst[i].log > drop) {
                rs->inst[i].log--;
            } else if (rs->inst[i].log == drop) {
                rs->inst[i].log = -1;
            }
        }
    }
    *index_p = rs->nlog;
    tn_mon_alert_t *a = &rs->log[rs->nlog++];
    memset(a, 0, sizeof(*a));
    return a;
}

static void rules_fire(tn_mon_rules_t *rs, inst_t *x, double v, uint64_t now)
{
    int idx;
    tn_mon_alert_t *a = rules_log_new(rs, &idx);
    a->id = rs->next_id++;
    a->rule = x->rule;
    a->state = TN_MON_ALERT_FIRING;
    a->since_ms = x->pending_since;
    a->value = v;
    snprintf(a->target, sizeof(a->target), "%s", x->target);
    a->nlabels = x->nlabels;
    memcpy(a->lk, x->lk, sizeof(a->lk));
    memcpy(a->lv, x->lv, sizeof(a->lv));
    x->firing = 1;
    x->log = idx;
    (void)now;
    if (rs->cb != NULL) {
        rs->cb(rs->arg, a, &rs->rules[x->rule]);
    }
}

static void rules_resolve(tn_mon_rules_t *rs, inst_t *x, uint64_t now)
{
    x->firing = 0;
    if (x->log < 0) {
        return;
    }
    tn_mon_alert_t *a = &rs->log[x->log];
    a->state = TN_MON_ALERT_RESOLVED;
    a->resolved_ms = now;
    x->log = -1;
    if (rs->cb != NULL) {
        rs->cb(rs->arg, a, &rs->rules[a->rule]);
    }
}

/* One sample of one target of one rule. */
/* The labels of a target: up to 4 pairs. */
typedef struct {
    int         n;
    const char *k[4];
    char        v[4][100];
} labels_t;

static void lab(labels_t *l, const char *k, const char *v)
{
    if (l->n < 4) {
        l->k[l->n] = k;
        snprintf(l->v[l->n], sizeof(l->v[0]), "%s", v);
        l->n++;
    }
}

static void rules_sample(tn_mon_rules_t *rs, int rule, const char *key, const char *target,
                         const labels_t *labels, double a, double b, uint64_t now)
{
    const tn_mon_rule_t *r = &rs->rules[rule];
    if (!r->enabled) {
        return;
    }
    inst_t *x = rules_inst(rs, rule, key);
    if (x == NULL) {
        return;
    }
    snprintf(x->target, sizeof(x->target), "%s", target);
    x->nlabels = labels->n;
    for (int i = 0; i < labels->n; i++) {
        snprintf(x->lk[i], sizeof(x->lk[i]), "%s", labels->k[i]);
        snprintf(x->lv[i], sizeof(x->lv[i]), "%s", labels->v[i]);
    }
    x->seen = 1;
    x->a[x->head] = a;
    x->b[x->head] = b;
    x->head = (x->head + 1) % RING;
    if (x->n < RING) {
        x->n++;
    }
    int back = r->window_s < x->n - 1 ? r->window_s : x->n - 1;
    int now_i = (x->head - 1 + RING) % RING, old_i = (x->head - 1 - back + 2 * RING) % RING;
    double da = x->a[now_i] - x->a[old_i], db = x->b[now_i] - x->b[old_i];
    double v;
    int cond;
    switch (r->kind) {
    case K_RATIO:
        if (db < TN_MON_RULE_MIN_B) {
            return;                     /* too little to judge: as it was */
        }
        v = da / db;
        cond = v > r->threshold;
        break;
    case K_INCREASE:
        v = da;
        cond = back > 0 && da > r->threshold;
        break;
    default:
        v = a;
        cond = a > r->threshold;
        break;
    }
    if (!cond) {
        x->pending_since = 0;
        if (x->firing) {
            rules_resolve(rs, x, now);
        }
        return;
    }
    if (x->pending_since == 0) {
        x->pending_since = now;
    }
    if (!x->firing && now >= x->pending_since + (uint64_t)r->hold_s * 1000u) {
        rules_fire(rs, x, v, now);
    }
}

static uint64_t job_sum(const tn_mon_state_t *s, const tn_mon_job_t *j, const char *name)
{
    int m = tn_mon_state_metric(s, name);
    return m >= 0 ? tn_mon_state_sum(j, m, 0) : 0;
}

void tn_mon_rules_eval(tn_mon_rules_t *rs, const tn_mon_state_t *s, uint64_t now)
{
    char key[256], target[160], num[16];
    labels_t L;
    for (int i = 0; i < rs->ninst; i++) {
        rs->inst[i].seen = 0;
    }
    for (int k = 0; k < s->njobs; k++) {
        const tn_mon_job_t *j = s->jobs[k];
        if (j->state != TN_MON_JOB_RUNNING && now > j->end_ms + 300000u) {
            continue;                   /* ended five minutes ago: no longer watched */
        }
        for (int l = 0; j->state == TN_MON_JOB_RUNNING && l < j->nlinks; l++) {
            const tn_mon_link_t *q = &j->links[l];
            const char *src = j->node_names[q->src], *dst = j->node_names[q->dst];
            snprintf(key, sizeof(key), "%s|%s|%s|%d", j->id, src, dst, q->rail);
            snprintf(target, sizeof(target), "%s -> %s rail %d (job %s)", src, dst, q->rail, j->id);
            L.n = 0;
            snprintf(num, sizeof(num), "%d", q->rail);
            lab(&L, "jobid", j->id);
            lab(&L, "src", src);
            lab(&L, "dst", dst);
            lab(&L, "rail", num);
            rules_sample(rs, TN_MON_RULE_RETRANS, key, target, &L, (double)q->lost,
                         (double)q->sent, now);
        }
        int dead = 0;
        for (int r = 0; r < j->world_size; r++) {
            const tn_mon_rankst_t *x = &j->ranks[r];
            dead += x->state == TN_MON_RANK_DEAD;
            if (j->state == TN_MON_JOB_RUNNING && x->in_call && x->call_ms >= 0) {
                snprintf(key, sizeof(key), "%s|%d", j->id, r);
                snprintf(target, sizeof(target), "rank %d in %s (job %s)", r, x->call, j->id);
                L.n = 0;
                snprintf(num, sizeof(num), "%d", r);
                lab(&L, "jobid", j->id);
                lab(&L, "rank", num);
                rules_sample(rs, TN_MON_RULE_RANK_STUCK, key, target, &L,
                             (double)x->call_ms / 1000.0, 0, now);
            }
        }
        snprintf(target, sizeof(target), "job %s", j->id);
        L.n = 0;
        lab(&L, "jobid", j->id);
        rules_sample(rs, TN_MON_RULE_INTEGRITY, j->id, target, &L,
                     (double)(job_sum(s, j, "udp_bad_packets") + job_sum(s, j, "udp_bad_auth")), 0,
                     now);
        uint64_t down = 0;
        for (int r = 0; r < j->world_size; r++) {
            const tn_mon_rankst_t *x = &j->ranks[r];
            for (uint32_t e = 0; e < x->nrecs; e++) {
                down += x->recs[e].v[TN_MON_RV_RAILS_DOWN];
            }
        }
        rules_sample(rs, TN_MON_RULE_RAIL_DOWN, j->id, target, &L, (double)down, 0, now);
        rules_sample(rs, TN_MON_RULE_RANK_DIED, j->id, target, &L, (double)dead, 0, now);
    }
    for (int k = 0; k < s->nnodes; k++) {
        const tn_mon_node_t *n = s->nodes[k];
        snprintf(target, sizeof(target), "node %s", n->name);
        L.n = 0;
        lab(&L, "node", n->name);
        rules_sample(rs, TN_MON_RULE_RCVBUF, n->name, target, &L,
                     (double)n->snmp[TN_MON_NIC_UDP_RCVBUF_ERRORS], 0, now);
        rules_sample(rs, TN_MON_RULE_AGENT_DOWN, n->name, target, &L,
                     now > n->last_ms + 5000 ? 1.0 : 0.0, 0, now);
        for (int i = 0; i < n->nib; i++) {
            const tn_mon_ib_state_t *p = &n->ib[i];
            char port[16];
            snprintf(port, sizeof(port), "%u", p->port);
            snprintf(key, sizeof(key), "%s|%s|%s", n->name, p->dev, port);
            snprintf(target, sizeof(target), "%s port %s on %s", p->dev, port, n->name);
            labels_t B = { 0 };
            lab(&B, "node", n->name);
            lab(&B, "device", p->dev);
            lab(&B, "port", port);
            uint64_t errs = p->ctr[TN_MON_NIC_IB_SYMBOL_ERROR] + p->ctr[TN_MON_NIC_IB_LINK_ERROR_RECOVERY] +
                            p->ctr[TN_MON_NIC_IB_LINK_DOWNED] + p->ctr[TN_MON_NIC_IB_RCV_ERRORS] +
                            p->ctr[TN_MON_NIC_IB_LOCAL_LINK_INTEGRITY];
            rules_sample(rs, TN_MON_RULE_IB_ERRORS, key, target, &B, (double)errs, 0, now);
        }
        for (int f = 0; f < n->nnic; f++) {
            const tn_mon_nic_state_t *c = &n->nic[f];
            snprintf(key, sizeof(key), "%s|%s", n->name, c->name);
            snprintf(target, sizeof(target), "%s on %s", c->name, n->name);
            labels_t D = { 0 };
            lab(&D, "node", n->name);
            lab(&D, "device", c->name);
            rules_sample(rs, TN_MON_RULE_NIC_ERRORS, key, target, &D,
                         (double)(c->ctr[TN_MON_NIC_IF_RX_ERRORS] + c->ctr[TN_MON_NIC_IF_RX_CRC_ERRORS]),
                         0, now);
            if (c->speed_mbps > 0) {
                double rx = c->rate[TN_MON_NIC_IF_RX_BYTES], tx = c->rate[TN_MON_NIC_IF_TX_BYTES];
                rules_sample(rs, TN_MON_RULE_LINK_UTIL, key, target, &D,
                             (rx > tx ? rx : tx) / ((double)c->speed_mbps * 125000.0), 0, now);
            }
        }
    }
    /* targets that are gone (a job ended, a link unused): resolved */
    int removed = 0;
    for (int i = 0; i < rs->ninst;) {
        if (rs->inst[i].seen) {
            i++;
            continue;
        }
        if (rs->inst[i].firing) {
            rules_resolve(rs, &rs->inst[i], now);
        }
        rs->inst[i] = rs->inst[--rs->ninst];
        removed = 1;
    }
    if (removed) {
        (void)tn_mon_index_rebuild(&rs->ix, (uint32_t)rs->ninst, rs->inst, inst_key);
    }
}

int tn_mon_rules_firing(const tn_mon_rules_t *rs)
{
    int n = 0;
    for (int i = 0; i < rs->nlog; i++) {
        n += rs->log[i].state == TN_MON_ALERT_FIRING;
    }
    return n;
}

void tn_mon_rules_json(const tn_mon_rules_t *rs, tn_mon_buf_t *out)
{
    tn_mon_json_t j;
    tn_mon_json_init(&j, out);
    tn_mon_json_obj(&j);
    tn_mon_json_key(&j, "alerts");
    tn_mon_json_arr(&j);
    for (int i = rs->nlog - 1; i >= 0; i--) {
        const tn_mon_alert_t *a = &rs->log[i];
        const tn_mon_rule_t *r = &rs->rules[a->rule];
        tn_mon_json_obj(&j);
        tn_mon_json_kuint(&j, "id", a->id);
        tn_mon_json_kstr(&j, "rule", r->name);
        tn_mon_json_kstr(&j, "severity", r->severity);
        tn_mon_json_kstr(&j, "target", a->target);
        tn_mon_json_kstr(&j, "state", a->state == TN_MON_ALERT_FIRING ? "firing" : "resolved");
        tn_mon_json_kuint(&j, "since", a->since_ms);
        tn_mon_json_key(&j, "resolved");
        if (a->resolved_ms != 0) {
            tn_mon_json_uint(&j, a->resolved_ms);
        } else {
            tn_mon_json_null(&j);
        }
        tn_mon_json_kdouble(&j, "value", a->value);
        tn_mon_json_kstr(&j, "message", r->summary);
        tn_mon_json_obj_end(&j);
    }
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
}

/* A YAML single-quoted scalar: quotes doubled. */
static void yaml_sq(tn_mon_buf_t *out, const char *v)
{
    tn_mon_buf_str(out, "'");
    for (; *v != '\0'; v++) {
        tn_mon_buf_str(out, *v == '\'' ? "''" : (char[]){ *v, '\0' });
    }
    tn_mon_buf_str(out, "'");
}

void tn_mon_rules_prometheus(const tn_mon_rules_t *rs, tn_mon_buf_t *out)
{
    tn_mon_buf_str(out, "# Generated by `tern-monitor rules` from tools/tern-monitor/mon_rules.h:\n"
                        "# the alerts tern-monitor serve raises, for Prometheus and Alertmanager.\n"
                        "groups:\n  - name: tern\n    rules:\n");
    for (int i = 0; i < TN_MON_NRULES; i++) {
        const tn_mon_rule_t *r = &rs->rules[i];
        if (!r->enabled) {
            continue;
        }
        char expr[512];
        snprintf(expr, sizeof(expr), "(%s) > %g", r->promql, r->threshold);
        tn_mon_buf_printf(out, "      - alert: %s\n        expr: ", r->name);
        yaml_sq(out, expr);
        tn_mon_buf_str(out, "\n");
        if (r->hold_s > 0) {
            tn_mon_buf_printf(out, "        for: %ds\n", r->hold_s);
        }
        tn_mon_buf_printf(out, "        labels:\n          severity: %s\n"
                          "        annotations:\n          summary: ", r->severity);
        yaml_sq(out, r->summary);
        tn_mon_buf_str(out, "\n");
    }
}

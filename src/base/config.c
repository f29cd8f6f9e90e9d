#include "base/config.h"
#include "base/log.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

tn_config_t tn_cfg;

typedef struct {
    const char       *name;
    tn_config_type_t  type;
    const char       *def;
    const char       *valid;
    const char       *help;
    tn_category_t     category;
    tn_config_verb_t  verb;
    tn_config_access_t access;
    void             *field;
} tn_config_entry_t;

static const tn_config_entry_t tn_config_entries[] = {
#define TN_CFG_ENTRY(field_, name, type, def, valid, cat, verb, access, help) \
    { "TERN_" #name, TN_CFG_##type, def, valid, help, TN_CAT_##cat, TN_CFG_##verb,   \
      TN_CFG_##access, &tn_cfg.field_ },
    TN_CONFIG_TABLE(TN_CFG_ENTRY)
#undef TN_CFG_ENTRY
};

#define TN_CONFIG_N ((int)(sizeof(tn_config_entries) / sizeof(tn_config_entries[0])))

static int tn_config_is_set[TN_CONFIG_N];
static int tn_config_written[TN_CONFIG_N];   /* by tn_config_set: load keeps it */
static int tn_config_loaded;
unsigned tn_config_generation;

/* Strings given to tn_config_set: a reader may still hold an older one, so
 * none is freed; they stay reachable from here (bounded by the writes). */
typedef struct tn_config_str { struct tn_config_str *next; char s[]; } tn_config_str_t;
static tn_config_str_t *tn_config_strs;

tn_status_t tn_config_parse_size(const char *str, uint64_t *value_p)
{
    char *end;
    if (str == NULL || *str == '\0' || *str == '-') {
        return TN_ERR_INVAL;
    }
    errno = 0;
    unsigned long long v = strtoull(str, &end, 0);
    uint64_t mult = 1;
    if (errno == ERANGE || end == str) {
        return TN_ERR_INVAL;
    }
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') {
        end++;
    }
    if (*end != '\0' || (uint64_t)v > UINT64_MAX / mult) {
        return TN_ERR_INVAL;
    }
    *value_p = (uint64_t)v * mult;
    return TN_OK;
}

tn_status_t tn_config_parse_bool(const char *str, int *value_p)
{
    static const char *const yes[] = { "1", "yes", "on", "true", "y" };
    static const char *const no[] = { "0", "no", "off", "false", "n" };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(str, yes[i]) == 0) { *value_p = 1; return TN_OK; }
        if (strcasecmp(str, no[i]) == 0)  { *value_p = 0; return TN_OK; }
    }
    return TN_ERR_INVAL;
}

static tn_status_t tn_config_parse(const tn_config_entry_t *e, const char *str)
{
    char *end;
    switch (e->type) {
    case TN_CFG_BOOL:
        return tn_config_parse_bool(str, (int *)e->field);
    case TN_CFG_INT: {
        errno = 0;
        long long v = strtoll(str, &end, 0);
        if (*str == '\0' || *end != '\0' || errno == ERANGE) {
            return TN_ERR_INVAL;
        }
        *(int64_t *)e->field = v;
        return TN_OK;
    }
    case TN_CFG_SIZE:
        return tn_config_parse_size(str, (uint64_t *)e->field);
    case TN_CFG_DOUBLE: {
        double v = strtod(str, &end);
        if (*str == '\0' || *end != '\0' || !isfinite(v)) {
            return TN_ERR_INVAL;
        }
        *(double *)e->field = v;
        return TN_OK;
    }
    case TN_CFG_STRING:
        *(const char **)e->field = str;
        return TN_OK;
    }
    return TN_ERR_INVAL;
}

/* Whether the value now in e's field is within e->valid. */
static int tn_config_in_range(const tn_config_entry_t *e)
{
    const char *v = e->valid;
    if (v == NULL || *v == '\0') {
        return 1;
    }
    if (e->type == TN_CFG_STRING) {
        const char *val = *(const char **)e->field;
        size_t n = strlen(val);
        for (const char *p = v; *p;) {
            size_t len = strcspn(p, "|");
            if (len == n && strncmp(p, val, n) == 0) {
                return 1;
            }
            p += len + (p[len] == '|');
        }
        return 0;
    }
    const char *dots = strstr(v, "..");
    if (dots == NULL) {
        return 1;
    }
    char lo[64] = "", hi[64] = "";
    snprintf(lo, sizeof(lo), "%.*s", (int)(dots - v), v);
    snprintf(hi, sizeof(hi), "%s", dots + 2);
    switch (e->type) {
    case TN_CFG_INT: {
        int64_t x = *(int64_t *)e->field;
        return (*lo == '\0' || x >= strtoll(lo, NULL, 0)) &&
               (*hi == '\0' || x <= strtoll(hi, NULL, 0));
    }
    case TN_CFG_SIZE: {
        uint64_t x = *(uint64_t *)e->field, b;
        return (*lo == '\0' || (tn_config_parse_size(lo, &b) == TN_OK && x >= b)) &&
               (*hi == '\0' || (tn_config_parse_size(hi, &b) == TN_OK && x <= b));
    }
    case TN_CFG_DOUBLE: {
        double x = *(double *)e->field;
        return (*lo == '\0' || x >= strtod(lo, NULL)) && (*hi == '\0' || x <= strtod(hi, NULL));
    }
    default:
        return 1;
    }
}

int tn_config_valid(int i, const char *str)
{
    const tn_config_entry_t *e = &tn_config_entries[i];
    /* parse into a scratch copy of the field, not into tn_cfg */
    union { int b; int64_t i; uint64_t u; double d; const char *s; } scratch;
    tn_config_entry_t t = *e;
    t.field = &scratch;
    return tn_config_parse(&t, str) == TN_OK && tn_config_in_range(&t);
}

/* Variables that only make sense together: when they contradict each other
 * the defaults of the set are kept. */
static void tn_config_cross_check(int warn)
{
    if (!(tn_cfg.udp_rto_min <= tn_cfg.udp_rto_init && tn_cfg.udp_rto_init <= tn_cfg.udp_rto_max)) {
        if (warn) {
            tn_log_warn("base", "ignoring TERN_UDP_RTO_MIN=%lld, TERN_UDP_RTO_INIT=%lld, "
                        "TERN_UDP_RTO_MAX=%lld: they must be min <= init <= max (keeping the "
                        "defaults)", (long long)tn_cfg.udp_rto_min,
                        (long long)tn_cfg.udp_rto_init, (long long)tn_cfg.udp_rto_max);
        }
        for (int i = 0; i < TN_CONFIG_N; i++) {
            const tn_config_entry_t *e = &tn_config_entries[i];
            if (e->field == &tn_cfg.udp_rto_min || e->field == &tn_cfg.udp_rto_init ||
                e->field == &tn_cfg.udp_rto_max) {
                tn_config_parse(e, e->def);
                tn_config_is_set[i] = 0;
            }
        }
    }
    /* a port range: both ends, or neither (ephemeral ports) */
    if (!(tn_cfg.udp_port_min == 0 && tn_cfg.udp_port_max == 0) &&
        !(tn_cfg.udp_port_min >= 1 && tn_cfg.udp_port_min <= tn_cfg.udp_port_max)) {
        if (warn) {
            tn_log_warn("base", "ignoring TERN_UDP_PORT_MIN=%lld, TERN_UDP_PORT_MAX=%lld: a "
                        "port range needs 1 <= min <= max (keeping ephemeral ports)",
                        (long long)tn_cfg.udp_port_min, (long long)tn_cfg.udp_port_max);
        }
        for (int i = 0; i < TN_CONFIG_N; i++) {
            const tn_config_entry_t *e = &tn_config_entries[i];
            if (e->field == &tn_cfg.udp_port_min || e->field == &tn_cfg.udp_port_max) {
                tn_config_parse(e, e->def);
                tn_config_is_set[i] = 0;
            }
        }
    }
}

void tn_config_load(int warn_unknown)
{
    for (int i = 0; i < TN_CONFIG_N; i++) {
        const tn_config_entry_t *e = &tn_config_entries[i];
        if (tn_config_written[i]) {
            continue;       /* an MPI_T write before MPI_Init wins */
        }
        tn_status_t st = tn_config_parse(e, e->def);
        (void)st;   /* defaults are valid by construction (unit-tested) */
        const char *val = getenv(e->name);
        tn_config_is_set[i] = 0;
        if (val != NULL) {
            int parsed = tn_config_parse(e, val) == TN_OK;
            if (parsed && tn_config_in_range(e)) {
                tn_config_is_set[i] = 1;
            } else {
                tn_config_parse(e, e->def);
                if (warn_unknown) {
                    tn_log_warn("base", "ignoring %s=%s: %s (keeping %s)", e->name, val,
                                !parsed ? "not a valid value"
                                : e->type == TN_CFG_STRING ? "not one of the choices"
                                                           : "out of range",
                                e->def);
                    if (parsed) {
                        tn_log_warn("base", "%s accepts %s", e->name, e->valid);
                    }
                }
            }
        }
    }
    tn_config_cross_check(warn_unknown);
    tn_log_configure();
    if (warn_unknown && !tn_config_loaded) {
        for (char **env = environ; env && *env; env++) {
            if (strncmp(*env, "TERN_", 5) != 0) {
                continue;
            }
            size_t len = strcspn(*env, "=");
            int known = 0;
            for (int i = 0; i < TN_CONFIG_N && !known; i++) {
                known = strlen(tn_config_entries[i].name) == len &&
                        strncmp(tn_config_entries[i].name, *env, len) == 0;
            }
            if (!known) {
                tn_log_warn("base", "unknown configuration variable %.*s "
                            "(tern-info lists the known ones)", (int)len, *env);
            }
        }
    }
    tn_config_loaded = 1;
}

int tn_config_count(void)
{
    return TN_CONFIG_N;
}

void tn_config_describe(int i, tn_config_desc_t *desc_p, char *buf, int len)
{
    const tn_config_entry_t *e = &tn_config_entries[i];
    desc_p->name = e->name;
    desc_p->type = e->type;
    desc_p->def = e->def;
    desc_p->valid = e->valid;
    desc_p->help = e->help;
    desc_p->category = e->category;
    desc_p->verb = e->verb;
    desc_p->access = e->access;
    desc_p->is_set = tn_config_is_set[i];
    switch (e->type) {
    case TN_CFG_BOOL:   snprintf(buf, (size_t)len, "%d", *(int *)e->field); break;
    case TN_CFG_INT:    snprintf(buf, (size_t)len, "%lld", (long long)*(int64_t *)e->field); break;
    case TN_CFG_SIZE:   snprintf(buf, (size_t)len, "%llu", (unsigned long long)*(uint64_t *)e->field); break;
    case TN_CFG_DOUBLE: snprintf(buf, (size_t)len, "%g", *(double *)e->field); break;
    case TN_CFG_STRING: snprintf(buf, (size_t)len, "%s", *(const char **)e->field); break;
    }
}

int tn_config_index(const char *name)
{
    for (int i = 0; name != NULL && i < TN_CONFIG_N; i++) {
        if (strcmp(tn_config_entries[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

tn_status_t tn_config_set(int i, const char *str)
{
    if (i < 0 || i >= TN_CONFIG_N || str == NULL) {
        return TN_ERR_INVAL;
    }
    const tn_config_entry_t *e = &tn_config_entries[i];
    if (e->access != TN_CFG_LOCAL && e->access != TN_CFG_ALL_EQ) {
        return TN_ERR_UNSUPPORTED;
    }
    if (!tn_config_valid(i, str)) {
        return TN_ERR_INVAL;
    }
    const char *val = str;
    if (e->type == TN_CFG_STRING) {
        size_t n = strlen(str) + 1;
        tn_config_str_t *c = malloc(sizeof(*c) + n);
        if (c == NULL) {
            return TN_ERR_NOMEM;
        }
        memcpy(c->s, str, n);
        c->next = tn_config_strs;
        tn_config_strs = c;
        val = c->s;
    }
    tn_config_parse(e, val);    /* valid: cannot fail */
    tn_config_is_set[i] = 1;
    tn_config_written[i] = 1;
    tn_config_generation++;
    tn_log_configure();
    return TN_OK;
}

#include "base/config.h"
#include "base/log.h"

#include <ctype.h>
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
    const char       *help;
    void             *field;
} tn_config_entry_t;

static const tn_config_entry_t tn_config_entries[] = {
#define TN_CFG_ENTRY(field_, name, type, def, help) \
    { "TERN_" #name, TN_CFG_##type, def, help, &tn_cfg.field_ },
    TN_CONFIG_TABLE(TN_CFG_ENTRY)
#undef TN_CFG_ENTRY
};

#define TN_CONFIG_N ((int)(sizeof(tn_config_entries) / sizeof(tn_config_entries[0])))

static int tn_config_is_set[TN_CONFIG_N];
static int tn_config_loaded;

tn_status_t tn_config_parse_size(const char *str, uint64_t *value_p)
{
    char *end;
    if (str == NULL || *str == '\0' || *str == '-') {
        return TN_ERR_INVAL;
    }
    unsigned long long v = strtoull(str, &end, 0);
    uint64_t mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') {
        end++;
    }
    if (*end != '\0') {
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
        long long v = strtoll(str, &end, 0);
        if (*str == '\0' || *end != '\0') {
            return TN_ERR_INVAL;
        }
        *(int64_t *)e->field = v;
        return TN_OK;
    }
    case TN_CFG_SIZE:
        return tn_config_parse_size(str, (uint64_t *)e->field);
    case TN_CFG_DOUBLE: {
        double v = strtod(str, &end);
        if (*str == '\0' || *end != '\0') {
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

void tn_config_load(int warn_unknown)
{
    for (int i = 0; i < TN_CONFIG_N; i++) {
        const tn_config_entry_t *e = &tn_config_entries[i];
        tn_status_t st = tn_config_parse(e, e->def);
        (void)st;   /* defaults are valid by construction (unit-tested) */
        const char *val = getenv(e->name);
        tn_config_is_set[i] = 0;
        if (val != NULL) {
            if (tn_config_parse(e, val) == TN_OK) {
                tn_config_is_set[i] = 1;
            } else {
                tn_config_parse(e, e->def);
                if (warn_unknown) {
                    tn_log_warn("base", "ignoring %s=%s: not a valid value (keeping %s)",
                                e->name, val, e->def);
                }
            }
        }
    }
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
    desc_p->help = e->help;
    desc_p->is_set = tn_config_is_set[i];
    switch (e->type) {
    case TN_CFG_BOOL:   snprintf(buf, (size_t)len, "%d", *(int *)e->field); break;
    case TN_CFG_INT:    snprintf(buf, (size_t)len, "%lld", (long long)*(int64_t *)e->field); break;
    case TN_CFG_SIZE:   snprintf(buf, (size_t)len, "%llu", (unsigned long long)*(uint64_t *)e->field); break;
    case TN_CFG_DOUBLE: snprintf(buf, (size_t)len, "%g", *(double *)e->field); break;
    case TN_CFG_STRING: snprintf(buf, (size_t)len, "%s", *(const char **)e->field); break;
    }
}

/* The tools interface (include/tern/tools.h). */
#include "mpi/mpi_impl.h"
#include "base/config.h"
#include "base/counters.h"
#include "base/events.h"
#include "runtime/rt.h"
#include "tern/tools.h"
#include "xport/xport.h"

#define TN_EXPORT __attribute__((visibility("default")))

extern const char *const tn_mpi_unsupported_names[];
extern const int tn_mpi_unsupported_count;
extern const int tn_mpi_function_count;

TN_EXPORT const char *tern_tools_version(void)
{
    return TERN_VERSION;
}

TN_EXPORT const char *tern_tools_transports(void)
{
    return "self,shm,udp";
}

TN_EXPORT int tern_tools_config_count(void)
{
    return tn_config_count();
}

TN_EXPORT const char *tern_tools_config_valid(int i)
{
    tn_config_desc_t d;
    char value[8];
    if (i < 0 || i >= tn_config_count()) {
        return NULL;
    }
    tn_config_describe(i, &d, value, sizeof(value));
    return d.valid;
}

TN_EXPORT int tern_tools_config_get(int i, const char **name, const char **type,
                                    const char **def, const char **help, char *value, int len,
                                    int *is_set)
{
    static int loaded;
    static const char *const type_names[] = { "bool", "int", "size", "double", "string" };
    if (i < 0 || i >= tn_config_count()) {
        return -1;
    }
    if (!loaded) {
        tn_config_load(0);
        loaded = 1;
    }
    tn_config_desc_t d;
    tn_config_describe(i, &d, value, len);
    *name = d.name;
    *type = type_names[d.type];
    *def = d.def;
    *help = d.help;
    *is_set = d.is_set;
    return 0;
}

static const char *const tn_tools_cat_names[] = {
#define TN_TOOLS_CAT(id, name, parent, desc) name,
    TN_CATEGORY_TABLE(TN_TOOLS_CAT)
#undef TN_TOOLS_CAT
};

TN_EXPORT int tern_tools_config_mpit(int i, const char **category, const char **scope)
{
    tn_config_desc_t d;
    char value[8];
    if (i < 0 || i >= tn_config_count()) {
        return -1;
    }
    tn_config_describe(i, &d, value, sizeof(value));
    *category = tn_tools_cat_names[d.category];
    *scope = d.access == TN_CFG_LOCAL ? "local" : d.access == TN_CFG_ALL_EQ ? "all_eq"
                                                                              : "readonly";
    return 0;
}

TN_EXPORT int tern_tools_counter_count(void)
{
    return tn_ctr_count();
}

TN_EXPORT int tern_tools_counter_get(int i, const char **name, const char **cls,
                                     const char **unit, const char **help,
                                     const char **category, int *per_peer, int *n)
{
    static const char *const cls_names[] = { "counter", "level", "highwatermark", "timer" };
    const tn_ctr_desc_t *d = tn_ctr_desc(i);
    if (d == NULL) {
        return -1;
    }
    const tn_ctr_set_desc_t *s = tn_ctr_set_desc(d->set);
    *name = d->name;
    *cls = cls_names[d->cls];
    *unit = d->unit;
    *help = d->help;
    *category = tn_tools_cat_names[s->category];
    *per_peer = s->kind == TN_CTR_PEER;
    *n = d->n;
    return 0;
}

TN_EXPORT int tern_tools_event_count(void)
{
    return TN_EVENT_COUNT_;
}

TN_EXPORT int tern_tools_event_get(int i, const char **name, const char **category,
                                   const char **help)
{
    const tn_event_desc_t *d = tn_event_desc(i);
    if (d == NULL) {
        return -1;
    }
    *name = d->name;
    *category = tn_tools_cat_names[d->category];
    *help = d->help;
    return 0;
}

TN_EXPORT int tern_tools_function_count(void)
{
    return tn_mpi_function_count;
}

TN_EXPORT int tern_tools_unsupported_count(void)
{
    return tn_mpi_unsupported_count;
}

TN_EXPORT const char *tern_tools_unsupported_name(int i)
{
    if (i < 0 || i >= tn_mpi_unsupported_count) {
        return 0;
    }
    return tn_mpi_unsupported_names[i];
}

TN_EXPORT int tern_tools_udp_stats(tern_udp_stats_t *out)
{
    tn_rt_lock();
    int r = tn_xport_udp_tool_stats(out);
    tn_rt_unlock();
    return r;
}

TN_EXPORT int tern_tools_udp_peer_stats(int world_rank, tern_udp_peer_stats_t *out)
{
    tn_rt_lock();
    int r = tn_xport_udp_tool_peer_stats(world_rank, out);
    tn_rt_unlock();
    return r;
}

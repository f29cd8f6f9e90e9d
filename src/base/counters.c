/* The counter registry (counters.h). */
#include "base/counters.h"

#include <stdio.h>
#include <string.h>

#define TN_CTR_E(prefix, id, type, field_, dim, cls_, unit_, help_)            \
    { .name = prefix #field_, .field = #field_, .set = TN_CTR_SET_##id,         \
      .offset = offsetof(type, field_), .n = TN_CTR_N_##dim, .axis = TN_CTR_AXIS_##dim, \
      .cls = TN_CTR_##cls_, .unit = unit_, .help = help_ },

static const tn_ctr_desc_t tn_ctrs[] = {
#define TN_CTR_SET_ENTRIES(id, prefix, label, cat, kind, TABLE, type)          \
    TABLE(TN_CTR_E_##id)
#define TN_CTR_E_SHM(f, d, c, u, h) TN_CTR_E("shm_", SHM, tn_shm_stats_t, f, d, c, u, h)
#define TN_CTR_E_UDP(f, d, c, u, h) TN_CTR_E("udp_", UDP, tn_udp_stats_t, f, d, c, u, h)
#define TN_CTR_E_UDP_SOCK(f, d, c, u, h)                                       \
    TN_CTR_E("udp_sock_", UDP_SOCK, tn_udp_sock_stats_t, f, d, c, u, h)
#define TN_CTR_E_UDP_PEER(f, d, c, u, h)                                       \
    TN_CTR_E("udp_peer_", UDP_PEER, tn_udp_conn_stats_t, f, d, c, u, h)
#define TN_CTR_E_P2P(f, d, c, u, h) TN_CTR_E("p2p_", P2P, tn_p2p_stats_t, f, d, c, u, h)
#define TN_CTR_E_MSG(f, d, c, u, h) TN_CTR_E("mpi_", MSG, tn_msg_stats_t, f, d, c, u, h)
#define TN_CTR_E_PEER_MSG(f, d, c, u, h)                                       \
    TN_CTR_E("peer_", PEER_MSG, tn_peer_msg_stats_t, f, d, c, u, h)
    TN_CTR_SETS(TN_CTR_SET_ENTRIES)
};

#define TN_CTR_COUNT_ ((int)(sizeof(tn_ctrs) / sizeof(tn_ctrs[0])))

static const tn_ctr_set_desc_t tn_ctr_sets[TN_CTR_SET_COUNT_] = {
#define TN_CTR_SET_D(id, prefix_, label_, cat, kind_, TABLE, type)             \
    [TN_CTR_SET_##id] = { .prefix = prefix_, .label = label_, .category = TN_CAT_##cat, \
                          .kind = TN_CTR_##kind_, .size = sizeof(type) },
    TN_CTR_SETS(TN_CTR_SET_D)
#undef TN_CTR_SET_D
};

/* Where each set lives now. */
static struct {
    const void        *block;      /* PROCESS */
    tn_ctr_block_fn_t  block_of;   /* PEER */
    tn_ctr_label_fn_t  label;
    int                npeers;
    int                attached;
} tn_ctr_where[TN_CTR_SET_COUNT_];

/* ---- axes ---------------------------------------------------------------- */

static const char *const tn_ctr_axis_keys[TN_CTR_AXIS_COUNT_] = {
#define TN_CTR_AXIS_KEY(id, key, n) [TN_CTR_AXIS_##id] = key,
    TN_CTR_AXES(TN_CTR_AXIS_KEY)
#undef TN_CTR_AXIS_KEY
};

static const char *const tn_ctr_rail_names[TN_CTR_RAILS] = { "0", "1", "2", "3" };
static const char *const tn_ctr_class_names[TN_CTR_CLASSES] = { "p2p", "coll", "rma" };
static const char *const tn_ctr_path_names[TN_CTR_PATHS] = {
    "p2p,eager", "p2p,rendezvous", "p2p,direct",
    "coll,eager", "coll,rendezvous", "coll,direct",
    "rma,eager", "rma,rendezvous", "rma,direct",
};
_Static_assert(TN_CTR_RAILS == 4 && TN_CTR_CLASSES == 3 && TN_CTR_PROTOS == 3,
               "the axes' names above");
static char tn_ctr_size_names[TN_CTR_SIZES][12];
static const char *const *tn_ctr_call_names;
static int tn_ctr_ncalls;

const char *tn_ctr_axis_key(tn_ctr_axis_t axis)
{
    return axis > TN_CTR_AXIS_1 && axis < TN_CTR_AXIS_COUNT_ ? tn_ctr_axis_keys[axis] : NULL;
}

int tn_ctr_axis_len(tn_ctr_axis_t axis)
{
    switch (axis) {
    case TN_CTR_AXIS_RAILS: return TN_CTR_RAILS;
    case TN_CTR_AXIS_CLASS: return TN_CTR_CLASSES;
    case TN_CTR_AXIS_PATH: return TN_CTR_PATHS;
    case TN_CTR_AXIS_SIZE: return TN_CTR_SIZES;
    case TN_CTR_AXIS_CALLS: return tn_ctr_ncalls > 0 ? tn_ctr_ncalls : TN_CTR_CALLS;
    default: return 0;
    }
}

const char *tn_ctr_axis_name(tn_ctr_axis_t axis, int elem)
{
    if (elem < 0 || elem >= tn_ctr_axis_len(axis)) {
        return NULL;
    }
    switch (axis) {
    case TN_CTR_AXIS_RAILS: return tn_ctr_rail_names[elem];
    case TN_CTR_AXIS_CLASS: return tn_ctr_class_names[elem];
    case TN_CTR_AXIS_PATH: return tn_ctr_path_names[elem];
    case TN_CTR_AXIS_SIZE:
        /* bucket 0: empty messages; k: up to 2^(k-1) bytes; the last: more */
        if (tn_ctr_size_names[elem][0] == '\0') {
            if (elem == TN_CTR_SIZES - 1) {
                snprintf(tn_ctr_size_names[elem], sizeof(tn_ctr_size_names[elem]), "+Inf");
            } else {
                snprintf(tn_ctr_size_names[elem], sizeof(tn_ctr_size_names[elem]), "%llu",
                         elem == 0 ? 0ull : 1ull << (elem - 1));
            }
        }
        return tn_ctr_size_names[elem];
    case TN_CTR_AXIS_CALLS: return tn_ctr_call_names != NULL ? tn_ctr_call_names[elem] : NULL;
    default: return NULL;
    }
}

void tn_ctr_axis_names(tn_ctr_axis_t axis, const char *const *names, int n)
{
    if (axis == TN_CTR_AXIS_CALLS && n >= 0 && n <= TN_CTR_CALLS) {
        tn_ctr_call_names = names;
        tn_ctr_ncalls = n;
    }
}

/* ---- counters -------------------------------------------------------------- */

int tn_ctr_count(void)
{
    return TN_CTR_COUNT_;
}

const tn_ctr_desc_t *tn_ctr_desc(int i)
{
    return i >= 0 && i < TN_CTR_COUNT_ ? &tn_ctrs[i] : NULL;
}

const tn_ctr_set_desc_t *tn_ctr_set_desc(tn_ctr_set_t set)
{
    return (unsigned)set < TN_CTR_SET_COUNT_ ? &tn_ctr_sets[set] : NULL;
}

int tn_ctr_index(const char *name)
{
    for (int i = 0; name != NULL && i < TN_CTR_COUNT_; i++) {
        if (strcmp(tn_ctrs[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

void tn_ctr_attach(tn_ctr_set_t set, const void *block)
{
    tn_ctr_where[set].block = block;
    tn_ctr_where[set].attached = 1;
}

void tn_ctr_attach_peers(tn_ctr_set_t set, tn_ctr_block_fn_t block_of, int npeers,
                         tn_ctr_label_fn_t label)
{
    tn_ctr_where[set].block_of = block_of;
    tn_ctr_where[set].npeers = npeers;
    tn_ctr_where[set].label = label;
    tn_ctr_where[set].attached = 1;
}

void tn_ctr_detach(tn_ctr_set_t set)
{
    tn_ctr_where[set].block = NULL;
    tn_ctr_where[set].block_of = NULL;
    tn_ctr_where[set].label = NULL;
    tn_ctr_where[set].attached = 0;
}

int tn_ctr_attached(tn_ctr_set_t set)
{
    return tn_ctr_where[set].attached;
}

static const void *tn_ctr_block(tn_ctr_set_t set, int peer)
{
    if (tn_ctr_sets[set].kind == TN_CTR_PROCESS) {
        return tn_ctr_where[set].block;
    }
    if (tn_ctr_where[set].block_of == NULL || peer < 0 || peer >= tn_ctr_where[set].npeers) {
        return NULL;
    }
    return tn_ctr_where[set].block_of(peer);
}

static uint64_t tn_ctr_load(const void *block, const tn_ctr_desc_t *d, int elem)
{
    const uint64_t *p = (const uint64_t *)((const char *)block + d->offset) + elem;
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

uint64_t tn_ctr_value(int i, int peer, int elem)
{
    const tn_ctr_desc_t *d = tn_ctr_desc(i);
    if (d == NULL || elem < 0 || elem >= d->n) {
        return 0;
    }
    const void *block = tn_ctr_block(d->set, peer);
    return block != NULL ? tn_ctr_load(block, d, elem) : 0;
}

/* One line: the scalar counters of set in block. */
static void tn_ctr_print_block(FILE *out, int rank, tn_ctr_set_t set, int peer,
                               const void *block)
{
    char head[64];
    const tn_ctr_set_desc_t *s = &tn_ctr_sets[set];
    if (s->kind == TN_CTR_PEER) {
        snprintf(head, sizeof(head), "%s %d", s->label, peer);
    } else {
        snprintf(head, sizeof(head), "%s", s->label);
    }
    fprintf(out, "[tern stats] rank %d %s:", rank, head);
    int rails = 0;
    for (int i = 0; i < TN_CTR_COUNT_; i++) {
        const tn_ctr_desc_t *d = &tn_ctrs[i];
        if (d->set != set) {
            continue;
        }
        if (d->axis == TN_CTR_AXIS_RAILS) {
            rails = d->n > rails ? d->n : rails;
            continue;
        }
        if (d->axis != TN_CTR_AXIS_1) {
            /* other arrays: the elements that have seen anything */
            for (int e = 0; e < d->n; e++) {
                uint64_t v = tn_ctr_load(block, d, e);
                const char *en = tn_ctr_axis_name(d->axis, e);
                if (v != 0) {
                    fprintf(out, " %s[%s]=%llu", d->field, en != NULL ? en : "?",
                            (unsigned long long)v);
                }
            }
            continue;
        }
        fprintf(out, " %s=%llu", d->field, (unsigned long long)tn_ctr_load(block, d, 0));
    }
    fprintf(out, "\n");
    /* array counters: one line per element that has seen anything */
    for (int e = 0; e < rails; e++) {
        int any = 0;
        for (int i = 0; i < TN_CTR_COUNT_ && !any; i++) {
            any = tn_ctrs[i].set == set && tn_ctrs[i].axis == TN_CTR_AXIS_RAILS &&
                  tn_ctr_load(block, &tn_ctrs[i], e);
        }
        if (!any) {
            continue;
        }
        char label[64] = "";
        if (tn_ctr_where[set].label != NULL) {
            label[0] = ' ';
            tn_ctr_where[set].label(peer, e, label + 1, sizeof(label) - 1);
        }
        fprintf(out, "[tern stats] rank %d %s rail %d%s:", rank, head, e, label);
        for (int i = 0; i < TN_CTR_COUNT_; i++) {
            if (tn_ctrs[i].set == set && tn_ctrs[i].axis == TN_CTR_AXIS_RAILS) {
                fprintf(out, " %s=%llu", tn_ctrs[i].field,
                        (unsigned long long)tn_ctr_load(block, &tn_ctrs[i], e));
            }
        }
        fprintf(out, "\n");
    }
}

/* Has block (of set) counted nothing? (peers it had nothing to do with) */
static int tn_ctr_block_zero(tn_ctr_set_t set, const void *block)
{
    for (int i = 0; i < TN_CTR_COUNT_; i++) {
        for (int e = 0; tn_ctrs[i].set == set && e < tn_ctrs[i].n; e++) {
            if (tn_ctr_load(block, &tn_ctrs[i], e) != 0) {
                return 0;
            }
        }
    }
    return 1;
}

void tn_ctr_print(FILE *out, int rank)
{
    for (int set = 0; set < TN_CTR_SET_COUNT_; set++) {
        if (!tn_ctr_where[set].attached) {
            continue;
        }
        if (tn_ctr_sets[set].kind == TN_CTR_PROCESS) {
            if (tn_ctr_where[set].block != NULL) {
                tn_ctr_print_block(out, rank, (tn_ctr_set_t)set, -1, tn_ctr_where[set].block);
            }
            continue;
        }
        for (int peer = 0; peer < tn_ctr_where[set].npeers; peer++) {
            const void *block = tn_ctr_block((tn_ctr_set_t)set, peer);
            if (block != NULL && !tn_ctr_block_zero((tn_ctr_set_t)set, block)) {
                tn_ctr_print_block(out, rank, (tn_ctr_set_t)set, peer, block);
            }
        }
    }
}

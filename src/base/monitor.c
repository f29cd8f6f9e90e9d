/* The stats segment's layout and the counters' homes (monitor.h). */
#include "base/monitor.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "base/counters.h"
#include "tern/stats.h"
#include "tern/status.h"

static tn_msg_stats_t tn_mon_msg_own;
static tn_peer_msg_stats_t tn_mon_scratch;

tn_mon_t tn_mon = {
    .msg = &tn_mon_msg_own,
    .peer = (char *)&tn_mon_scratch,
    .stride = 0,
    .ndense = UINT_MAX,
};

#define TN_MON_ALIGN(x) (((x) + TERN_STATS_ALIGN - 1) & ~(size_t)(TERN_STATS_ALIGN - 1))

/* Where each set's struct is inside the process region or a record. */
static struct {
    size_t off[TN_CTR_SET_COUNT_];
    size_t proc_size;
    size_t rec_size;
    int    done;
} tn_mon_layout;

/* The published segment, NULL while none. */
static struct {
    char *proc;
    char *peers;
    char *nodes;
    int   peer_count;
    int   node_count;
    int   world_size;
} tn_mon_seg;

static void tn_mon_lay_out(void)
{
    if (tn_mon_layout.done) {
        return;
    }
    size_t proc = 0, rec = 0;
    for (int s = 0; s < TN_CTR_SET_COUNT_; s++) {
        const tn_ctr_set_desc_t *d = tn_ctr_set_desc((tn_ctr_set_t)s);
        if (d->kind == TN_CTR_PROCESS) {
            tn_mon_layout.off[s] = proc;
            proc = TN_MON_ALIGN(proc + d->size);
        } else {
            tn_mon_layout.off[s] = rec;
            rec += d->size;             /* uint64_t fields: 8-aligned */
        }
    }
    tn_mon_layout.proc_size = proc;
    tn_mon_layout.rec_size = TN_MON_ALIGN(rec);
    tn_mon_layout.done = 1;
}

void *tn_mon_home(tn_ctr_set_t set, void *fallback)
{
    if (tn_mon_seg.proc == NULL || tn_ctr_set_desc(set)->kind != TN_CTR_PROCESS) {
        return fallback;
    }
    return tn_mon_seg.proc + tn_mon_layout.off[set];
}

static char *tn_mon_record(int peer)
{
    if (peer < 0) {
        return NULL;
    }
    if (peer < tn_mon_seg.peer_count) {
        return tn_mon_seg.peers + (size_t)peer * tn_mon_layout.rec_size;
    }
    /* the last node record is for processes of other jobs */
    int node = peer < tn_mon_seg.world_size ? tn_mon.node_of[peer] : tn_mon_seg.node_count - 1;
    if (node < 0 || node >= tn_mon_seg.node_count) {
        node = tn_mon_seg.node_count - 1;
    }
    return tn_mon_seg.nodes + (size_t)node * tn_mon_layout.rec_size;
}

void *tn_mon_home_peer(tn_ctr_set_t set, int peer, void *fallback)
{
    char *rec;
    if (tn_mon_seg.proc == NULL || tn_ctr_set_desc(set)->kind != TN_CTR_PEER ||
        (rec = tn_mon_record(peer)) == NULL) {
        return fallback;
    }
    return rec + tn_mon_layout.off[set];
}

/* MPI_T and TERN_STATS read the matrix through this. */
static const void *tn_mon_peer_block(int peer)
{
    char *rec = tn_mon_record(peer);
    return rec != NULL ? rec + tn_mon_layout.off[TN_CTR_SET_PEER_MSG] : NULL;
}

/* ---- the tables ------------------------------------------------------------ */

/* Append s (and its NUL) at *pos of str (NULL: only count); its offset. */
static uint32_t tn_mon_str(char *str, size_t *pos, const char *s)
{
    size_t n = strlen(s) + 1;
    uint32_t at = (uint32_t)*pos;
    if (str != NULL) {
        memcpy(str + *pos, s, n);
    }
    *pos += n;
    return at;
}

/* The strings and, when str is not NULL, the descriptors and axes that
 * point at them; returns the strings' size. */
static size_t tn_mon_tables(char *str, tern_stats_desc_t *desc, tern_stats_axis_t *axes)
{
    size_t pos = 1;                     /* offset 0: the empty string */
    for (int a = TN_CTR_AXIS_1 + 1; a < TN_CTR_AXIS_COUNT_; a++) {
        int n = tn_ctr_axis_len((tn_ctr_axis_t)a);
        uint32_t first = (uint32_t)pos;
        for (int e = 0; e < n; e++) {
            const char *name = tn_ctr_axis_name((tn_ctr_axis_t)a, e);
            tn_mon_str(str, &pos, name != NULL ? name : "");
        }
        if (axes != NULL) {
            tern_stats_axis_t *x = &axes[a - 1];
            snprintf(x->key, sizeof(x->key), "%s", tn_ctr_axis_key((tn_ctr_axis_t)a));
            x->count = (uint32_t)n;
            x->names = first;
        }
    }
    for (int i = 0; i < tn_ctr_count(); i++) {
        const tn_ctr_desc_t *d = tn_ctr_desc(i);
        uint32_t help = tn_mon_str(str, &pos, d->help);
        uint32_t unit = tn_mon_str(str, &pos, d->unit);
        if (desc == NULL) {
            continue;
        }
        tern_stats_desc_t *o = &desc[i];
        const tn_ctr_set_desc_t *s = tn_ctr_set_desc(d->set);
        snprintf(o->name, sizeof(o->name), "%s", d->name);
        o->help = help;
        o->unit = unit;
        o->offset = (uint32_t)(tn_mon_layout.off[d->set] + d->offset);
        int n = d->n;
        if (d->axis != TN_CTR_AXIS_1 && tn_ctr_axis_len(d->axis) < n) {
            n = tn_ctr_axis_len(d->axis);   /* CALLS: the functions there are */
        }
        o->count = (uint16_t)n;
        o->region = s->kind == TN_CTR_PEER ? TERN_STATS_PEER : TERN_STATS_PROCESS;
        o->cls = (uint8_t)d->cls;
        o->axis = (uint8_t)d->axis;
    }
    return pos;
}

typedef struct {
    size_t desc, axes, str, str_size, proc, peers, nodes, size;
} tn_mon_offs_t;

static void tn_mon_offsets(const tn_mon_shape_t *shape, tn_mon_offs_t *o)
{
    tn_mon_lay_out();
    o->desc = TERN_STATS_HDR_SIZE + sizeof(tern_status_call_t);
    o->axes = TN_MON_ALIGN(o->desc + (size_t)tn_ctr_count() * sizeof(tern_stats_desc_t));
    o->str = TN_MON_ALIGN(o->axes + (TN_CTR_AXIS_COUNT_ - 1) * sizeof(tern_stats_axis_t));
    o->str_size = tn_mon_tables(NULL, NULL, NULL);
    o->proc = TN_MON_ALIGN(o->str + o->str_size);
    o->peers = TN_MON_ALIGN(o->proc + tn_mon_layout.proc_size);
    o->nodes = o->peers + (size_t)shape->peer_count * tn_mon_layout.rec_size;
    o->size = o->nodes + (size_t)shape->node_count * tn_mon_layout.rec_size;
}

size_t tn_mon_seg_size(const tn_mon_shape_t *shape)
{
    tn_mon_offs_t o;
    tn_mon_offsets(shape, &o);
    return o.size;
}

void tn_mon_seg_build(void *mem, size_t size, const tn_mon_shape_t *shape,
                      const int *node_of, int world_size)
{
    tn_mon_offs_t o;
    tn_mon_offsets(shape, &o);
    char *base = mem;
    tern_stats_hdr_t *h = mem;
    tn_mon_tables(base + o.str, (tern_stats_desc_t *)(void *)(base + o.desc),
                  (tern_stats_axis_t *)(void *)(base + o.axes));
    h->version = TERN_STATS_VERSION;
    h->hdr_size = TERN_STATS_HDR_SIZE;
    h->size = size;
    h->desc_off = (uint32_t)o.desc;
    h->desc_count = (uint32_t)tn_ctr_count();
    h->axis_off = (uint32_t)o.axes;
    h->axis_count = TN_CTR_AXIS_COUNT_ - 1;
    h->str_off = (uint32_t)o.str;
    h->str_size = (uint32_t)o.str_size;
    h->proc_off = (uint32_t)o.proc;
    h->proc_size = (uint32_t)tn_mon_layout.proc_size;
    h->peer_off = (uint32_t)o.peers;
    h->peer_count = (uint32_t)shape->peer_count;
    h->peer_rec_size = (uint32_t)tn_mon_layout.rec_size;
    h->node_count = (uint32_t)shape->node_count;
    h->call_off = TERN_STATS_HDR_SIZE;

    tn_mon_seg.proc = base + o.proc;
    tn_mon_seg.peers = base + o.peers;
    tn_mon_seg.nodes = base + o.nodes;
    tn_mon_seg.peer_count = shape->peer_count;
    tn_mon_seg.node_count = shape->node_count;
    tn_mon_seg.world_size = world_size;

    /* what was counted before (MPI_Init's own calls) moves along */
    tn_msg_stats_t *msg = tn_mon_home(TN_CTR_SET_MSG, NULL);
    *msg = *tn_mon.msg;
    tn_mon.msg = msg;
    tn_mon.peer = tn_mon_seg.peers + tn_mon_layout.off[TN_CTR_SET_PEER_MSG];
    tn_mon.stride = tn_mon_layout.rec_size;
    tn_mon.ndense = (unsigned)shape->peer_count;
    tn_mon.node = tn_mon_seg.nodes + tn_mon_layout.off[TN_CTR_SET_PEER_MSG];
    tn_mon.node_of = node_of;
    tn_mon.nworld = (unsigned)world_size;
    tn_mon.other = tn_mon.node + (size_t)(shape->node_count - 1) * tn_mon_layout.rec_size;
    tn_ctr_attach(TN_CTR_SET_MSG, tn_mon.msg);
    tn_ctr_attach_peers(TN_CTR_SET_PEER_MSG, tn_mon_peer_block, world_size, NULL);
}

void tn_mon_seg_running(void *mem)
{
    tern_stats_hdr_t *h = mem;
    __atomic_store_n(&h->state, TERN_STATS_RUNNING, __ATOMIC_RELEASE);
    __atomic_store_n(&h->magic, TERN_STATS_MAGIC, __ATOMIC_RELEASE);
}

void *tn_mon_seg_call_line(void *mem)
{
    return (char *)mem + TERN_STATS_HDR_SIZE;
}

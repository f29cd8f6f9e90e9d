/* The stats segment: the library's layout (src/base/monitor.c) read back
 * through tern-monitor's decoder (tools/tern-monitor/mon_seg.c), counts
 * landing where the tables say, peers past the dense ones summed per node,
 * and the decoder refusing segments whose tables lie. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/counters.h"
#include "base/monitor.h"
#include "mon_seg.h"

static int failures;

#define CHECK(cond, what)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "test_mon_seg:%d: %s: %s\n", __LINE__, what, #cond); \
        }                                                                   \
    } while (0)

static const char *const calls[] = { "MPI_Init", "MPI_Send", "MPI_Recv" };

/* element e's index of axis names of counter c, -1 if none */
static int elem_of(const tn_mon_seg_t *seg, int c, const char *name)
{
    const tn_mon_ctr_t *x = &seg->ctr[c];
    for (uint32_t e = 0; x->axis >= 0 && e < x->count; e++) {
        if (strcmp(seg->axis[x->axis].names[e], name) == 0) {
            return (int)e;
        }
    }
    return -1;
}

static int decodes(const void *buf, size_t len)
{
    tn_mon_seg_t seg;
    char why[128];
    int rc = tn_mon_seg_decode(buf, len, &seg, why, sizeof(why));
    if (rc == 0) {
        tn_mon_seg_free(&seg);
    }
    return rc == 0;
}

/* With a file name: also write the segment there (the fuzz corpus's seed,
 * tests/fuzz/corpus/statseg). */
int main(int argc, char **argv)
{
    /* 6 ranks on 3 nodes, 4 of them with their own record */
    static const int node_of[6] = { 0, 0, 1, 1, 2, 2 };
    tn_ctr_axis_names(TN_CTR_AXIS_CALLS, calls, 3);
    tn_mon_shape_t shape = { .peer_count = 4, .node_count = 4 };
    size_t size = tn_mon_seg_size(&shape);
    char *mem = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    memset(mem, 0, size);
    tn_mon_seg_build(mem, size, &shape, node_of, 6);
    tn_mon_seg_running(mem);

    tn_mon_sent(1, TN_MON_P2P, TN_MON_EAGER, 100);
    tn_mon_sent(1, TN_MON_P2P, TN_MON_RNDV, 100000);
    tn_mon_sent(4, TN_MON_COLL, TN_MON_EAGER, 8);   /* past the dense: node 2 */
    tn_mon_sent(5, TN_MON_COLL, TN_MON_EAGER, 8);
    tn_mon_sent(9, TN_MON_RMA, TN_MON_EAGER, 0);    /* another job's process */
    tn_mon_took(2, 40);
    tn_mon_wrote(40);
    tn_mon_call(1);
    tn_mon_call(1);
    tn_udp_conn_stats_t own;
    tn_udp_conn_stats_t *u4 = tn_mon_home_peer(TN_CTR_SET_UDP_PEER, 4, &own);
    tn_udp_conn_stats_t *u5 = tn_mon_home_peer(TN_CTR_SET_UDP_PEER, 5, &own);
    CHECK(u4 == u5 && u4 != &own, "peers of one node past the dense ones share a record");
    u4->retransmits += 2;
    u5->retransmits += 3;

    tn_mon_seg_t seg;
    char why[128] = "";
    CHECK(tn_mon_seg_decode(mem, size, &seg, why, sizeof(why)) == 0, why);
    CHECK(seg.nctr == tn_ctr_count(), "every counter described");
    int pm = tn_mon_seg_find(&seg, "peer_msgs"), pb = tn_mon_seg_find(&seg, "peer_bytes");
    int ms = tn_mon_seg_find(&seg, "mpi_msgs_sent"), hist = tn_mon_seg_find(&seg, "mpi_size_hist");
    int cl = tn_mon_seg_find(&seg, "mpi_calls"), rt = tn_mon_seg_find(&seg, "udp_peer_retransmits");
    int tk = tn_mon_seg_find(&seg, "peer_coll_took_bytes");
    CHECK(pm >= 0 && pb >= 0 && ms >= 0 && hist >= 0 && cl >= 0 && rt >= 0 && tk >= 0,
          "counters found by name");
    CHECK(tn_mon_seg_value(&seg, pm, 1, 0) == 2 && tn_mon_seg_value(&seg, pb, 1, 0) == 100100,
          "matrix cell of peer 1");
    CHECK(tn_mon_seg_value(&seg, pm, 4 + 2, 1) == 2 && tn_mon_seg_value(&seg, pb, 4 + 2, 1) == 16,
          "peers 4 and 5 counted on node 2's record");
    CHECK(tn_mon_seg_value(&seg, pm, 4 + 3, 2) == 1, "another job's process: the last record");
    CHECK(tn_mon_seg_value(&seg, tk, 2, 0) == 40, "what was taken from peer 2");
    CHECK(tn_mon_seg_value(&seg, rt, 4 + 2, 0) == 5, "udp counters of a node's peers add");
    CHECK(tn_mon_seg_value(&seg, ms, -1, elem_of(&seg, ms, "p2p,rendezvous")) == 1 &&
          tn_mon_seg_value(&seg, ms, -1, elem_of(&seg, ms, "coll,direct")) == 1,
          "totals by class and protocol");
    CHECK(tn_mon_seg_value(&seg, hist, -1, elem_of(&seg, hist, "128")) == 1 &&
          tn_mon_seg_value(&seg, hist, -1, elem_of(&seg, hist, "131072")) == 1 &&
          tn_mon_seg_value(&seg, hist, -1, elem_of(&seg, hist, "8")) == 2 &&
          tn_mon_seg_value(&seg, hist, -1, elem_of(&seg, hist, "0")) == 1,
          "size buckets: up to their bound");
    CHECK(seg.ctr[cl].count == 3 && tn_mon_seg_value(&seg, cl, -1, elem_of(&seg, cl, "MPI_Send")) == 2,
          "calls by function, as many as named");
    CHECK(tn_mon_bucket(1) == 1 && tn_mon_bucket(2) == 2 && tn_mon_bucket(3) == 3 &&
          tn_mon_bucket(4) == 3 && tn_mon_bucket(5) == 4 && tn_mon_bucket(~0ull) == TN_CTR_SIZES - 1,
          "bucket bounds");
    tn_mon_seg_free(&seg);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        CHECK(f != NULL && fwrite(mem, 1, size, f) == size && fclose(f) == 0, "seed written");
    }

    /* lies the decoder must refuse, each on a fresh copy */
    char *bad = malloc(size);
    tern_stats_hdr_t *h = (tern_stats_hdr_t *)(void *)bad;
#define REFUSED(what, change)                                               \
    do {                                                                    \
        memcpy(bad, mem, size);                                             \
        change;                                                             \
        CHECK(!decodes(bad, size), what);                                   \
    } while (0)
    tern_stats_desc_t *d;
    REFUSED("bad magic", h->magic ^= 1);
    REFUSED("another version", h->version = 2);
    REFUSED("size beyond the file", h->size = size + 8);
    memcpy(bad, mem, size);
    CHECK(!decodes(bad, size / 2), "a copy shorter than the segment says");
    REFUSED("descriptors past the end", h->desc_off = (uint32_t)size - 8);
    REFUSED("too many descriptors", h->desc_count = 1u << 30);
    REFUSED("records past the end", h->peer_count = 1u << 19);
    REFUSED("unterminated strings", bad[h->str_off + h->str_size - 1] = 'x');
    d = (tern_stats_desc_t *)(void *)(bad + h->desc_off);
    REFUSED("a name with a capital", d[0].name[0] = 'A');
    REFUSED("an unterminated name", memset(d[0].name, 'a', sizeof(d[0].name)));
    REFUSED("a counter outside its region", d[0].offset = h->proc_size);
    REFUSED("a misaligned counter", d[0].offset += 4);
    REFUSED("an axis that is not there", d[pm].axis = (uint8_t)(h->axis_count + 1));
    REFUSED("more elements than its axis", d[pm].count = 200);
    REFUSED("help outside the strings", d[0].help = h->str_size);
    tern_stats_axis_t *a = (tern_stats_axis_t *)(void *)(bad + h->axis_off);
    REFUSED("axis names past the strings", a[0].names = h->str_size - 1; a[0].count = 4);
    REFUSED("unterminated axis key", memset(a[0].key, 'r', sizeof(a[0].key)));
    REFUSED("call line outside", h->call_off = (uint32_t)size - 8);
    memcpy(bad, mem, size);
    memset(h->job, 'x', sizeof(h->job));
    memcpy(h->host, "abc\ndef", 8);
    int rc = tn_mon_seg_decode(bad, size, &seg, why, sizeof(why));
    CHECK(rc == 0, why);
    CHECK(rc == 0 &&
          strlen(seg.hdr.job) == sizeof(h->job) - 1 && seg.hdr.host[3] == '?',
          "header texts terminated and printable");
    tn_mon_seg_free(&seg);
    free(bad);
    free(mem);
    if (failures == 0) {
        printf("test_mon_seg: ok\n");
    }
    return failures != 0;
}

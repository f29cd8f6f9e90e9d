/* tern-trace's matcher (tools/tern-trace/trace_match.c) on a synthetic
 * 3-rank job whose every message is known: blocking, nonblocking and
 * synchronous sends, receives from any source or with any tag resolved
 * through STATUS and DONE, two wildcard receives posted before a specific
 * one (MPI's order decides who gets what), a request id made again,
 * persistent sends, a cancelled receive, a send to MPI_PROC_NULL, a send
 * nobody received, a wildcard receive that never completed, collectives
 * (one with a member missing); then the same job with a rank's file cut.
 * The report's numbers (trace_stats.c) and the critical path
 * (trace_cpath.c) are checked on it too, and on a job with a neighbourhood
 * collective, where a member waits for its in-neighbours only.  --corpus
 * DIR writes the job as seeds of fuzz_tracejob. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_cpath.h"
#include "trace_load.h"
#include "trace_match.h"
#include "trace_stats.h"
#include "trace_synth.h"

static int fails;
#define CHECK(c)                                                         \
    do {                                                                 \
        if (!(c)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            fails++;                                                     \
        }                                                                \
    } while (0)

static const int32_t W3[3] = { 0, 1, 2 };
enum { B = TERN_TRACE_BLOCKING, NB = TERN_TRACE_NONBLOCKING, P = TERN_TRACE_PERSISTENT };
#define ANY TERN_TRACE_ANY

static void begin(sy_t *w, uint32_t r)
{
    sy_init(w, r, 3, 0, 1, "job-m", 1000000, 0);
    sy_comm(w, 1, 0, r, W3, 3, NULL, 0);
    sy_call(w, SY_INIT, 0, 1000);
    sy_end(w);
}

static void rank0(sy_t *w)
{
    begin(w, 0);
    sy_call(w, SY_SEND, 2000, 2100);                       /* 1 */
    sy_send(w, 1, 1, 5, 100, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_SEND, 2200, 2300);                       /* 2 */
    sy_send(w, 1, 1, 5, 101, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_ISEND, 2400, 2450);                      /* 3 */
    sy_send(w, 1, 1, 6, 200, TERN_TRACE_STD, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xA);
    sy_end(w);
    sy_call(w, SY_WAIT, 2500, 2600);                       /* 4 */
    sy_done(w, 0xA, -1, 0, 0, 0);
    sy_end(w);
    sy_call(w, SY_SSEND, 2700, 5000);                      /* 5 */
    sy_send(w, 1, 2, 1, 8, TERN_TRACE_SYNC, B);
    sy_end(w);
    sy_call(w, SY_ISEND, 5100, 5150);                      /* 6 */
    sy_send(w, 1, 1, 7, 10, TERN_TRACE_STD, NB);
    sy_req(w, TERN_TRACE_I_REQ, 42);
    sy_end(w);
    sy_call(w, SY_WAIT, 5200, 5300);                       /* 7 */
    sy_done(w, 42, -1, 0, 0, 0);
    sy_end(w);
    sy_call(w, SY_ISEND, 5400, 5450);                      /* 8: id 42 made again */
    sy_send(w, 1, 1, 7, 11, TERN_TRACE_STD, NB);
    sy_req(w, TERN_TRACE_I_REQ, 42);
    sy_end(w);
    sy_call(w, SY_WAIT, 5500, 5600);                       /* 9 */
    sy_done(w, 42, -1, 0, 0, 0);
    sy_end(w);
    sy_call(w, SY_SEND, 5700, 5800);                       /* 10: never received */
    sy_send(w, 1, 2, 3, 30, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_SEND, 5900, 5950);                       /* 11: to MPI_PROC_NULL */
    sy_send(w, 1, TERN_TRACE_PROC_NULL, 3, 30, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_ALLREDUCE, 6000, 7000);                  /* 12 */
    sy_coll(w, 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 0, 64, 64, B);
    sy_end(w);
    sy_call(w, SY_IBARRIER, 7100, 7150);                   /* 13 */
    sy_coll(w, 1, TERN_TRACE_BARRIER, TERN_TRACE_ALGO_UNKNOWN, TERN_TRACE_NONE, 1, 0, 0, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xB);
    sy_end(w);
    sy_call(w, SY_WAIT, 7200, 7300);                       /* 14 */
    sy_done(w, 0xB, -1, 0, 0, 0);
    sy_end(w);
    sy_call(w, SY_FINALIZE, 8000, 8100);                   /* 15 */
    sy_end(w);
}

static void rank1(sy_t *w)
{
    begin(w, 1);
    sy_call(w, SY_RECV, 1500, 2150);                       /* 1: any tag */
    sy_recv(w, 1, 0, ANY, 1000, B);
    sy_status(w, 0, 5, 100);
    sy_end(w);
    sy_call(w, SY_RECV, 2200, 2460);                       /* 2: any source */
    sy_recv(w, 1, ANY, 6, 1000, B);
    sy_status(w, 0, 6, 200);
    sy_end(w);
    sy_call(w, SY_RECV, 2470, 2480);                       /* 3 */
    sy_recv(w, 1, 0, 5, 1000, B);
    sy_status(w, 0, 5, 101);
    sy_end(w);
    sy_call(w, SY_IRECV, 2490, 2495);                      /* 4: any, any: first posted */
    sy_recv(w, 1, ANY, ANY, 1000, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xC);
    sy_end(w);
    sy_call(w, SY_IRECV, 2496, 2497);                      /* 5 */
    sy_recv(w, 1, 0, 7, 1000, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xD);
    sy_end(w);
    sy_call(w, SY_WAITALL, 2498, 5600);                    /* 6 */
    sy_done(w, 0xD, 0, 7, 11, 0);
    sy_done(w, 0xC, 0, 7, 10, 0);
    sy_end(w);
    sy_call(w, SY_IRECV, 5700, 5710);                      /* 7: cancelled */
    sy_recv(w, 1, 0, 77, 1000, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xE);
    sy_end(w);
    sy_call(w, SY_WAIT, 5720, 5730);                       /* 8 */
    sy_done(w, 0xE, 0, 77, 0, 1);
    sy_end(w);
    sy_call(w, SY_ALLREDUCE, 5800, 7000);                  /* 9 */
    sy_coll(w, 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 0, 64, 64, B);
    sy_end(w);
    sy_call(w, SY_IBARRIER, 7100, 7110);                   /* 10 */
    sy_coll(w, 1, TERN_TRACE_BARRIER, TERN_TRACE_ALGO_UNKNOWN, TERN_TRACE_NONE, 1, 0, 0, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0xF);
    sy_end(w);
    sy_call(w, SY_WAIT, 7120, 7300);                       /* 11 */
    sy_done(w, 0xF, -1, 0, 0, 0);
    sy_end(w);
    sy_call(w, SY_SEND_INIT, 7400, 7410);                  /* 12 */
    sy_send(w, 1, 2, 9, 16, TERN_TRACE_STD, P);
    sy_req(w, TERN_TRACE_I_REQ, 0x20);
    sy_end(w);
    for (int k = 0; k < 2; k++) {                          /* 13, 15: start; 14, 16: wait */
        sy_call(w, SY_START, 7420 + 40 * k, 7430 + 40 * k);
        sy_req(w, TERN_TRACE_I_START, 0x20);
        sy_end(w);
        sy_call(w, SY_WAIT, 7440 + 40 * k, 7450 + 40 * k);
        sy_done(w, 0x20, -1, 0, 0, 0);
        sy_end(w);
    }
    sy_call(w, SY_FINALIZE, 8000, 8200);                   /* 17 */
    sy_end(w);
}

static void rank2(sy_t *w)
{
    begin(w, 2);
    sy_call(w, SY_IRECV, 1500, 1510);                      /* 1 */
    sy_recv(w, 1, ANY, 1, 1000, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0x10);
    sy_end(w);
    sy_call(w, SY_WAIT, 1520, 4990);                       /* 2 */
    sy_done(w, 0x10, 0, 1, 8, 0);
    sy_end(w);
    sy_call(w, SY_IRECV, 5000, 5010);                      /* 3: never completes */
    sy_recv(w, 1, ANY, 99, 1000, NB);
    sy_req(w, TERN_TRACE_I_REQ, 0x11);
    sy_end(w);
    sy_call(w, SY_ALLREDUCE, 6500, 7000);                  /* 4: the last to enter */
    sy_coll(w, 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 0, 64, 64, B);
    sy_end(w);
    for (int k = 0; k < 2; k++) {                          /* 5, 6 */
        sy_call(w, SY_RECV, 7400 + 60 * k, 7450 + 50 * k);
        sy_recv(w, 1, 1, 9, 16, B);
        sy_status(w, 1, 9, 16);
        sy_end(w);
    }
    sy_call(w, SY_FINALIZE, 8050, 8300);                   /* 7 */
    sy_end(w);
}

static int load(tl_job_t *j, sy_t *f, size_t cut1)
{
    tl_job_init(j, NULL);
    for (int r = 0; r < 3; r++) {
        if (tl_job_add_stream(j, sy_stream(&f[r], r == 1 ? cut1 : SIZE_MAX), "f") < 0) {
            return -1;
        }
    }
    return tl_job_finish(j);
}

static const tm_msg_t *find(const tm_match_t *m, uint32_t src, uint32_t dst, uint32_t send_rec)
{
    for (size_t i = 0; i < m->nmsgs; i++) {
        if (m->msgs[i].src == src && m->msgs[i].dst == dst && m->msgs[i].send_rec == send_rec) {
            return &m->msgs[i];
        }
    }
    return NULL;
}

/* A message: sender's record and its completion, receiver's posting and
 * completion records, bytes, tag. */
static void want(const tm_match_t *m, uint32_t src, uint32_t srec, uint32_t sdone, uint32_t dst,
                 uint32_t rrec, uint32_t rdone, uint64_t bytes, int32_t tag)
{
    const tm_msg_t *g = find(m, src, dst, srec);
    CHECK(g != NULL);
    if (g == NULL) {
        fprintf(stderr, "  no message %u:%u -> %u\n", src, srec, dst);
        return;
    }
    if (g->send_done != sdone || g->recv_rec != rrec || g->recv_done != rdone ||
        g->bytes != bytes || g->tag != tag) {
        fprintf(stderr, "  message %u:%u -> %u: send_done %u recv %u/%u bytes %llu tag %d\n", src,
                srec, dst, g->send_done, g->recv_rec, g->recv_done, (unsigned long long)g->bytes,
                g->tag);
        fails++;
    }
}

static void whole(sy_t *f)
{
    tl_job_t j;
    tm_match_t m;
    CHECK(load(&j, f, SIZE_MAX) == 0);
    CHECK(tm_match(&j, &m) == 0);
    CHECK(m.nmsgs == 8);
    want(&m, 0, 1, 1, 1, 1, 1, 100, 5);                    /* any tag got the first */
    want(&m, 0, 2, 2, 1, 3, 3, 101, 5);
    want(&m, 0, 3, 4, 1, 2, 2, 200, 6);                    /* any source */
    want(&m, 0, 5, 5, 2, 1, 2, 8, 1);                      /* Ssend to a wildcard Irecv */
    want(&m, 0, 6, 7, 1, 4, 6, 10, 7);                     /* the any-any Irecv, posted first */
    want(&m, 0, 8, 9, 1, 5, 6, 11, 7);                     /* id 42 again */
    want(&m, 1, 13, 14, 2, 5, 5, 16, 9);                   /* persistent, first start */
    want(&m, 1, 15, 16, 2, 6, 6, 16, 9);
    const tm_msg_t *ss = find(&m, 0, 2, 5);
    CHECK(ss != NULL && ss->mode == TERN_TRACE_SYNC && ss->t_send == 2700);
    /* left over: the send nobody received, the receive that never completed */
    CHECK(m.nlone_sends == 1 && m.lone_sends[0].rank == 0 && m.lone_sends[0].rec == 10 &&
          m.lone_sends[0].peer == 2 && m.lone_sends[0].why == TM_LONE_CUT);
    CHECK(m.nlone_recvs == 1 && m.lone_recvs[0].rank == 2 && m.lone_recvs[0].rec == 3 &&
          m.lone_recvs[0].peer == -1 && m.lone_recvs[0].tag == 99 &&
          m.lone_recvs[0].why == TM_LONE_UNRESOLVED);
    CHECK(m.cancelled == 1);
    /* collectives: the allreduce of all three, the barrier rank 2 never joined */
    CHECK(m.ncolls == 2);
    if (m.ncolls == 2) {
        CHECK(m.colls[0].kind == TERN_TRACE_ALLREDUCE && m.colls[0].seq == 0 && m.colls[0].n == 3 &&
              strcmp(tl_algo_name(&j, m.colls[0].algo), "allreduce:ring") == 0);
        CHECK(m.colls[1].kind == TERN_TRACE_BARRIER && m.colls[1].n == 2 && !m.colls[1].mixed);
        const tm_member_t *b0 = &m.members[m.colls[1].first];
        CHECK(b0->rank == 0 && b0->rec == 13 && b0->done == 14);
        const tm_member_t *a2 = &m.members[m.colls[0].first + 2];
        CHECK(a2->rank == 2 && a2->rec == 4 && a2->done == 4);
    }

    /* the report's numbers */
    ts_stats_t s;
    CHECK(ts_compute(&j, &m, &s) == 0);
    CHECK(s.npairs == 3);
    if (s.npairs == 3) {
        CHECK(s.pairs[0].src == 0 && s.pairs[0].dst == 1 && s.pairs[0].bytes == 422 &&
              s.pairs[0].msgs == 5);
        CHECK(s.pairs[1].src == 0 && s.pairs[1].dst == 2 && s.pairs[1].bytes == 8);
        CHECK(s.pairs[2].src == 1 && s.pairs[2].dst == 2 && s.pairs[2].bytes == 32 &&
              s.pairs[2].msgs == 2);
    }
    /* sizes: [8, 16) 8 10 11 | [16, 32) 16 16 30 (lone) | [64, 128) 100 101 | 200 */
    CHECK(s.p2p_hist[ts_bin(8)] == 3 && s.p2p_hist[ts_bin(15)] == 3 && s.p2p_hist[ts_bin(16)] == 3 &&
          s.p2p_hist[ts_bin(100)] == 2 && s.p2p_hist[ts_bin(200)] == 1);
    CHECK(ts_bin(0) == 0 && ts_bin(1) == 1 && ts_bin(16) == 5 && ts_bin_low(5) == 16);
    CHECK(s.coll_instances == 2 && s.coll_partial == 1);
    CHECK(s.ranks[0].mpi > 0 && s.ranks[0].msgs_sent == 6 && s.ranks[2].msgs_recvd == 3);
    CHECK(s.ranks[1].coll_calls == 2 && s.ranks[1].coll_sent == 64);
    CHECK(s.ncalls > 0 && s.calls[0].total >= s.calls[s.ncalls - 1].total);

    /* the critical path: from rank 2's MPI_Finalize (entered last, 8050)
     * back to the start; its last hop is rank 1's second persistent send
     * (started at 7460) into rank 2's receive that ended at 7500 */
    tc_model_t mod;
    tc_model_default(&mod);
    tc_path_t p;
    CHECK(tc_path(&j, &m, &mod, &p) == 0);
    CHECK(p.finalize && p.end_rank == 2 && p.end == 8050 && p.start == 0 && !p.cut);
    CHECK(p.compute + p.mpi + p.transfer == p.end - p.start);
    CHECK(p.nhops >= 2 && p.hops[0].from == 1 && p.hops[0].to == 2 && p.hops[0].t0 == 7460 &&
          p.hops[0].t1 == 7500);
    CHECK(p.hops_recv >= 1 && p.hops_coll >= 1);
    int64_t sum = 0;
    for (uint32_t r = 0; r < 3; r++) {
        sum += p.rank_compute[r] + p.rank_mpi[r] + p.rank_transfer[r];
    }
    CHECK(sum == p.end - p.start);
    /* rank 2 computed from 7500 to its MPI_Finalize at 8050; the columns
     * (of 8300 / 240 ns) say where the path was */
    CHECK(p.rank_compute[2] >= 550);
    CHECK(p.cols[(int)(7800 / (8300.0 / TC_COLS))] == 2 &&
          p.cols[(int)(7440 / (8300.0 / TC_COLS))] == 1 &&
          p.cols[(int)(8200 / (8300.0 / TC_COLS))] == TL_NONE);
    tc_free(&p);
    /* a model where messages take long: the receive at 7450..7500 did not
     * wait for a send that could only arrive after it ended */
    mod.latency_ns = 1e6;
    CHECK(tc_path(&j, &m, &mod, &p) == 0 && p.compute + p.mpi + p.transfer == p.end - p.start);
    tc_free(&p);
    ts_free(&s);
    tm_free(&m);
    tl_job_free(&j);
}

/* Rank 1's file cut inside its fourth record (after Init and two
 * receives): rank 0's later messages to it are unmatched sends, and
 * nothing fails. */
static void cut(sy_t *f)
{
    /* the largest prefix of rank 1's file that holds 3 records */
    tl_job_t j;
    size_t at = 0;
    for (size_t k = f[1].n; k > 4 && at == 0; k -= 4) {
        CHECK(load(&j, f, k) == 0);
        if (j.ranks[1].nrecs == 3) {
            at = k - 2;                            /* inside the fourth record */
        }
        tl_job_free(&j);
    }
    CHECK(at != 0);
    CHECK(load(&j, f, at) == 0 && j.ranks[1].warning != NULL && j.ranks[1].nrecs == 3);
    tm_match_t m;
    CHECK(tm_match(&j, &m) == 0);
    /* 0->1: 100 (any tag) and 200 (any source) matched, 101, 10, 11 lone */
    CHECK(find(&m, 0, 1, 1) != NULL && find(&m, 0, 1, 3) != NULL);
    CHECK(find(&m, 0, 1, 2) == NULL && find(&m, 0, 1, 6) == NULL);
    CHECK(find(&m, 0, 2, 5) != NULL);                      /* rank 2 is whole */
    CHECK(m.nmsgs == 3);
    CHECK(m.nlone_sends == 4);                             /* 101, 10, 11, the lost 30 */
    CHECK(m.nlone_recvs == 3);         /* rank 2: the wildcard, the two persistent receives */
    tc_model_t mod;
    tc_model_default(&mod);
    tc_path_t p;
    CHECK(tc_path(&j, &m, &mod, &p) == 0 && p.compute + p.mpi + p.transfer == p.end - p.start);
    tc_free(&p);
    tm_free(&m);
    tl_job_free(&j);
}

/* Seeds of fuzz_tracejob (tests/fuzz/corpus/tracejob): this job packed as
 * the harness reads it, a flags byte then each file with its length. */
static int corpus(const sy_t *f, const char *dir)
{
    static const struct {
        const char *name;
        uint8_t     flags;
        size_t      cut1;
    } seeds[] = { { "synthetic_whole", 1, SIZE_MAX }, { "synthetic_model", 2, SIZE_MAX },
                  { "synthetic_cut", 0, 900 } };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
        FILE *o = fopen(path, "wb");
        if (o == NULL) {
            perror(path);
            return 1;
        }
        fputc(seeds[i].flags, o);
        for (int r = 0; r < 3; r++) {
            uint32_t n = (uint32_t)(r == 1 && seeds[i].cut1 < f[r].n ? seeds[i].cut1 : f[r].n);
            fwrite(&n, sizeof(n), 1, o);
            fwrite(f[r].b, 1, n, o);
        }
        if (fclose(o) != 0) {
            return 1;
        }
    }
    return 0;
}

/* Three ranks in a neighbourhood alltoall, each with one in-neighbour:
 * 0 <- 1 <- 2 <- 0.  Rank 0 is in it from 50 to 300 us; rank 1 enters at
 * 100 us, rank 2 last at 250 us; rank 0's MPI_Finalize is the job's end.
 * Rank 0 waited for rank 1, its in-neighbour, not for rank 2 that entered
 * last: the path's last hop is 1 -> 0 from 100 us.  Without the
 * neighbour lists (lists = 0, an older trace) it is taken as a collective
 * of all: 2 -> 0 from 250 us. */
static void nbr_job(int lists)
{
    static const uint64_t t[3][4] = {
        { 50000, 300000, 600000, 600100 }, { 100000, 150000, 200000, 200100 },
        { 250000, 260000, 270000, 270100 },
    };
    sy_t f[3];
    for (uint32_t r = 0; r < 3; r++) {
        begin(&f[r], r);
        int32_t nb[2] = { (int32_t)(r + 1) % 3, (int32_t)(r + 2) % 3 };   /* in, out */
        sy_call(&f[r], SY_NBR_ALLTOALL, t[r][0], t[r][1]);
        sy_coll(&f[r], 1, TERN_TRACE_NBR_ALLTOALL, TERN_TRACE_ALGO_UNKNOWN, TERN_TRACE_NONE, 0, 8, 8, B);
        if (lists) {
            sy_nbrs(&f[r], 1, 1, 1, nb);
        }
        sy_end(&f[r]);
        sy_call(&f[r], SY_FINALIZE, t[r][2], t[r][3]);
        sy_end(&f[r]);
    }
    tl_job_t j;
    tm_match_t m;
    CHECK(load(&j, f, SIZE_MAX) == 0);
    CHECK(tm_match(&j, &m) == 0 && m.ncolls == 1 && m.colls[0].n == 3);
    tc_model_t mod;
    tc_model_default(&mod);
    tc_path_t p;
    CHECK(tc_path(&j, &m, &mod, &p) == 0);
    CHECK(p.end_rank == 0 && p.end == 600000 && p.compute + p.mpi + p.transfer == p.end - p.start);
    CHECK(p.nhops >= 1 && p.hops[0].to == 0 && p.hops[0].from == (lists ? 1u : 2u) &&
          p.hops[0].t0 == (lists ? 100000 : 250000));
    tc_free(&p);
    tm_free(&m);
    tl_job_free(&j);
    for (int r = 0; r < 3; r++) {
        sy_free(&f[r]);
    }
}

int main(int argc, char **argv)
{
    sy_t f[3];
    rank0(&f[0]);
    rank1(&f[1]);
    rank2(&f[2]);
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        int rc = corpus(f, argv[2]);
        for (int r = 0; r < 3; r++) {
            sy_free(&f[r]);
        }
        return rc;
    }
    whole(f);
    cut(f);
    nbr_job(1);
    nbr_job(0);
    for (int r = 0; r < 3; r++) {
        sy_free(&f[r]);
    }
    if (fails) {
        fprintf(stderr, "test_trace_match: %d checks failed\n", fails);
        return 1;
    }
    printf("test_trace_match: ok\n");
    return 0;
}

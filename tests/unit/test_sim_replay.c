/* tern-sim's trace replay (tools/tern-sim/sim_replay*.c) on a synthetic
 * 2-rank trace whose simulated time is worked out by hand: two ranks on
 * two nodes of a one-switch fabric (path latency 2 x 1000 ns, 1 byte/ns),
 * an eager ping-pong of 1000 bytes, a rendezvous ping-pong of 100000
 * bytes (above eager = 65536: it waits for the receive's posting), an
 * allreduce:ring of 2000 bytes (two rounds of 1000 bytes each way), with
 * the compute gaps the trace records.  The sum is in the comments of
 * main().  Then the same job with both ranks on one node (shared memory,
 * no fabric), a program with a cycle refused, and a 3-rank broadcast
 * replayed as one hardware multicast (bcast_mcast) and as the binomial
 * model, by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_replay.h"
#include "sim_run.h"
#include "trace_synth.h"

static int fails;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            fails++;                                                              \
        }                                                                         \
    } while (0)

static const int32_t W2[2] = {0, 1};
static double calls[2];    /* the allreduce's simulated time, rank 0 and 1 */
enum { B = TERN_TRACE_BLOCKING };

static void rank0(sy_t *w, uint32_t node, uint32_t nnodes)
{
    sy_init(w, 0, 2, node, nnodes, "job-r", 1000000, 0);
    sy_comm(w, 1, 0, 0, W2, 2, NULL, 0);
    sy_call(w, SY_INIT, 0, 1000);
    sy_end(w);
    sy_call(w, SY_SEND, 2000, 2100);
    sy_send(w, 1, 1, 0, 1000, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_RECV, 2100, 9000);
    sy_recv(w, 1, 1, 0, 1000, B);
    sy_status(w, 1, 0, 1000);
    sy_end(w);
    sy_call(w, SY_SEND, 9500, 20000);
    sy_send(w, 1, 1, 0, 100000, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_RECV, 20000, 40000);
    sy_recv(w, 1, 1, 0, 100000, B);
    sy_status(w, 1, 0, 100000);
    sy_end(w);
    sy_call(w, SY_ALLREDUCE, 40000, 50000);
    sy_coll(w, 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 1, 2000, 2000, B);
    sy_end(w);
    sy_call(w, SY_FINALIZE, 50000, 50100);
    sy_end(w);
}

static void rank1(sy_t *w, uint32_t node, uint32_t nnodes)
{
    sy_init(w, 1, 2, node, nnodes, "job-r", 1000000, 0);
    sy_comm(w, 1, 0, 1, W2, 2, NULL, 0);
    sy_call(w, SY_INIT, 0, 1000);
    sy_end(w);
    sy_call(w, SY_RECV, 1200, 5000);
    sy_recv(w, 1, 0, 0, 1000, B);
    sy_status(w, 0, 0, 1000);
    sy_end(w);
    sy_call(w, SY_SEND, 5300, 5400);
    sy_send(w, 1, 0, 0, 1000, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_RECV, 5400, 20000);
    sy_recv(w, 1, 0, 0, 100000, B);
    sy_status(w, 0, 0, 100000);
    sy_end(w);
    sy_call(w, SY_SEND, 20300, 40000);
    sy_send(w, 1, 0, 0, 100000, TERN_TRACE_STD, B);
    sy_end(w);
    sy_call(w, SY_ALLREDUCE, 40050, 50000);
    sy_coll(w, 1, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 1, 2000, 2000, B);
    sy_end(w);
    sy_call(w, SY_FINALIZE, 50000, 50100);
    sy_end(w);
}

/* Writes the job into a fresh directory; nodes: 2 (one rank each) or 1. */
static void write_job(const char *dir, int nodes)
{
    sy_t w;
    char path[512];
    rank0(&w, 0, (uint32_t)nodes);
    snprintf(path, sizeof(path), "%s/r0.ttr", dir);
    CHECK(sy_write(&w, path) == 0);
    sy_free(&w);
    rank1(&w, nodes == 2 ? 1 : 0, (uint32_t)nodes);
    snprintf(path, sizeof(path), "%s/r1.ttr", dir);
    CHECK(sy_write(&w, path) == 0);
    sy_free(&w);
}

/* Replays dir on a one-switch fat-tree (1 us per link, 8 Gbit/s); the
 * per-rank ends in end[2] and the program's message times in msg[4]. */
static uint64_t planned;   /* collectives the last replay planned */

static double replay(const char *dir, double *end, double *msg, const char *plan)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t run;
    static tn_sim_prog_t prog;
    char why[512] = "";
    tn_sim_conf_defaults(&c);
    const char *kv[][2] = {{"topo", "fattree"}, {"k", "2"}, {"n", "1"}, {"lat", "1000"}, {"bw", "8"},
                           {"eager", "65536"}, {"shm_lat", "100"}, {"shm_bw", "80"},
                           {"coll_plan", plan != NULL ? plan : "off"}};
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        CHECK(tn_sim_conf_set(&c, kv[i][0], kv[i][1], why, sizeof(why)) == TN_SIM_OK);
    }
    tn_sim_replay_conf_t rc;
    tn_sim_replay_conf(&c, &rc);
    if (tn_sim_replay_from_trace(&prog, dir, &rc, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "replay: %s\n", why);
        fails++;
        return -1;
    }
    c.job[0].ranks = tn_sim_prog_slots(&prog, c.replay_slots);
    double job = -1;
    if (tn_sim_setup(&run, &c, NULL, 0, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "setup: %s\n", why);
        fails++;
        tn_sim_prog_free(&prog);
        return -1;
    }
    run.prog = &prog;
    if (tn_sim_run_once(&run, &c, -1, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "run: %s\n", why);
        fails++;
    } else {
        job = 0;
        end[0] = end[1] = 0;
        for (int32_t i = 0; i < prog.n; i++) {
            int32_t r = prog.dst[i] >= 0 ? prog.dst[i] : prog.src[i];
            end[r] = fmax(end[r], prog.t_done[i]);
            job = fmax(job, prog.t_done[i]);
        }
        CHECK(prog.nmsg == 4);
        for (size_t k = 0; k < prog.nmsg && k < 4; k++) {
            msg[k] = prog.t_done[prog.m_end[k]] - prog.t_done[prog.m_begin[k]];
        }
        CHECK(prog.ncall == 2);
        for (size_t k = 0; k < prog.ncall && k < 2; k++) {
            calls[k] = prog.t_done[prog.c_end[k]] - prog.t_done[prog.c_begin[k]];
        }
        /* the trace's allreduce: rank 0 40000 -> 50000, rank 1 40050 -> 50000 */
        CHECK(prog.ncall == 2 && prog.c_trace[0] == 10000 && prog.c_trace[1] == 9950);
        CHECK(prog.skipped_msgs == 0 && prog.fallback_colls == 0 && prog.opaque_colls == 0);
        CHECK(prog.plan_failed == 0);
        planned = prog.planned_colls;
        CHECK(prog.trace_end[0] == 50000 && prog.trace_end[1] == 50000);
        CHECK(tn_sim_replay_out(&prog, dir, NULL, why, sizeof(why)) == 0);
    }
    tn_sim_run_clear(&run);
    tn_sim_teardown(&run);
    tn_sim_prog_free(&prog);
    return job;
}

/* Three ranks on three nodes: Init (0 - 1000 ns), a broadcast of 10000
 * bytes from rank 0 entered at 2000, Finalize. */
static void write_bcast(const char *dir)
{
    static const int32_t W3[3] = {0, 1, 2};
    for (uint32_t r = 0; r < 3; r++) {
        sy_t w;
        char path[512];
        sy_init(&w, r, 3, r, 3, "job-b", 1000000, 0);
        sy_comm(&w, 1, 0, r, W3, 3, NULL, 0);
        sy_call(&w, SY_INIT, 0, 1000);
        sy_end(&w);
        sy_call(&w, SY_BCAST, 2000, 30000);
        sy_coll(&w, 1, TERN_TRACE_BCAST, 2, 0, 1, 10000, 10000, B);
        sy_end(&w);
        sy_call(&w, SY_FINALIZE, 30000, 30100);
        sy_end(&w);
        snprintf(path, sizeof(path), "%s/b%u.ttr", dir, r);
        CHECK(sy_write(&w, path) == 0);
        sy_free(&w);
    }
}

/* The same broadcast as a VEF file (no root recorded: member 0). */
static const char bcast_vef[] = "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\n"
                                "G0 0 0 0 10000 10000 0 2000 -1\n"
                                "G0 0 0 1 10000 10000 0 2000 -1\n"
                                "G0 0 0 2 10000 10000 0 2000 -1\n";

/* Replays the broadcast job (a trace directory, or a .vef file) on one
 * switch (4 endpoints, 1 us links, 1 byte/ns), the models only;
 * bcast_mcast on or off.  The job's end, and in *mc_p the broadcasts
 * made multicasts. */
static double replay_bcast(const char *dir, int mcast, const char *cpu_o, uint64_t *mc_p)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t run;
    static tn_sim_prog_t prog;
    char why[512] = "";
    tn_sim_conf_defaults(&c);
    const char *kv[][2] = {{"topo", "fattree"}, {"k", "4"}, {"n", "1"}, {"lat", "1000"}, {"bw", "8"},
                           {"coll_plan", "off"}, {"bcast_mcast", mcast ? "on" : "off"}, {"cpu_o", cpu_o}};
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        CHECK(tn_sim_conf_set(&c, kv[i][0], kv[i][1], why, sizeof(why)) == TN_SIM_OK);
    }
    tn_sim_replay_conf_t rc;
    tn_sim_replay_conf(&c, &rc);
    size_t dl = strlen(dir);
    tn_sim_status_t st = dl > 4 && strcmp(dir + dl - 4, ".vef") == 0
                             ? tn_sim_replay_from_vef(&prog, dir, &rc, why, sizeof(why))
                             : tn_sim_replay_from_trace(&prog, dir, &rc, why, sizeof(why));
    if (st != TN_SIM_OK) {
        fprintf(stderr, "replay: %s\n", why);
        fails++;
        return -1;
    }
    c.job[0].ranks = tn_sim_prog_slots(&prog, c.replay_slots);
    double job = -1;
    if (tn_sim_setup(&run, &c, NULL, 0, why, sizeof(why)) == TN_SIM_OK) {
        run.prog = &prog;
        if (tn_sim_run_once(&run, &c, -1, why, sizeof(why)) == TN_SIM_OK) {
            job = 0;
            for (int32_t i = 0; i < prog.n; i++) {
                job = fmax(job, prog.t_done[i]);
            }
            *mc_p = prog.mcast_colls;
            CHECK(prog.opaque_colls == 0 && prog.fallback_colls == 0);
        }
        tn_sim_run_clear(&run);
        tn_sim_teardown(&run);
    }
    if (job < 0) {
        fprintf(stderr, "run: %s\n", why);
        fails++;
    }
    tn_sim_prog_free(&prog);
    return job;
}

static void sorted4(double *m)
{
    for (int i = 0; i < 4; i++) {
        for (int k = i + 1; k < 4; k++) {
            if (m[k] < m[i]) {
                double t = m[i];
                m[i] = m[k];
                m[k] = t;
            }
        }
    }
}

/* argv[1]: tern-coll-plan, to replay the allreduce with Tern's own ring
 * as well as with the model of it. */
int main(int argc, char **argv)
{
    char dir[] = "/tmp/tn_replay_XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    double end[2] = {0}, msg[4] = {0};
    /* Two nodes.  Rank 0: Init ends 1000; Send at 1000 + 1000 = 2000, its
     * 1000 bytes arrive 2000 + 1000 + 2000 = 5000 (rank 1's Recv, posted
     * 1200, ends 5000); rank 1 sends back at 5000 + 300 = 5300, it arrives
     * 8300 (rank 0's Recv ends).  Rank 0 computes 500: its 100000-byte
     * Send starts 8800 (rank 1's Recv was posted at 5300), arrives 8800 +
     * 100000 + 2000 = 110800, ending both calls; rank 1 computes 300 and
     * sends 100000 back at 111100 (rank 0's Recv posted 110800), arriving
     * 213100.  Allreduce: rank 0 enters 213100, rank 1 213150; round 1
     * messages (1000 bytes) arrive 216100 and 216150, round 2 both start
     * 216150 and arrive 219150; Finalize enters then: 219150. */
    write_job(dir, 2);
    double job = replay(dir, end, msg, NULL);
    CHECK(job == 219150 && planned == 0);
    CHECK(end[0] == 219150 && end[1] == 219150);
    CHECK(calls[0] == 6050 && calls[1] == 6000);     /* 213100 and 213150 -> 219150 */
    if (argc > 1) {
        /* Tern's ring on 2 ranks: two sendrecvs of 1000 bytes, each rank
         * going on when what it receives has arrived (its eager send does
         * not hold it).  Round 1: rank 0 sends 213100 -> 216100, rank 1
         * 213150 -> 216150; rank 1 goes on at 216100 (its receive), rank 0
         * at 216150.  Round 2: rank 1 sends 216100 -> 219100, rank 0
         * 216150 -> 219150: rank 0 ends 219100, rank 1 219150. */
        job = replay(dir, end, msg, argv[1]);
        CHECK(job == 219150 && planned == 1);
        CHECK(end[0] == 219100 && end[1] == 219150);
        CHECK(calls[0] == 6000 && calls[1] == 6000);
    }
    sorted4(msg);
    /* ping 1000: 2000 -> 5000, pong: 5300 -> 8300; 100000: 8800 -> 110800,
     * 111100 -> 213100 */
    CHECK(msg[0] == 3000 && msg[1] == 3000 && msg[2] == 102000 && msg[3] == 102000);
    char path[600];
    snprintf(path, sizeof(path), "%s/replay.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f != NULL) {
        char line[512];
        int seen = 0;
        while (fgets(line, sizeof(line), f) != NULL) {
            seen |= strstr(line, "job time:        sim 219.15 us   trace 50 us") != NULL;
            /* calls 6000 and 6000 (the last replay's, Tern's ring; 6050
             * and 6000 by the model), traced 9950 and 10000: the lower */
            seen |= (strstr(line, "collective p50:  sim 6 us   trace 9.95 us   error -39.7 %") != NULL) << 1;
            /* the same two calls, the job's only collective kind */
            seen |= (strstr(line, "calls allreduce p50: sim 6 us   trace 9.95 us   error -39.7 % (2 calls)") != NULL)
                    << 2;
        }
        CHECK(seen == 7);
        if (!seen) {
            snprintf(line, sizeof(line), "cat %.400s", path);
            (void)!system(line);
        }
        fclose(f);
    }
    /* One node: shared memory, 100 ns + bytes / 10 bytes/ns.  1000 bytes:
     * 200 ns; 100000: 10100 ns; 1000 each way: 200.  Rank 0: send 2000 ->
     * 2200 (rank 1 ends Recv), back 2200 + 300 = 2500 -> 2700; send 100000
     * at 3200 -> 13300; rank 1 sends back 13600 -> 23700; allreduce 23700
     * and 23750: round 1 done 23950, round 2 24150. */
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof(path), "%s/r%d.ttr", dir, r);
        unlink(path);
    }
    write_job(dir, 1);
    job = replay(dir, end, msg, NULL);
    CHECK(job == 24150);
    CHECK(calls[0] == 450 && calls[1] == 400);       /* 23700 and 23750 -> 24150 */
    if (argc > 1) {
        /* the same through shared memory with Tern's ring: 200 ns per
         * 1000-byte piece; rank 0 enters 23700, rank 1 23750: round 1
         * arrives 23900 (to 1) and 23950 (to 0); round 2 leaves 23900 (rank
         * 1) and 23950 (rank 0), arriving 24100 and 24150 */
        job = replay(dir, end, msg, argv[1]);
        CHECK(job == 24150 && planned == 1);
        CHECK(end[0] == 24100 && end[1] == 24150);
        CHECK(calls[0] == 400 && calls[1] == 400);
    }
    /* a cycle is refused */
    tn_sim_prog_t p;
    tn_sim_dag_t g;
    char why[256];
    tn_sim_replay_conf_t rc = {.eager = 1, .shm_lat = 1, .shm_bw = 1, .slot_mode = TN_SIM_SLOT_RANK};
    tn_sim_prog_init(&p);
    CHECK(tn_sim_prog_ranks(&p, 2) == TN_SIM_OK);
    int32_t a = tn_sim_prog_node(&p, 0, 1, 10, 0), b = tn_sim_prog_node(&p, 1, 0, 10, 0);
    CHECK(tn_sim_prog_edge(&p, a, b) == TN_SIM_OK && tn_sim_prog_edge(&p, b, a) == TN_SIM_OK);
    CHECK(tn_sim_prog_dag(&p, &rc, &g, why, sizeof(why)) == TN_SIM_ERR_PARSE);
    CHECK(strstr(why, "cycle") != NULL);
    tn_sim_prog_free(&p);
    /* The broadcast: every call entered at 2000.  As one multicast: 10000
     * bytes to ranks 1 and 2 at once, 10000 ns + 2 x 1000 ns: all end at
     * 14000.  The binomial model: 0 -> 2 (2000 -> 14000), then 0 -> 1
     * (14000 -> 26000). */
    char bdir[] = "/tmp/tn_replay_b_XXXXXX";
    CHECK(mkdtemp(bdir) != NULL);
    write_bcast(bdir);
    uint64_t mc = 99;
    job = replay_bcast(bdir, 1, "0", &mc);
    printf("bcast: one multicast %.0f ns (hand: 14000), %llu broadcast made one\n", job, (unsigned long long)mc);
    CHECK(job == 14000 && mc == 1);
    job = replay_bcast(bdir, 0, "0", &mc);
    printf("bcast: the binomial model %.0f ns (hand: 26000)\n", job);
    CHECK(job == 26000 && mc == 0);
    snprintf(path, sizeof(path), "%s/b.vef", bdir);
    FILE *vf = fopen(path, "w");
    CHECK(vf != NULL && fputs(bcast_vef, vf) >= 0 && fclose(vf) == 0);
    job = replay_bcast(path, 1, "0", &mc);
    printf("bcast (VEF): one multicast %.0f ns (hand: 14000)\n", job);
    CHECK(job == 14000 && mc == 1);
    job = replay_bcast(path, 0, "0", &mc);
    CHECK(job == 26000 && mc == 0);
    /* with the host model (cpu_o = 300, a host per rank): the root's 300 ns
     * before the multicast, each member's 300 after it, in parallel:
     * 14600; the binomial model pays 300 twice per round: 27200 */
    job = replay_bcast(path, 1, "300", &mc);
    printf("bcast (VEF, cpu_o 300): one multicast %.0f ns (hand: 14600)\n", job);
    CHECK(job == 14600 && mc == 1);
    job = replay_bcast(path, 0, "300", &mc);
    CHECK(job == 27200);
    unlink(path);
    for (int r = 0; r < 3; r++) {
        snprintf(path, sizeof(path), "%s/b%d.ttr", bdir, r);
        unlink(path);
    }
    rmdir(bdir);
    const char *files[] = {"r0.ttr", "r1.ttr", "replay.txt", "replay_ranks.csv", "replay_msgs.csv"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    if (fails) {
        fprintf(stderr, "test_sim_replay: %d failures\n", fails);
        return 1;
    }
    printf("test_sim_replay: ok\n");
    return 0;
}

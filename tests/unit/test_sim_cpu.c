/* tern-sim's host model in a replay (cpu_o, cpu_cores, cpu_share;
 * docs/sim.md "Hosts"), on a program built by hand and worked out by hand.
 *
 * Four ranks on a one-switch fat-tree, each sending one 8-byte message
 * at time 0 to the next (a ring), every message on links of its own.
 * Without hosts a message takes b ns (two links' latency and its bytes).
 * With cpu_o = 1000 and two cores shared by all four ranks:
 *   - the senders' work: ranks 0, 1 at 0..1000, ranks 2, 3 at 1000..2000;
 *   - messages 0, 1 arrive at 1000 + b, 2, 3 at 2000 + b (b < 1000);
 *   - the receivers' work queues behind the senders': messages 0, 1 are
 *     received 2000..3000, messages 2, 3 at 3000..4000.
 * With a host per rank (cpu_share node, every rank its own node) nothing
 * waits: each message is done at 1000 + b + 1000.  A rank's own work
 * (TN_SIM_PROG_CPU: a collective's reduction or copy) is a delay without
 * hosts and takes a core with them.
 * With cpu_charge = wait a message waits for a free core but not for the
 * work (its latency holds that): on two shared cores the senders of
 * messages 0, 1 get theirs at 0, those of 2, 3 at 1000 (sent then,
 * arriving 208 later); the receivers queue behind them and get cores at
 * 2000 (messages 0, 1) and 3000 (2, 3); with eight cores nobody waits and
 * a message takes b, as without hosts.
 * Forwarding on the hosts (cpu_fwd): the ring on a 2-ary 2-tree, ranks 0,
 * 1 on one leaf and 2, 3 on the other, so messages 1 and 3 cross two
 * switch-to-switch links (4 links: 408 ns) and 0 and 2 none (208 ns);
 * 1000 ns a frame of 4 bytes: messages 1 and 3 cost their receivers
 * 2 frames x 2 links x 1000 = 4000 ns, the others nothing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sim_replay.h"
#include "sim_run.h"

/* cpu_charge, the fat-tree's k and n, cpu_fwd and cpu_frame of the runs below */
static const char *ring_charge = "time", *ring_k = "4", *ring_n = "1", *ring_fwd = "0", *ring_frame = "1472";

/* Runs the ring with the given host keys; done[r] is when message r's
 * receiver finished with it; returns the job's end (-1 on failure). */
static double ring_w(const char *cpu_o, const char *cores, const char *share, double work, double *done)
{
    static tn_sim_conf_t c;
    static tn_sim_run_t run;
    static tn_sim_prog_t prog;
    char why[512] = "";
    tn_sim_conf_defaults(&c);
    const char *kv[][2] = {{"topo", "fattree"}, {"k", ring_k}, {"n", ring_n}, {"lat", "100"}, {"bw", "8"},
                           {"replay_slots", "rank"}, {"cpu_o", cpu_o}, {"cpu_cores", cores},
                           {"cpu_share", share}, {"cpu_charge", ring_charge}, {"cpu_fwd", ring_fwd},
                           {"cpu_frame", ring_frame}};
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        CHECK(tn_sim_conf_set(&c, kv[i][0], kv[i][1], why, sizeof(why)) == TN_SIM_OK);
    }
    tn_sim_prog_init(&prog);
    CHECK(tn_sim_prog_ranks(&prog, 4) == TN_SIM_OK);
    prog.nnodes = 4;
    int32_t msg[4];
    for (int32_t r = 0; r < 4; r++) {
        prog.node[r] = r;
        int32_t e = tn_sim_prog_node(&prog, r, -1, 0, 0);
        if (work > 0) {
            /* the rank's own work first (a reduction, a copy) */
            int32_t w = tn_sim_prog_node(&prog, r, TN_SIM_PROG_CPU, 0, work);
            CHECK(w >= 0 && tn_sim_prog_edge(&prog, e, w) == TN_SIM_OK);
            e = w;
        }
        msg[r] = tn_sim_prog_node(&prog, r, (r + 1) % 4, 8, 0);
        CHECK(e >= 0 && msg[r] >= 0 && tn_sim_prog_edge(&prog, e, msg[r]) == TN_SIM_OK);
    }
    tn_sim_replay_conf_t rc;
    tn_sim_replay_conf(&c, &rc);
    c.job[0].ranks = tn_sim_prog_slots(&prog, c.replay_slots);
    double job = -1;
    if (tn_sim_setup(&run, &c, NULL, 0, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "setup: %s\n", why);
        failures++;
        tn_sim_prog_free(&prog);
        return -1;
    }
    run.prog = &prog;
    if (tn_sim_run_once(&run, &c, -1, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "run: %s\n", why);
        failures++;
    } else {
        job = 0;
        for (int32_t r = 0; r < 4; r++) {
            done[r] = prog.t_done[msg[r]];
            job = fmax(job, done[r]);
        }
    }
    tn_sim_run_clear(&run);
    tn_sim_teardown(&run);
    tn_sim_prog_free(&prog);
    return job;
}

static double ring(const char *cpu_o, const char *cores, const char *share, double *done)
{
    return ring_w(cpu_o, cores, share, 0, done);
}

int main(void)
{
    double d[4];
    /* no hosts: 2 x 100 ns of latency and 8 bytes at 1 byte/ns */
    double b = ring("0", "1", "node", d);
    CHECK(b == 208 && d[0] == 208 && d[3] == 208);
    /* one host of two cores for the four ranks */
    double job = ring("1000", "2", "all", d);
    CHECK(job == 4000);
    CHECK(d[0] == 3000 && d[1] == 3000 && d[2] == 4000 && d[3] == 4000);
    /* four cores: nobody waits */
    job = ring("1000", "4", "all", d);
    CHECK(job == 2000 + b && d[0] == 2000 + b && d[2] == 2000 + b);
    /* a host per node, one core each: nobody waits either */
    job = ring("1000", "1", "node", d);
    CHECK(job == 2000 + b && d[1] == 2000 + b);
    /* one core for all: the senders' work 0..4000 one after the other,
     * message 0 arrives at 1208 and is received 4000..5000, then 1, 2, 3 */
    job = ring("1000", "1", "all", d);
    CHECK(d[0] == 5000 && d[1] == 6000 && d[2] == 7000 && d[3] == 8000 && job == 8000);
    /* 500 ns of each rank's own work before its send: a delay without
     * hosts; on two shared cores it queues like the messages' work:
     * 0..500 ranks 0, 1; 500..1000 ranks 2, 3; the senders' work
     * 1000..2000 and 2000..3000; receivers' 3000..4000 and 4000..5000 */
    job = ring_w("0", "1", "node", 500, d);
    CHECK(job == 500 + b && d[0] == 500 + b && d[3] == 500 + b);
    job = ring_w("1000", "2", "all", 500, d);
    CHECK(d[0] == 4000 && d[1] == 4000 && d[2] == 5000 && d[3] == 5000 && job == 5000);
    /* only the waits for a core: two shared cores, eight, four, one */
    ring_charge = "wait";
    job = ring("1000", "2", "all", d);
    CHECK(d[0] == 2000 && d[1] == 2000 && d[2] == 3000 && d[3] == 3000 && job == 3000);
    job = ring("1000", "8", "all", d);
    CHECK(job == b && d[0] == b && d[3] == b);
    /* four cores: the senders hold all four 0..1000 (the work goes on
     * while its message travels), so the receivers get theirs at 1000 */
    job = ring("1000", "4", "all", d);
    CHECK(job == 1000 && d[0] == 1000 && d[3] == 1000);
    /* one core: senders at 0, 1000, 2000, 3000; receivers from 4000 on */
    job = ring("1000", "1", "all", d);
    CHECK(d[0] == 4000 && d[1] == 5000 && d[2] == 6000 && d[3] == 7000 && job == 7000);
    /* a rank's own work keeps its time: a core each, 500 ns of it, then
     * the sender's work gets the core at 500 (the message leaves then,
     * arriving at 708) and holds it to 1500, when the receiver (the next
     * rank, the same timing) gets its own */
    job = ring_w("1000", "1", "node", 500, d);
    CHECK(job == 1500 && d[0] == 1500 && d[2] == 1500);
    ring_charge = "time";
    /* forwarding on the hosts, four cores for all: nobody waits; the
     * crossing messages' receivers work 4000 ns */
    ring_k = "2";
    ring_n = "2";
    job = ring("0", "4", "all", d);
    CHECK(d[0] == 208 && d[1] == 408 && d[2] == 208 && d[3] == 408 && job == 408);
    ring_fwd = "1000";
    ring_frame = "4";
    job = ring("0", "4", "all", d);
    CHECK(d[0] == 208 && d[1] == 4408 && d[2] == 208 && d[3] == 4408 && job == 4408);
    /* with cpu_o as well: 1000 at each end on top */
    job = ring("1000", "4", "all", d);
    CHECK(d[0] == 2208 && d[1] == 6408 && d[2] == 2208 && d[3] == 6408);
    /* waits only.  The engine hears of a delivery at its flow's end,
     * before the delivery time; the receivers still ask for cores in the
     * order their messages arrive (208: 0 and 2, 408: 1 and 3).  Two
     * cores: nobody waits; message 3 is not done before it is in */
    ring_charge = "wait";
    job = ring("0", "2", "all", d);
    CHECK(d[0] == 208 && d[1] == 408 && d[2] == 208 && d[3] == 408 && job == 408);
    /* one core: message 1's receiver holds it 408..4408, and message 3,
     * in at 408 too (it was posted after 1), waits for it */
    job = ring("0", "1", "all", d);
    CHECK(d[0] == 208 && d[1] == 408 && d[2] == 208 && d[3] == 4408 && job == 4408);
    ring_charge = "time";
    ring_fwd = "0";
    ring_frame = "1472";
    ring_k = "4";
    ring_n = "1";
    /* a key out of range is refused */
    tn_sim_conf_t c;
    char why[256];
    tn_sim_conf_defaults(&c);
    CHECK(tn_sim_conf_set(&c, "cpu_cores", "0", why, sizeof(why)) != TN_SIM_OK);
    CHECK(tn_sim_conf_set(&c, "cpu_share", "rack", why, sizeof(why)) != TN_SIM_OK);
    CHECK(tn_sim_conf_set(&c, "cpu_o", "-1", why, sizeof(why)) != TN_SIM_OK);
    CHECK(tn_sim_conf_set(&c, "cpu_charge", "idle", why, sizeof(why)) != TN_SIM_OK);
    CHECK(tn_sim_conf_set(&c, "cpu_fwd", "-5", why, sizeof(why)) != TN_SIM_OK);
    CHECK(tn_sim_conf_set(&c, "cpu_frame", "0", why, sizeof(why)) != TN_SIM_OK);
    return tn_check_report("test_sim_cpu");
}

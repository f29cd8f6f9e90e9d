/* tern-sim's reader of tern-coll-plan's plans (tools/tern-sim/sim_plan.c):
 * a plan read back whole, forged ones refused with a reason, and the
 * expansion's dependencies on a 2-rank exchange worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_plan.h"

#define HEAD "tern-coll-plan 1\nkind allreduce algo ring ranks 2 bytes 16 root -1 messages 2 groups 1\n"
static const char good[] = HEAD
    "rank 0 ops 5\ns 0 1 8\nr 1 1 8\nw 0 1\nc 8\ny 0 16\n"
    "rank 1 ops 5\ns 1 0 8\nr 0 0 8\nw 1 0\nc 8\ny 0 16\n"
    "end\n";

static int parses(const char *text)
{
    tn_sim_plan_t pl;
    char why[256] = "";
    tn_sim_status_t st = tn_sim_plan_parse(text, strlen(text), &pl, why, sizeof(why));
    if (st == TN_SIM_OK) {
        tn_sim_plan_free(&pl);
        return 1;
    }
    CHECK(why[0] != '\0');
    return 0;
}

/* good with the first occurrence of from replaced by to */
static int parses_with(const char *from, const char *to)
{
    char buf[1024];
    const char *at = strstr(good, from);
    if (at == NULL) {
        fprintf(stderr, "no %s in the plan\n", from);
        failures++;
        return 1;
    }
    snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
    return parses(buf);
}

static int has_edge(const tn_sim_prog_t *p, int32_t a, int32_t b)
{
    for (int64_t e = 0; e < p->nedge; e++) {
        if (p->e_from[e] == a && p->e_to[e] == b) {
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    tn_sim_plan_t pl;
    char why[256];

    CHECK(tn_sim_plan_parse(good, strlen(good), &pl, why, sizeof(why)) == TN_SIM_OK);
    CHECK(pl.n == 2 && pl.nmsg == 2 && pl.ngroups == 1 && pl.nops == 10 && pl.bytes == 16);
    CHECK(strcmp(pl.kind, "allreduce") == 0 && strcmp(pl.algo, "ring") == 0 && pl.root == -1);
    CHECK(pl.msrc[0] == 0 && pl.mdst[0] == 1 && pl.msrc[1] == 1 && pl.mdst[1] == 0 && pl.mbytes[1] == 8);
    CHECK(pl.first[1] == 5 && pl.ops[2].type == 'w' && pl.ops[2].wn == 2);
    tn_sim_plan_free(&pl);

    /* forged plans */
    CHECK(!parses(""));
    CHECK(!parses_with("tern-coll-plan 1", "tern-coll-plan 2"));
    CHECK(!parses_with("end\n", "end\nmore\n"));
    CHECK(!parses_with("end\n", "end"));
    CHECK(!parses_with("ranks 2", "ranks 0"));
    CHECK(!parses_with("root -1", "root 2"));
    CHECK(!parses_with("messages 2", "messages 3"));          /* a message never sent */
    CHECK(!parses_with("messages 2", "messages 99999999"));   /* more than the text can hold */
    CHECK(!parses_with("rank 0 ops 5", "rank 0 ops 6"));
    CHECK(!parses_with("rank 1 ops 5", "rank 2 ops 5"));
    CHECK(!parses_with("s 0 1 8", "s 2 1 8"));                /* id out of range */
    CHECK(!parses_with("s 0 1 8", "s 0 2 8"));                /* peer out of range */
    CHECK(!parses_with("s 0 1 8", "s 1 1 8"));                /* message 1 sent twice */
    CHECK(!parses_with("r 0 0 8", "r 0 0 9"));                /* bytes disagree */
    CHECK(!parses_with("r 1 1 8", "r 1 0 8"));                /* ranks disagree */
    CHECK(parses_with("w 0 1\n", "w 0 1 1\n"));              /* a second wait is harmless */
    CHECK(!parses_with("s 0 1 8\nr 1 1 8\nw 0 1", "w 0 1\ns 0 1 8\nr 1 1 8"));  /* waits first */
    CHECK(!parses_with("y 0 16\nrank 1", "y 1 16\nrank 1"));  /* group out of range */
    CHECK(!parses_with("c 8\ny", "x 8\ny"));
    CHECK(!parses_with("c 8\ny", "c -8\ny"));
    CHECK(!parses_with("c 8\ny", "c 99999999999999999999999\ny"));
    CHECK(!parses_with("c 8\ny", "c 8 \ny"));
    CHECK(!parses_with("s 0 1 8", "s 0 1 1125899906842625"));   /* past 2^50 bytes */
    CHECK(!parses_with("groups 1", "groups 0"));              /* y with no group */

    /* expansion: 1000-byte messages, eager 100 (both rendezvous) */
    static const char rv[] =
        "tern-coll-plan 1\nkind allreduce algo ring ranks 2 bytes 1000 root -1 messages 2 groups 0\n"
        "rank 0 ops 3\ns 0 1 1000\nr 1 1 1000\nw 0 1\n"
        "rank 1 ops 3\ns 1 0 1000\nr 0 0 1000\nw 1 0\n"
        "end\n";
    CHECK(tn_sim_plan_parse(rv, strlen(rv), &pl, why, sizeof(why)) == TN_SIM_OK);
    tn_sim_prog_t p;
    tn_sim_prog_init(&p);
    CHECK(tn_sim_prog_ranks(&p, 8) == TN_SIM_OK);
    int32_t world[2] = {5, 7};
    int32_t state[2] = {tn_sim_prog_node(&p, 5, -1, 0, 0), tn_sim_prog_node(&p, 7, -1, 0, 0)};
    int32_t s0 = state[0], s1 = state[1];
    tn_sim_plan_conf_t pc = {100, 500, 10, 0, 0};
    CHECK(tn_sim_plan_expand(&p, &pl, world, state, &pc) == TN_SIM_OK);
    /* nodes 2, 3: the messages (world ranks), 4, 5: the ranks' waits */
    CHECK(p.n == 6 && p.src[2] == 5 && p.dst[2] == 7 && p.bytes[2] == 1000 && p.src[3] == 7 && p.dst[3] == 5);
    CHECK(has_edge(&p, s0, 2) && has_edge(&p, s1, 2));   /* the send and the receive's post */
    CHECK(has_edge(&p, s1, 3) && has_edge(&p, s0, 3));
    CHECK(state[0] == 4 && has_edge(&p, 2, 4) && has_edge(&p, 3, 4) && has_edge(&p, s0, 4));
    CHECK(state[1] == 5 && has_edge(&p, 2, 5) && has_edge(&p, 3, 5));
    tn_sim_prog_free(&p);
    /* eager (limit 1000): a send holds neither its sender nor waits for
     * the receive's post; each rank waits for what it receives only */
    tn_sim_prog_init(&p);
    CHECK(tn_sim_prog_ranks(&p, 8) == TN_SIM_OK);
    state[0] = tn_sim_prog_node(&p, 5, -1, 0, 0);
    state[1] = tn_sim_prog_node(&p, 7, -1, 0, 0);
    s0 = state[0];
    s1 = state[1];
    pc.eager = 1000;
    CHECK(tn_sim_plan_expand(&p, &pl, world, state, &pc) == TN_SIM_OK);
    CHECK(has_edge(&p, s0, 2) && !has_edge(&p, s1, 2));
    CHECK(has_edge(&p, 3, 4) && !has_edge(&p, 2, 4) && has_edge(&p, 2, 5) && !has_edge(&p, 3, 5));
    tn_sim_prog_free(&p);
    tn_sim_plan_free(&pl);

    /* a rank's own work: a copy of 4000 bytes at 2 bytes/ns and a
     * reduction of 1000 at 4 bytes/ns, one after the other, as the
     * rank's CPU nodes; free (no node) when their speed is 0 */
    static const char work[] =
        "tern-coll-plan 1\nkind allreduce algo ring ranks 2 bytes 1000 root -1 messages 0 groups 0\n"
        "rank 0 ops 2\nm 4000\nc 1000\nrank 1 ops 0\nend\n";
    CHECK(tn_sim_plan_parse(work, strlen(work), &pl, why, sizeof(why)) == TN_SIM_OK);
    CHECK(parses_with("c 8\ny", "m 8\ny") && !parses_with("c 8\ny", "m -1\ny") && !parses_with("c 8\ny", "m\ny"));
    tn_sim_prog_init(&p);
    CHECK(tn_sim_prog_ranks(&p, 8) == TN_SIM_OK);
    state[0] = tn_sim_prog_node(&p, 5, -1, 0, 0);
    state[1] = tn_sim_prog_node(&p, 7, -1, 0, 0);
    s0 = state[0];
    tn_sim_plan_conf_t pw = {100, 500, 10, 4, 2};
    CHECK(tn_sim_plan_expand(&p, &pl, world, state, &pw) == TN_SIM_OK);
    CHECK(p.n == 4 && p.src[2] == 5 && p.dst[2] == TN_SIM_PROG_CPU && p.delay[2] == 2000);
    CHECK(p.src[3] == 5 && p.dst[3] == TN_SIM_PROG_CPU && p.delay[3] == 250);
    CHECK(has_edge(&p, s0, 2) && has_edge(&p, 2, 3) && state[0] == 3 && state[1] == 1);
    tn_sim_prog_free(&p);
    tn_sim_prog_init(&p);
    CHECK(tn_sim_prog_ranks(&p, 8) == TN_SIM_OK);
    state[0] = tn_sim_prog_node(&p, 5, -1, 0, 0);
    state[1] = tn_sim_prog_node(&p, 7, -1, 0, 0);
    pw.op_bw = pw.copy_bw = 0;
    CHECK(tn_sim_plan_expand(&p, &pl, world, state, &pw) == TN_SIM_OK && p.n == 2 && state[0] == 0);
    tn_sim_prog_free(&p);
    tn_sim_plan_free(&pl);

    return tn_check_report("sim plan");
}

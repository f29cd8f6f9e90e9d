/* unit.trace_vef: the VEF reader (tools/tern-trace/trace_vef_read.c)
 * takes a well-formed trace and what it says, and refuses each of a list
 * of broken ones with an error naming the line; --corpus DIR writes the
 * good and a few bad texts as seeds for fuzz_vef. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_vef.h"

static int fails;

#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);               \
            fputc('\n', stderr);                        \
            fails++;                                    \
        }                                               \
    } while (0)

/* 3 ranks: a ring of messages, an allreduce on the world, a reduce to 0,
 * a barrier on {0, 2}, an alltoall. */
static const char good[] =
    "VEF 3 4 2 3 1 TRUE\n"
    "C0 0 1 2\n"
    "C1 0 2\n"
    "0 0 1 100 0 500 -1\n"
    "1 1 2 33 3 20 0\n"
    "2 2 0 33 3 20 1\n"
    "G0 0 2 0 64 64 3 10 2\n"
    "G0 0 2 1 64 64 2 10 1\n"
    "G0 0 2 2 64 64 2 10 2\n"
    "3 0 1 8 1 5 G0\n"
    "G1 0 1 0 16 16 1 7 G0\n"
    "G1 0 1 1 16 0 3 7 3\n"
    "G1 0 1 2 16 0 1 7 G0\n"
    "G2 1 6 0 0 0 1 1 G1\n"
    "G2 1 6 2 0 0 1 1 G1\n"
    "\r\n"
    "G3 0 7 0 24 1 0 0 -1\n"
    "G3 0 7 1 36 1 1 0 G1\n"
    "G3 0 7 2 48 1 1 0 G2\n";

/* Each a good text with one thing wrong. */
static const char *const bad[] = {
    "",
    "\n\n",
    "VEF 3 0 1 0 0 TRUE\n",                                     /* no C0 line */
    "VEF 3 0 1 0 0\nC0 0 1 2\n",                                /* short header */
    "VEX 3 0 1 0 0 TRUE\nC0 0 1 2\n",
    "VEF 0 0 1 0 0 TRUE\nC0\n",                                 /* no ranks */
    "VEF 3 0 1 0 0 FALSE\nC0 0 1 2\n",
    "VEF 3 0 99999999 0 0 TRUE\nC0 0 1 2\n",                    /* comms the bytes cannot hold */
    "VEF 99999999999 0 1 0 0 TRUE\nC0 0\n",
    "VEF 3 0 1 0 0 TRUE\nC0 0 1\n",                             /* C0 not the world */
    "VEF 3 0 1 0 0 TRUE\nC0 0 1 1\n",                           /* a rank twice */
    "VEF 3 0 1 0 0 TRUE\nC0 0 1 3\n",                           /* rank out of range */
    "VEF 3 0 2 0 0 TRUE\nC0 0 1 2\nC2 0\n",                     /* ids out of order */
    "VEF 3 0 2 0 0 TRUE\nC0 0 1 2\nC1\n",                       /* empty communicator */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n",                           /* a message missing */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n1 0 1 5 0 0 -1\n",           /* ID not the next */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 3 5 0 0 -1\n",           /* dst out of range */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 4 0 -1\n",           /* deptype */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 3 0 0\n",            /* depends on itself */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 0 0 7\n",            /* independent with a dep */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 -5 0 0 -1\n",          /* negative size */
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 99999999999999999999 0 0 -1\n",
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 0 9999999999999999999 -1\n",
    "VEF 3 1 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 0 0 -1 extra\n",
    "VEF 3 2 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 0 0 -1\n1 2 1 5 2 0 0\n",   /* SEND of another's */
    "VEF 3 2 1 0 0 TRUE\nC0 0 1 2\n0 0 1 5 0 0 -1\n1 2 1 5 3 0 0\n",   /* RECEIVE not its own */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n",  /* a member short */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 0 0 0 0 0 -1\n"
    "G0 0 6 1 0 0 0 0 -1\n",                                                   /* a task twice */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 8 0 0 0 0 0 -1\n",                     /* unknown op */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG1 0 6 0 0 0 0 0 -1\n",                     /* G id skipped */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 1 6 0 0 0 0 0 -1\n",                     /* no such comm */
    "VEF 3 0 2 0 1 TRUE\nC0 0 1 2\nC1 0 2\nG0 1 6 1 0 0 0 0 -1\n",             /* not a member */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 0 0 -1\nG0 0 2 1 0 0 0 0 -1\n"
    "G0 0 6 2 0 0 0 0 -1\n",                                                   /* ops disagree */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 1 0 4 0 0 0 -1\nG0 0 1 1 4 0 0 0 -1\n"
    "G0 0 1 2 4 0 0 0 -1\n",                                                   /* reduce, no root */
    "VEF 3 0 1 1 0 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 1 0 G0\nG0 0 6 1 0 0 0 0 -1\n"
    "G0 0 6 2 0 0 0 0 -1\n",                                                   /* depends on itself */
    "VEF 3 0 1 2 0 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 0 0 -1\nG1 0 6 0 0 0 1 0 G0\n"
    "G0 0 6 1 0 0 0 0 -1\nG0 0 6 2 0 0 0 0 -1\nG1 0 6 1 0 0 0 0 -1\nG1 0 6 2 0 0 0 0 -1\n", /* G0 incomplete */
    "VEF 3 0 1 0 1 TRUE\nC0 0 1 2\nG0 0 6 0 0 0 0 0 -1\nG0 0 6 1 0 0 0 0 -1\n"
    "G0 0 6 2 0 0 0 0 -1\n",                                                   /* global/local */
    "VEF 3 0 1 0 0 TRUE\nC0 0 1 2\nG\n",
    "VEF 3 0 1 0 0 TRUE\nC0 0 1\0 2\n",
};

static void test_good(void)
{
    vf_job_t j;
    int rc = vf_parse(good, sizeof(good) - 1, &j);
    CHECK(rc == 0, "good refused: %s", j.err);
    if (rc != 0) {
        return;
    }
    CHECK(j.nranks == 3 && j.ncomms == 2 && j.nmsgs == 4 && j.ncolls == 4, "counts %u %u %u %u",
          j.nranks, j.ncomms, j.nmsgs, j.ncolls);
    CHECK(j.nevents == 4 + 3 + 3 + 2 + 3, "events %zu", j.nevents);
    CHECK(j.comms[1].size == 2 && j.members[j.comms[1].first + 1] == 2, "C1");
    const vf_event_t *m1 = &j.events[j.msg_event[1]];
    CHECK(m1->task == 1 && m1->dst == 2 && m1->size == 33 && m1->deptype == VF_DEP_RECEIVE &&
          m1->dep == 0 && m1->delay_ns == 20, "message 1");
    const vf_event_t *m3 = &j.events[j.msg_event[3]];
    CHECK(m3->deptype == VF_DEP_COLLECTIVE && m3->dep == 0, "message 3 after G0");
    CHECK(j.colls[1].op == VF_OP_REDUCE && j.colls[2].comm == 1 && j.colls[2].nlines == 2 &&
          j.colls[3].op == VF_OP_ALLTOALL, "collectives");
    const vf_event_t *g = &j.events[j.colls[3].first + 1];
    CHECK(g->coll == 3 && g->task == 1 && g->size == 36 && g->rsize == 1 && g->dep == 1, "G3 line");
    CHECK(strcmp(vf_op_name(VF_OP_BROADCAST), "broadcast") == 0 && strcmp(vf_op_name(99), "?") == 0,
          "op names");
    vf_free(&j);
}

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vf_job_t j;
        size_t len = strlen(bad[i]);
        if (i == sizeof(bad) / sizeof(bad[0]) - 1) {
            len = sizeof("VEF 3 0 1 0 0 TRUE\nC0 0 1\0 2\n") - 1;
        }
        int rc = vf_parse(bad[i], len, &j);
        CHECK(rc == -1 && j.err[0] != '\0', "bad text %zu accepted", i);
        CHECK(j.events == NULL && j.comms == NULL, "bad text %zu left memory", i);
    }
    /* every prefix of the good text cut inside a line is refused, never read past */
    for (size_t n = 0; n < sizeof(good) - 1; n++) {
        char *cut = malloc(n + 1);
        memcpy(cut, good, n);
        vf_job_t j;
        if (vf_parse(cut, n, &j) == 0) {
            CHECK(n == sizeof(good) - 2, "a cut at %zu accepted", n);
            vf_free(&j);
        }
        free(cut);
    }
}

static int write_corpus(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/synthetic_good", dir);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(good, 1, sizeof(good) - 1, f) != sizeof(good) - 1 || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i += 5) {
        snprintf(path, sizeof(path), "%s/synthetic_bad%02zu", dir, i);
        f = fopen(path, "wb");
        if (f == NULL || fwrite(bad[i], 1, strlen(bad[i]), f) != strlen(bad[i]) || fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        return write_corpus(argv[2]);
    }
    test_good();
    test_bad();
    if (fails != 0) {
        fprintf(stderr, "unit.trace_vef: %d failures\n", fails);
        return 1;
    }
    printf("unit.trace_vef: ok\n");
    return 0;
}

/* Unit test of hang reports without processes: the library's writer
 * (runtime/status.h: tn_rt_status_enter/leave/answer on memory of ours)
 * against tern-run's decoder and formatter (tools/tern-run/run_slot.c),
 * and the decoder on slots no honest rank writes.
 *
 *   status_unit                 run the checks
 *   status_unit --corpus DIR    also write the slots it made as seeds of
 *                               tests/fuzz/fuzz_status.c (4-byte ask, 8-byte
 *                               clock, then the slot) */
#include "run_slot.h"
#include "runtime/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TN_STATUS_CALL_TABLE
#include "tn_status_calls.h"

static int failures;
static const char *corpus_dir;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static tern_status_hdr_t hdr;
static uint64_t          slot_mem[TERN_STATUS_SLOT_SIZE / 8];
static unsigned char    *slot = (unsigned char *)slot_mem;

static uint32_t call_id(const char *name)
{
    for (uint32_t i = 1; i <= TN_STATUS_NCALLS; i++) {
        if (strcmp(tn_status_calls[i].name, name) == 0) {
            return i;
        }
    }
    fprintf(stderr, "no published call %s\n", name);
    exit(1);
}

static void save_seed(const char *name, uint32_t ask, uint64_t now)
{
    char  path[4096];
    FILE *f;

    if (corpus_dir == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", corpus_dir, name);
    f = fopen(path, "wb");
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        exit(1);
    }
    fwrite(&ask, sizeof(ask), 1, f);
    fwrite(&now, sizeof(now), 1, f);
    fwrite(slot, TERN_STATUS_SLOT_SIZE, 1, f);
    fclose(f);
}

/* Decode the slot with ask, format it as rank 3, pid 77; the text. */
static const char *report(uint32_t ask, uint64_t now, tn_run_slot_t *s)
{
    static tn_run_buf_t out;

    out.len = 0;
    tn_run_slot_decode(slot, TERN_STATUS_SLOT_SIZE, ask, s);
    tn_run_slot_format(s, 3, 77, "nodeA", now, "> ", &out);
    tn_run_buf_append(&out, "", 1);
    return out.data;
}

#define HAS(text, want) CHECK(strstr((text), (want)) != NULL, "want \"%s\" in:\n%s", (want), (text))

/* The answer a rank would give: two receives, one send of a collective. */
static void fake_fill(tern_status_answer_t *ans, size_t max, uint64_t obj, uint64_t dtype)
{
    CHECK(obj == 0x101 && dtype == 0x209, "fill sees the call's handles");
    CHECK(max == TERN_STATUS_MAX_REQS, "max %zu", max);
    ans->comm.kind = TERN_STATUS_COMM_WORLD;
    ans->comm.size = 8;
    ans->dtype_size = 4;
    ans->reqs[0] = (tern_status_req_t){ .kind = TERN_STATUS_REQ_RECV, .comm_kind =
                                        TERN_STATUS_COMM_WORLD, .peer = 2, .peer_world = 2,
                                        .tag = 7, .count = 1, .bytes = 4 };
    ans->reqs[1] = (tern_status_req_t){ .kind = TERN_STATUS_REQ_RECV, .comm_kind =
                                        TERN_STATUS_COMM_OTHER, .ctx = 6,
                                        .peer = TERN_STATUS_ANY_SOURCE, .peer_world = -1,
                                        .tag = TERN_STATUS_ANY_TAG, .count = 3, .bytes = 24 };
    ans->reqs[2] = (tern_status_req_t){ .kind = TERN_STATUS_REQ_SEND, .flags =
                                        TERN_STATUS_RQ_COLL | TERN_STATUS_RQ_SYNC,
                                        .comm_kind = TERN_STATUS_COMM_OTHER, .ctx = 4,
                                        .peer = 1, .peer_world = 5, .tag = 3, .count = 16,
                                        .bytes = 64, .done = 32 };
    ans->nreqs = 3;
    ans->nreqs_total = 5;
}

static void test_writer_round_trip(void)
{
    tn_run_slot_t s;
    const char   *t;
    uint32_t     *ask = (uint32_t *)(slot + TERN_STATUS_OFF_ASK);

    hdr.magic = TERN_STATUS_MAGIC;
    hdr.now_ms = 1000;
    tn_rt_status_init_call(call_id("MPI_Init"));
    tn_rt_status_attach_mem(&hdr, slot);
    tn_rt_status_identify(3, 8);
    t = report(0, 1500, &s);
    CHECK(s.attached && s.in_call && s.world_rank == 3, "attached in MPI_Init");
    HAS(t, "> rank 3 (pid 77 on nodeA): in MPI_Init() for 0.5 s\n");
    tn_rt_status_leave();
    save_seed("init_done", 0, 1500);

    hdr.now_ms = 2000;
    tn_rt_status_enter(call_id("MPI_Recv"), 0x101, 2, 7, 0, 0, 1, 0x209);
    t = report(0, 5500, &s);
    HAS(t, "in MPI_Recv(comm=MPI_COMM_WORLD, source=2, tag=7, count=1 x MPI_INT) for 3.5 s\n");
    CHECK(!s.asked && !s.answered, "no answer without an ask");
    save_seed("recv", 0, 5500);

    /* the launcher asks; the rank answers from its waiting loop */
    tn_rt_status_set_fill(fake_fill);
    *ask = 41;
    CHECK(tn_rt_status_asked(), "the rank sees the ask");
    tn_rt_status_answer();
    CHECK(!tn_rt_status_asked(), "answered once");
    t = report(41, 5500, &s);
    CHECK(s.answered && s.nreqs == 3 && s.nreqs_total == 5, "answer decoded");
    HAS(t, "count=1 x MPI_INT (4 B)) for 3.5 s\n");
    HAS(t, "> rank 3 (pid 77 on nodeA): in MPI_Recv(comm=MPI_COMM_WORLD, source=2, tag=7, "
           "count=1 x MPI_INT (4 B)) for 3.5 s\n"
           ">   pending recv: source=2 tag=7 count=1 (4 B, 0 B in) comm=MPI_COMM_WORLD\n"
           ">   pending recv: source=MPI_ANY_SOURCE tag=MPI_ANY_TAG count=3 (24 B, 0 B in) "
           "comm=comm#6\n"
           ">   pending send: dest=1 (world 5) tag=3 count=16 (64 B, 32 B out) comm=comm#4 "
           "[inside a collective] [synchronous]\n"
           ">   ... and 2 more pending requests\n");
    save_seed("recv_answered", 41, 5500);
    /* an answer to an older ask is not taken */
    t = report(42, 5500, &s);
    CHECK(!s.answered, "stale answer ignored");
    HAS(t, "(no answer about its pending requests within");

    /* out of the call: computing since it left */
    hdr.now_ms = 6000;
    tn_rt_status_leave();
    t = report(41, 9000, &s);
    CHECK(!s.in_call && !s.answered, "answer belongs to the call it was given in");
    HAS(t, "not in an MPI call (computing) for 3.0 s; last call MPI_Recv(comm=MPI_COMM_WORLD, "
           "source=2, tag=7, count=1 x MPI_INT)\n");

    /* two peers and tags, wildcards and sentinels */
    tn_rt_status_enter(call_id("MPI_Sendrecv"), 0x102, TERN_STATUS_PROC_NULL, 1,
                       TERN_STATUS_ANY_SOURCE, TERN_STATUS_ANY_TAG, 5, 0x214);
    t = report(0, 9000, &s);
    HAS(t, "in MPI_Sendrecv(comm=MPI_COMM_SELF, dest=MPI_PROC_NULL, sendtag=1, "
           "source=MPI_ANY_SOURCE, recvtag=MPI_ANY_TAG, sendcount=5 x MPI_DOUBLE) for 3.0 s");
    save_seed("sendrecv", 0, 9000);
    tn_rt_status_enter(call_id("MPI_Bcast"), 0x55aa00, TERN_STATUS_ROOT, 0, 0, 0, 9, 0x77aa00);
    t = report(0, 9000, &s);
    HAS(t, "in MPI_Bcast(comm=0x55aa00, root=MPI_ROOT, count=9 x derived type)");
    tn_rt_status_enter(call_id("MPI_Waitall"), 0, 0, 0, 0, 0, 2, 0);
    t = report(0, 9000, &s);
    HAS(t, "in MPI_Waitall(count=2)");
    save_seed("waitall", 0, 9000);
    tn_rt_status_leave();
    tn_rt_status_enter(call_id("MPI_Finalize"), 0, 0, 0, 0, 0, 0, 0);
    tn_rt_status_leave();
    t = report(0, 9000, &s);
    HAS(t, "after MPI_Finalize for 3.0 s\n");
    save_seed("finalized", 0, 9000);
}

static void test_hostile(void)
{
    tn_run_slot_t       s;
    const char         *t;
    tern_status_who_t  *who = (tern_status_who_t *)(slot + TERN_STATUS_OFF_WHO);
    tern_status_call_t *c = (tern_status_call_t *)(slot + TERN_STATUS_OFF_CALL);
    tern_status_answer_t *a = (tern_status_answer_t *)(slot + TERN_STATUS_OFF_ANSWER);
    unsigned char       saved[TERN_STATUS_SLOT_SIZE];

    memcpy(saved, slot, sizeof(saved));
    /* a well-formed answer with everything out of range */
    c->seq = 102;
    c->call = call_id("MPI_Recv");
    c->obj = 0xdeadbeef;
    a->answered = 9;
    a->call_seq = 102;
    a->nreqs = 1000000;
    a->nreqs_total = 3;
    a->dtype_size = -77;
    a->comm.kind = 200;
    memset(a->comm.name, '\x1b', sizeof(a->comm.name));      /* no NUL, escapes */
    for (size_t i = 0; i < TERN_STATUS_MAX_REQS; i++) {
        a->reqs[i].kind = (uint8_t)(i * 37);
        a->reqs[i].comm_kind = (uint8_t)(i * 91);
        a->reqs[i].flags = 0xff;
    }
    t = report(9, 1, &s);
    CHECK(s.answered && s.nreqs == TERN_STATUS_MAX_REQS && s.nreqs_total == s.nreqs,
          "counts bounded: %u %u", s.nreqs, s.nreqs_total);
    CHECK(s.dtype_size == -1 && s.comm.kind == TERN_STATUS_COMM_NONE, "sizes and kinds checked");
    CHECK(strchr(t, '\x1b') == NULL && strlen(s.comm.name) == sizeof(s.comm.name) - 1,
          "name made printable and terminated");
    HAS(t, "comm=0xdeadbeef,");
    save_seed("hostile_answer", 9, 1);

    c->call = TN_STATUS_NCALLS + 1;
    t = report(0, 1, &s);
    HAS(t, "its status cannot be read: an unknown call id\n");
    save_seed("bad_call", 0, 1);
    c->call = 1;
    c->seq = 7;
    t = report(0, 1, &s);
    HAS(t, "its status cannot be read: its call record was being rewritten");
    who->calls_hash ^= 1;
    c->seq = 8;
    t = report(0, 1, &s);
    HAS(t, "not in an MPI call (computing); last call call #1 (its library's call table "
           "differs from tern-run's)\n");
    save_seed("other_table", 0, 1);
    who->version = 99;
    t = report(0, 1, &s);
    HAS(t, "its status cannot be read: a slot of another version of Tern\n");
    who->magic = 0;
    t = report(0, 1, &s);
    HAS(t, "publishes no status (before MPI_Init");
    save_seed("no_magic", 0, 1);
    memcpy(slot, saved, sizeof(saved));

    /* shorter than a slot: the call line is read, the answer is not */
    tn_run_slot_decode(slot, TERN_STATUS_OFF_ANSWER, 41, &s);
    CHECK(s.attached && !s.answered, "truncated copy: no answer");
    tn_run_slot_decode(slot, 10, 41, &s);
    CHECK(!s.attached, "too short to be a slot");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--corpus") == 0) {
        corpus_dir = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: status_unit [--corpus DIR]\n");
        return 2;
    }
    test_writer_round_trip();
    test_hostile();
    if (failures != 0) {
        fprintf(stderr, "status_unit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("status_unit: ok\n");
    return 0;
}

/* tern-trace's loader (tools/tern-trace/trace_load.c): a job's rank files
 * become one job (names unified, communicators unified across ranks and
 * incarnations, intercommunicators from both sides, clocks of two nodes
 * aligned), and every way a set of files is not one job is refused with a
 * message naming the problem; a cut file keeps what came before the cut. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_load.h"
#include "trace_synth.h"

static int fails;
#define CHECK(c)                                                         \
    do {                                                                 \
        if (!(c)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            fails++;                                                     \
        }                                                                \
    } while (0)

static const int32_t W3[3] = { 0, 1, 2 }, W02[2] = { 0, 2 }, W1[1] = { 1 }, W0[1] = { 0 },
                     W12[2] = { 1, 2 };

/* Rank r of job (3 ranks; ranks 0 and 1 on node 0, rank 2 on node 1 whose
 * clock is unrelated).  Rank 1 numbers its calls backwards. */
static void mk_rank(sy_t *w, uint32_t r, const char *job, uint32_t size)
{
    uint64_t base = r == 2 ? 7000000000ull : 1000000;
    sy_init(w, r, size, r == 2, 2, job, base, r == 1);
    sy_comm(w, 1, 0, r, W3, 3, NULL, 0);
    sy_call(w, SY_INIT, 0, 1000 + 100 * r);
    sy_end(w);
    if (r != 1) {
        sy_comm(w, 2, 4, r / 2, W02, 2, NULL, 0);
        sy_comm(w, 3, 6, r / 2, W02, 2, NULL, 0);
        sy_comm(w, 4, 6, r / 2, W02, 2, NULL, 0);      /* the same pair made again */
    } else {
        sy_comm(w, 2, 4, 0, W1, 1, NULL, 0);
    }
    /* an intercommunicator: {0} and {1, 2} */
    if (r == 0) {
        sy_comm(w, 5, 8, 0, W0, 1, W12, 2);
    } else {
        sy_comm(w, 5, 8, r - 1, W12, 2, W0, 1);
    }
    if (r == 0) {
        sy_call(w, SY_SEND, 2000, 2100);
        sy_send(w, 5, 1, 3, 64, TERN_TRACE_STD, TERN_TRACE_BLOCKING);
        sy_end(w);
    }
    if (r == 2) {
        sy_call(w, SY_RECV, 2000, 2500);
        sy_recv(w, 5, 0, 3, 64, TERN_TRACE_BLOCKING);
        sy_status(w, 0, 3, 64);
        sy_end(w);
    }
    if (r != 1) {
        sy_call(w, SY_ALLREDUCE, 3000, 3500);
        sy_coll(w, 4, TERN_TRACE_ALLREDUCE, 0, TERN_TRACE_NONE, 0, 8, 8, TERN_TRACE_BLOCKING);
        sy_end(w);
    }
    sy_call(w, SY_FINALIZE, 4000, 4100);
    sy_end(w);
}

static int load(tl_job_t *j, const char *want, const sy_t *files, int n)
{
    tl_job_init(j, want);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "file%d", i);
        if (tl_job_add_stream(j, sy_stream(&files[i], SIZE_MAX), name) < 0) {
            return -1;
        }
    }
    return tl_job_finish(j);
}

static const tl_item_t *first_item(const tl_job_t *j, uint32_t rank, unsigned type)
{
    const tl_rank_t *r = &j->ranks[rank];
    for (uint32_t i = 0; i < r->nitems; i++) {
        if (r->items[i].type == type) {
            return &r->items[i];
        }
    }
    return NULL;
}

static void good(void)
{
    sy_t f[3];
    for (uint32_t r = 0; r < 3; r++) {
        mk_rank(&f[r], r, "job-a", 3);
    }
    sy_t rev[3] = { f[2], f[1], f[0] };            /* given in another order */
    tl_job_t j;
    CHECK(load(&j, NULL, rev, 3) == 0);
    CHECK(j.nranks == 3 && j.size == 3 && j.nnodes == 2 && strcmp(j.job, "job-a") == 0);
    for (uint32_t r = 0; r < j.nranks; r++) {
        CHECK(j.ranks[r].rank == r && j.ranks[r].warning == NULL);
        CHECK(strcmp(tl_call_name(&j, j.ranks[r].recs[0].call), "MPI_Init") == 0);
        CHECK(strcmp(tl_call_name(&j, j.ranks[r].recs[j.ranks[r].nrecs - 1].call),
                     "MPI_Finalize") == 0);
    }
    CHECK(j.ncalls == SY_NCALLS && j.nalgos == 3);
    CHECK(strcmp(j.ranks[2].host, "node<1>") == 0);
    /* world, ctx 4 {0,2}, ctx 4 {1}, ctx 6 twice, the intercommunicator */
    CHECK(j.ncomms == 6);
    const tl_item_t *ar0 = first_item(&j, 0, TERN_TRACE_I_COLL);
    const tl_item_t *ar2 = first_item(&j, 2, TERN_TRACE_I_COLL);
    CHECK(ar0 != NULL && ar2 != NULL && ar0->comm == ar2->comm);
    if (ar0 != NULL) {
        const tl_comm_t *c = &j.comms[ar0->comm];
        CHECK(c->ctx == 6 && c->incarnation == 1 && c->nseen == 2 && c->size == 2);
        CHECK(strcmp(tl_algo_name(&j, ar0->u.coll.algo), "allreduce:ring") == 0);
    }
    uint32_t world = TL_NONE;
    for (uint32_t c = 0; c < j.ncomms; c++) {
        if (j.comms[c].ctx == 0) {
            world = c;
        }
    }
    CHECK(world != TL_NONE && j.comms[world].nseen == 3 && j.comms[world].size == 3);
    /* the intercommunicator: one job communicator seen from both sides */
    const tl_item_t *s0 = first_item(&j, 0, TERN_TRACE_I_SEND);
    const tl_item_t *r2 = first_item(&j, 2, TERN_TRACE_I_RECV);
    const tl_item_t *st2 = first_item(&j, 2, TERN_TRACE_I_STATUS);
    CHECK(s0 != NULL && r2 != NULL && st2 != NULL);
    if (s0 != NULL && r2 != NULL && st2 != NULL) {
        CHECK(s0->comm == r2->comm && s0->side == 0 && r2->side == 1);
        CHECK(s0->world == 2 && r2->world == 0 && st2->world == 0);
        const tl_comm_t *c = &j.comms[s0->comm];
        CHECK(c->flags == TERN_TRACE_COMM_INTER && c->size == 1 && c->remote_size == 2 &&
              c->nseen == 3);
        CHECK(tl_peer_world(&j, s0->comm, 1, 0) == 0 && tl_peer_world(&j, s0->comm, 0, 1) == 2);
        CHECK(tl_peer_world(&j, s0->comm, 0, 2) == -1 && tl_peer_world(&j, s0->comm, 1, 1) == -1);
    }
    /* clocks: node 0's first MPI_Init exit (rank 0) and node 1's (rank 2)
     * at the same moment; rank 2 entered 1200 ns before it, the earliest */
    CHECK(j.ranks[0].init_exit == j.ranks[2].init_exit && j.ranks[2].init_exit == 1200);
    CHECK(j.ranks[2].recs[0].t_enter == 0 && j.ranks[0].recs[0].t_enter == 200);
    CHECK(j.ranks[1].init_exit == 1300);          /* same node as rank 0: exact */
    CHECK(j.t_end == 4100 + 200);
    tl_job_free(&j);
    for (int r = 0; r < 3; r++) {
        sy_free(&f[r]);
    }
}

/* Two nodes on one host (network namespaces of one machine): one clock, so
 * their times keep their exact relation instead of being aligned at
 * MPI_Init's exit. */
static void one_host(void)
{
    sy_t f[2];
    sy_one_host = 1;
    for (uint32_t r = 0; r < 2; r++) {
        sy_init(&f[r], r, 2, r, 2, "job-h", 1000000, 0);
        sy_comm(&f[r], 1, 0, r, W3, 2, NULL, 0);
        sy_call(&f[r], SY_INIT, 0, 1000 + 500 * r);
        sy_end(&f[r]);
        sy_call(&f[r], SY_FINALIZE, 3000, 3100);
        sy_end(&f[r]);
    }
    sy_one_host = 0;
    tl_job_t j;
    CHECK(load(&j, NULL, f, 2) == 0);
    CHECK(j.nnodes == 2);
    CHECK(j.ranks[1].init_exit - j.ranks[0].init_exit == 500);
    tl_job_free(&j);
    for (int r = 0; r < 2; r++) {
        sy_free(&f[r]);
    }
}

static void errors(void)
{
    sy_t f[4];
    tl_job_t j;
    for (uint32_t r = 0; r < 3; r++) {
        mk_rank(&f[r], r, "job-a", 3);
    }
    /* a missing rank */
    sy_t two[2] = { f[0], f[2] };
    CHECK(load(&j, NULL, two, 2) != 0 && strstr(j.err, "rank 1's trace is missing") != NULL);
    tl_job_free(&j);
    /* a rank twice */
    sy_t dup[4] = { f[0], f[1], f[2], f[1] };
    CHECK(load(&j, NULL, dup, 4) != 0 && strstr(j.err, "rank 1 comes twice") != NULL);
    tl_job_free(&j);
    /* another job's file: an error, or skipped when a job is named */
    mk_rank(&f[3], 2, "job-b", 3);
    sy_t other[4] = { f[0], f[1], f[3], f[2] };
    CHECK(load(&j, NULL, other, 4) != 0 && strstr(j.err, "more than one job") != NULL);
    tl_job_free(&j);
    CHECK(load(&j, "job-a", other, 4) == 0 && j.skipped == 1);
    tl_job_free(&j);
    CHECK(load(&j, "job-c", other, 4) != 0 && strstr(j.err, "no trace files") != NULL);
    tl_job_free(&j);
    sy_free(&f[3]);
    /* a different size */
    mk_rank(&f[3], 2, "job-a", 4);
    sy_t size[3] = { f[0], f[1], f[3] };
    CHECK(load(&j, NULL, size, 3) != 0 && strstr(j.err, "4 ranks") != NULL);
    tl_job_free(&j);
    sy_free(&f[3]);
    /* a communicator naming a world rank the job does not have */
    static const int32_t bad[3] = { 0, 1, 5 };
    sy_init(&f[3], 1, 3, 0, 2, "job-a", 1000, 0);
    sy_comm(&f[3], 1, 0, 1, bad, 3, NULL, 0);
    sy_t badw[3] = { f[0], f[3], f[2] };
    CHECK(load(&j, NULL, badw, 3) != 0 && strstr(j.err, "world rank 5 of 3") != NULL);
    tl_job_free(&j);
    sy_free(&f[3]);
    /* a cut file: what came before the cut is kept, with a warning */
    tl_job_init(&j, NULL);
    CHECK(tl_job_add_stream(&j, sy_stream(&f[0], SIZE_MAX), "r0") == 0);
    CHECK(tl_job_add_stream(&j, sy_stream(&f[1], f[1].n - 10), "r1") == 0);
    CHECK(tl_job_add_stream(&j, sy_stream(&f[2], SIZE_MAX), "r2") == 0);
    CHECK(tl_job_finish(&j) == 0);
    CHECK(j.ranks[1].warning != NULL && strstr(j.ranks[1].warning, "ends inside") != NULL);
    CHECK(j.ranks[1].nrecs == 1 && j.ranks[0].warning == NULL);
    tl_job_free(&j);
    /* not a trace at all */
    sy_t junk = { 0 };
    junk.b = (unsigned char *)strdup("hello, world");
    junk.n = 12;
    tl_job_init(&j, NULL);
    CHECK(tl_job_add_stream(&j, sy_stream(&junk, SIZE_MAX), "junk") < 0 &&
          strstr(j.err, "junk") != NULL);
    tl_job_free(&j);
    free(junk.b);
    for (int r = 0; r < 3; r++) {
        sy_free(&f[r]);
    }
}

/* A directory: its *.ttr files, nothing else. */
static void directory(void)
{
    char dir[] = "/tmp/test_trace_load.XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK(0);
        return;
    }
    char path[512];
    sy_t f[3];
    for (uint32_t r = 0; r < 3; r++) {
        mk_rank(&f[r], r, "job-a", 3);
        snprintf(path, sizeof(path), "%s/job-a.%u.ttr", dir, r);
        CHECK(sy_write(&f[r], path) == 0);
    }
    snprintf(path, sizeof(path), "%s/notes.txt", dir);
    CHECK(sy_write(&f[0], path) == 0);             /* not *.ttr: not read */
    tl_job_t j;
    tl_job_init(&j, NULL);
    char *paths[1] = { dir };
    CHECK(tl_job_add_paths(&j, paths, 1) == 0 && tl_job_finish(&j) == 0 && j.nranks == 3);
    tl_job_free(&j);
    /* a file given twice (the directory and the file itself) */
    snprintf(path, sizeof(path), "%s/job-a.0.ttr", dir);
    char *twice[2] = { dir, path };
    tl_job_init(&j, NULL);
    CHECK(tl_job_add_paths(&j, twice, 2) == 0 && tl_job_finish(&j) != 0 &&
          strstr(j.err, "comes twice") != NULL);
    tl_job_free(&j);
    char *none[1] = { "/nonexistent/trace/dir" };
    tl_job_init(&j, NULL);
    CHECK(tl_job_add_paths(&j, none, 1) != 0 && strstr(j.err, "/nonexistent") != NULL);
    tl_job_free(&j);
    for (uint32_t r = 0; r < 3; r++) {
        snprintf(path, sizeof(path), "%s/job-a.%u.ttr", dir, r);
        unlink(path);
        sy_free(&f[r]);
    }
    snprintf(path, sizeof(path), "%s/notes.txt", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    good();
    one_host();
    errors();
    directory();
    if (fails) {
        fprintf(stderr, "test_trace_load: %d checks failed\n", fails);
        return 1;
    }
    printf("test_trace_load: ok\n");
    return 0;
}

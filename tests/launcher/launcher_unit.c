/* Unit tests of tern-run's I/O-free parts: the PMI-1 server (pmi_srv.c,
 * pmi_kvs.c) and the output line forwarder (run_fwd.c), fed byte by byte
 * and in odd splits; host lists and the rank map (run_hosts.c); the frames
 * of the launch tree (run_proto.c); Slurm's hostlists and counts
 * (run_slurm.c). */
#include "pmi_srv.h"
#include "run_fwd.h"
#include "run_hosts.h"
#include "run_proto.h"
#include "run_slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* Feed a string to rank's connection in pieces of step bytes. */
static void feed(tn_pmi_srv_t *srv, int rank, const char *s, size_t step)
{
    size_t len = strlen(s);

    for (size_t off = 0; off < len; off += step) {
        size_t n = len - off < step ? len - off : step;

        CHECK(tn_pmi_srv_input(srv, rank, s + off, n) == 0);
    }
}

/* Take rank's queued output as a string (static buffer) and clear it. */
static const char *take(tn_pmi_srv_t *srv, int rank)
{
    static char   out[8192];
    tn_run_buf_t *buf = &srv->conns[rank].out;
    size_t        n   = buf->len < sizeof(out) - 1 ? buf->len : sizeof(out) - 1;

    memcpy(out, buf->data, n);
    out[n] = '\0';
    buf->len = 0;
    return out;
}

static void test_pmi_basic(size_t step)
{
    tn_pmi_srv_t srv;
    char         want[256];

    tn_pmi_srv_init(&srv, 3, "tern-1-abc");
    CHECK(!srv.conns[0].contacted && !srv.conns[1].contacted);
    feed(&srv, 0, "cmd=init pmi_version=1 pmi_subversion=1\n", step);
    CHECK(srv.conns[0].contacted && !srv.conns[1].contacted);
    CHECK(strcmp(take(&srv, 0), "cmd=response_to_init pmi_version=1 "
                 "pmi_subversion=1 rc=0\n") == 0);
    CHECK(srv.conns[0].inited);
    feed(&srv, 0, "cmd=get_maxes\ncmd=get_appnum\ncmd=get_universe_size\n"
         "cmd=get_my_kvsname\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=maxes kvsname_max=256 keylen_max=256 "
                 "vallen_max=1024\ncmd=appnum appnum=0\n"
                 "cmd=universe_size size=3\n"
                 "cmd=my_kvsname kvsname=tern-1-abc\n") == 0);
    feed(&srv, 1, "cmd=put kvsname=tern-1-abc key=a value=1\n", step);
    CHECK(srv.conns[1].contacted && !srv.conns[1].inited);
    CHECK(strcmp(take(&srv, 1), "cmd=put_result rc=0 msg=success\n") == 0);
    feed(&srv, 2, "cmd=put kvsname=tern-1-abc key=a value=2\n", step);
    CHECK(strcmp(take(&srv, 2), "cmd=put_result rc=0 msg=success\n") == 0);
    feed(&srv, 0, "cmd=get kvsname=tern-1-abc key=a\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=get_result rc=0 msg=success value=2\n") == 0);
    feed(&srv, 0, "cmd=get kvsname=tern-1-abc key=zz\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=get_result rc=-1 msg=key_zz_not_found "
                 "value=unknown\n") == 0);
    feed(&srv, 0, "cmd=put kvsname=tern-1-abc key=empty value=\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=0 msg=success\n") == 0);
    feed(&srv, 0, "cmd=get kvsname=tern-1-abc key=PMI_process_mapping\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=get_result rc=0 msg=success "
                 "value=(vector,(0,1,3))\n") == 0);

    /* barrier: nothing until the last rank enters, then everyone */
    feed(&srv, 2, "cmd=barrier_in\n", step);
    feed(&srv, 0, "cmd=barrier_in\n", step);
    CHECK(srv.conns[0].out.len == 0 && srv.conns[2].out.len == 0);
    feed(&srv, 1, "cmd=barrier_in\n", step);
    for (int r = 0; r < 3; r++) {
        CHECK(strcmp(take(&srv, r), "cmd=barrier_out\n") == 0);
    }
    /* and it can be used again */
    feed(&srv, 0, "cmd=barrier_in\ncmd=barrier_in\n", step);   /* dup ignored */
    feed(&srv, 1, "cmd=barrier_in\n", step);
    CHECK(srv.conns[0].out.len == 0);
    feed(&srv, 2, "cmd=barrier_in\n", step);
    CHECK(strcmp(take(&srv, 1), "cmd=barrier_out\n") == 0);
    take(&srv, 0);
    take(&srv, 2);

    feed(&srv, 1, "cmd=initack pmiid=1\n", step);
    CHECK(strcmp(take(&srv, 1), "cmd=initack\ncmd=set size=3\ncmd=set rank=1\n"
                 "cmd=set debug=0\n") == 0);
    feed(&srv, 1, "cmd=bogus a=b\n", step);
    CHECK(strcmp(take(&srv, 1), "cmd=bogus_result rc=-1\n") == 0);
    feed(&srv, 1, "mcmd=spawn\nnprocs=2\nexecname=x\nendcmd\n", step);
    CHECK(strcmp(take(&srv, 1), "cmd=spawn_result rc=-1\n") == 0);
    feed(&srv, 1, "\n\ncmd=init pmi_version=2 pmi_subversion=0\n", step);
    snprintf(want, sizeof(want), "cmd=response_to_init pmi_version=1 "
             "pmi_subversion=1 rc=-1\n");
    CHECK(strcmp(take(&srv, 1), want) == 0);

    feed(&srv, 0, "cmd=finalize\n", step);
    CHECK(strcmp(take(&srv, 0), "cmd=finalize_ack\n") == 0);
    CHECK(srv.conns[0].finalized && !srv.conns[1].finalized);

    CHECK(srv.abort_rank == -1);
    feed(&srv, 2, "cmd=abort exitcode=17\n", step);
    CHECK(srv.abort_rank == 2 && srv.conns[2].aborted &&
          srv.conns[2].abort_code == 17);
    feed(&srv, 1, "cmd=abort\n", step);
    CHECK(srv.abort_rank == 2 && srv.conns[1].abort_code == 1);
    CHECK(srv.conns[2].out.len == 0);

    /* a closed connection gets nothing queued */
    tn_pmi_srv_closed(&srv, 1);
    feed(&srv, 1, "cmd=get_appnum\n", step);
    CHECK(srv.conns[1].out.len == 0);
    tn_pmi_srv_fini(&srv);
}

static void test_pmi_limits(void)
{
    tn_pmi_srv_t srv;
    char        *big = malloc(TN_PMI_LINE_MAX + 2);
    char         line[1200];

    tn_pmi_srv_init(&srv, 1, "k");
    memset(line, 'v', sizeof(line));
    memcpy(line, "cmd=put kvsname=k key=x value=", 30);
    line[sizeof(line) - 2] = '\n';
    line[sizeof(line) - 1] = '\0';
    feed(&srv, 0, line, 100);
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=-1 msg=value_too_long\n") == 0);
    memset(big, 'a', TN_PMI_LINE_MAX + 1);
    CHECK(tn_pmi_srv_input(&srv, 0, big, TN_PMI_LINE_MAX + 1) == -1);
    CHECK(strcmp(take(&srv, 0), "cmd=error rc=-1 msg=line_too_long\n") == 0);
    free(big);
    tn_pmi_srv_fini(&srv);
}

/* Malformed requests: an error reply, the first recorded, the rank's
 * later input ignored. */
static void test_pmi_errors(void)
{
    static const struct { const char *line, *why; } bad[] = {
        { "hello=world\n", "no_cmd" },
        { "hello world\n", "field_without_equals" },
        { "cmd=put =x\n", "field_without_equals" },
        { "cmd=get_maxes \x01\n", "non_printable_bytes" },
        { "cmd=get_maxes \xc3\xa9\n", "non_printable_bytes" },
        { "cmd=a b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 n=1 o=1 "
          "p=1 q=1\n", "too_many_fields" },
    };
    char want[128];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tn_pmi_srv_t srv;

        tn_pmi_srv_init(&srv, 2, "k");
        feed(&srv, 1, "cmd=init pmi_version=1 pmi_subversion=1\n", 7);
        take(&srv, 1);
        feed(&srv, 1, bad[i].line, 3);
        snprintf(want, sizeof(want), "cmd=error rc=-1 msg=%s\n", bad[i].why);
        CHECK(strcmp(take(&srv, 1), want) == 0);
        CHECK(srv.error_rank == 1 && strstr(srv.error_msg, bad[i].why) != NULL);
        feed(&srv, 1, "cmd=get_appnum\n", 5);      /* ignored from now on */
        CHECK(srv.conns[1].out.len == 0);
        tn_pmi_srv_fini(&srv);
    }

    /* NUL inside a line; a request cut off by the end of the connection */
    {
        tn_pmi_srv_t srv;

        tn_pmi_srv_init(&srv, 2, "k");
        CHECK(tn_pmi_srv_input(&srv, 0, "cmd=get_maxes\0x\n", 16) == 0);
        CHECK(strcmp(take(&srv, 0), "cmd=error rc=-1 msg=non_printable_bytes\n") == 0);
        feed(&srv, 1, "cmd=get_maxes", 4);
        CHECK(srv.conns[1].out.len == 0);
        tn_pmi_srv_eof(&srv, 1);
        CHECK(strcmp(take(&srv, 1), "cmd=error rc=-1 msg="
                     "request_cut_off_by_end_of_connection\n") == 0);
        CHECK(srv.error_rank == 0);                /* the first one is kept */
        tn_pmi_srv_fini(&srv);
    }
}

/* A rank gone while others wait in a barrier. */
static void test_pmi_stuck(void)
{
    tn_pmi_srv_t srv;

    tn_pmi_srv_init(&srv, 3, "k");
    CHECK(tn_pmi_srv_stuck(&srv) == -1);
    tn_pmi_srv_gone(&srv, 2);
    CHECK(tn_pmi_srv_stuck(&srv) == -1);           /* nobody waits */
    feed(&srv, 0, "cmd=barrier_in\n", 4);
    CHECK(tn_pmi_srv_stuck(&srv) == 2);
    tn_pmi_srv_fini(&srv);

    tn_pmi_srv_init(&srv, 2, "k");
    feed(&srv, 0, "cmd=barrier_in\n", 4);
    feed(&srv, 1, "cmd=barrier_in\n", 4);
    tn_pmi_srv_gone(&srv, 1);                      /* after a full barrier */
    CHECK(tn_pmi_srv_stuck(&srv) == -1);
    tn_pmi_srv_fini(&srv);
}

/* The key-value space and the unread replies are bounded. */
static void test_pmi_caps(void)
{
    tn_pmi_srv_t srv;
    char         line[128];

    tn_pmi_srv_init(&srv, 2, "k");
    srv.kvs_max_keys = 3;                          /* PMI_process_mapping + 2 */
    feed(&srv, 0, "cmd=put key=a value=1\ncmd=put key=b value=2\n", 9);
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=0 msg=success\n"
                 "cmd=put_result rc=0 msg=success\n") == 0);
    feed(&srv, 0, "cmd=put key=a value=3\n", 9);  /* a replacement fits */
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=0 msg=success\n") == 0);
    CHECK(srv.error_rank == -1);
    feed(&srv, 1, "cmd=put key=c value=4\n", 9);
    CHECK(strcmp(take(&srv, 1), "cmd=put_result rc=-1 msg=kvs_full\n") == 0);
    CHECK(srv.error_rank == 1 && strstr(srv.error_msg, "TERN_RUN_KVS_KEYS=3"));
    tn_pmi_srv_fini(&srv);

    tn_pmi_srv_init(&srv, 1, "k");
    srv.kvs_max_bytes = tn_pmi_kvs_bytes(srv.kvs) + 4;
    feed(&srv, 0, "cmd=put key=ab value=cd\n", 9);
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=0 msg=success\n") == 0);
    feed(&srv, 0, "cmd=put key=ab value=cde\n", 9);
    CHECK(strcmp(take(&srv, 0), "cmd=put_result rc=-1 msg=kvs_full\n") == 0);
    tn_pmi_srv_fini(&srv);

    tn_pmi_srv_init(&srv, 1, "k");
    srv.backlog_max = 100;
    for (int i = 0; i < 10; i++) {
        feed(&srv, 0, "cmd=get_appnum\n", 15);
    }
    CHECK(srv.conns[0].out.len <= 100 && srv.conns[0].overflow);
    CHECK(srv.error_rank == 0 && strstr(srv.error_msg, "TERN_RUN_PMI_BACKLOG"));
    snprintf(line, sizeof(line), "%.100s", srv.error_msg);
    tn_pmi_srv_fini(&srv);
}

/* A new store counts no bytes, whatever its memory held before (found by
 * fuzzing: the count was left uninitialised), and input of no bytes is
 * fine. */
static void test_kvs_fresh(void)
{
    tn_pmi_srv_t srv;

    for (int i = 0; i < 4; i++) {
        void         *junk = malloc(32);
        tn_pmi_kvs_t *kvs;

        memset(junk, 0xff, 32);
        free(junk);
        kvs = tn_pmi_kvs_create();
        CHECK(tn_pmi_kvs_bytes(kvs) == 0 && tn_pmi_kvs_count(kvs) == 0);
        tn_pmi_kvs_destroy(kvs);
    }
    tn_pmi_srv_init(&srv, 1, "k");
    CHECK(tn_pmi_srv_input(&srv, 0, NULL, 0) == 0);
    tn_pmi_srv_fini(&srv);
}

static void test_kvs(void)
{
    tn_pmi_kvs_t *kvs = tn_pmi_kvs_create();
    char          k[32], v[32];

    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "val%d", i);
        tn_pmi_kvs_put(kvs, k, v);
    }
    tn_pmi_kvs_put(kvs, "key42", "new");
    CHECK(tn_pmi_kvs_count(kvs) == 5000);
    for (int i = 0; i < 5000; i++) {
        const char *got;

        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "val%d", i);
        got = tn_pmi_kvs_get(kvs, k);
        CHECK(got != NULL && strcmp(got, i == 42 ? "new" : v) == 0);
    }
    CHECK(tn_pmi_kvs_get(kvs, "nope") == NULL);
    tn_pmi_kvs_destroy(kvs);
}

/* Run input through a forwarder in pieces of step bytes, the clock moving
 * on by 250 ms per piece from now_ms; return the output. */
static char *fwd_run_at(int flags, int raw, const char *in, size_t step,
                        int flush, int64_t now_ms)
{
    tn_run_fwd_t fwd;
    tn_run_buf_t out = { 0 };
    size_t       len = strlen(in);

    tn_run_fwd_init(&fwd, 3, flags, raw);
    for (size_t off = 0; off < len; off += step, now_ms += 250) {
        size_t n = len - off < step ? len - off : step;
        size_t before = out.len;

        tn_run_fwd_feed(&fwd, in + off, n, now_ms, &out);
        /* only whole lines may leave (unless raw) */
        if (!raw) {
            CHECK(out.len == before || out.data[out.len - 1] == '\n');
        }
    }
    if (flush) {
        tn_run_fwd_flush(&fwd, now_ms, &out);
    }
    tn_run_buf_append(&out, "", 1);
    tn_run_fwd_fini(&fwd);
    return out.data;
}

static char *fwd_run(int flags, int raw, const char *in, size_t step, int flush)
{
    return fwd_run_at(flags, raw, in, step, flush, 0);
}

static void test_fwd(void)
{
    static const char in[] = "alpha\nbeta gamma\n\ndelta\nepsilon";

    for (size_t step = 1; step <= sizeof(in); step++) {
        char *s;

        s = fwd_run(0, 0, in, step, 0);
        CHECK(strcmp(s, "alpha\nbeta gamma\n\ndelta\n") == 0);
        free(s);
        s = fwd_run(0, 0, in, step, 1);
        CHECK(strcmp(s, in) == 0);
        free(s);
        s = fwd_run(TN_RUN_FWD_TAG, 0, in, step, 1);
        CHECK(strcmp(s, "[3] alpha\n[3] beta gamma\n[3] \n[3] delta\n"
                     "[3] epsilon\n") == 0);
        free(s);
        s = fwd_run(0, 1, in, step, 1);
        CHECK(strcmp(s, in) == 0);
        free(s);
        s = fwd_run(TN_RUN_FWD_TAG, 1, in, step, 1);     /* tag wins over raw */
        CHECK(strcmp(s, "[3] alpha\n[3] beta gamma\n[3] \n[3] delta\n"
                     "[3] epsilon\n") == 0);
        free(s);
    }
}

/* Time stamps: the time the newline arrived, before the tag. */
static void test_fwd_time(void)
{
    /* 2026-11-27 07:31:02.123 UTC */
    const int64_t t0 = INT64_C(1795764662123);
    char         *s;

    setenv("TZ", "UTC", 1);
    tzset();
    s = fwd_run_at(TN_RUN_FWD_TIME, 1, "ab\ncd\n", 100, 1, t0);
    CHECK(strcmp(s, "[2026-11-27 07:31:02.123] ab\n"
                    "[2026-11-27 07:31:02.123] cd\n") == 0);
    free(s);
    /* one byte per call, 250 ms apart: "ab\n" ends at +500 ms, "cd\n" at
     * +1250 ms, "e" is flushed at +1750 ms with a newline added */
    s = fwd_run_at(TN_RUN_FWD_TIME | TN_RUN_FWD_TAG, 0, "ab\ncd\ne", 1, 1, t0);
    CHECK(strcmp(s, "[2026-11-27 07:31:02.623] [3] ab\n"
                    "[2026-11-27 07:31:03.373] [3] cd\n"
                    "[2026-11-27 07:31:03.873] [3] e\n") == 0);
    free(s);
    /* the cached seconds follow the clock, also backwards */
    s = fwd_run_at(TN_RUN_FWD_TIME, 0, "x\n", 2, 1, t0 + 3600000);
    CHECK(strcmp(s, "[2026-11-27 08:31:02.123] x\n") == 0);
    free(s);
    s = fwd_run_at(TN_RUN_FWD_TIME, 0, "x\n", 2, 1, 5);
    CHECK(strcmp(s, "[1970-01-01 00:00:00.005] x\n") == 0);
    free(s);
}

static void ranges_check(const char *flags, size_t max, const char *want)
{
    unsigned char f[64];
    tn_run_buf_t  buf = { 0 };
    int           n   = (int)strlen(flags);

    for (int i = 0; i < n; i++) {
        f[i] = flags[i] == '1';
    }
    tn_run_ranges(&buf, f, n, max);
    tn_run_buf_append(&buf, "", 1);
    if (strcmp(buf.data, want) != 0) {
        fprintf(stderr, "ranges of %s (max %zu): '%s', want '%s'\n", flags, max,
                buf.data, want);
        failures++;
    }
    tn_run_buf_free(&buf);
}

static void test_ranges(void)
{
    ranges_check("", 64, "");
    ranges_check("000", 64, "");
    ranges_check("1", 64, "0");
    ranges_check("1111", 64, "0-3");
    ranges_check("0100", 64, "1");
    ranges_check("11011", 64, "0-1,3-4");
    ranges_check("1010101", 64, "0,2,4,6");
    ranges_check("0111011", 64, "1-3,5-6");
    ranges_check("1010101", 3, "0,2,...");
    ranges_check("1010101", 4, "0,2,4,...");
    ranges_check("1010101", 5, "0,2,4,...");
    ranges_check("1010101", 6, "0,2,4,6");
}

/* ------------------------------------------------------- run_hosts.c */

static void test_hosts(void)
{
    tn_run_hostlist_t hl = { 0 };
    char              err[320];
    int               host_of[16], over;
    tn_run_buf_t      map = { 0 };
    const char       *file = "# cluster\nn1 slots=2\n\nn2:3   # MPICH form\n"
                             "n1\n  n3 max_slots=8\n";

    CHECK(tn_run_hosts_add_arg(&hl, "a,b:4,a", err, sizeof(err)) == 0);
    CHECK(hl.nhosts == 2 && strcmp(hl.hosts[0].name, "a") == 0 &&
          hl.hosts[0].slots == 2 && hl.hosts[1].slots == 4);
    CHECK(tn_run_hosts_slots(&hl) == 6);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_arg(&hl, "a,,b", err, sizeof(err)) == -1 &&
          strstr(err, "bad host name") != NULL);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_arg(&hl, "a:0", err, sizeof(err)) == -1 &&
          strstr(err, "bad slot count") != NULL);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_arg(&hl, "a:99999999999", err, sizeof(err)) == -1);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_arg(&hl, "a;rm -rf", err, sizeof(err)) == -1);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_arg(&hl, "-oProxyCommand=x", err, sizeof(err)) == -1);
    tn_run_hosts_free(&hl);

    CHECK(tn_run_hosts_add_file(&hl, file, strlen(file), "hf", err,
                                sizeof(err)) == 0);
    CHECK(hl.nhosts == 3 && hl.hosts[0].slots == 3 && hl.hosts[1].slots == 3 &&
          hl.hosts[2].slots == 1 && !hl.hosts[2].given);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_file(&hl, "n1\nn2 cpus=4\n", 13, "hf", err,
                                sizeof(err)) == -1 &&
          strcmp(err, "hf:2: unknown field 'cpus=4' (want slots=N)") == 0);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_file(&hl, "n1:2 slots=3\n", 13, "hf", err,
                                sizeof(err)) == -1 && strstr(err, "hf:1:") != NULL);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_file(&hl, "# none\n\n", 8, "hf", err,
                                sizeof(err)) == -1 && strcmp(err, "hf: no hosts") == 0);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_hosts_add_file(&hl, "a\0b\n", 4, "hf", err, sizeof(err)) == -1);
    tn_run_hosts_free(&hl);

    /* slots in order, then round again */
    CHECK(tn_run_hosts_add_arg(&hl, "a:2,b:1", err, sizeof(err)) == 0);
    CHECK(tn_run_hosts_map(&hl, 3, 0, TN_RUN_MAP_SLOT, host_of, &over, err,
                           sizeof(err)) == 0 && !over);
    CHECK(host_of[0] == 0 && host_of[1] == 0 && host_of[2] == 1);
    CHECK(tn_run_hosts_map(&hl, 5, 0, TN_RUN_MAP_SLOT, host_of, &over, err,
                           sizeof(err)) == 0 && over);
    CHECK(host_of[3] == 0 && host_of[4] == 0);
    /* by node: one per host in turn while slots last */
    CHECK(tn_run_hosts_map(&hl, 3, 0, TN_RUN_MAP_NODE, host_of, &over, err,
                           sizeof(err)) == 0 && !over);
    CHECK(host_of[0] == 0 && host_of[1] == 1 && host_of[2] == 0);
    CHECK(tn_run_hosts_map(&hl, 4, 0, TN_RUN_MAP_NODE, host_of, &over, err,
                           sizeof(err)) == 0 && over);
    /* per host */
    CHECK(tn_run_hosts_map(&hl, 4, 2, TN_RUN_MAP_SLOT, host_of, &over, err,
                           sizeof(err)) == 0);
    CHECK(host_of[0] == 0 && host_of[1] == 0 && host_of[2] == 1 &&
          host_of[3] == 1 && over);      /* b has one slot */
    CHECK(tn_run_hosts_map(&hl, 5, 2, TN_RUN_MAP_SLOT, host_of, &over, err,
                           sizeof(err)) == -1 &&
          strcmp(err, "5 ranks do not fit 2 per host on 2 hosts") == 0);
    tn_run_hosts_free(&hl);

    /* MPICH's process mapping: blocks, and the shortest cycle */
    {
        int blocks[6] = { 0, 0, 1, 1, 2, 2 }, rr[6] = { 0, 1, 2, 0, 1, 2 };
        int mixed[5]  = { 0, 0, 1, 2, 2 };

        tn_run_hosts_mapping_str(blocks, 6, &map);
        tn_run_buf_append(&map, "", 1);
        CHECK(strcmp(map.data, "(vector,(0,3,2))") == 0);
        map.len = 0;
        tn_run_hosts_mapping_str(rr, 6, &map);
        tn_run_buf_append(&map, "", 1);
        CHECK(strcmp(map.data, "(vector,(0,3,1))") == 0);
        map.len = 0;
        tn_run_hosts_mapping_str(mixed, 5, &map);
        tn_run_buf_append(&map, "", 1);
        CHECK(strcmp(map.data, "(vector,(0,1,2),(1,1,1),(2,1,2))") == 0);
        tn_run_buf_free(&map);
    }
}

/* ------------------------------------------------------- run_proto.c */

/* Decode the one frame in buf; every shorter prefix must ask for more. */
static long decode_all(const tn_run_buf_t *buf, tn_run_frame_t *f)
{
    const char *why = NULL;

    for (size_t n = 0; n < buf->len; n++) {
        CHECK(tn_run_proto_decode(buf->data, n, f, &why) == 0);
    }
    return tn_run_proto_decode(buf->data, buf->len, f, &why);
}

static void test_proto(void)
{
    tn_run_buf_t   b = { 0 }, pairs = { 0 };
    tn_run_frame_t f;
    const char    *why = NULL, *k, *v;
    size_t         off = 0;
    uint32_t       u[2] = { 3, 4242 };

    tn_run_proto_u32s(&b, TN_RUN_F_EXIT, 5, 7u, 1234u, 2u, 9u,
                      TN_RUN_EXIT_INITED | TN_RUN_EXIT_IN_BARRIER);
    CHECK(decode_all(&b, &f) == (long)b.len && f.type == TN_RUN_F_EXIT &&
          f.u[0] == 7 && f.u[1] == 1234 && f.u[2] == 2 && f.u[3] == 9 &&
          f.u[4] == (TN_RUN_EXIT_INITED | TN_RUN_EXIT_IN_BARRIER));
    b.len = 0;
    tn_run_proto_u32s(&b, TN_RUN_F_EXIT, 5, 7u, 1234u, 2u, 300u, 0u);
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1 &&
          strcmp(why, "bad exit status") == 0);
    b.len = 0;
    tn_run_proto_str(&b, TN_RUN_F_PMIERR, 2, u, "bad PMI request");
    CHECK(decode_all(&b, &f) == (long)b.len && f.u[1] == 4242 &&
          strcmp(f.str, "bad PMI request") == 0);
    b.data[b.len - 1] = 'x';            /* string without its NUL */
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1);
    b.len = 0;
    tn_run_proto_out(&b, 5, 2, "line\n", 5);
    CHECK(decode_all(&b, &f) == (long)b.len && f.u[0] == 5 && f.u[1] == 2 &&
          f.len == 5 && memcmp(f.data, "line\n", 5) == 0);
    b.len = 0;
    tn_run_proto_pair(&pairs, "node-3", "h1:0");
    tn_run_proto_pair(&pairs, "k", "");
    tn_run_proto_fence(&b, 4, 2, &pairs);
    CHECK(decode_all(&b, &f) == (long)b.len && f.type == TN_RUN_F_FENCE &&
          f.u[0] == 4 && f.npairs == 2);
    CHECK(tn_run_proto_next_pair(f.data, f.len, &off, &k, &v) == 1 &&
          strcmp(k, "node-3") == 0 && strcmp(v, "h1:0") == 0);
    CHECK(tn_run_proto_next_pair(f.data, f.len, &off, &k, &v) == 1 &&
          strcmp(k, "k") == 0 && strcmp(v, "") == 0);
    CHECK(tn_run_proto_next_pair(f.data, f.len, &off, &k, &v) == 0);
    b.len = 0;
    tn_run_proto_fence(&b, 4, 3, &pairs);    /* says 3 pairs, holds 2 */
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1);
    b.len = 0;
    tn_run_proto_u32s(&b, TN_RUN_F_SIGNAL, 1, 0u);
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1);
    b.len = 0;
    tn_run_proto_u32s(&b, (tn_run_ftype_t)99, 0);
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1 &&
          strcmp(why, "unknown frame type") == 0);
    CHECK(tn_run_proto_decode("\xff\xff\xff\x7f\x01", 5, &f, &why) == -1 &&
          strcmp(why, "bad frame length") == 0);
    b.len = 0;
    tn_run_proto_u32s(&b, TN_RUN_F_END, 3, 15u, 1000u, 0u);   /* trailing */
    CHECK(tn_run_proto_decode(b.data, b.len, &f, &why) == -1 &&
          strcmp(why, "trailing bytes") == 0);

    /* SETUP round trip */
    {
        char          *hosts[] = { "h0", "h1", "h2" };
        int            host_of[5] = { 0, 0, 1, 2, 2 };
        char          *argv0[] = { "./a", "x", NULL }, *argv1[] = { "./b", NULL };
        char          *env0[] = { "A=1", "PATH=/bin" }, *env1[] = { "B=2" };
        tn_run_block_t blocks[2] = { { 2, 2, argv0, 2, env0 }, { 3, 1, argv1, 1, env1 } };
        tn_run_setup_t s = { "tern-1-x", 5, 3, hosts, host_of, -1, 2, blocks,
                             "/tmp", "ssh -F c", "/usr/bin/tern-run", 32, 1,
                             TN_RUN_SETUP_TAG, 0, 10, 65536, 1u << 26, 1u << 20 };
        tn_run_setup_t d;
        int            host = -1;

        b.len = 0;
        tn_run_proto_setup(&b, 2, &s);
        CHECK(decode_all(&b, &f) == (long)b.len && f.type == TN_RUN_F_SETUP);
        CHECK(tn_run_proto_setup_decode(&f, &d, &host, &why) == 0 && host == 2);
        CHECK(d.nranks == 5 && d.nhosts == 3 && strcmp(d.hosts[2], "h2") == 0 &&
              d.host_of[3] == 2 && d.head_host == -1 && d.nblocks == 2 &&
              d.blocks[1].nranks == 3 && strcmp(d.blocks[0].argv[1], "x") == 0 &&
              d.blocks[0].argv[2] == NULL && strcmp(d.blocks[1].env[0], "B=2") == 0 &&
              strcmp(d.rsh, "ssh -F c") == 0 && d.kvs_bytes == (1u << 26) &&
              d.timeout_s == 10);
        CHECK(tn_run_setup_block_of(&d, 1) == 0 && tn_run_setup_block_of(&d, 2) == 1);
        tn_run_proto_setup_free(&d);
        /* a block claiming more ranks than the job */
        blocks[1].nranks = 4;
        b.len = 0;
        tn_run_proto_setup(&b, 0, &s);
        CHECK(decode_all(&b, &f) == (long)b.len &&
              tn_run_proto_setup_decode(&f, &d, &host, &why) == -1 &&
              strcmp(why, "blocks hold more ranks than the job") == 0);
        blocks[1].nranks = 3;
        host_of[4] = 3;                 /* no such host */
        b.len = 0;
        tn_run_proto_setup(&b, 0, &s);
        CHECK(decode_all(&b, &f) == (long)b.len &&
              tn_run_proto_setup_decode(&f, &d, &host, &why) == -1 &&
              strcmp(why, "bad host of a rank") == 0);
        host_of[4] = 2;
        b.len = 0;
        tn_run_proto_setup(&b, 3, &s);  /* host index out of range */
        CHECK(decode_all(&b, &f) == (long)b.len &&
              tn_run_proto_setup_decode(&f, &d, &host, &why) == -1 &&
              strcmp(why, "bad host index") == 0);
    }
    tn_run_buf_free(&b);
    tn_run_buf_free(&pairs);
}

/* Expand a hostlist; want is the names joined by ' ', or "!why" for an
 * error whose message contains why. */
static void nodelist_check(const char *expr, const char *want)
{
    tn_run_buf_t names = { 0 }, got = { 0 };
    char         err[320] = "";
    int          n = -1;
    int          rc = tn_run_slurm_nodelist(expr, &names, &n, err, sizeof(err));

    if (rc == 0) {
        size_t off = 0;

        for (int i = 0; i < n; i++) {
            tn_run_buf_printf(&got, "%s%s", i > 0 ? " " : "", names.data + off);
            off += strlen(names.data + off) + 1;
        }
        if (off != names.len) {
            fprintf(stderr, "nodelist '%s': %zu bytes for %d names\n", expr,
                    names.len, n);
            failures++;
        }
    } else {
        tn_run_buf_printf(&got, "!%s", err);
    }
    tn_run_buf_append(&got, "", 1);
    if (want[0] == '!' ? rc == 0 || strstr(got.data, want + 1) == NULL
                       : strcmp(got.data, want) != 0) {
        fprintf(stderr, "nodelist '%s': got '%s', want '%s'\n", expr,
                got.data, want);
        failures++;
    }
    tn_run_buf_free(&got);
    tn_run_buf_free(&names);
}

static void counts_check(const char *expr, const char *want)
{
    tn_run_buf_t got = { 0 };
    char         err[320] = "";
    int         *counts = NULL;
    int          n = -1;
    int          rc = tn_run_slurm_counts(expr, &counts, &n, err, sizeof(err));

    if (rc == 0) {
        for (int i = 0; i < n; i++) {
            tn_run_buf_printf(&got, "%s%d", i > 0 ? " " : "", counts[i]);
        }
    } else {
        tn_run_buf_printf(&got, "!%s", err);
    }
    tn_run_buf_append(&got, "", 1);
    if (want[0] == '!' ? rc == 0 || strstr(got.data, want + 1) == NULL
                       : strcmp(got.data, want) != 0) {
        fprintf(stderr, "counts '%s': got '%s', want '%s'\n", expr, got.data,
                want);
        failures++;
    }
    free(counts);
    tn_run_buf_free(&got);
}

static void test_slurm(void)
{
    tn_run_hostlist_t hl = { 0 };
    tn_run_buf_t      big = { 0 };
    char              err[320];

    nodelist_check("h[0-3,7],gpu[01-02],login",
                   "h0 h1 h2 h3 h7 gpu01 gpu02 login");
    nodelist_check("h0", "h0");
    nodelist_check("n[009-011]", "n009 n010 n011");
    nodelist_check("n[8-10]", "n8 n9 n10");
    nodelist_check("n[01-1]", "n01");
    nodelist_check("n[5]", "n5");
    nodelist_check(",a,,b,", "a b");
    nodelist_check("a[1-2]b[3-4]", "a1b3 a1b4 a2b3 a2b4");
    nodelist_check("n[1-2][3,5]", "n13 n15 n23 n25");
    nodelist_check("n[1-2]-ib", "n1-ib n2-ib");
    nodelist_check("[1-2]", "1 2");
    nodelist_check("n[0-1,3-4,6]", "n0 n1 n3 n4 n6");
    nodelist_check("n[999999998-999999999]", "n999999998 n999999999");
    nodelist_check("", "!no nodes");
    nodelist_check(",", "!no nodes");
    nodelist_check("n[3-1]", "!runs backwards");
    nodelist_check("x[]", "!want a number");
    nodelist_check("x[1", "!'[' without ']'");
    nodelist_check("x[1[2]]", "!'[' without ']'");
    nodelist_check("x]", "!']' without '['");
    nodelist_check("n[1-]", "!after '-'");
    nodelist_check("n[-1]", "!want a number");
    nodelist_check("n[a-b]", "!want a number");
    nodelist_check("n[1,]", "!separated by ','");
    nodelist_check("n[1;2]", "!separated by ','");
    nodelist_check("n[1234567890]", "!1 to 9 digits");
    nodelist_check("n[0-999999999]", "!more nodes than tern-run takes");
    nodelist_check("n[0-65535],x", "!more nodes than tern-run takes");
    nodelist_check("n[0-256][0-255]", "!more nodes than tern-run takes");
    nodelist_check("n[0-1000][0-1000][0-1000]", "!more nodes than tern-run takes");
    nodelist_check("a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]", "a1b1c1d1e1f1g1h1");
    nodelist_check("a[1]b[1]c[1]d[1]e[1]f[1]g[1]h[1]i[1]", "!more than 8 bracket");
    /* the error quotes a bounded piece */
    for (int i = 0; i < 300; i++) {
        tn_run_buf_append(&big, "x", 1);
    }
    tn_run_buf_append(&big, "", 1);
    nodelist_check(big.data, "!longer than 255");
    {
        char err2[320];
        int  n;
        tn_run_buf_t names = { 0 };

        CHECK(tn_run_slurm_nodelist(big.data, &names, &n, err2, sizeof(err2)) == -1);
        CHECK(strlen(err2) < 150 && strstr(err2, "...'") != NULL);
        tn_run_buf_free(&names);
        /* the largest accepted: 65536 names, expanded */
        CHECK(tn_run_slurm_nodelist("n[0-255][0-255]", &names, &n, err2,
                                    sizeof(err2)) == 0 && n == 65536);
        CHECK(names.len > 0 && strcmp(names.data + names.len - 8, "n255255") == 0);
        tn_run_buf_free(&names);
    }
    tn_run_buf_free(&big);

    counts_check("2(x3),1", "2 2 2 1");
    counts_check("4", "4");
    counts_check("1,2,3", "1 2 3");
    counts_check("65536(x2)", "65536 65536");
    counts_check("", "!want counts");
    counts_check("0", "!want counts");
    counts_check("65537", "!want counts");
    counts_check("2(x0)", "!N(xM)");
    counts_check("2(x", "!N(xM)");
    counts_check("2(x3", "!N(xM)");
    counts_check("2(3)", "!separated by ','");
    counts_check("2,", "!want counts");
    counts_check("2 ,1", "!separated by ','");
    counts_check("1(x65537)", "!more nodes");
    counts_check("1(x65536),1", "!more nodes");
    counts_check("1(x999999999)", "!more nodes");

    /* an allocation: names with their slots; h1 given twice adds up */
    CHECK(tn_run_slurm_hosts(&hl, "h[0-2],h1", "2(x2),1,3", err, sizeof(err)) == 0);
    CHECK(hl.nhosts == 3 && strcmp(hl.hosts[0].name, "h0") == 0 &&
          hl.hosts[0].slots == 2 && hl.hosts[1].slots == 5 &&
          hl.hosts[2].slots == 1 && hl.hosts[2].given);
    CHECK(tn_run_hosts_slots(&hl) == 8);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_slurm_hosts(&hl, "h[0-2]", "2(x2)", err, sizeof(err)) == -1);
    CHECK(strstr(err, "3 nodes in 'h[0-2]' but 2 counts in '2(x2)'") != NULL);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_slurm_hosts(&hl, "h[0-1],-x", "1(x3)", err, sizeof(err)) == -1);
    CHECK(strstr(err, "bad host name '-x'") != NULL);
    tn_run_hosts_free(&hl);
    /* the largest allocation (the name index keeps this linear); names
     * of two groups can coincide ("n[0-255][0-255]": n1255 twice), not
     * with a separator */
    CHECK(tn_run_slurm_hosts(&hl, "n[0-255]-[0-255]", "1(x65535),7", err,
                             sizeof(err)) == 0);
    CHECK(hl.nhosts == 65536 && strcmp(hl.hosts[65535].name, "n255-255") == 0 &&
          hl.hosts[65535].slots == 7 && tn_run_hosts_slots(&hl) == 65542);
    CHECK(tn_run_hosts_add(&hl, "n0-17", 5, 2, err, sizeof(err)) == 0 &&
          hl.nhosts == 65536 && hl.hosts[17].slots == 3);
    CHECK(tn_run_hosts_add(&hl, "n0-1", 4, 0, err, sizeof(err)) == 0 &&
          hl.nhosts == 65536 && hl.hosts[1].slots == 2);
    CHECK(tn_run_hosts_add(&hl, "new", 3, 0, err, sizeof(err)) == -1 &&
          strstr(err, "more than 65536 hosts") != NULL);
    tn_run_hosts_free(&hl);
    CHECK(tn_run_slurm_hosts(&hl, "h[0-1]", "1(x", err, sizeof(err)) == -1);
    CHECK(strstr(err, "bad count list '1(x'") != NULL);
    tn_run_hosts_free(&hl);
}

int main(void)
{
    test_pmi_basic(1);
    test_pmi_basic(7);
    test_pmi_basic(4096);
    test_pmi_limits();
    test_pmi_errors();
    test_pmi_stuck();
    test_pmi_caps();
    test_kvs_fresh();
    test_kvs();
    test_fwd();
    test_fwd_time();
    test_ranges();
    test_hosts();
    test_proto();
    test_slurm();
    if (failures != 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("launcher_unit: all checks passed\n");
    return 0;
}

/* tern-sim's configuration (tools/tern-sim/sim_conf.c): defaults; keys
 * and values checked, bad ones refused with where and why; [job]
 * sections and --job; command lines with --config in the middle; what
 * is written reads back to the same text; resolved values after a
 * set-up (auto routing, groups, ranks, grids). */
#include "sim_conf.h"

#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "sim_run.h"

static char *written(const tn_sim_conf_t *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CHECK(f != NULL && tn_sim_conf_write(c, f) == 0);
    fclose(f);
    return buf;
}

static void test_values(void)
{
    tn_sim_conf_t c;
    char why[512];
    tn_sim_conf_defaults(&c);
    CHECK(c.topo == TN_SIM_TOPO_FATTREE && c.k == 4 && c.n == 2 && c.seed == 1 && c.njobs == 1);
    CHECK(c.job[0].size == 65536 && c.job[0].load == 0.5 && c.job[0].grid_nd == 2);
    CHECK(tn_sim_conf_set(&c, "topo", "dragonfly", why, sizeof(why)) == TN_SIM_OK && c.topo == 1);
    CHECK(tn_sim_conf_set(&c, "route", "ugal-g", why, sizeof(why)) == TN_SIM_OK &&
          c.route == TN_SIM_RT_UGAL_G);
    CHECK(tn_sim_conf_set(&c, "dims", "16x8x4", why, sizeof(why)) == TN_SIM_OK && c.nd == 3 &&
          c.dims[0] == 16 && c.dims[2] == 4);
    CHECK(tn_sim_conf_set(&c, "sweep", "0.1,0.5,1e-1", why, sizeof(why)) == TN_SIM_OK && c.nsweep == 3 &&
          c.sweep[2] == 0.1);
    CHECK(tn_sim_conf_set(&c, "seed", "18446744073709551615", why, sizeof(why)) == TN_SIM_OK &&
          c.seed == UINT64_MAX);
    CHECK(tn_sim_conf_set(&c, "grid", "4x8", why, sizeof(why)) == TN_SIM_OK && c.job[0].grid_nd == 2 &&
          c.job[0].grid[1] == 8);
    CHECK(tn_sim_conf_set(&c, "lat", "2.5e2", why, sizeof(why)) == TN_SIM_OK && c.lat == 250);
    static const char *const bad[][3] = {
        {"nokey", "1", "unknown key"},
        {"k", "0", "not an integer in 1..4096"},
        {"k", "4097", "not an integer"},
        {"k", "-1", "not an integer"},
        {"k", "4.0", "not an integer"},
        {"k", "", "not an integer"},
        {"seed", "18446744073709551616", "not an unsigned integer"},
        {"topo", "hypercube", "not one of"},
        {"bw", "0", "not a number"},
        {"bw", "inf", "not a number"},
        {"bw", "nan", "not a number"},
        {"bw", "0x10", "not a number"},
        {"bw", "1e", "not a number"},
        {"lat", "1e9999", "not a number"},
        {"dims", "8x", "sizes"},
        {"dims", "1x8", "sizes"},
        {"dims", "2x2x2x2x2x2x2", "sizes"},
        {"sweep", "0.5,", "loads"},
        {"sweep", "0.5,,0.6", "loads"},
        {"sweep", "0", "loads"},
        {"grid", "8", "2d, 3d"},
        {"grid", "4d", "2d, 3d"},
        {"graph", "a#b", "no '#'"},
        {"graph", " a", "no blank"},
        {"size", "0", "not an integer"},
        {"load", "101", "not a number"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        tn_sim_status_t st = tn_sim_conf_set(&c, bad[i][0], bad[i][1], why, sizeof(why));
        if (st == TN_SIM_OK || strstr(why, bad[i][2]) == NULL) {
            fprintf(stderr, "%s = \"%s\": status %d, \"%s\"\n", bad[i][0], bad[i][1], (int)st, why);
        }
        CHECK(st != TN_SIM_OK && strstr(why, bad[i][2]) != NULL);
    }
    /* a control character */
    CHECK(tn_sim_conf_set(&c, "graph", "a\x01" "b", why, sizeof(why)) == TN_SIM_ERR_PARSE);
}

static void test_file(void)
{
    tn_sim_conf_t c;
    char why[512];
    tn_sim_conf_defaults(&c);
    const char *text = "# a run\n"
                       "topo = torus   # comment\n"
                       "  dims=4x4\r\n"
                       "[job]\n"                /* the first [job] is job 0 */
                       "pattern = halo\n"
                       "iters = 3\n"
                       "[job]\n"
                       "pattern = uniform\n"
                       "ranks = 4\n";
    CHECK(tn_sim_conf_parse(&c, text, strlen(text), "t.conf", why, sizeof(why)) == TN_SIM_OK);
    CHECK(c.topo == TN_SIM_TOPO_TORUS && c.nd == 2 && c.njobs == 2);
    CHECK(c.job[0].pattern == TN_SIM_PAT_HALO && c.job[0].iters == 3);
    CHECK(c.job[1].pattern == TN_SIM_PAT_UNIFORM && c.job[1].ranks == 4 && c.job[1].iters == 1);
    /* a job key before any [job] opens job 0: the first [job] is job 1 */
    const char *text2 = "pattern = halo\n[job]\npattern = perm\n";
    tn_sim_conf_defaults(&c);
    CHECK(tn_sim_conf_parse(&c, text2, strlen(text2), "t.conf", why, sizeof(why)) == TN_SIM_OK);
    CHECK(c.njobs == 2 && c.job[0].pattern == TN_SIM_PAT_HALO && c.job[1].pattern == TN_SIM_PAT_PERM);
    static const char *const bad[][2] = {
        {"topo fattree\n", "t:1: want \"key = value\""},
        {"\n\nk = 9999\n", "t:3: k:"},
        {"[job]\ntopo = torus\n", "t:2: topo belongs before"},
        {"[jobs]\n", "t:1: want"},
        {"nokey = 1\n", "t:1: unknown key"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tn_sim_conf_defaults(&c);
        why[0] = '\0';
        tn_sim_status_t st = tn_sim_conf_parse(&c, bad[i][0], strlen(bad[i][0]), "t", why, sizeof(why));
        if (st == TN_SIM_OK || strstr(why, bad[i][1]) == NULL) {
            fprintf(stderr, "file %zu: status %d, \"%s\"\n", i, (int)st, why);
        }
        CHECK(st != TN_SIM_OK && strstr(why, bad[i][1]) != NULL);
    }
    /* 17 jobs */
    char many[512] = "";
    for (int i = 0; i < 17; i++) {
        strcat(many, "[job]\n");
    }
    tn_sim_conf_defaults(&c);
    CHECK(tn_sim_conf_parse(&c, many, strlen(many), "t", why, sizeof(why)) == TN_SIM_ERR_LIMIT);
    /* a NUL byte */
    tn_sim_conf_defaults(&c);
    CHECK(tn_sim_conf_parse(&c, "k = 4\0\n", 7, "t", why, sizeof(why)) == TN_SIM_ERR_PARSE);
}

static int loader(const char *path, char **text_p, size_t *len_p, char *why, size_t whylen)
{
    if (strcmp(path, "base.conf") != 0) {
        snprintf(why, whylen, "no such file");
        return -1;
    }
    *text_p = strdup("topo = dragonfly\na = 6\n[job]\npattern = tornado\n");
    *len_p = strlen(*text_p);
    return 0;
}

static void test_args(void)
{
    tn_sim_conf_t c;
    char why[512];
    const char *out;
    char *argv1[] = {"tern-sim", "--a", "5", "--config", "base.conf", "--p=3", "--job", "--pattern",
                     "incast", "--out", "dir", NULL};
    tn_sim_conf_defaults(&c);
    CHECK(tn_sim_conf_args(&c, 11, argv1, loader, &out, why, sizeof(why)) == TN_SIM_OK);
    /* --config applies where it stands: a = 6 overrides the earlier 5 */
    CHECK(c.topo == TN_SIM_TOPO_DRAGONFLY && c.a == 6 && c.p == 3 && c.njobs == 2);
    CHECK(c.job[0].pattern == TN_SIM_PAT_TORNADO && c.job[1].pattern == TN_SIM_PAT_INCAST);
    CHECK(out != NULL && strcmp(out, "dir") == 0);
    char *argv2[] = {"tern-sim", "--k", NULL};
    CHECK(tn_sim_conf_args(&c, 2, argv2, loader, &out, why, sizeof(why)) == TN_SIM_ERR_PARSE &&
          strstr(why, "value is missing"));
    char *argv3[] = {"tern-sim", "k=4", NULL};
    CHECK(tn_sim_conf_args(&c, 2, argv3, loader, &out, why, sizeof(why)) == TN_SIM_ERR_PARSE);
    char *argv4[] = {"tern-sim", "--config", "nope", NULL};
    CHECK(tn_sim_conf_args(&c, 3, argv4, loader, &out, why, sizeof(why)) == TN_SIM_ERR_IO &&
          strstr(why, "no such file"));
}

/* Written, read back, written again: the same text; resolved values. */
static void test_roundtrip(void)
{
    static tn_sim_conf_t c, back;
    static tn_sim_run_t r;
    char why[512];
    const char *kv[][2] = {{"topo", "dragonfly"}, {"a", "4"}, {"p", "2"}, {"h", "2"}, {"seed", "42"},
                           {"pattern", "halo"}, {"ranks", "32"}, {"grid", "3d"}, {"bw", "200"},
                           {"host_lat", "-1"}};
    tn_sim_conf_defaults(&c);
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        CHECK(tn_sim_conf_set(&c, kv[i][0], kv[i][1], why, sizeof(why)) == TN_SIM_OK);
    }
    CHECK(tn_sim_conf_job(&c, why, sizeof(why)) == TN_SIM_OK);  /* job 0 was open: job 1 */
    CHECK(tn_sim_conf_set(&c, "pattern", "alltoall", why, sizeof(why)) == TN_SIM_OK);
    if (tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why)) != TN_SIM_OK) {
        fprintf(stderr, "setup: %s\n", why);
        failures++;
        return;
    }
    CHECK(c.route == TN_SIM_RT_MINIMAL && c.g == 9 && c.host_lat == 100 && c.host_bw == 200);
    CHECK(c.job[0].ranks == 32 && c.job[0].grid[0] * c.job[0].grid[1] * c.job[0].grid[2] == 32);
    CHECK(c.job[1].ranks == 72 - 32 && c.job[1].phases == 39);
    tn_sim_teardown(&r);
    size_t l1, l2;
    char *t1 = written(&c, &l1);
    tn_sim_conf_defaults(&back);
    CHECK(tn_sim_conf_parse(&back, t1, l1, "written", why, sizeof(why)) == TN_SIM_OK);
    char *t2 = written(&back, &l2);
    CHECK(l1 == l2 && memcmp(t1, t2, l1) == 0);
    CHECK(strstr(t1, "route = minimal\n") && strstr(t1, "grid = 4x4x2\n") && strstr(t1, "seed = 42\n"));
    free(t1);
    free(t2);
}

/* Configurations that decode but cannot run are refused by the set-up,
 * with a reason. */
static void test_setup_refusals(void)
{
    static const char *const bad[][2] = {
        {"topo = dragonfly\ng = 12\n", "want g <= 9"},
        {"topo = fattree\nk = 64\nn = 6\n", "more than"},
        {"topo = torus\nroute = minimal\n", "does not apply"},
        {"mode = open\ntime = 1000\nwarmup = 1000\n", "must end before"},
        {"sweep = 0.5\n", "needs mode = open"},
        {"pattern = alltoall\nphases = 16\n", "all-to-all phases"},
        {"ranks = 17\n", "wants 17 ranks"},
        {"pattern = halo\ngrid = 3x3\n", "does not hold"},
        {"pattern = incast\nincast = 16\n", "incast of 16"},
        {"[job]\nranks = 10\n[job]\nranks = 10\n", "job 1 wants 10 ranks, 6"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        static tn_sim_conf_t c;
        static tn_sim_run_t r;
        char why[512] = "";
        tn_sim_conf_defaults(&c);
        CHECK(tn_sim_conf_parse(&c, bad[i][0], strlen(bad[i][0]), "t", why, sizeof(why)) == TN_SIM_OK);
        tn_sim_status_t st = tn_sim_setup(&r, &c, NULL, 0, why, sizeof(why));
        if (st == TN_SIM_OK || strstr(why, bad[i][1]) == NULL) {
            fprintf(stderr, "setup %zu: status %d, \"%s\"\n", i, (int)st, why);
        }
        CHECK(st != TN_SIM_OK && strstr(why, bad[i][1]) != NULL);
        if (st == TN_SIM_OK) {
            tn_sim_teardown(&r);
        }
    }
}

int main(void)
{
    test_values();
    test_setup_refusals();
    test_file();
    test_args();
    test_roundtrip();
    return tn_check_report("test_sim_conf");
}

/* tern-trace report: the command (trace_report.h). */
#include "trace_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace_svg.h"

typedef struct {
    const char *out, *svg_dir, *job;
    tc_model_t  mod;
    int         timing;
    char      **paths;
    int         npaths;
} tr_opts_t;

static int tr_usage(void)
{
    fputs("usage: tern-trace report [-o OUT.html] [--svg-dir DIR] [--job NAME]\n"
          "                         [--latency US] [--bandwidth GB/s] [--eager BYTES] [--time]\n"
          "                         DIR|FILE...\n", stderr);
    return 2;
}

/* A number option: the whole argument, finite, inside [lo, hi]. */
static int tr_num(const char *opt, const char *s, double lo, double hi, double *v_p)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "tern-trace report: %s wants a number from %g to %g, not '%s'\n", opt,
                lo, hi, s);
        return -1;
    }
    *v_p = v;
    return 0;
}

static int tr_parse(int argc, char **argv, tr_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    tc_model_default(&o->mod);
    o->paths = calloc((size_t)argc + 1, sizeof(char *));
    if (o->paths == NULL) {
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        double v;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && more) {
            o->out = argv[++i];
        } else if (strcmp(a, "--svg-dir") == 0 && more) {
            o->svg_dir = argv[++i];
        } else if (strcmp(a, "--job") == 0 && more) {
            o->job = argv[++i];
        } else if (strcmp(a, "--latency") == 0 && more) {
            if (tr_num(a, argv[++i], 0, 1e6, &v) != 0) {
                return -1;
            }
            o->mod.latency_ns = v * 1e3;
        } else if (strcmp(a, "--bandwidth") == 0 && more) {
            if (tr_num(a, argv[++i], 1e-6, 1e6, &v) != 0) {
                return -1;
            }
            o->mod.ns_per_byte = 1.0 / v;
        } else if (strcmp(a, "--eager") == 0 && more) {
            if (tr_num(a, argv[++i], 0, 1e15, &v) != 0 || v != floor(v)) {
                return -1;
            }
            o->mod.eager = (uint64_t)v;
        } else if (strcmp(a, "--time") == 0) {
            o->timing = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "tern-trace report: unknown option or missing value: %s\n", a);
            return -1;
        } else {
            o->paths[o->npaths++] = argv[i];
        }
    }
    return o->npaths == 0 ? -1 : 0;
}

static double tr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int tr_write_html(const char *path, const tv_report_t *r)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "tern-trace report: %s: %s\n", path, strerror(errno));
        return -1;
    }
    tr_html(f, r);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "tern-trace report: writing %s failed\n", path);
        return -1;
    }
    return 0;
}

/* Each chart as DIR/<name>.svg; files are replaced, never written
 * through a symbolic link. */
static int tr_write_svgs(const char *dir, const tv_report_t *r)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "tern-trace report: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < tv_ncharts; i++) {
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s.svg", dir, tv_charts[i].name) >= (int)sizeof(path)) {
            fprintf(stderr, "tern-trace report: %s: name too long\n", dir);
            return -1;
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (f == NULL) {
            fprintf(stderr, "tern-trace report: %s: %s\n", path, strerror(errno));
            if (fd >= 0) {
                close(fd);
            }
            return -1;
        }
        sv_file_head(f);
        tv_charts[i].draw(f, r);
        if (ferror(f) | fclose(f)) {
            fprintf(stderr, "tern-trace report: writing %s failed\n", path);
            return -1;
        }
    }
    return 0;
}

int tr_main(int argc, char **argv)
{
    tr_opts_t o;
    if (tr_parse(argc, argv, &o) != 0) {
        free(o.paths);
        return tr_usage();
    }
    int rc = 1;
    tl_job_t j;
    tm_match_t m;
    ts_stats_t s;
    tc_path_t p;
    memset(&m, 0, sizeof(m));
    memset(&s, 0, sizeof(s));
    memset(&p, 0, sizeof(p));
    double t0 = tr_now();
    tl_job_init(&j, o.job);
    if (tl_job_add_paths(&j, o.paths, o.npaths) != 0 || tl_job_finish(&j) != 0) {
        fprintf(stderr, "tern-trace report: %s\n", j.err);
        goto out;
    }
    double t1 = tr_now();
    if (tm_match(&j, &m) != 0 || ts_compute(&j, &m, &s) != 0 || tc_path(&j, &m, &o.mod, &p) != 0) {
        fprintf(stderr, "tern-trace report: out of memory\n");
        goto out;
    }
    double t2 = tr_now();
    tv_report_t r = { &j, &m, &s, &p, &o.mod };
    tr_text(stdout, &r);
    fflush(stdout);
    if (o.out != NULL && tr_write_html(o.out, &r) != 0) {
        goto out;
    }
    if (o.svg_dir != NULL && tr_write_svgs(o.svg_dir, &r) != 0) {
        goto out;
    }
    double t3 = tr_now();
    if (o.timing) {
        fprintf(stderr, "tern-trace report: %" PRIu64 " records: load %.3f s (%.3g records/s), "
                "match and analyse %.3f s, write %.3f s, total %.3f s\n", j.nrecs, t1 - t0,
                t1 > t0 ? (double)j.nrecs / (t1 - t0) : 0.0, t2 - t1, t3 - t2, t3 - t0);
    }
    rc = 0;
out:
    tc_free(&p);
    ts_free(&s);
    tm_free(&m);
    tl_job_free(&j);
    free(o.paths);
    return rc;
}

/* tern-trace: read the traces TERN_TRACE makes (docs/trace.md). */
#include <stdio.h>
#include <string.h>

#include "trace_cat.h"
#include "trace_otf2.h"
#include "trace_report.h"
#include "trace_vef_cmd.h"

static int usage(FILE *o)
{
    fputs("usage: tern-trace cat [--clocks] FILE...   the records as text\n"
          "       tern-trace report [-o OUT.html] [--svg-dir DIR] [--job NAME]\n"
          "                         [--latency US] [--bandwidth GB/s] [--eager BYTES] [--time]\n"
          "                         DIR|FILE...\n"
          "           one job's time per rank and call, message sizes, communication matrix,\n"
          "           collectives and critical path: text on stdout, an HTML page with -o,\n"
          "           SVG charts in DIR with --svg-dir; the critical path's model: a message\n"
          "           takes --latency (1 us) + bytes / --bandwidth (10 GB/s); sends above\n"
          "           --eager (16384) bytes wait for their receive\n"
          "       tern-trace export --otf2 OUTDIR [--name NAME] [--job NAME] DIR|FILE...\n"
          "           one job as the OTF2 archive OUTDIR/NAME.otf2 (NAME: traces) for Vampir,\n"
          "           Scalasca and otf2-print\n"
          "       tern-trace export --vef [-o OUT.vef] [--job NAME] DIR|FILE...\n"
          "           one job's messages and collectives as a VEF trace (network simulators)\n"
          "       tern-trace import --vef FILE.vef   check a VEF trace and summarise it\n"
          "FILEs are a traced job's <TERN_TRACE>/<job>.<rank>.ttr (docs/trace.md); a DIR\n"
          "stands for the *.ttr in it\n", o);
    return o == stderr ? 2 : 0;
}

static int cmd_cat(int argc, char **argv)
{
    int clocks = 0, files = 0, rc = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--clocks") == 0) {
            clocks = 1;
            continue;
        }
        char err[800];
        files++;
        if (tc_cat(stdout, argv[i], clocks, err, sizeof(err)) != 0) {
            fflush(stdout);
            fprintf(stderr, "tern-trace: %s\n", err);
            rc = 1;
        }
    }
    return files == 0 ? usage(stderr) : rc;
}

static int cmd_export(int argc, char **argv)
{
    const char *otf2 = NULL, *name = "traces", *job = NULL;
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--otf2") == 0 && i + 1 < argc) {
            otf2 = argv[++i];
        } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (strcmp(argv[i], "--job") == 0 && i + 1 < argc) {
            job = argv[++i];
        } else {
            fprintf(stderr, "tern-trace export: unknown or incomplete option '%s'\n", argv[i]);
            return usage(stderr);
        }
    }
    if (otf2 == NULL || i == argc || name[0] == '\0' || strchr(name, '/') != NULL) {
        return usage(stderr);
    }
    tl_job_t j;
    char err[1024];
    tl_job_init(&j, job);
    if (tl_job_add_paths(&j, argv + i, argc - i) != 0 || tl_job_finish(&j) != 0) {
        fprintf(stderr, "tern-trace: %s\n", j.err);
        tl_job_free(&j);
        return 1;
    }
    int rc = to_export_otf2(&j, otf2, name, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "tern-trace: %s\n", err);
    } else {
        printf("tern-trace: %u ranks, %llu records -> %s/%s.otf2\n", j.nranks,
               (unsigned long long)j.nrecs, otf2, name);
    }
    tl_job_free(&j);
    return rc != 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        return usage(stderr);
    }
    if (strcmp(argv[1], "cat") == 0) {
        return cmd_cat(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "export") == 0) {
        /* one format per run: --vef is trace_vef_cmd.c's, the rest OTF2's */
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--vef") == 0) {
                return vx_main(argc - 2, argv + 2);
            }
        }
        return cmd_export(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "report") == 0) {
        return tr_main(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "import") == 0) {
        return vf_main(argc - 2, argv + 2);
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        return usage(stdout);
    }
    fprintf(stderr, "tern-trace: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}

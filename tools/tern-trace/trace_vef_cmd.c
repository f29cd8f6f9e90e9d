/* tern-trace export --vef and import --vef: the commands (trace_vef_cmd.h). */
#include "trace_vef_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_vef_export.h"

static int vx_usage(void)
{
    fputs("usage: tern-trace export --vef [-o OUT.vef] [--job NAME] DIR|FILE...\n", stderr);
    return 2;
}

static int vf_usage(void)
{
    fputs("usage: tern-trace import --vef FILE.vef\n", stderr);
    return 2;
}

int vx_main(int argc, char **argv)
{
    const char *out = NULL, *job = NULL;
    int vef = 0, npaths = 0;
    char **paths = calloc((size_t)argc + 1, sizeof(char *));
    if (paths == NULL) {
        return 1;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--vef") == 0) {
            vef = 1;
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--job") == 0 && i + 1 < argc) {
            job = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "tern-trace export: unknown option or missing value: %s\n", argv[i]);
            free(paths);
            return vx_usage();
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (!vef || npaths == 0) {
        free(paths);
        return vx_usage();
    }
    int rc = 1;
    tl_job_t j;
    tm_match_t m;
    memset(&m, 0, sizeof(m));
    FILE *o = NULL;
    tl_job_init(&j, job);
    if (tl_job_add_paths(&j, paths, npaths) != 0 || tl_job_finish(&j) != 0) {
        fprintf(stderr, "tern-trace export: %s\n", j.err);
        goto out;
    }
    if (tm_match(&j, &m) != 0) {
        fprintf(stderr, "tern-trace export: out of memory\n");
        goto out;
    }
    o = out != NULL ? fopen(out, "w") : stdout;
    if (o == NULL) {
        fprintf(stderr, "tern-trace export: %s: %s\n", out, strerror(errno));
        goto out;
    }
    vx_stats_t st;
    int wrc = vx_export(o, &j, &m, &st);
    if (o != stdout) {
        wrc |= fclose(o);
    } else {
        wrc |= fflush(o);
    }
    if (wrc != 0) {
        fprintf(stderr, "tern-trace export: writing %s failed\n", out != NULL ? out : "stdout");
        goto out;
    }
    fprintf(stderr, "tern-trace export: %" PRIu32 " ranks, %" PRIu64 " messages, %" PRIu64
            " collectives (%" PRIu64 " lines) on %" PRIu32 " communicators; not exported: %" PRIu64
            " unmatched sends, %" PRIu64 " unmatched receives, %" PRIu64 " collectives; %" PRIu64
            " written as allreduce; %" PRIu64 " calls completed several events (one kept); cycles "
            "broken: %" PRIu64 " collectives split, %" PRIu64 " dependencies dropped\n", j.nranks,
            st.msgs, st.colls, st.coll_lines, st.comms, st.lone_sends, st.lone_recvs,
            st.colls_skipped, st.approx_kinds, st.multi, st.split, st.dropped);
    rc = 0;
out:
    tm_free(&m);
    tl_job_free(&j);
    free(paths);
    return rc;
}

void vf_summary(FILE *o, const vf_job_t *j)
{
    uint64_t msg_bytes = 0, coll_bytes = 0, deps[VF_NDEPS] = { 0 }, ops[VF_NOPS] = { 0 };
    uint64_t *sent = calloc((size_t)j->nranks * 3, sizeof(uint64_t));
    for (size_t i = 0; i < j->nevents; i++) {
        const vf_event_t *e = &j->events[i];
        deps[e->deptype]++;
        if (e->coll == VF_NONE) {
            msg_bytes += e->size;
            if (sent != NULL) {
                sent[3 * e->task]++;
                sent[3 * e->dst + 1]++;
            }
        } else {
            coll_bytes += e->size;
            if (sent != NULL) {
                sent[3 * e->task + 2]++;
            }
        }
    }
    for (uint32_t g = 0; g < j->ncolls; g++) {
        ops[j->colls[g].op]++;
    }
    fprintf(o, "vef: %" PRIu32 " ranks, %" PRIu32 " communicators, %" PRIu32 " messages (%" PRIu64
            " bytes), %" PRIu32 " collectives (%" PRIu32 " global, %" PRIu32 " local; %zu lines, %"
            PRIu64 " bytes sent)\n", j->nranks, j->ncomms, j->nmsgs, msg_bytes, j->ncolls,
            j->nglobal, j->nlocal, j->nevents - j->nmsgs, coll_bytes);
    fputs("collectives by op:", o);
    for (unsigned k = 0; k < VF_NOPS; k++) {
        if (ops[k] != 0) {
            fprintf(o, " %s %" PRIu64, vf_op_name(k), ops[k]);
        }
    }
    fputs("\ndependencies:", o);
    for (unsigned k = 0; k < VF_NDEPS; k++) {
        fprintf(o, " %s %" PRIu64, vf_dep_name(k), deps[k]);
    }
    fputc('\n', o);
    if (sent != NULL && j->nranks <= 64) {
        fputs("rank  sends  receives  collective lines\n", o);
        for (uint32_t r = 0; r < j->nranks; r++) {
            fprintf(o, "%4" PRIu32 " %6" PRIu64 " %9" PRIu64 " %17" PRIu64 "\n", r, sent[3 * r],
                    sent[3 * r + 1], sent[3 * r + 2]);
        }
    }
    free(sent);
    fputs("check: ok (header counts met, every dependency names an earlier event of its own task, "
          "every collective has a line per member)\n", o);
}

int vf_main(int argc, char **argv)
{
    const char *path = NULL;
    int vef = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--vef") == 0) {
            vef = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "tern-trace import: unknown option: %s\n", argv[i]);
            return vf_usage();
        } else if (path == NULL) {
            path = argv[i];
        } else {
            return vf_usage();
        }
    }
    if (!vef || path == NULL) {
        return vf_usage();
    }
    vf_job_t j;
    if (vf_load(path, &j) != 0) {
        fprintf(stderr, "tern-trace import: %s: %s\n", path, j.err);
        return 1;
    }
    vf_summary(stdout, &j);
    vf_free(&j);
    return 0;
}

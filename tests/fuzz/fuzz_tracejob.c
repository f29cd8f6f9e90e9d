/* Fuzz harness: tern-trace report's whole path over a job's trace files
 * (tools/tern-trace: trace_load.c, trace_unify.c, trace_match.c,
 * trace_stats.c, trace_cpath.c, and the text, HTML and SVG writers).  The
 * files are hostile: the one decode step (trace_read.c, fuzz_trace) has
 * checked each alone, so this harness aims at what spans files: ranks,
 * sizes and jobs that disagree, communicators defined differently by
 * their members, world ranks out of range, request ids reused or never
 * made, messages and collectives that do not add up, clocks of any value.
 *
 * Input: a flags byte (bit 0: keep only job "job-m"; bit 1: a model with
 * no latency and a tiny eager limit), then files, each a 4-byte
 * little-endian length and that many bytes (the last one cut to what is
 * left), at most 8.
 *
 * Invariants (abort when broken): an accepted job has ranks 0..size-1 in
 * order, items inside their rank's array, job communicators and names in
 * range, times with exit >= entry >= 0; every message, lone operation and
 * collective member names records that exist; the critical path's parts
 * add up to its length; the HTML page has one <html>, its nine charts and
 * no <script> (a job name holding one is escaped). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_charts.h"
#include "trace_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(c)                                                          \
    do {                                                                     \
        if (!(c)) {                                                          \
            fprintf(stderr, "fuzz_tracejob: %s:%d: %s\n", __FILE__, __LINE__, #c); \
            abort();                                                         \
        }                                                                    \
    } while (0)

static void fz_check_job(const tl_job_t *j)
{
    FZ_CHECK(j->nranks == j->size);
    for (uint32_t r = 0; r < j->nranks; r++) {
        const tl_rank_t *rk = &j->ranks[r];
        FZ_CHECK(rk->rank == r && rk->node < j->nnodes);
        for (uint32_t k = 0; k < rk->nrecs; k++) {
            const tl_rec_t *rc = &rk->recs[k];
            FZ_CHECK(rc->t_enter >= 0 && rc->t_exit >= rc->t_enter && rc->t_exit <= j->t_end);
            FZ_CHECK(rc->call < j->ncalls && (uint64_t)rc->item + rc->nitems <= rk->nitems);
        }
        for (uint32_t i = 0; i < rk->nitems; i++) {
            const tl_item_t *it = &rk->items[i];
            FZ_CHECK(it->comm == TL_NONE || it->comm < j->ncomms);
            FZ_CHECK(it->world >= -1 && it->world < (int32_t)j->size);
            if (it->type == TERN_TRACE_I_COLL) {
                FZ_CHECK(it->u.coll.algo == TERN_TRACE_ALGO_UNKNOWN || it->u.coll.algo < j->nalgos);
            }
            if (it->type == TERN_TRACE_I_SCOUNTS || it->type == TERN_TRACE_I_RCOUNTS) {
                FZ_CHECK(it->id + it->bytes <= rk->ncounts);
            }
        }
    }
    for (uint32_t c = 0; c < j->ncomms; c++) {
        const tl_comm_t *cm = &j->comms[c];
        for (uint32_t i = 0; i < cm->size + cm->remote_size; i++) {
            FZ_CHECK(cm->world[i] >= 0 && (uint32_t)cm->world[i] < j->size);
        }
    }
}

static void fz_check_rec(const tl_job_t *j, uint32_t rank, uint32_t rec, int may_be_none)
{
    FZ_CHECK(rank < j->size);
    FZ_CHECK((may_be_none && rec == TL_NONE) || rec < j->ranks[rank].nrecs);
}

static void fz_check_match(const tl_job_t *j, const tm_match_t *m)
{
    for (size_t i = 0; i < m->nmsgs; i++) {
        const tm_msg_t *g = &m->msgs[i];
        fz_check_rec(j, g->src, g->send_rec, 0);
        fz_check_rec(j, g->src, g->send_done, 1);
        fz_check_rec(j, g->dst, g->recv_rec, 0);
        fz_check_rec(j, g->dst, g->recv_done, 1);
        FZ_CHECK(g->comm < j->ncomms);
    }
    for (size_t i = 0; i < m->nlone_sends; i++) {
        fz_check_rec(j, m->lone_sends[i].rank, m->lone_sends[i].rec, 0);
    }
    for (size_t i = 0; i < m->nlone_recvs; i++) {
        fz_check_rec(j, m->lone_recvs[i].rank, m->lone_recvs[i].rec, 0);
    }
    size_t members = 0;
    for (size_t c = 0; c < m->ncolls; c++) {
        FZ_CHECK(m->colls[c].first == members && m->colls[c].n > 0);
        members += m->colls[c].n;
    }
    FZ_CHECK(members == m->nmembers);
    for (size_t k = 0; k < m->nmembers; k++) {
        fz_check_rec(j, m->members[k].rank, m->members[k].rec, 0);
        fz_check_rec(j, m->members[k].rank, m->members[k].done, 1);
        FZ_CHECK(m->members[k].item < j->ranks[m->members[k].rank].nitems);
    }
}

static size_t fz_count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p++) {
        n++;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    uint8_t flags = data[0];
    size_t off = 1;
    tl_job_t j;
    tl_job_init(&j, (flags & 1) ? "job-m" : NULL);
    int ok = 1;
    for (int n = 0; n < 8 && off + 4 <= size && ok; n++) {
        uint32_t len;
        memcpy(&len, data + off, 4);
        off += 4;
        size_t take = len < size - off ? len : size - off;
        FILE *f = fmemopen((void *)(uintptr_t)(data + off), take ? take : 1, "rb");
        off += take;
        if (f == NULL || take == 0) {
            if (f != NULL) {
                fclose(f);
            }
            continue;
        }
        ok = tl_job_add_stream(&j, f, "fuzz") >= 0;
    }
    if (!ok || tl_job_finish(&j) != 0) {
        tl_job_free(&j);
        return 0;
    }
    fz_check_job(&j);
    tm_match_t m;
    ts_stats_t s;
    tc_path_t p;
    tc_model_t mod;
    tc_model_default(&mod);
    if (flags & 2) {
        mod.latency_ns = 0;
        mod.eager = 0;
    }
    if (tm_match(&j, &m) != 0) {
        tl_job_free(&j);
        return 0;
    }
    fz_check_match(&j, &m);
    if (ts_compute(&j, &m, &s) == 0) {
        if (tc_path(&j, &m, &mod, &p) == 0) {
            FZ_CHECK(p.compute >= 0 && p.mpi >= 0 && p.transfer >= 0);
            FZ_CHECK(p.compute + p.mpi + p.transfer == p.end - p.start);
            for (unsigned c = 0; c < TC_COLS; c++) {
                FZ_CHECK(p.cols[c] == TL_NONE || p.cols[c] < j.size);
            }
            tv_report_t r = { &j, &m, &s, &p, &mod };
            char *buf = NULL;
            size_t len = 0;
            FILE *o = open_memstream(&buf, &len);
            if (o != NULL) {
                tr_text(o, &r);
                fputc('\0', o);
                fflush(o);
                size_t text = len;
                tr_html(o, &r);
                fclose(o);
                const char *page = buf + text;
                FZ_CHECK(fz_count(page, "<html") == 1 && fz_count(page, "<script") == 0);
                FZ_CHECK(fz_count(page, "<svg") == tv_ncharts);
                free(buf);
            }
            tc_free(&p);
        }
        ts_free(&s);
    }
    tm_free(&m);
    tl_job_free(&j);
    return 0;
}

/* tern-trace cat: a trace as text, one line per record. */
#include "trace_cat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *tc_form(unsigned f)
{
    return f == TERN_TRACE_BLOCKING ? "blocking" : f == TERN_TRACE_NONBLOCKING ? "nonblocking"
                                                                             : "persistent";
}

static const char *tc_mode(unsigned m)
{
    static const char *const names[] = { "std", "sync", "ready", "buffered" };
    return m < 4 ? names[m] : "?";
}

static void tc_rank(FILE *o, int32_t r)
{
    if (r == TERN_TRACE_ANY) {
        fputs("any", o);
    } else if (r == TERN_TRACE_PROC_NULL) {
        fputs("null", o);
    } else if (r == TERN_TRACE_NONE) {
        fputs("-", o);
    } else if (r == TERN_TRACE_ROOT) {
        fputs("root", o);
    } else {
        fprintf(o, "%d", r);
    }
}

static void tc_item(FILE *o, const tt_file_t *t, const tt_item_t *it)
{
    static const char *const rma[] = { "?", "put", "get", "acc", "get_acc", "fop", "cas" };
    switch (it->type) {
    case TERN_TRACE_I_SEND:
        fprintf(o, " send(comm=%u peer=", it->u.send.comm);
        tc_rank(o, it->u.send.peer);
        fprintf(o, " world=%d tag=%d bytes=%" PRIu64 " mode=%s %s)", it->u.send.world,
                it->u.send.tag, it->u.send.bytes, tc_mode(it->u.send.mode),
                tc_form(it->u.send.form));
        break;
    case TERN_TRACE_I_RECV:
        fprintf(o, " recv(comm=%u peer=", it->u.recv.comm);
        tc_rank(o, it->u.recv.peer);
        fputs(" tag=", o);
        tc_rank(o, it->u.recv.tag);
        fprintf(o, " capacity=%" PRIu64 " %s)", it->u.recv.bytes, tc_form(it->u.recv.form));
        break;
    case TERN_TRACE_I_STATUS:
        fputs(" status(source=", o);
        tc_rank(o, it->u.status.source);
        fprintf(o, " tag=%d bytes=%" PRIu64 " error=%d%s)", it->u.status.tag,
                it->u.status.bytes, it->u.status.error,
                it->u.status.cancelled ? " cancelled" : "");
        break;
    case TERN_TRACE_I_REQ:
        fprintf(o, " req=%#" PRIx64, it->u.req.req);
        break;
    case TERN_TRACE_I_START:
        fprintf(o, " start=%#" PRIx64, it->u.req.req);
        break;
    case TERN_TRACE_I_FREE:
        fprintf(o, " free=%#" PRIx64, it->u.req.req);
        break;
    case TERN_TRACE_I_DONE:
        fprintf(o, " done(req=%#" PRIx64, it->u.done.req);
        if (it->u.done.source != -1) {
            fputs(" source=", o);
            tc_rank(o, it->u.done.source);
            fprintf(o, " tag=%d bytes=%" PRIu64, it->u.done.tag, it->u.done.bytes);
        }
        fprintf(o, " error=%d%s)", it->u.done.error, it->u.done.cancelled ? " cancelled" : "");
        break;
    case TERN_TRACE_I_COLL:
        fprintf(o, " coll(%s comm=%u algo=%s root=", tt_coll_kind_name(it->u.coll.kind),
                it->u.coll.comm, tt_algo_name(t, it->u.coll.algo));
        tc_rank(o, it->u.coll.root);
        fprintf(o, " op=%s seq=%" PRIu64 " sbytes=%" PRIu64 " rbytes=%" PRIu64 " %s%s%s)",
                tt_op_name(it->u.coll.op), it->u.coll.seq, it->u.coll.sbytes,
                it->u.coll.rbytes, tc_form(it->u.coll.form),
                it->u.coll.flags & TERN_TRACE_C_INPLACE ? " inplace" : "",
                it->u.coll.flags & TERN_TRACE_C_VECTOR ? " vector" : "");
        break;
    case TERN_TRACE_I_SCOUNTS:
    case TERN_TRACE_I_RCOUNTS:
        fprintf(o, " %s[%u]=", it->type == TERN_TRACE_I_SCOUNTS ? "sbytes" : "rbytes",
                it->u.counts.n);
        for (uint32_t i = 0; i < it->u.counts.n && i < 16; i++) {
            fprintf(o, "%s%" PRIu64, i ? "," : "", tt_count(it, i));
        }
        if (it->u.counts.n > 16) {
            fputs(",...", o);
        }
        break;
    case TERN_TRACE_I_NBRS: {
        uint32_t in = it->u.nbrs.h.indegree, out = it->u.nbrs.h.outdegree;
        fprintf(o, " neighbours(comm=%u%s", it->u.nbrs.h.comm,
                it->u.nbrs.h.flags & TERN_TRACE_NBRS_CART ? " cart" : "");
        for (int side = 0; side < 2; side++) {
            uint32_t first = side ? in : 0, n = side ? out : in;
            fputs(side ? " out=" : " in=", o);
            for (uint32_t i = 0; i < n && i < 16; i++) {
                if (i > 0) {
                    fputc(',', o);
                }
                tc_rank(o, tt_nbr(it, first + i));
            }
            if (n > 16) {
                fputs(",...", o);
            }
        }
        fputc(')', o);
        break;
    }
    case TERN_TRACE_I_NEWCOMM:
        fprintf(o, " newcomm=%u", it->u.newcomm.comm);
        break;
    case TERN_TRACE_I_RMA:
        fprintf(o, " rma(%s comm=%u target=", rma[it->u.rma.op], it->u.rma.comm);
        tc_rank(o, it->u.rma.target);
        fprintf(o, " bytes=%" PRIu64 ")", it->u.rma.bytes);
        break;
    case TERN_TRACE_I_EVENT: {
        int32_t e[4];
        memcpy(e, it->u.event.elems, sizeof(e));
        static const char *const causes[] = {"fast", "timeout", "probe"};
        fprintf(o, " event(%s peer=%d", tt_event_name(it->u.event.event), e[0]);
        if (it->u.event.event == TERN_TRACE_EV_RETRANSMIT) {
            fprintf(o, " packets=%d cause=%s", e[1], e[2] >= 0 && e[2] < 3 ? causes[e[2]] : "?");
        } else if (it->u.event.event == TERN_TRACE_EV_RAIL_STATE) {
            fprintf(o, " rail=%d %s", e[1], e[2] ? "up" : "down");
        } else {
            fprintf(o, " reason=%d", e[1]);
        }
        fputc(')', o);
        break;
    }
    default:
        break;
    }
}

static void tc_comm(FILE *o, const tt_file_t *t, const tt_rec_t *r, double ts)
{
    const tt_comm_t *c = tt_comm(t, r->items[0].u.commdef);
    fprintf(o, "%.9f comm %u ctx=%u size=%u rank=%u", ts, c->def.id, c->def.ctx, c->def.size,
            c->def.rank);
    if (c->def.remote_size) {
        fprintf(o, " remote_size=%u", c->def.remote_size);
    }
    fputs(" world=", o);
    uint32_t n = c->def.size + c->def.remote_size;
    for (uint32_t i = 0; i < n && i < 32; i++) {
        fprintf(o, "%s%d", i == 0 ? "" : i == c->def.size ? "|" : ",", c->world[i]);
    }
    fputs(n > 32 ? ",...\n" : "\n", o);
}

int tc_cat(FILE *o, const char *path, int clocks, char *err, size_t errlen)
{
    tt_file_t t;
    if (tt_open(&t, path) != 0) {
        snprintf(err, errlen, "%s", t.err);
        return -1;
    }
    const tern_trace_hdr_t *h = &t.hdr;
    fprintf(o, "# %s: rank %u of %u, node %u of %u, host %s, job %s, pid %u, %u rails, "
            "clock %s\n", path, h->rank, h->size, h->node, h->nnodes, h->host, h->job, h->pid,
            h->rails, h->clock == TERN_TRACE_CLOCK_TSC ? "tsc" : "monotonic");
    fputs("# time (s from the trace's start), duration (us), call, what it did\n", o);
    uint64_t base = h->t0_ns;
    tt_rec_t r;
    int rc;
    while ((rc = tt_next(&t, &r)) == 1) {
        if (r.kind == TERN_TRACE_REC_CLOCK) {
            if (clocks) {
                fprintf(o, "# clock ticks=%" PRIu64 " ns=%" PRIu64 "\n", r.t_enter, r.t_exit);
            }
            continue;
        }
        uint64_t a = tt_ns(&t, r.t_enter), b = tt_ns(&t, r.t_exit);
        double ts = a >= base ? (double)(a - base) * 1e-9 : -(double)(base - a) * 1e-9;
        if (r.kind == TERN_TRACE_REC_COMM) {
            tc_comm(o, &t, &r, ts);
            continue;
        }
        fprintf(o, "%.9f %.3f %*s%s", ts, (double)(b - a) * 1e-3, (int)r.depth * 2, "",
                tt_call_name(&t, r.call));
        for (unsigned i = 0; i < r.nitems; i++) {
            tc_item(o, &t, &r.items[i]);
        }
        fputs(r.flags & TERN_TRACE_F_ERROR ? " ERROR\n" : "\n", o);
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", t.err);
    }
    tt_close(&t);
    return rc < 0 ? -1 : 0;
}

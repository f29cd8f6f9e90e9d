/* Decoding a status slot a rank wrote, and that rank's report lines; no
 * I/O (run_slot.h). */
#include "run_slot.h"

#include <stdio.h>
#include <string.h>

#define TN_STATUS_CALL_TABLE
#include "tn_status_calls.h"

/* A datatype's size beyond this is a lie (1 TiB per element). */
#define FMT_MAX_DTYPE_SIZE (1ll << 40)

static void fmt_sanitize(char *dst, const char *src, size_t len)
{
    size_t i;

    for (i = 0; i + 1 < len && src[i] != '\0'; i++) {
        unsigned char c = (unsigned char)src[i];

        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[i] = '\0';
}

void tn_run_slot_decode(const void *bytes, size_t len, uint32_t ask, tn_run_slot_t *slot_p)
{
    const unsigned char        *b = bytes;
    tern_status_who_t           who;
    tern_status_answer_t        ans;
    tn_run_slot_t              *s = slot_p;

    memset(s, 0, sizeof(*s));
    s->world_rank = -1;
    s->dtype_size = -1;
    if (len < TERN_STATUS_OFF_CALL + sizeof(tern_status_call_t)) {
        return;                                 /* not even a call line */
    }
    memcpy(&who, b + TERN_STATUS_OFF_WHO, sizeof(who));
    if (who.magic != TERN_STATUS_SLOT_MAGIC) {
        return;
    }
    s->attached = 1;
    if (who.version != TERN_STATUS_VERSION) {
        s->bad = "a slot of another version of Tern";
        return;
    }
    s->pid        = who.pid;
    s->world_rank = who.world_rank >= 0 ? who.world_rank : -1;
    s->world_size = who.world_size > 0 ? who.world_size : 0;
    s->main_only  = (who.flags & TERN_STATUS_F_MAIN_ONLY) != 0;
    s->known_calls = who.ncalls == TN_STATUS_NCALLS && who.calls_hash == TN_STATUS_CALLS_HASH;

    memcpy(&s->call, b + TERN_STATUS_OFF_CALL, sizeof(s->call));
    if (s->call.seq & 1u) {
        s->bad = "its call record was being rewritten all the while";
        return;
    }
    s->any_call = s->call.call != 0;
    s->in_call  = s->any_call && (s->call.seq & 3u) == 2u;
    if (s->known_calls && s->call.call > TN_STATUS_NCALLS) {
        s->bad = "an unknown call id";
        return;
    }

    s->asked = ask != 0;
    if (ask == 0 || len < TERN_STATUS_SLOT_SIZE) {
        return;
    }
    memcpy(&ans, b + TERN_STATUS_OFF_ANSWER, sizeof(ans));
    if (ans.answered != ask || ans.call_seq != s->call.seq) {
        return;                                 /* no answer for this call */
    }
    s->answered = 1;
    if (ans.dtype_size >= 0 && ans.dtype_size <= FMT_MAX_DTYPE_SIZE) {
        s->dtype_size = ans.dtype_size;
    }
    s->comm = ans.comm;
    fmt_sanitize(s->comm.name, ans.comm.name, sizeof(s->comm.name));
    if (s->comm.kind > TERN_STATUS_COMM_BAD) {
        s->comm.kind = TERN_STATUS_COMM_NONE;
    }
    s->nreqs = ans.nreqs < TERN_STATUS_MAX_REQS ? ans.nreqs : (uint32_t)TERN_STATUS_MAX_REQS;
    s->nreqs_total = ans.nreqs_total > s->nreqs ? ans.nreqs_total : s->nreqs;
    memcpy(s->reqs, b + TERN_STATUS_OFF_ANSWER + sizeof(ans), s->nreqs * sizeof(s->reqs[0]));
}

/* ---- formatting --------------------------------------------------------- */

/* The name of a predefined handle of kind (1 comm, 2 win, 3 session,
 * 4 datatype), or NULL. */
static const char *fmt_predef(int kind, uint64_t value)
{
    for (const tn_status_predef_t *p = tn_status_predef; p->name != NULL; p++) {
        if (p->kind == kind && p->value == value) {
            return p->name;
        }
    }
    return NULL;
}

static void fmt_comm(tn_run_buf_t *out, uint8_t kind, uint32_t ctx)
{
    switch (kind) {
    case TERN_STATUS_COMM_WORLD: tn_run_buf_printf(out, "MPI_COMM_WORLD"); break;
    case TERN_STATUS_COMM_SELF:  tn_run_buf_printf(out, "MPI_COMM_SELF"); break;
    case TERN_STATUS_COMM_OTHER: tn_run_buf_printf(out, "comm#%u", ctx); break;
    default:                     tn_run_buf_printf(out, "?"); break;
    }
}

static void fmt_obj(tn_run_buf_t *out, const tn_run_slot_t *s, int kind)
{
    static const char *const what[] = { "", "comm", "win", "session" };
    const char *name = fmt_predef(kind, s->call.obj);

    tn_run_buf_printf(out, "%s=", what[kind]);
    if (name != NULL) {
        tn_run_buf_printf(out, "%s", name);
    } else if (kind == 1 && s->answered && s->comm.kind == TERN_STATUS_COMM_OTHER) {
        tn_run_buf_printf(out, "comm#%u", s->comm.ctx);
        if (s->comm.name[0] != '\0') {
            tn_run_buf_printf(out, " '%s'", s->comm.name);
        }
        tn_run_buf_printf(out, " (rank %d of %d)", s->comm.rank, s->comm.size);
    } else if (kind == 1 && s->answered && s->comm.kind == TERN_STATUS_COMM_BAD) {
        tn_run_buf_printf(out, "0x%llx (no such communicator)",
                          (unsigned long long)s->call.obj);
    } else {
        tn_run_buf_printf(out, "0x%llx", (unsigned long long)s->call.obj);
    }
}

static void fmt_rank(tn_run_buf_t *out, const char *role, int32_t v)
{
    const char *name = NULL;

    if (v == TERN_STATUS_PROC_NULL) {
        name = "MPI_PROC_NULL";
    } else if (v == TERN_STATUS_ANY_SOURCE && strstr(role, "source") != NULL) {
        name = "MPI_ANY_SOURCE";
    } else if (v == TERN_STATUS_ROOT && strcmp(role, "root") == 0) {
        name = "MPI_ROOT";
    }
    if (name != NULL) {
        tn_run_buf_printf(out, ", %s=%s", role, name);
    } else {
        tn_run_buf_printf(out, ", %s=%d", role, v);
    }
}

static void fmt_tag(tn_run_buf_t *out, const char *role, int32_t v)
{
    if (v == TERN_STATUS_ANY_TAG && strcmp(role, "sendtag") != 0) {
        tn_run_buf_printf(out, ", %s=MPI_ANY_TAG", role);
    } else {
        tn_run_buf_printf(out, ", %s=%d", role, v);
    }
}

/* "MPI_Recv(comm=MPI_COMM_WORLD, source=2, tag=7, count=1 x MPI_INT (4 B))" */
static void fmt_call(tn_run_buf_t *out, const tn_run_slot_t *s)
{
    const tern_status_call_t    *c = &s->call;
    const tn_status_call_desc_t *d;
    size_t                       open;

    if (!s->known_calls) {
        tn_run_buf_printf(out, "call #%u (its library's call table differs from "
                          "tern-run's)", c->call);
        return;
    }
    d = &tn_status_calls[c->call];
    tn_run_buf_printf(out, "%s(", d->name);
    open = out->len;
    if (d->obj_kind >= 1 && d->obj_kind <= 3) {
        fmt_obj(out, s, d->obj_kind);
    }
    if (d->peer != NULL) {
        fmt_rank(out, d->peer, c->peer);
    }
    if (d->tag != NULL) {
        fmt_tag(out, d->tag, c->tag);
    }
    if (d->peer2 != NULL) {
        fmt_rank(out, d->peer2, c->peer2);
    }
    if (d->tag2 != NULL) {
        fmt_tag(out, d->tag2, c->tag2);
    }
    if (d->count != NULL) {
        tn_run_buf_printf(out, ", %s=%lld", d->count, (long long)c->count);
        if (d->dtype != NULL) {
            const char *dt = fmt_predef(4, c->dtype);

            tn_run_buf_printf(out, " x %s", dt != NULL ? dt : "derived type");
            if (s->answered && s->dtype_size >= 0) {
                tn_run_buf_printf(out, " (%lld B)", (long long)s->dtype_size);
            }
        }
    }
    /* the first argument printed has no ", " before it */
    if (out->len >= open + 2 && out->data[open] == ',') {
        memmove(out->data + open, out->data + open + 2, out->len - open - 2);
        out->len -= 2;
    }
    tn_run_buf_printf(out, ")");
}

static void fmt_for(tn_run_buf_t *out, uint64_t now_ms, uint64_t since_ms)
{
    if (now_ms != 0 && since_ms != 0 && since_ms <= now_ms) {
        tn_run_buf_printf(out, " for %.1f s", (double)(now_ms - since_ms) / 1000.0);
    }
}

static void fmt_req(tn_run_buf_t *out, const char *prefix, const tern_status_req_t *r)
{
    static const char *const kinds[] = { "?", "send", "recv", "other" };
    const char *kind = r->kind <= TERN_STATUS_REQ_OTHER ? kinds[r->kind] : "?";

    tn_run_buf_printf(out, "%s  pending %s:", prefix, kind);
    if (r->kind == TERN_STATUS_REQ_SEND || r->kind == TERN_STATUS_REQ_RECV) {
        int is_recv = r->kind == TERN_STATUS_REQ_RECV;

        tn_run_buf_printf(out, " %s=", is_recv ? "source" : "dest");
        if (is_recv && r->peer == TERN_STATUS_ANY_SOURCE) {
            tn_run_buf_printf(out, "MPI_ANY_SOURCE");
        } else {
            tn_run_buf_printf(out, "%d", r->peer);
        }
        if (r->peer_world >= 0 && r->comm_kind != TERN_STATUS_COMM_WORLD) {
            tn_run_buf_printf(out, " (world %d)", r->peer_world);
        }
        if (is_recv && r->tag == TERN_STATUS_ANY_TAG) {
            tn_run_buf_printf(out, " tag=MPI_ANY_TAG");
        } else {
            tn_run_buf_printf(out, " tag=%d", r->tag);
        }
        tn_run_buf_printf(out, " count=%llu (%llu B, %llu B %s)",
                          (unsigned long long)r->count, (unsigned long long)r->bytes,
                          (unsigned long long)r->done, is_recv ? "in" : "out");
    } else {
        tn_run_buf_printf(out, " a collective schedule or generalized request");
    }
    tn_run_buf_printf(out, " comm=");
    fmt_comm(out, r->comm_kind, r->ctx);
    if (r->flags & TERN_STATUS_RQ_COLL) {
        tn_run_buf_printf(out, " [inside a collective]");
    }
    if (r->flags & TERN_STATUS_RQ_SYNC) {
        tn_run_buf_printf(out, " [synchronous]");
    }
    tn_run_buf_printf(out, "\n");
}

void tn_run_slot_format(const tn_run_slot_t *s, int rank, int pid, const char *host,
                        uint64_t now_ms, const char *prefix, tn_run_buf_t *out)
{
    const char *name = NULL;

    tn_run_buf_printf(out, "%srank %d (pid %d on %s): ", prefix, rank, pid, host);
    if (!s->attached) {
        tn_run_buf_printf(out, "publishes no status (before MPI_Init, TERN_STATUS=0, or "
                          "not a Tern program)\n");
        return;
    }
    if (s->bad != NULL) {
        tn_run_buf_printf(out, "its status cannot be read: %s\n", s->bad);
        return;
    }
    if (s->known_calls && s->any_call) {
        name = tn_status_calls[s->call.call].name;
    }
    if (!s->any_call) {
        tn_run_buf_printf(out, "no MPI call published yet");
    } else if (s->in_call) {
        tn_run_buf_printf(out, "in ");
        fmt_call(out, s);
        fmt_for(out, now_ms, s->call.enter_ms);
    } else if (name != NULL && (strcmp(name, "MPI_Finalize") == 0 ||
                                strcmp(name, "MPI_Session_finalize") == 0)) {
        tn_run_buf_printf(out, "after %s", name);
        fmt_for(out, now_ms, s->call.leave_ms);
    } else {
        tn_run_buf_printf(out, "not in an MPI call (computing)");
        fmt_for(out, now_ms, s->call.leave_ms);
        tn_run_buf_printf(out, "; last call ");
        fmt_call(out, s);
    }
    if (s->main_only) {
        tn_run_buf_printf(out, " [MPI_THREAD_MULTIPLE: the main thread's calls]");
    }
    if (s->world_rank >= 0 && s->world_rank != rank) {
        tn_run_buf_printf(out, " [world rank %d]", s->world_rank);
    }
    tn_run_buf_printf(out, "\n");
    if (!s->answered) {
        if (s->asked && s->in_call) {
            tn_run_buf_printf(out, "%s  (no answer about its pending requests within %d ms: "
                              "it is not waiting in MPI's progress loop)\n", prefix,
                              TN_RUN_STATUS_ANSWER_MS);
        }
        return;
    }
    for (uint32_t i = 0; i < s->nreqs; i++) {
        fmt_req(out, prefix, &s->reqs[i]);
    }
    if (s->nreqs_total > s->nreqs) {
        tn_run_buf_printf(out, "%s  ... and %u more pending requests\n", prefix,
                          s->nreqs_total - s->nreqs);
    }
    if (s->nreqs_total == 0 && s->in_call) {
        tn_run_buf_printf(out, "%s  no pending requests\n", prefix);
    }
}

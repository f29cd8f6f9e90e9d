/* The status slot: mapping it, and answering the launcher (status.h). */
#include "runtime/status.h"
#include "base/config.h"
#include "base/log.h"
#include "tn_status_calls.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

tn_rt_status_t tn_rt_status;

static uint32_t tn_rt_status_pending_call;     /* MPI_Init's id, until attached */
static int tn_rt_status_tried;
static tn_rt_status_fill_fn_t *tn_rt_status_fill;
static tern_status_who_t *tn_rt_status_who;
static tern_status_answer_t *tn_rt_status_ans;

void tn_rt_status_init_call(uint32_t call)
{
    if (tn_rt_status.call == NULL) {
        tn_rt_status_pending_call = call;
    } else {
        /* a second model (sessions after the world): attached already */
        tn_rt_status_enter(call, 0, 0, 0, 0, 0, 0, 0);
    }
}

void tn_rt_status_set_fill(tn_rt_status_fill_fn_t *fill)
{
    tn_rt_status_fill = fill;
}

void tn_rt_status_set_multiple(int multiple)
{
    if (tn_rt_status_who != NULL) {
        uint16_t f = multiple ? TERN_STATUS_F_MAIN_ONLY : 0;
        __atomic_store_n(&tn_rt_status_who->flags, f, __ATOMIC_RELAXED);
    }
    tn_rt_status.main_only = multiple;
}

static void tn_rt_status_start(const tern_status_hdr_t *hdr, char *slot)
{
    tern_status_who_t *who = (tern_status_who_t *)(slot + TERN_STATUS_OFF_WHO);
    tn_rt_status.now = &hdr->now_ms;
    tn_rt_status.ask = (const uint32_t *)(slot + TERN_STATUS_OFF_ASK);
    tn_rt_status.answered = __atomic_load_n(tn_rt_status.ask, __ATOMIC_RELAXED);
    tn_rt_status.main = pthread_self();
    tn_rt_status_who = who;
    tn_rt_status_ans = (tern_status_answer_t *)(slot + TERN_STATUS_OFF_ANSWER);
    who->version = TERN_STATUS_VERSION;
    who->flags = 0;
    who->pid = (int32_t)getpid();
    who->world_rank = -1;
    who->world_size = 0;
    who->ncalls = TN_STATUS_NCALLS;
    who->calls_hash = TN_STATUS_CALLS_HASH;
    who->attach_ms = __atomic_load_n(&hdr->now_ms, __ATOMIC_RELAXED);
    __atomic_store_n(&who->magic, TERN_STATUS_SLOT_MAGIC, __ATOMIC_RELEASE);
    tn_rt_status.seq = __atomic_load_n(&((tern_status_call_t *)(slot + TERN_STATUS_OFF_CALL))->seq,
                                       __ATOMIC_RELAXED);
    tn_rt_status.call = (tern_status_call_t *)(slot + TERN_STATUS_OFF_CALL);
    if (tn_rt_status_pending_call != 0) {
        tn_rt_status_enter(tn_rt_status_pending_call, 0, 0, 0, 0, 0, 0, 0);
        tn_rt_status_pending_call = 0;
    }
}

void tn_rt_status_attach_mem(const tern_status_hdr_t *hdr, void *slot)
{
    tn_rt_status_tried = 1;
    tn_rt_status_start(hdr, slot);
}

void tn_rt_status_attach(void)
{
    if (tn_rt_status_tried) {
        return;
    }
    tn_rt_status_tried = 1;
    int fd = (int)tn_cfg.status_fd;
    int64_t index = tn_cfg.status_slot;
    if (!tn_cfg.status || fd < 0 || index < 0) {
        return;
    }
    /* a rank's child started without tern-run may inherit the variables
     * with a descriptor that is something else now: check it is a memfd
     * that holds a header we understand and our slot */
    struct stat st;
    if (fcntl(fd, F_GET_SEALS) < 0 || fstat(fd, &st) != 0) {
        tn_log_debug("rt", "TERN_STATUS_FD=%d is not a memfd (%m); not publishing", fd);
        return;
    }
    size_t need = TERN_STATUS_HDR_SIZE + (size_t)(index + 1) * TERN_STATUS_SLOT_SIZE;
    if ((uint64_t)st.st_size < need) {
        tn_log_debug("rt", "status segment of %lld bytes has no slot %lld; not publishing",
                     (long long)st.st_size, (long long)index);
        close(fd);
        return;
    }
    char *base = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);                          /* the mapping keeps it; children get none */
    if (base == MAP_FAILED) {
        tn_log_debug("rt", "mmap of the status segment: %m; not publishing");
        return;
    }
    const tern_status_hdr_t *hdr = (const tern_status_hdr_t *)base;
    if (hdr->magic != TERN_STATUS_MAGIC || hdr->version != TERN_STATUS_VERSION ||
        hdr->hdr_size != TERN_STATUS_HDR_SIZE || hdr->slot_size != TERN_STATUS_SLOT_SIZE ||
        (uint64_t)index >= hdr->nslots) {
        tn_log_debug("rt", "status segment of another format or without slot %lld; "
                     "not publishing", (long long)index);
        munmap(base, need);
        return;
    }
    tn_rt_status_start(hdr, base + TERN_STATUS_HDR_SIZE + (size_t)index * TERN_STATUS_SLOT_SIZE);
}

void tn_rt_status_attach_line(tern_status_call_t *line)
{
    static const uint64_t no_clock;     /* readers time calls themselves */
    if (tn_rt_status.call != NULL) {
        return;
    }
    tn_rt_status.now = &no_clock;
    tn_rt_status.ask = NULL;
    tn_rt_status.main = pthread_self();
    tn_rt_status.seq = __atomic_load_n(&line->seq, __ATOMIC_RELAXED);
    tn_rt_status.call = line;
    if (tn_rt_status_pending_call != 0) {
        tn_rt_status_enter(tn_rt_status_pending_call, 0, 0, 0, 0, 0, 0, 0);
        tn_rt_status_pending_call = 0;
    }
}

void tn_rt_status_identify(int world_rank, int world_size)
{
    if (tn_rt_status_who != NULL) {
        __atomic_store_n(&tn_rt_status_who->world_rank, world_rank, __ATOMIC_RELAXED);
        __atomic_store_n(&tn_rt_status_who->world_size, world_size, __ATOMIC_RELAXED);
    }
}

void tn_rt_status_answer(void)
{
    tern_status_answer_t *ans = tn_rt_status_ans;
    uint32_t ask = __atomic_load_n(tn_rt_status.ask, __ATOMIC_ACQUIRE);
    const tern_status_call_t *c = tn_rt_status.call;

    tn_rt_status.answered = ask;
    ans->call_seq = tn_rt_status.seq;
    ans->nreqs = 0;
    ans->nreqs_total = 0;
    ans->dtype_size = -1;
    memset(&ans->comm, 0, sizeof(ans->comm));
    if (tn_rt_status_fill != NULL) {
        tn_rt_status_fill(ans, TERN_STATUS_MAX_REQS, c->obj, c->dtype);
    }
    __atomic_store_n(&ans->answered, ask, __ATOMIC_RELEASE);
}

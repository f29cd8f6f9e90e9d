/* The shared segment of a window on one node (allocate, allocate_shared).
 *
 * The node's lowest rank creates a POSIX shared-memory object under a
 * random name (O_EXCL, mode 0600: only this user, and no one can have it
 * ready under that name), sizes it and tells the node's other ranks the
 * name; they map it, and once every rank of the node has it mapped the
 * creator unlinks the name, so nothing is left in /dev/shm whatever
 * happens later.  Layout: one cache line of lock words per node rank (in
 * node order), the PSCW counters (rma.h), then each node rank's memory in
 * node order: back to back (allocate_shared's contiguous default) or each
 * on its own pages (noncontig). */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include "base/log.h"
#include "coll/coll.h"
#include "rma/rma_impl.h"

#define TN_RMA_LINE 64
#define TN_RMA_PAGE 4096

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* Where node rank i's area starts, for every i (offsets from the segment). */
static size_t seg_layout(const uint64_t *sizes, int n, int noncontig, size_t *off)
{
    size_t ctl = (size_t)n * TN_RMA_LINE + 2 * (size_t)n * (size_t)n * sizeof(uint32_t);
    size_t at = round_up(ctl, noncontig ? TN_RMA_PAGE : TN_RMA_LINE);
    for (int i = 0; i < n; i++) {
        off[i] = at;
        at += noncontig ? round_up((size_t)sizes[i], TN_RMA_PAGE) : (size_t)sizes[i];
    }
    return at > 0 ? at : 1;
}

tn_status_t tn_rma_seg_map(tn_win_t *win, const uint64_t *all_sizes, int noncontig)
{
    const tn_comm_nodes_t *nm = tn_comm_nodes(win->comm);
    tn_comm_t *node = NULL, *leader = NULL;
    tn_status_t st;
    char name[64] = "";
    int fd = -1, ok = 1;

    if (nm == NULL) {
        return TN_ERR_NOMEM;
    }
    st = tn_comm_node_comms(win->comm, &node, &leader);
    if (st != TN_OK) {
        return st;
    }
    int n = nm->nlocal[nm->my_node];
    const int *members = &nm->order[nm->start[nm->my_node]];
    uint64_t sizes[n];
    size_t off[n];
    for (int i = 0; i < n; i++) {
        sizes[i] = all_sizes[members[i]];
    }
    size_t total = seg_layout(sizes, n, noncontig, off);

    if (node->rank == 0) {
        uint64_t rnd[2];
        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
            tn_log_error("rma", "getrandom failed: %m");
            ok = 0;
        } else {
            snprintf(name, sizeof(name), "/tern-win-%016llx%016llx",
                     (unsigned long long)rnd[0], (unsigned long long)rnd[1]);
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0) {
                tn_log_error("rma", "shm_open(%s) failed: %m", name);
                ok = 0;
            } else if ((errno = posix_fallocate(fd, 0, (off_t)total)) != 0) {
                tn_log_error("rma", "cannot size a window segment to %zu bytes: %m "
                             "(is /dev/shm large enough?)", total);
                ok = 0;
            }
        }
        if (!ok) {
            name[0] = '\0';
        }
    }
    st = tn_coll_bcast(name, sizeof(name), tn_dt_byte(), 0, node);
    if (st != TN_OK) {
        goto out;
    }
    if (name[0] == '\0') {
        ok = 0;
    } else {
        if (node->rank != 0) {
            fd = shm_open(name, O_RDWR, 0600);
            if (fd < 0) {
                tn_log_error("rma", "shm_open(%s) failed: %m", name);
                ok = 0;
            }
        }
        if (fd >= 0) {
            void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p == MAP_FAILED) {
                tn_log_error("rma", "mmap of a %zu-byte window segment failed: %m", total);
                ok = 0;
            } else {
                win->seg = p;
                win->seg_bytes = total;
            }
        }
    }
    /* everyone has mapped it (or failed): the name can go */
    st = tn_coll_barrier(node);
    if (node->rank == 0 && name[0] != '\0') {
        shm_unlink(name);
    }
    if (fd >= 0) {
        close(fd);
    }
    if (st == TN_OK) {
        int64_t bad = !ok;
        st = tn_comm_allreduce_max(&bad, 1, win->comm);
        if (st == TN_OK && bad) {
            st = TN_ERR_NOMEM;
        }
    }
    if (st != TN_OK) {
        goto out;
    }
    for (int i = 0; i < n; i++) {
        tn_rma_peer_t *p = &win->peers[members[i]];
        p->local = (char *)win->seg + off[i];
        p->lock = (tn_rma_lock_t *)(void *)((char *)win->seg + (size_t)i * TN_RMA_LINE);
        p->direct = 1;
        p->lidx = i;
    }
    win->lockp = win->peers[win->comm->rank].lock;
    win->nlocal = n;
    win->my_lidx = win->peers[win->comm->rank].lidx;
    win->pscw_post = (uint32_t *)(void *)((char *)win->seg + (size_t)n * TN_RMA_LINE);
    win->pscw_done = win->pscw_post + (size_t)n * (size_t)n;
    win->post_seen = calloc((size_t)n, sizeof(uint32_t));
    win->done_seen = calloc((size_t)n, sizeof(uint32_t));
    if (win->post_seen == NULL || win->done_seen == NULL) {
        st = TN_ERR_NOMEM;
        goto out;
    }
    return TN_OK;
out:
    tn_rma_seg_unmap(win);
    return st;
}

void tn_rma_seg_unmap(tn_win_t *win)
{
    if (win->seg != NULL) {
        munmap(win->seg, win->seg_bytes);
        win->seg = NULL;
    }
    free(win->post_seen);
    free(win->done_seen);
    win->post_seen = win->done_seen = NULL;
    win->pscw_post = win->pscw_done = NULL;
}

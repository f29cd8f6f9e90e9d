/* Intercommunicators between groups that meet at run time:
 * MPI_Comm_accept / MPI_Comm_connect (and so spawn and join).
 *
 * The two roots hold a port connection (xport/sock/sock.h).  Over it:
 *   1. each root sends "<max next_ctx of its group> <n>\n" and its
 *      group's n cards, one a line (runtime/proc.h); the accept side
 *      first, then the connect side;
 *   2. each root broadcasts the other side's text in its group; every
 *      member adds the remote processes to its table and takes
 *      v = max(both maxima) as the proposal;
 *   3. agreement rounds: every member claims [v, v + 4) (comm_ctx.c);
 *      the group's max of (failed, next_ctx) goes to the root; roots swap
 *      them as "<failed> <next>\n"; none failed on either side: v is the
 *      id; else the larger next is the new proposal.  The root broadcasts
 *      the outcome.
 * When the last round ends every member of both groups has claimed the id
 * and added the other group's processes, so no message on the new
 * intercommunicator can reach a process that does not know it.
 *
 * A root that cannot reach the other (connect refused, wrong secret)
 * broadcasts a failure, so its whole group returns the same error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "comm/comm.h"
#include "coll/coll.h"
#include "dt/dt.h"
#include "runtime/proc.h"
#include "runtime/rt.h"
#include "xport/sock/sock.h"
#include "base/log.h"

#define DYN_SPAN 4
#define DYN_TEXT_MAX ((size_t)8 << 20)

/* bcast an int64 pair from root */
static tn_status_t bcast2(int64_t *v, int root, tn_comm_t *comm)
{
    return tn_coll_bcast(v, 2 * sizeof(*v), tn_dt_byte(), root, comm);
}

/* The root's text of its group: gathered cards. */
static tn_status_t group_text(tn_comm_t *comm, int root, int64_t maxnext, char **text_p)
{
    char mine[TN_PROC_CARD_MAX];
    char *all = NULL;
    tn_status_t st = tn_rt_proc_card(mine, sizeof(mine));
    if (st != TN_OK) {
        memset(mine, 0, sizeof(mine));
        snprintf(mine, sizeof(mine), "-");
    }
    if (comm->rank == root) {
        all = malloc((size_t)comm->size * TN_PROC_CARD_MAX);
        if (all == NULL) {
            return TN_ERR_NOMEM;
        }
    }
    st = tn_coll_gather(mine, TN_PROC_CARD_MAX, tn_dt_byte(), all, TN_PROC_CARD_MAX,
                        tn_dt_byte(), root, comm);
    if (st != TN_OK || comm->rank != root) {
        free(all);
        return st;
    }
    size_t cap = 64 + (size_t)comm->size * (TN_PROC_CARD_MAX + 1), used;
    char *t = malloc(cap);
    if (t == NULL) {
        free(all);
        return TN_ERR_NOMEM;
    }
    used = (size_t)snprintf(t, cap, "%" PRId64 " %d\n", maxnext, comm->size);
    for (int i = 0; i < comm->size; i++) {
        char *c = all + (size_t)i * TN_PROC_CARD_MAX;
        c[TN_PROC_CARD_MAX - 1] = '\0';
        used += (size_t)snprintf(t + used, cap - used, "%s\n", c);
    }
    free(all);
    *text_p = t;
    return TN_OK;
}

/* Decode the other side's text: its proposal and its processes' gpis. */
static tn_status_t remote_decode(char *text, int64_t *next_p, int *n_p, int **gpis_p)
{
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    long long next;
    int n;
    if (line == NULL || sscanf(line, "%lld %d", &next, &n) != 2 || n <= 0 || n > (1 << 20) ||
        next < 0) {
        return TN_ERR_PROTO;
    }
    int *g = malloc(sizeof(int) * (size_t)n);
    if (g == NULL) {
        return TN_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        tn_status_t st;
        line = strtok_r(NULL, "\n", &save);
        if (line == NULL) {
            free(g);
            return TN_ERR_PROTO;
        }
        if ((st = tn_rt_proc_add(line, &g[i])) != TN_OK) {
            tn_log_error("comm", "the other group sent a bad process card");
            free(g);
            return st == TN_ERR_INVAL ? TN_ERR_PROTO : st;
        }
    }
    *next_p = next;
    *n_p = n;
    *gpis_p = g;
    return TN_OK;
}

/* Root: send ours, receive theirs.  The accept side sends first: the
 * connect side never writes before the other root has taken the
 * connection (what came before would sit in the listener's buffer). */
static tn_status_t root_swap(int fd, int accept_side, const char *mine, char **theirs_p)
{
    size_t len;
    void *buf = NULL;
    tn_status_t st;
    if (accept_side && (st = tn_xport_sock_msg_send(fd, mine, strlen(mine))) != TN_OK) {
        return st;
    }
    if ((st = tn_xport_sock_msg_recv(fd, &buf, &len, DYN_TEXT_MAX, -1)) != TN_OK) {
        return st;
    }
    if (!accept_side && (st = tn_xport_sock_msg_send(fd, mine, strlen(mine))) != TN_OK) {
        free(buf);
        return st;
    }
    *theirs_p = buf;
    return TN_OK;
}

tn_status_t tn_comm_dyn_meet(int fd, int accept_side, int root, tn_comm_t *comm,
                             tn_comm_t **inter_p)
{
    int64_t hv[2] = { 0, 0 }, agg[1];
    char *mine = NULL, *theirs = NULL;
    int n = 0, *gpis = NULL, is_root = comm->rank == root;
    tn_status_t st, rst = TN_OK;

    if ((st = tn_rt_proc_setup()) != TN_OK) {
        rst = st;               /* still take part, then fail together */
    }
    agg[0] = tn_comm_ctx_next();
    if ((st = tn_comm_allreduce_max(agg, 1, comm)) != TN_OK ||
        (st = group_text(comm, root, agg[0], &mine)) != TN_OK) {
        return st;
    }
    if (is_root) {
        if (fd < 0) {
            rst = TN_ERR_IO;
        }
        if (rst == TN_OK) {
            rst = root_swap(fd, accept_side, mine, &theirs);
        }
        hv[0] = rst == TN_OK ? (int64_t)strlen(theirs) : (int64_t)rst;
        hv[1] = rst == TN_OK ? 1 : 0;
    }
    free(mine);
    if ((st = bcast2(hv, root, comm)) != TN_OK) {
        goto err;
    }
    if (hv[1] == 0) {
        st = (tn_status_t)hv[0];
        goto err;
    }
    if (!is_root && (theirs = malloc((size_t)hv[0] + 1)) == NULL) {
        st = TN_ERR_NOMEM;    /* the others go on; a real shortage ends the job anyway */
        goto err;
    }
    if ((st = tn_coll_bcast(theirs, (size_t)hv[0], tn_dt_byte(), root, comm)) != TN_OK) {
        goto err;
    }
    theirs[hv[0]] = '\0';
    int64_t rnext;
    if ((st = remote_decode(theirs, &rnext, &n, &gpis)) != TN_OK) {
        goto err;
    }
    for (int i = 0; i < n; i++) {
        if (tn_group_rank_of_world(comm->group, gpis[i]) != -32766) {
            st = TN_ERR_INVAL;                /* a group met itself */
            goto err;
        }
    }
    int64_t v = agg[0] > rnext ? agg[0] : rnext;
    for (;;) {
        int64_t r[2];
        r[0] = tn_comm_ctx_claim(v, DYN_SPAN) ? 0 : 1;
        r[1] = tn_comm_ctx_next();
        if ((st = tn_comm_allreduce_max(r, 2, comm)) != TN_OK) {
            goto err;
        }
        int64_t out[2] = { 1, v };
        if (is_root) {
            char msg[64], *back = NULL;
            long long f, nx;
            snprintf(msg, sizeof(msg), "%lld %lld\n", (long long)r[0], (long long)r[1]);
            if ((st = root_swap(fd, accept_side, msg, &back)) != TN_OK ||
                sscanf(back, "%lld %lld", &f, &nx) != 2) {
                free(back);
                st = st != TN_OK ? st : TN_ERR_PROTO;
                out[0] = -1;
            } else {
                free(back);
                out[0] = r[0] == 0 && f == 0;
                out[1] = r[1] > nx ? r[1] : nx;
                if (out[0]) {
                    out[1] = v;
                }
            }
        }
        if ((st = bcast2(out, root, comm)) != TN_OK) {
            goto err;
        }
        if (out[0] < 0) {
            st = TN_ERR_IO;
            goto err;
        }
        if (out[0] == 1) {
            break;
        }
        v = out[1];
    }
    free(theirs);
    tn_group_t *rg;
    if ((st = tn_group_new(n, gpis, &rg)) != TN_OK) {
        return st;
    }
    tn_group_retain(comm->group);
    return tn_comm_inter_new(comm->group, rg, (uint32_t)v, comm, inter_p);
err:
    free(theirs);
    free(gpis);
    return st;
}

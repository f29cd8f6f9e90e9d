/* A forged active message reaching a running process ends it with a
 * protocol error naming the sending rank and the field, before any memory
 * is touched (the old handlers took sreq as an address and died of SIGBUS,
 * wrote a FRAG past its buffer, or kept a matching context for every
 * context id a message named).  Run as a singleton:
 *   test_am_forged cts    a CTS naming an address-like id
 *   test_am_forged frag   a FRAG beyond the unexpected message it continues
 *   test_am_forged ctx    EAGERs on ids this process never agreed on, after
 *                         one on an id it agreed on for a communicator it
 *                         has not made yet (kept, and received once the
 *                         communicator exists: prints "early message
 *                         received")
 * ctest checks the message; reaching the end of main is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "p2p/p2p_impl.h"

/* The legitimate case: a peer that finished making a communicator sends on
 * it before this process has made it.  Every member claims the id first
 * (comm/comm_ctx.c); here the claim stands for the agreement. */
static void early_message(void)
{
    uint32_t ctx = (uint32_t)tn_comm_ctx_next();
    tn_am_hdr_t h;
    int in = 0;

    if (!tn_comm_ctx_claim(ctx, 2)) {
        printf("could not claim %u\n", ctx);
        exit(1);
    }
    memset(&h, 0, sizeof(h));
    h.type = TN_AM_EAGER;
    h.flags = TN_AM_F_INLINE;
    h.ctx = ctx;
    h.tag = 5;
    h.size = sizeof(int);
    int v = 4242;
    memcpy(&h.sreq, &v, sizeof(v));
    tn_p2p_am_recv(0, &h, NULL, 0);

    int *world = malloc(sizeof(int));
    tn_group_t *group;
    tn_comm_t *comm;
    world[0] = 0;
    if (tn_group_new(1, world, &group) != TN_OK ||
        tn_comm_new(group, ctx, &tn_comm_self, &comm) != TN_OK ||
        tn_p2p_recv(&in, sizeof(in), tn_dt_byte(), 0, 5, comm, 0, NULL) != TN_OK || in != v) {
        printf("the early message was lost (%d)\n", in);
        exit(1);
    }
    printf("early message received\n");
    fflush(stdout);
    tn_comm_release(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static char payload[4096];
    tn_am_hdr_t h;
    memset(&h, 0, sizeof(h));
    if (argc > 1 && strcmp(argv[1], "cts") == 0) {
        h.type = TN_AM_CTS;
        h.sreq = (uint64_t)(uintptr_t)payload;      /* what old peers sent */
        h.rreq = 1;
        h.size = 8;
        tn_p2p_am_recv(0, &h, NULL, 0);
    } else if (argc > 1 && strcmp(argv[1], "frag") == 0) {
        h.type = TN_AM_EAGER;
        h.ctx = tn_comm_world.ctx;
        h.tag = 12345;                               /* no receive posted for it */
        h.size = 100;
        tn_p2p_am_recv(0, &h, payload, 10);          /* unexpected, 90 to come */
        memset(&h, 0, sizeof(h));
        h.type = TN_AM_FRAG;
        h.size = sizeof(payload);
        tn_p2p_am_recv(0, &h, payload, sizeof(payload));
    } else if (argc > 1 && strcmp(argv[1], "ctx") == 0) {
        early_message();
        /* one matching context per forged id was the old cost: a flood of
         * them must end at the first */
        for (uint32_t c = (uint32_t)tn_comm_ctx_next(); c < 0x7fffffff; c += 2) {
            h.type = TN_AM_EAGER;
            h.flags = TN_AM_F_INLINE;
            h.ctx = c;
            h.size = 8;
            tn_p2p_am_recv(0, &h, NULL, 0);
        }
    }
    printf("the forged message was accepted\n");
    MPI_Finalize();
    return 1;
}

/* A forged active message reaching a running process ends it with a
 * protocol error naming the sending rank and the field, before any memory
 * is touched (the old handlers took sreq as an address and died of SIGBUS,
 * or wrote a FRAG past its buffer).  Run as a singleton:
 *   test_am_forged cts   a CTS naming an address-like id
 *   test_am_forged frag  a FRAG beyond the unexpected message it continues
 * ctest checks the message; reaching the end of main is a failure. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "p2p/p2p_impl.h"

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
        h.ctx = 12345;                               /* no receive posted there */
        h.size = 100;
        tn_p2p_am_recv(0, &h, payload, 10);          /* unexpected, 90 to come */
        memset(&h, 0, sizeof(h));
        h.type = TN_AM_FRAG;
        h.size = sizeof(payload);
        tn_p2p_am_recv(0, &h, payload, sizeof(payload));
    }
    printf("the forged message was accepted\n");
    MPI_Finalize();
    return 1;
}

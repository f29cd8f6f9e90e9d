/* Matching: earliest posted receive wins across source bins and the
 * wildcard list; unexpected messages match in arrival order; tags and
 * wildcards behave; a cancelled send's message is withdrawn alone. */
#include "p2p/p2p_impl.h"

#include <stdio.h>
#include <stdlib.h>

#include "../check.h"

static struct tn_req *posted[16];
static int nposted;

static struct tn_req *post(tn_match_ctx_t *mc, int src, int tag)
{
    struct tn_req *r = tn_req_alloc(TN_REQ_RECV);
    if (r == NULL || nposted == (int)(sizeof(posted) / sizeof(posted[0]))) {
        fprintf(stderr, "post: out of requests\n");
        exit(1);
    }
    posted[nposted++] = r;
    r->peer = src;
    r->tag = tag;
    tn_match_post(mc, r);
    return r;
}

static tn_unexp_t *arrive(tn_match_ctx_t *mc, int src, int tag)
{
    tn_unexp_t *ux = calloc(1, sizeof(*ux));
    ux->src = src;
    ux->tag = tag;
    ux->data = ux->small;
    tn_match_unexp_add(mc, ux);
    return ux;
}

int main(void)
{
    tn_match_ctx_t *mc = tn_match_ctx_get(10, 1);
    CHECK(mc != NULL && tn_match_ctx_get(10, 0) == mc);
    CHECK(tn_match_ctx_get(11, 0) == NULL);

    /* posted: specific then wildcard; arrival from 3 takes the specific */
    struct tn_req *a = post(mc, 3, 7);
    struct tn_req *b = post(mc, TN_ANY_SOURCE, 7);
    CHECK(tn_match_posted_take(mc, 3, 7) == a);
    CHECK(tn_match_posted_take(mc, 3, 7) == b);
    CHECK(tn_match_posted_take(mc, 3, 7) == NULL);

    /* wildcard posted first must win over a later specific one */
    b = post(mc, TN_ANY_SOURCE, TN_ANY_TAG);
    a = post(mc, 5, 1);
    CHECK(tn_match_posted_take(mc, 5, 1) == b);
    CHECK(tn_match_posted_take(mc, 5, 1) == a);

    /* tags filter; ANY_TAG matches anything */
    a = post(mc, 2, 100);
    b = post(mc, 2, TN_ANY_TAG);
    CHECK(tn_match_posted_take(mc, 2, 5) == b);
    CHECK(tn_match_posted_take(mc, 2, 5) == NULL);
    CHECK(tn_match_posted_take(mc, 2, 100) == a);

    /* wildcard in the any-list must not take a message of another source
     * before an earlier specific match: source 40 grows the bins */
    a = post(mc, 40, 9);
    CHECK(tn_match_posted_take(mc, 40, 9) == a);

    /* removal (cancel) */
    a = post(mc, 1, 1);
    CHECK(tn_match_posted_remove(mc, a) == 1);
    CHECK(tn_match_posted_take(mc, 1, 1) == NULL);

    /* unexpected: arrival order across sources for ANY_SOURCE */
    tn_unexp_t *u1 = arrive(mc, 4, 1);
    tn_unexp_t *u2 = arrive(mc, 2, 1);
    tn_unexp_t *u3 = arrive(mc, 4, 2);
    CHECK(tn_match_unexp_find(mc, TN_ANY_SOURCE, 1, 0) == u1);
    CHECK(tn_match_unexp_find(mc, 2, TN_ANY_TAG, 1) == u2);
    CHECK(tn_match_unexp_find(mc, 4, 2, 1) == u3);
    CHECK(tn_match_unexp_find(mc, TN_ANY_SOURCE, TN_ANY_TAG, 1) == u1);
    CHECK(tn_match_unexp_find(mc, TN_ANY_SOURCE, TN_ANY_TAG, 0) == NULL);
    free(u1);
    free(u2);
    free(u3);

    /* many messages from one source, same tag: FIFO */
    tn_unexp_t *us[50];
    for (int i = 0; i < 50; i++) {
        us[i] = arrive(mc, 6, 3);
    }
    for (int i = 0; i < 50; i++) {
        tn_unexp_t *u = tn_match_unexp_find(mc, i % 2 ? 6 : TN_ANY_SOURCE, 3, 1);
        CHECK(u == us[i]);
        free(u);
    }
    /* withdraw (a cancelled send): only an RTS or a synchronous EAGER that
     * has wholly arrived, of that sender request and world rank; the
     * messages around it keep their order for every kind of receive */
    tn_unexp_t *w[5];
    for (int i = 0; i < 5; i++) {
        w[i] = arrive(mc, 8, 4);
        w[i]->world = 18;
        w[i]->sreq = 0x1000 + (uint64_t)i;
        w[i]->complete = 1;
        w[i]->type = TN_AM_EAGER;
    }
    w[1]->type = TN_AM_RTS;
    w[2]->flags = TN_AM_F_SYNC;
    w[3]->flags = TN_AM_F_SYNC;
    w[3]->complete = 0;           /* pieces still arriving */
    CHECK(tn_match_unexp_withdraw(mc, 8, 18, 0x1000) == NULL);  /* standard eager */
    CHECK(tn_match_unexp_withdraw(mc, 8, 18, 0x1003) == NULL);  /* incomplete */
    CHECK(tn_match_unexp_withdraw(mc, 8, 17, 0x1001) == NULL);  /* other world rank */
    CHECK(tn_match_unexp_withdraw(mc, 7, 18, 0x1001) == NULL);  /* other source */
    CHECK(tn_match_unexp_withdraw(mc, 99, 18, 0x1001) == NULL); /* beyond the bins */
    CHECK(tn_match_unexp_withdraw(mc, -1, 18, 0x1001) == NULL);
    CHECK(tn_match_unexp_withdraw(mc, 8, 18, 0x1001) == w[1]);
    CHECK(tn_match_unexp_withdraw(mc, 8, 18, 0x1001) == NULL);  /* gone */
    CHECK(tn_match_unexp_withdraw(mc, 8, 18, 0x1002) == w[2]);
    tn_unexp_free(w[1]);
    tn_unexp_free(w[2]);
    CHECK(tn_match_unexp_find(mc, TN_ANY_SOURCE, 4, 1) == w[0]);
    CHECK(tn_match_unexp_find(mc, 8, TN_ANY_TAG, 1) == w[3]);
    CHECK(tn_match_unexp_find(mc, 8, 4, 1) == w[4]);
    CHECK(tn_match_unexp_find(mc, TN_ANY_SOURCE, TN_ANY_TAG, 0) == NULL);
    for (int i = 0; i < 5; i++) {
        if (i != 1 && i != 2) {
            tn_unexp_free(w[i]);
        }
    }

    tn_match_finalize();
    for (int i = 0; i < nposted; i++) {
        tn_req_release(posted[i]);
    }
    if (failures == 0) {
        printf("match: all checks passed\n");
    }
    return failures != 0;
}

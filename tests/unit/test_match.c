/* Matching: earliest posted receive wins across source bins and the
 * wildcard list; unexpected messages match in arrival order; tags and
 * wildcards behave. */
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
    tn_match_finalize();
    for (int i = 0; i < nposted; i++) {
        tn_req_release(posted[i]);
    }
    if (failures == 0) {
        printf("match: all checks passed\n");
    }
    return failures != 0;
}

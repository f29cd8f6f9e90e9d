/* The collectives' kept temporaries (coll_util.c): large freed buffers are
 * reused by the next request that fits (smallest fit first), small ones go
 * back to malloc, at most a few are kept, and every buffer handed out is
 * writable over its whole length. */
#include "coll/coll.h"
#include "coll/coll_util.h"

#include <stdio.h>
#include <string.h>

#include "../check.h"

#define KB ((size_t)1024)

static void *get_filled(size_t n)
{
    char *p = tn_coll_buf_get(n);
    if (p != NULL) {
        memset(p, 0xab, n);
    }
    return p;
}

int main(void)
{
    /* a large buffer comes back for a request that fits */
    void *a = get_filled(512 * KB);
    CHECK(a != NULL);
    tn_coll_buf_put(a);
    void *b = get_filled(300 * KB);
    CHECK(b == a);
    /* not for one that does not fit */
    void *c = get_filled(1024 * KB);
    CHECK(c != NULL && c != a);
    tn_coll_buf_put(b);
    tn_coll_buf_put(c);
    /* smallest fit first */
    void *d = get_filled(400 * KB);
    CHECK(d == a);
    void *e = get_filled(600 * KB);
    CHECK(e == c);
    tn_coll_buf_put(d);
    tn_coll_buf_put(e);
    /* small buffers are not kept: two gets of a small size while a large
     * one is kept do not take the large one */
    void *s = get_filled(4 * KB);
    CHECK(s != a && s != c);
    tn_coll_buf_put(s);
    /* at most four kept: six large buffers freed, four come back */
    tn_coll_buf_drain();
    void *big[6];
    for (int i = 0; i < 6; i++) {
        big[i] = get_filled((size_t)(i + 1) * 100 * KB);
    }
    for (int i = 0; i < 6; i++) {
        tn_coll_buf_put(big[i]);
    }
    /* the four largest (300-600 KiB) were kept and come back, smallest
     * first; the other two requests get new memory (which malloc may well
     * place where big[0] or big[1] was) */
    void *again[6];
    for (int i = 0; i < 6; i++) {
        again[i] = get_filled(100 * KB);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(again[i] == big[i + 2]);
    }
    for (int i = 0; i < 6; i++) {
        tn_coll_buf_put(again[i]);
    }
    tn_coll_buf_put(NULL);
    tn_coll_buf_drain();
    if (failures) {
        fprintf(stderr, "test_coll_buf: %d failures\n", failures);
        return 1;
    }
    printf("test_coll_buf: ok\n");
    return 0;
}

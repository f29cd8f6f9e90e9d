/* Unit test of comm/attr.c: keyval ids, lookup, lifetime of freed keyvals
 * that are still attached, attribute list order, removal, destruction. */
#include <stdio.h>
#include <stdlib.h>
#include "comm/attr.h"

#include "../check.h"

static void fn_a(void)
{
}

static void test_keyvals(void)
{
    tn_keyval_t *a = NULL, *b = NULL, *c = NULL;
    int ida, idb, idc;
    int extra = 7;

    CHECK(tn_keyval_live_count() == 0);
    CHECK(tn_keyval_create(TN_ATTR_COMM, fn_a, NULL, &extra, &a) == TN_OK);
    CHECK(tn_keyval_create(TN_ATTR_COMM, NULL, fn_a, NULL, &b) == TN_OK);
    CHECK(tn_keyval_create(TN_ATTR_WIN, NULL, NULL, NULL, &c) == TN_OK);
    ida = a->id;
    idb = b->id;
    idc = c->id;
    CHECK(ida >= TN_KEYVAL_FIRST && idb > ida && idc > idb);
    CHECK(a->copy_fn == fn_a && a->delete_fn == NULL && a->extra_state == &extra);
    CHECK(b->copy_fn == NULL && b->delete_fn == fn_a);
    CHECK(c->kind == TN_ATTR_WIN && !c->freed && c->refcount == 1);
    CHECK(tn_keyval_find(ida) == a && tn_keyval_find(idb) == b && tn_keyval_find(idc) == c);
    CHECK(tn_keyval_find(0) == NULL && tn_keyval_find(501) == NULL);
    CHECK(tn_keyval_find(idc + 1) == NULL && tn_keyval_find(-5) == NULL);
    CHECK(tn_keyval_live_count() == 3);

    /* freeing the middle one keeps lookup of the others working */
    tn_keyval_free(b);
    CHECK(tn_keyval_find(idb) == NULL);
    CHECK(tn_keyval_find(ida) == a && tn_keyval_find(idc) == c);
    CHECK(tn_keyval_live_count() == 2);

    /* ids are never reused */
    CHECK(tn_keyval_create(TN_ATTR_COMM, NULL, NULL, NULL, &b) == TN_OK);
    CHECK(b->id > idc);
    tn_keyval_free(b);
    tn_keyval_free(a);
    tn_keyval_free(c);
    CHECK(tn_keyval_live_count() == 0);
    CHECK(tn_keyval_find(ida) == NULL && tn_keyval_find(idc) == NULL);
}

static void test_lists(void)
{
    tn_attr_list_t *l = NULL;
    tn_keyval_t *k[4];
    int v[4] = {10, 11, 12, 13};
    int i, id1;

    CHECK(tn_attr_count(l) == 0);
    CHECK(tn_attr_find(l, NULL) == NULL);
    for (i = 0; i < 4; i++) {
        CHECK(tn_keyval_create(TN_ATTR_COMM, NULL, NULL, NULL, &k[i]) == TN_OK);
    }
    /* set in the order 2, 0, 3, 1: the list keeps that order */
    CHECK(tn_attr_append(&l, k[2], &v[2]) == TN_OK);
    CHECK(l != NULL);
    CHECK(tn_attr_append(&l, k[0], &v[0]) == TN_OK);
    CHECK(tn_attr_append(&l, k[3], &v[3]) == TN_OK);
    CHECK(tn_attr_append(&l, k[1], &v[1]) == TN_OK);
    CHECK(tn_attr_count(l) == 4);
    CHECK(l->a[0].kv == k[2] && l->a[1].kv == k[0] && l->a[2].kv == k[3] && l->a[3].kv == k[1]);
    CHECK(tn_attr_find(l, k[3])->value == &v[3]);
    for (i = 0; i < 4; i++) {
        CHECK(k[i]->refcount == 2);
    }

    /* a freed keyval lives while attached, and goes with its last value */
    id1 = k[1]->id;
    tn_keyval_free(k[1]);
    CHECK(tn_keyval_find(id1) == k[1] && k[1]->freed && k[1]->refcount == 1);
    CHECK(tn_attr_find(l, k[1])->value == &v[1]);
    tn_attr_remove(l, k[1]);
    CHECK(tn_keyval_find(id1) == NULL);
    CHECK(tn_attr_count(l) == 3);

    /* removal in the middle closes the gap, in order */
    tn_attr_remove(l, k[0]);
    CHECK(tn_attr_count(l) == 2 && l->a[0].kv == k[2] && l->a[1].kv == k[3]);
    CHECK(k[0]->refcount == 1);
    tn_attr_remove(l, k[0]);                 /* absent: nothing happens */
    CHECK(tn_attr_count(l) == 2 && k[0]->refcount == 1);

    /* re-adding goes to the end */
    CHECK(tn_attr_append(&l, k[0], &v[1]) == TN_OK);
    CHECK(l->a[2].kv == k[0] && l->a[2].value == &v[1]);

    /* destroying drops the list's references only */
    tn_attr_list_destroy(l);
    for (i = 0; i < 4; i++) {
        if (i != 1) {
            CHECK(k[i]->refcount == 1);
            tn_keyval_free(k[i]);
        }
    }
    CHECK(tn_keyval_live_count() == 0);
    tn_attr_list_destroy(NULL);
}

int main(void)
{
    test_keyvals();
    test_lists();
    return tn_check_report("test_comm_attr");
}

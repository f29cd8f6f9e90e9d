/* Unit test of the live-object registry (src/base/objreg.c): add, kind
 * check, delete, reuse of a tombstoned slot, growth past many entries, and
 * addresses that were never added (garbage, misaligned, inside an object).
 * Exit status: 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/objreg.h"

static int failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            fprintf(stderr, "test_objreg:%d: check failed: %s\n", __LINE__, #cond); \
        }                                                                          \
    } while (0)

#define N 5000

int main(void)
{
    static uint64_t objs[N];

    CHECK(!tn_objreg_has(NULL, TN_OBJ_COMM));
    CHECK(!tn_objreg_has((void *)0x1234, TN_OBJ_COMM));     /* empty registry */
    for (int i = 0; i < N; i++) {
        CHECK(tn_objreg_add(&objs[i], i % 2 ? TN_OBJ_DT : TN_OBJ_COMM) == TN_OK);
    }
    for (int i = 0; i < N; i++) {
        CHECK(tn_objreg_has(&objs[i], i % 2 ? TN_OBJ_DT : TN_OBJ_COMM));
        CHECK(!tn_objreg_has(&objs[i], i % 2 ? TN_OBJ_COMM : TN_OBJ_DT));  /* wrong kind */
        CHECK(!tn_objreg_has((char *)&objs[i] + 1, TN_OBJ_DT));          /* misaligned */
        CHECK(!tn_objreg_has((char *)&objs[i] + 1, TN_OBJ_COMM));
    }
    CHECK(!tn_objreg_has((void *)0x1234, TN_OBJ_COMM));
    CHECK(!tn_objreg_has((void *)(uintptr_t)0xdeadbeef0ull, TN_OBJ_DT));
    /* delete every other one: the rest stay, the deleted ones are gone */
    for (int i = 0; i < N; i += 2) {
        tn_objreg_del(&objs[i]);
    }
    tn_objreg_del((void *)0x1234);                           /* absent: no-op */
    for (int i = 0; i < N; i++) {
        CHECK(tn_objreg_has(&objs[i], TN_OBJ_DT) == (i % 2 == 1));
        CHECK(!tn_objreg_has(&objs[i], TN_OBJ_COMM));
    }
    /* churn: add and delete many times (tombstones are reused or cleaned) */
    for (int r = 0; r < 50; r++) {
        for (int i = 0; i < N; i += 2) {
            CHECK(tn_objreg_add(&objs[i], TN_OBJ_REQ) == TN_OK);
        }
        for (int i = 0; i < N; i += 2) {
            CHECK(tn_objreg_has(&objs[i], TN_OBJ_REQ));
            tn_objreg_del(&objs[i]);
            CHECK(!tn_objreg_has(&objs[i], TN_OBJ_REQ));
        }
    }
    for (int i = 1; i < N; i += 2) {
        CHECK(tn_objreg_has(&objs[i], TN_OBJ_DT));
    }
    /* an address added again takes the new kind */
    CHECK(tn_objreg_add(&objs[1], TN_OBJ_OP) == TN_OK);
    CHECK(tn_objreg_has(&objs[1], TN_OBJ_OP) && !tn_objreg_has(&objs[1], TN_OBJ_DT));
    if (failures != 0) {
        fprintf(stderr, "test_objreg: %d failures\n", failures);
        return 1;
    }
    printf("test_objreg: ok\n");
    return 0;
}

/* The unit tests' checks (tests/unit, tests/udp, tests/comm): CHECK counts a failed
 * condition in `failures` (and says where); tn_check_report ends main with
 * the verdict. */
#ifndef TN_TESTS_CHECK_H
#define TN_TESTS_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                            \
        }                                                                          \
    } while (0)

/* main's exit status: 0 when every check held. */
static inline int tn_check_report(const char *name)
{
    if (failures) {
        fprintf(stderr, "%s: %d failures\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

#endif

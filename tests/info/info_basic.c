/* MPI_Info in full, MPI_INFO_ENV, MPI_Info_create_env and the ABI queries
 * (MPI_Abi_get_info, MPI_Abi_get_fortran_info).
 *
 * Checks results (key order, replacement in place, deletion, nthkey, dup
 * independence, MPI_Info_get / MPI_Info_get_string truncation) and the
 * error class of every misuse under MPI_ERRORS_RETURN.  Info functions are
 * also exercised before MPI_Init and after MPI_Finalize, which the
 * standard allows.
 *
 * Usage: info_basic [args...]: the arguments, when given, must come back
 * as the "argv" key of MPI_INFO_ENV.  Prints " No Errors" on rank 0 when
 * every check passed; exits non-zero otherwise.  Standard MPI only. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errs;
static int rank;

__attribute__((format(printf, 3, 4)))
static void fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    errs++;
    if (errs <= 40) {
        fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", rank, file, line, msg);
        fflush(stderr);
    }
}

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            fail(__FILE__, __LINE__, __VA_ARGS__);                             \
    } while (0)

/* The call must succeed. */
#define CALL(call)                                                             \
    do {                                                                       \
        int rc_ = (call);                                                      \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);               \
    } while (0)

/* The call must fail with error class cls. */
#define ERR(cls, call)                                                         \
    do {                                                                       \
        int rc_ = (call), cls_ = -1;                                           \
        if (rc_ != MPI_SUCCESS)                                                \
            MPI_Error_class(rc_, &cls_);                                       \
        CHECK(rc_ != MPI_SUCCESS && cls_ == (cls), "%s returned %d (class %d), " \
              "want class %s", #call, rc_, cls_, #cls);                        \
    } while (0)

/* info[key] must be want (NULL: absent), through every getter. */
static void expect_value(const char *file, int line, MPI_Info info, const char *key,
                         const char *want)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = -1, len = -1, buflen = (int)sizeof(value), rc;

    rc = MPI_Info_get_valuelen(info, key, &len, &flag);
    if (rc != MPI_SUCCESS || flag != (want != NULL) ||
        (want != NULL && len != (int)strlen(want))) {
        fail(file, line, "get_valuelen(%s): rc %d flag %d len %d, want %s", key, rc, flag, len,
             want ? want : "(absent)");
    }
    strcpy(value, "untouched");
    flag = -1;
    rc = MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, value, &flag);
    if (rc != MPI_SUCCESS || flag != (want != NULL) ||
        strcmp(value, want != NULL ? want : "untouched") != 0) {
        fail(file, line, "get(%s): rc %d flag %d value \"%s\", want %s", key, rc, flag, value,
             want ? want : "(absent)");
    }
    strcpy(value, "untouched");
    flag = -1;
    rc = MPI_Info_get_string(info, key, &buflen, value, &flag);
    if (rc != MPI_SUCCESS || flag != (want != NULL) ||
        strcmp(value, want != NULL ? want : "untouched") != 0 ||
        buflen != (want != NULL ? (int)strlen(want) + 1 : (int)sizeof(value))) {
        fail(file, line, "get_string(%s): rc %d flag %d buflen %d value \"%s\", want %s", key,
             rc, flag, buflen, value, want ? want : "(absent)");
    }
}
#define EXPECT_VALUE(info, key, want) expect_value(__FILE__, __LINE__, info, key, want)

/* The keys of info must be keys[0..n) in this order. */
static void expect_keys(const char *file, int line, MPI_Info info, int n,
                        const char *const *keys)
{
    int nkeys = -1;
    char key[MPI_MAX_INFO_KEY];
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS || nkeys != n) {
        fail(file, line, "nkeys %d, want %d", nkeys, n);
        return;
    }
    for (int i = 0; i < n; i++) {
        strcpy(key, "?");
        if (MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS || strcmp(key, keys[i]) != 0) {
            fail(file, line, "key %d is \"%s\", want \"%s\"", i, key, keys[i]);
        }
    }
}
#define EXPECT_KEYS(info, ...)                                                 \
    do {                                                                       \
        static const char *const keys_[] = { __VA_ARGS__ };                    \
        expect_keys(__FILE__, __LINE__, info, (int)(sizeof(keys_) / sizeof(keys_[0])), keys_); \
    } while (0)

/* Set, replace, delete, order, nthkey. */
static void test_basic(void)
{
    MPI_Info info = MPI_INFO_NULL;
    int nkeys = -1;

    CALL(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL && info != MPI_INFO_ENV, "create gave a predefined handle");
    CALL(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "new info has %d keys", nkeys);
    EXPECT_VALUE(info, "alpha", NULL);

    CALL(MPI_Info_set(info, "alpha", "1"));
    CALL(MPI_Info_set(info, "beta", "two"));
    CALL(MPI_Info_set(info, "gamma", "three 3"));
    EXPECT_KEYS(info, "alpha", "beta", "gamma");
    EXPECT_VALUE(info, "alpha", "1");
    EXPECT_VALUE(info, "beta", "two");
    EXPECT_VALUE(info, "gamma", "three 3");
    EXPECT_VALUE(info, "Alpha", NULL);     /* keys are case sensitive */

    /* replacing keeps the key's place */
    CALL(MPI_Info_set(info, "beta", "a longer value for beta"));
    EXPECT_KEYS(info, "alpha", "beta", "gamma");
    EXPECT_VALUE(info, "beta", "a longer value for beta");
    CALL(MPI_Info_set(info, "alpha", ""));   /* empty values are values */
    EXPECT_VALUE(info, "alpha", "");

    /* deleting closes the gap; a new key goes last */
    CALL(MPI_Info_delete(info, "beta"));
    EXPECT_KEYS(info, "alpha", "gamma");
    EXPECT_VALUE(info, "beta", NULL);
    ERR(MPI_ERR_INFO_NOKEY, MPI_Info_delete(info, "beta"));
    CALL(MPI_Info_set(info, "beta", "back"));
    EXPECT_KEYS(info, "alpha", "gamma", "beta");
    CALL(MPI_Info_delete(info, "alpha"));
    CALL(MPI_Info_delete(info, "beta"));
    EXPECT_KEYS(info, "gamma");
    CALL(MPI_Info_delete(info, "gamma"));
    CALL(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "%d keys after deleting all", nkeys);

    /* many keys keep their order */
    char k[32], v[32], got[MPI_MAX_INFO_KEY];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof(k), "key%03d", 99 - i);
        snprintf(v, sizeof(v), "v%d", i);
        CALL(MPI_Info_set(info, k, v));
    }
    CALL(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 100, "%d keys, want 100", nkeys);
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof(k), "key%03d", 99 - i);
        CALL(MPI_Info_get_nthkey(info, i, got));
        CHECK(strcmp(got, k) == 0, "key %d is %s, want %s", i, got, k);
    }
    ERR(MPI_ERR_ARG, MPI_Info_get_nthkey(info, -1, got));
    ERR(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 100, got));

    CALL(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free did not set MPI_INFO_NULL");
}

/* valuelen of MPI_Info_get, buflen of MPI_Info_get_string. */
static void test_truncation(void)
{
    MPI_Info info;
    char value[16];
    int flag, buflen, len;

    CALL(MPI_Info_create(&info));
    CALL(MPI_Info_set(info, "k", "abcdefgh"));     /* 8 characters */

    /* MPI_Info_get: valuelen characters, then a null */
    memset(value, 'X', sizeof(value));
    CALL(MPI_Info_get(info, "k", 3, value, &flag));
    CHECK(flag && strcmp(value, "abc") == 0 && value[4] == 'X',
          "get valuelen 3: flag %d value \"%.15s\"", flag, value);
    memset(value, 'X', sizeof(value));
    CALL(MPI_Info_get(info, "k", 0, value, &flag));
    CHECK(flag && value[0] == '\0' && value[1] == 'X', "get valuelen 0: flag %d", flag);
    memset(value, 'X', sizeof(value));
    CALL(MPI_Info_get(info, "k", 8, value, &flag));
    CHECK(flag && strcmp(value, "abcdefgh") == 0 && value[9] == 'X',
          "get valuelen 8: \"%.15s\"", value);
    ERR(MPI_ERR_ARG, MPI_Info_get(info, "k", -1, value, &flag));

    /* MPI_Info_get_string: buflen is a buffer size in, the size needed out */
    memset(value, 'X', sizeof(value));
    buflen = 4;
    CALL(MPI_Info_get_string(info, "k", &buflen, value, &flag));
    CHECK(flag && buflen == 9 && strcmp(value, "abc") == 0 && value[4] == 'X',
          "get_string buflen 4: flag %d buflen %d value \"%.15s\"", flag, buflen, value);
    memset(value, 'X', sizeof(value));
    buflen = 9;
    CALL(MPI_Info_get_string(info, "k", &buflen, value, &flag));
    CHECK(flag && buflen == 9 && strcmp(value, "abcdefgh") == 0 && value[9] == 'X',
          "get_string buflen 9: buflen %d value \"%.15s\"", buflen, value);
    memset(value, 'X', sizeof(value));
    buflen = 8;
    CALL(MPI_Info_get_string(info, "k", &buflen, value, &flag));
    CHECK(flag && buflen == 9 && strcmp(value, "abcdefg") == 0,
          "get_string buflen 8: buflen %d value \"%.15s\"", buflen, value);
    memset(value, 'X', sizeof(value));
    buflen = 1;
    CALL(MPI_Info_get_string(info, "k", &buflen, value, &flag));
    CHECK(flag && buflen == 9 && value[0] == '\0' && value[1] == 'X',
          "get_string buflen 1: buflen %d", buflen);
    buflen = 0;
    flag = 0;
    CALL(MPI_Info_get_string(info, "k", &buflen, NULL, &flag));   /* size query */
    CHECK(flag && buflen == 9, "get_string buflen 0: flag %d buflen %d", flag, buflen);
    memset(value, 'X', sizeof(value));
    buflen = 5;
    flag = 1;
    CALL(MPI_Info_get_string(info, "nokey", &buflen, value, &flag));
    CHECK(!flag && buflen == 5 && value[0] == 'X',
          "get_string absent key: flag %d buflen %d", flag, buflen);
    buflen = -1;
    ERR(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &buflen, value, &flag));

    CALL(MPI_Info_get_valuelen(info, "k", &len, &flag));
    CHECK(flag && len == 8, "valuelen %d", len);
    CALL(MPI_Info_free(&info));
}

/* Duplicates are independent of their originals. */
static void test_dup(void)
{
    MPI_Info a, b, c;

    CALL(MPI_Info_create(&a));
    CALL(MPI_Info_set(a, "z", "26"));
    CALL(MPI_Info_set(a, "a", "1"));
    CALL(MPI_Info_set(a, "m", "13"));
    CALL(MPI_Info_dup(a, &b));
    CHECK(a != b, "dup returned the same handle");
    EXPECT_KEYS(b, "z", "a", "m");
    EXPECT_VALUE(b, "m", "13");

    CALL(MPI_Info_set(a, "a", "changed"));
    CALL(MPI_Info_delete(a, "z"));
    CALL(MPI_Info_set(a, "new", "x"));
    EXPECT_KEYS(b, "z", "a", "m");
    EXPECT_VALUE(b, "a", "1");
    EXPECT_VALUE(b, "new", NULL);

    CALL(MPI_Info_set(b, "m", "thirteen"));
    EXPECT_VALUE(a, "m", "13");

    CALL(MPI_Info_create(&c));
    MPI_Info d;
    CALL(MPI_Info_dup(c, &d));               /* an empty object too */
    int n = -1;
    CALL(MPI_Info_get_nkeys(d, &n));
    CHECK(n == 0, "dup of empty info has %d keys", n);

    CALL(MPI_Info_free(&a));
    EXPECT_VALUE(b, "z", "26");              /* b outlives a */
    CALL(MPI_Info_free(&b));
    CALL(MPI_Info_free(&c));
    CALL(MPI_Info_free(&d));
}

/* Limits and misuse: the error classes. */
static void test_errors(void)
{
    MPI_Info info, out;
    char key[MPI_MAX_INFO_KEY + 2], value[MPI_MAX_INFO_VAL + 2];
    int flag, n, buflen;

    CALL(MPI_Info_create(&info));

    /* a key of MPI_MAX_INFO_KEY - 1 characters is the longest */
    memset(key, 'k', sizeof(key));
    key[MPI_MAX_INFO_KEY - 1] = '\0';
    CALL(MPI_Info_set(info, key, "long key"));
    EXPECT_VALUE(info, key, "long key");
    char nth[MPI_MAX_INFO_KEY];
    CALL(MPI_Info_get_nthkey(info, 0, nth));
    CHECK(strcmp(nth, key) == 0, "nthkey of the longest key differs");
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    key[MPI_MAX_INFO_KEY] = '\0';
    ERR(MPI_ERR_INFO_KEY, MPI_Info_set(info, key, "v"));
    ERR(MPI_ERR_INFO_KEY, MPI_Info_get(info, key, 10, value, &flag));
    ERR(MPI_ERR_INFO_KEY, MPI_Info_get_valuelen(info, key, &n, &flag));
    buflen = 10;
    ERR(MPI_ERR_INFO_KEY, MPI_Info_get_string(info, key, &buflen, value, &flag));
    ERR(MPI_ERR_INFO_KEY, MPI_Info_delete(info, key));
    ERR(MPI_ERR_INFO_KEY, MPI_Info_set(info, "", "v"));

    /* a value of MPI_MAX_INFO_VAL - 1 characters is the longest */
    memset(value, 'v', sizeof(value));
    value[MPI_MAX_INFO_VAL - 1] = '\0';
    CALL(MPI_Info_set(info, "longval", value));
    CALL(MPI_Info_get_valuelen(info, "longval", &n, &flag));
    CHECK(flag && n == MPI_MAX_INFO_VAL - 1, "valuelen of the longest value: %d", n);
    value[MPI_MAX_INFO_VAL - 1] = 'v';
    value[MPI_MAX_INFO_VAL] = '\0';
    ERR(MPI_ERR_INFO_VALUE, MPI_Info_set(info, "toolong", value));
    EXPECT_VALUE(info, "toolong", NULL);

    /* MPI_INFO_NULL and handles that are not info objects */
    ERR(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "k", "v"));
    ERR(MPI_ERR_INFO, MPI_Info_get(MPI_INFO_NULL, "k", 10, value, &flag));
    ERR(MPI_ERR_INFO, MPI_Info_get_valuelen(MPI_INFO_NULL, "k", &n, &flag));
    buflen = 10;
    ERR(MPI_ERR_INFO, MPI_Info_get_string(MPI_INFO_NULL, "k", &buflen, value, &flag));
    ERR(MPI_ERR_INFO, MPI_Info_delete(MPI_INFO_NULL, "k"));
    ERR(MPI_ERR_INFO, MPI_Info_get_nkeys(MPI_INFO_NULL, &n));
    ERR(MPI_ERR_INFO, MPI_Info_get_nthkey(MPI_INFO_NULL, 0, nth));
    ERR(MPI_ERR_INFO, MPI_Info_dup(MPI_INFO_NULL, &out));
    out = MPI_INFO_NULL;
    ERR(MPI_ERR_INFO, MPI_Info_free(&out));
    ERR(MPI_ERR_INFO, MPI_Info_get_nkeys((MPI_Info)MPI_COMM_WORLD, &n));
    static double not_an_info[8];
    ERR(MPI_ERR_INFO, MPI_Info_get_nkeys((MPI_Info)(void *)not_an_info, &n));

    /* MPI_INFO_ENV is predefined: no freeing, no changing */
    out = MPI_INFO_ENV;
    ERR(MPI_ERR_INFO, MPI_Info_free(&out));
    CHECK(out == MPI_INFO_ENV, "failed free changed the handle");
    ERR(MPI_ERR_INFO, MPI_Info_set(MPI_INFO_ENV, "k", "v"));
    ERR(MPI_ERR_INFO, MPI_Info_delete(MPI_INFO_ENV, "command"));

    /* NULL pointers */
    ERR(MPI_ERR_ARG, MPI_Info_create(NULL));
    ERR(MPI_ERR_ARG, MPI_Info_set(info, NULL, "v"));
    ERR(MPI_ERR_ARG, MPI_Info_set(info, "k", NULL));
    ERR(MPI_ERR_ARG, MPI_Info_get(info, "k", 10, NULL, &flag));
    ERR(MPI_ERR_ARG, MPI_Info_get(info, "k", 10, value, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", NULL, &flag));
    ERR(MPI_ERR_ARG, MPI_Info_get_valuelen(info, "k", &n, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_get_string(info, "k", NULL, value, &flag));
    buflen = 10;
    ERR(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &buflen, value, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_get_string(info, "k", &buflen, NULL, &flag));
    ERR(MPI_ERR_ARG, MPI_Info_get_nkeys(info, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_get_nthkey(info, 0, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_delete(info, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_dup(info, NULL));
    ERR(MPI_ERR_ARG, MPI_Info_free(NULL));
    ERR(MPI_ERR_ARG, MPI_Info_create_env(0, NULL, NULL));
    ERR(MPI_ERR_ARG, MPI_Abi_get_info(NULL));
    ERR(MPI_ERR_ARG, MPI_Abi_get_fortran_info(NULL));

    /* failed calls changed nothing */
    CALL(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "%d keys after the failed calls, want 2", n);
    CALL(MPI_Info_free(&info));
}

/* The arguments after argv[0], joined by spaces (what "argv" holds). */
static void join_args(int argc, char **argv, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 1; i < argc; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", i > 1 ? " " : "", argv[i]);
    }
}

static void check_env(const char *what, MPI_Info env, int argc, char **argv, int initialized,
                      int size)
{
    char value[MPI_MAX_INFO_VAL], want[MPI_MAX_INFO_VAL];
    int flag, n = -1;

    CALL(MPI_Info_get_nkeys(env, &n));
    CHECK(n >= 4, "%s: only %d keys", what, n);

    CALL(MPI_Info_get(env, "command", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && strcmp(value, argv[0]) == 0, "%s: command \"%s\", want \"%s\"", what,
          flag ? value : "(absent)", argv[0]);
    if (argc > 1) {
        join_args(argc, argv, want, sizeof(want));
        CALL(MPI_Info_get(env, "argv", MPI_MAX_INFO_VAL - 1, value, &flag));
        CHECK(flag && strcmp(value, want) == 0, "%s: argv \"%s\", want \"%s\"", what,
              flag ? value : "(absent)", want);
    }
    char cwd[4096];
    CALL(MPI_Info_get(env, "wdir", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && getcwd(cwd, sizeof(cwd)) != NULL && strcmp(value, cwd) == 0,
          "%s: wdir \"%s\"", what, flag ? value : "(absent)");
    CALL(MPI_Info_get(env, "host", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && value[0] != '\0', "%s: no host", what);
    CALL(MPI_Info_get(env, "arch", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag && value[0] != '\0', "%s: no arch", what);
    if (initialized) {
        snprintf(want, sizeof(want), "%d", size);
        CALL(MPI_Info_get(env, "maxprocs", MPI_MAX_INFO_VAL - 1, value, &flag));
        CHECK(flag && strcmp(value, want) == 0, "%s: maxprocs \"%s\", want %s", what,
              flag ? value : "(absent)", want);
        CALL(MPI_Info_get(env, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag));
        CHECK(flag && strcmp(value, "MPI_THREAD_SINGLE") == 0, "%s: thread_level \"%s\"", what,
              flag ? value : "(absent)");
    }
}

static void test_env(int argc, char **argv, int size)
{
    MPI_Info env, dup;
    int n1, n2;

    check_env("MPI_INFO_ENV", MPI_INFO_ENV, argc, argv, 1, size);

    CALL(MPI_Info_create_env(argc, argv, &env));
    CHECK(env != MPI_INFO_ENV && env != MPI_INFO_NULL, "create_env gave a predefined handle");
    check_env("create_env(argc, argv)", env, argc, argv, 1, size);
    CALL(MPI_Info_set(env, "mine", "yes"));        /* a copy the user may change */
    CALL(MPI_Info_free(&env));

    CALL(MPI_Info_create_env(0, NULL, &env));      /* from the process itself */
    check_env("create_env(0, NULL)", env, argc, argv, 1, size);
    CALL(MPI_Info_free(&env));

    CALL(MPI_Info_dup(MPI_INFO_ENV, &dup));
    CALL(MPI_Info_get_nkeys(MPI_INFO_ENV, &n1));
    CALL(MPI_Info_get_nkeys(dup, &n2));
    CHECK(n1 == n2, "dup of MPI_INFO_ENV has %d keys, MPI_INFO_ENV %d", n2, n1);
    CALL(MPI_Info_delete(dup, "command"));
    CALL(MPI_Info_get_nkeys(MPI_INFO_ENV, &n2));
    CHECK(n1 == n2, "deleting from a dup changed MPI_INFO_ENV");
    CALL(MPI_Info_free(&dup));
}

static void test_abi(void)
{
    static const struct {
        const char *key;
        int size;
    } want[] = {
        { "mpi_aint_size", (int)sizeof(MPI_Aint) },
        { "mpi_count_size", (int)sizeof(MPI_Count) },
        { "mpi_offset_size", (int)sizeof(MPI_Offset) },
    };
    MPI_Info info = MPI_INFO_NULL;
    char value[64], expect[16];
    int flag;

    CALL(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL && info != MPI_INFO_ENV, "Abi_get_info gave no new object");
    if (info == MPI_INFO_NULL) {
        return;
    }
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        snprintf(expect, sizeof(expect), "%d", want[i].size);
        CALL(MPI_Info_get(info, want[i].key, (int)sizeof(value) - 1, value, &flag));
        CHECK(flag && strcmp(value, expect) == 0, "%s is \"%s\", want %s", want[i].key,
              flag ? value : "(absent)", expect);
    }
    CALL(MPI_Info_set(info, "user", "may change it"));   /* the user's object */
    CALL(MPI_Info_free(&info));

    /* no Fortran compiler properties known: MPI_INFO_NULL (MPI-5.0 21.4.1) */
    info = MPI_INFO_ENV;
    CALL(MPI_Abi_get_fortran_info(&info));
    CHECK(info == MPI_INFO_NULL, "Abi_get_fortran_info did not give MPI_INFO_NULL");
}

/* Info objects work outside MPI_Init ... MPI_Finalize. */
static void test_outside(const char *when, int argc, char **argv)
{
    MPI_Info info, dup;
    char value[32];
    int flag = 0, n = -1;

    CALL(MPI_Info_create(&info));
    CALL(MPI_Info_set(info, "when", when));
    CALL(MPI_Info_dup(info, &dup));
    CALL(MPI_Info_get(dup, "when", (int)sizeof(value) - 1, value, &flag));
    CHECK(flag && strcmp(value, when) == 0, "%s: value \"%s\"", when, value);
    CALL(MPI_Info_get_nkeys(dup, &n));
    CHECK(n == 1, "%s: %d keys", when, n);
    CALL(MPI_Info_free(&dup));
    CALL(MPI_Info_free(&info));
    check_env(when, MPI_INFO_ENV, argc, argv, 0, 0);
    CALL(MPI_Abi_get_info(&info));
    CALL(MPI_Info_get(info, "mpi_aint_size", (int)sizeof(value) - 1, value, &flag));
    CHECK(flag && atoi(value) == (int)sizeof(MPI_Aint), "%s: mpi_aint_size \"%s\"", when,
          value);
    CALL(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int size = 0, total = 0;

    test_outside("before MPI_Init", argc, argv);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* errors without an object go to COMM_WORLD's or COMM_SELF's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    test_basic();
    test_truncation();
    test_dup();
    test_errors();
    test_env(argc, argv, size);
    test_abi();

    int before = errs;
    MPI_Allreduce(&before, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();

    test_outside("after MPI_Finalize", argc, argv);
    total += errs - before;         /* this rank's failures after finalize */
    if (rank == 0) {
        if (total == 0) {
            printf(" No Errors\n");
        } else {
            printf(" Found %d errors\n", total);
        }
    }
    fflush(stdout);
    return total != 0 || errs != 0;
}

/* Error classes, codes, strings and communicator error handlers:
 *   - MPI_Error_class / MPI_Error_string for every standard error class;
 *   - MPI_Add_error_class / _code / _string and MPI_LASTUSEDCODE;
 *   - MPI_Comm_create_errhandler, Comm_set/get_errhandler, Comm_call_errhandler,
 *     a user handler invoked by a real error, inheritance by MPI_Comm_dup,
 *     MPI_Errhandler_free while still attached (deferred deallocation);
 *   - MPI_ERRORS_RETURN returns the error code and the program goes on. */
#include "mtest.h"

struct cls {
    int cls;
    const char *name;
};

#define C(x) { x, #x }

static int handler_calls;
static int handler_last_code;
static MPI_Comm handler_last_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_last_code = *code;
    handler_last_comm = *comm;
}

static int handler2_calls;
static void my_handler2(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler2_calls++;
}

static void check_classes(void)
{
    struct cls classes[] = {
        C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE),
        C(MPI_ERR_TAG), C(MPI_ERR_COMM), C(MPI_ERR_RANK), C(MPI_ERR_REQUEST),
        C(MPI_ERR_ROOT), C(MPI_ERR_GROUP), C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY),
        C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN), C(MPI_ERR_TRUNCATE),
        C(MPI_ERR_OTHER), C(MPI_ERR_INTERN), C(MPI_ERR_PENDING), C(MPI_ERR_IN_STATUS),
        C(MPI_ERR_ACCESS), C(MPI_ERR_AMODE), C(MPI_ERR_ASSERT), C(MPI_ERR_BAD_FILE),
        C(MPI_ERR_BASE), C(MPI_ERR_CONVERSION), C(MPI_ERR_DISP), C(MPI_ERR_DUP_DATAREP),
        C(MPI_ERR_FILE_EXISTS), C(MPI_ERR_FILE_IN_USE), C(MPI_ERR_FILE),
        C(MPI_ERR_INFO_KEY), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO),
        C(MPI_ERR_IO), C(MPI_ERR_KEYVAL), C(MPI_ERR_LOCKTYPE), C(MPI_ERR_NAME),
        C(MPI_ERR_NO_MEM), C(MPI_ERR_NOT_SAME), C(MPI_ERR_NO_SPACE), C(MPI_ERR_NO_SUCH_FILE),
        C(MPI_ERR_PORT), C(MPI_ERR_QUOTA), C(MPI_ERR_READ_ONLY), C(MPI_ERR_RMA_ATTACH),
        C(MPI_ERR_RMA_CONFLICT), C(MPI_ERR_RMA_RANGE), C(MPI_ERR_RMA_SHARED),
        C(MPI_ERR_RMA_SYNC), C(MPI_ERR_SERVICE), C(MPI_ERR_SIZE), C(MPI_ERR_SPAWN),
        C(MPI_ERR_UNSUPPORTED_DATAREP), C(MPI_ERR_UNSUPPORTED_OPERATION), C(MPI_ERR_WIN),
        C(MPI_ERR_RMA_FLAVOR),
#if MPI_VERSION >= 4
        C(MPI_ERR_PROC_ABORTED), C(MPI_ERR_VALUE_TOO_LARGE), C(MPI_ERR_SESSION),
#endif
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
        C(MPI_ERR_ERRHANDLER),
#endif
#if MPI_VERSION >= 5
        C(MPI_ERR_ABI),
#endif
    };
    int n = (int)(sizeof classes / sizeof classes[0]);
    for (int i = 0; i < n; i++) {
        int c = classes[i].cls, k = -1, len = -1;
        char s[MPI_MAX_ERROR_STRING];
        MT_CHECK(c >= 0 && c <= MPI_ERR_LASTCODE, "%s = %d outside 0..MPI_ERR_LASTCODE (%d)",
                 classes[i].name, c, MPI_ERR_LASTCODE);
        MT_CALL(MPI_Error_class(c, &k));
        MT_CHECK(k == c, "MPI_Error_class(%s) = %d", classes[i].name, k);
        memset(s, 'x', sizeof s);
        MT_CALL(MPI_Error_string(c, s, &len));
        MT_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && strlen(s) == (size_t)len,
                 "MPI_Error_string(%s): resultlen %d", classes[i].name, len);
        for (int j = 0; j < i; j++)
            MT_CHECK(classes[j].cls != c, "%s and %s have the same value %d",
                     classes[j].name, classes[i].name, c);
    }
#if MPI_VERSION >= 5
    /* The ABI fixes the values. */
    MT_CHECK(MPI_ERR_TRUNCATE == 15 && MPI_ERR_ABI == 62, "ABI error class values");
#endif
}

static void check_dynamic_errors(void)
{
    int *lastused = NULL, flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    MT_CHECK(flag && lastused && *lastused >= MPI_ERR_LASTCODE,
             "MPI_LASTUSEDCODE: flag %d value %d", flag, flag && lastused ? *lastused : -1);

    int newcls = -1, code1 = -1, code2 = -1, code3 = -1, k = -1, len = -1;
    char s[MPI_MAX_ERROR_STRING];
    MT_CALL(MPI_Add_error_class(&newcls));
    MT_CHECK(newcls > MPI_ERR_LASTCODE, "new class %d <= MPI_ERR_LASTCODE", newcls);
    /* An error class is also a valid error code that maps onto itself.
     * (Open MPI 4.1 answers MPI_ERR_UNKNOWN for dynamic classes: a known
     * deviation, so only checked elsewhere.) */
#ifndef OPEN_MPI
    MT_CALL(MPI_Error_class(newcls, &k));
    MT_CHECK(k == newcls, "MPI_Error_class(new class %d) = %d", newcls, k);
#endif
    /* MPI_LASTUSEDCODE is "the current maximum error class including the
     * user-defined ones" (codes need not be below it). */
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
    MT_CHECK(flag && *lastused >= newcls, "MPI_LASTUSEDCODE %d < new class %d", *lastused,
             newcls);

    MT_CALL(MPI_Add_error_code(newcls, &code1));
    MT_CALL(MPI_Add_error_code(newcls, &code2));
    MT_CALL(MPI_Add_error_code(MPI_ERR_OTHER, &code3));
    MT_CHECK(code1 != code2 && code1 != newcls && code2 != newcls && code3 != code1 &&
             code3 != code2 && code3 != MPI_ERR_OTHER && code1 != MPI_SUCCESS &&
             code2 != MPI_SUCCESS && code3 != MPI_SUCCESS,
             "new codes %d %d %d (class %d)", code1, code2, code3, newcls);
    MT_CALL(MPI_Error_class(code1, &k));
    MT_CHECK(k == newcls, "class of code1 = %d, want %d", k, newcls);
    MT_CALL(MPI_Error_class(code2, &k));
    MT_CHECK(k == newcls, "class of code2 = %d, want %d", k, newcls);
    MT_CALL(MPI_Error_class(code3, &k));
    MT_CHECK(k == MPI_ERR_OTHER, "class of code3 = %d, want MPI_ERR_OTHER", k);

    MT_CALL(MPI_Add_error_string(newcls, "tern test class"));
    MT_CALL(MPI_Add_error_string(code1, "tern test code one"));
    MT_CALL(MPI_Add_error_string(code2, "tern test code two"));
    MT_CALL(MPI_Error_string(newcls, s, &len));
    MT_CHECK(!strcmp(s, "tern test class") && len == (int)strlen(s), "class string '%s' len %d",
             s, len);
    MT_CALL(MPI_Error_string(code1, s, &len));
    MT_CHECK(!strcmp(s, "tern test code one") && len == (int)strlen(s),
             "code1 string '%s' len %d", s, len);
    MT_CALL(MPI_Error_string(code2, s, &len));
    MT_CHECK(!strcmp(s, "tern test code two"), "code2 string '%s'", s);
    /* Replacing a string. */
    MT_CALL(MPI_Add_error_string(code2, "replaced"));
    MT_CALL(MPI_Error_string(code2, s, &len));
    MT_CHECK(!strcmp(s, "replaced") && len == 8, "code2 string after replace '%s' len %d", s,
             len);

    /* A user-defined code delivered through an error handler. */
    MPI_Comm dup;
    MPI_Errhandler eh;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_create_errhandler(my_handler, &eh));
    MT_CALL(MPI_Comm_set_errhandler(dup, eh));
    handler_calls = 0;
    MT_CALL(MPI_Comm_call_errhandler(dup, code1));
    MT_CHECK(handler_calls == 1 && handler_last_code == code1,
             "user code through handler: %d calls, code %d", handler_calls, handler_last_code);
    MT_CALL(MPI_Errhandler_free(&eh));
    MT_CALL(MPI_Comm_free(&dup));
}

static void check_handlers(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;

    /* Default on the predefined communicators is MPI_ERRORS_ARE_FATAL
     * (this test runs without mt_init, so nothing changed it). */
    MT_CALL(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    MT_CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler of MPI_COMM_WORLD is not FATAL");
    MT_CALL(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
    MT_CHECK(got == MPI_ERRORS_ARE_FATAL, "default handler of MPI_COMM_SELF is not FATAL");
#if MPI_VERSION >= 4
    MT_CHECK(MPI_ERRORS_ABORT != MPI_ERRHANDLER_NULL && MPI_ERRORS_ABORT != MPI_ERRORS_RETURN &&
             MPI_ERRORS_ABORT != MPI_ERRORS_ARE_FATAL, "MPI_ERRORS_ABORT not distinct");
#endif

    /* ERRORS_RETURN on a duplicate: error comes back as a return code. */
    MPI_Comm dup, dup2;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MT_CALL(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    MT_CALL(MPI_Comm_get_errhandler(dup, &got));
    MT_CHECK(got == MPI_ERRORS_RETURN, "get after set ERRORS_RETURN");
    int x = 0;
    MT_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, mt_size + 3, 0, dup), MPI_ERR_RANK);
    MT_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, 0, -5, dup), MPI_ERR_TAG);
    /* MPI_Comm_call_errhandler with ERRORS_RETURN: returns (with MPI_SUCCESS). */
    MT_CALL(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));

    /* A user handler. */
    MT_CALL(MPI_Comm_create_errhandler(my_handler, &eh));
    MT_CHECK(eh != MPI_ERRHANDLER_NULL, "created handler is NULL");
    MT_CALL(MPI_Comm_set_errhandler(dup, eh));
    MT_CALL(MPI_Comm_get_errhandler(dup, &got));
    MT_CHECK(got == eh, "get_errhandler did not return the user handler");

    handler_calls = 0;
    handler_last_comm = MPI_COMM_NULL;
    MT_CALL(MPI_Comm_call_errhandler(dup, MPI_ERR_ARG));
    MT_CHECK(handler_calls == 1, "Comm_call_errhandler: handler called %d times", handler_calls);
    MT_CHECK(handler_last_code == MPI_ERR_ARG, "handler got code %d", handler_last_code);
    MT_CHECK(handler_last_comm == dup, "handler got another communicator");

    /* A real error invokes it; the call then returns the error code. */
    handler_calls = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, mt_size + 7, 0, dup);
    int k = -1;
    MT_CHECK(handler_calls == 1, "erroneous MPI_Send: handler called %d times", handler_calls);
    MPI_Error_class(handler_last_code, &k);
    MT_CHECK(k == MPI_ERR_RANK, "handler got class %d, want MPI_ERR_RANK", k);
    MT_CHECK(rc != MPI_SUCCESS, "erroneous MPI_Send returned MPI_SUCCESS");
    MT_CHECK(handler_last_comm == dup, "handler got another communicator");

    /* Free while attached: the handler stays valid while dup uses it. */
    MT_CALL(MPI_Errhandler_free(&eh));
    MT_CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
    handler_calls = 0;
    MT_CALL(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    MT_CHECK(handler_calls == 1, "handler freed too early (%d calls)", handler_calls);

    /* Inherited by MPI_Comm_dup. */
    MT_CALL(MPI_Comm_dup(dup, &dup2));
    handler_calls = 0;
    MT_CALL(MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER));
    MT_CHECK(handler_calls == 1, "dup did not inherit the handler (%d calls)", handler_calls);
    MT_CHECK(handler_last_comm == dup2, "inherited handler got another communicator");
    handler_calls = 0;
    rc = MPI_Recv(&x, 1, MPI_INT, -77, 0, dup2, MPI_STATUS_IGNORE);
    MT_CHECK(rc != MPI_SUCCESS && handler_calls == 1,
             "erroneous MPI_Recv on dup2: rc %d, handler calls %d", rc, handler_calls);

    /* A second user handler replaces the first on dup2 only. */
    MPI_Errhandler eh2;
    MT_CALL(MPI_Comm_create_errhandler(my_handler2, &eh2));
    MT_CALL(MPI_Comm_set_errhandler(dup2, eh2));
    MT_CALL(MPI_Errhandler_free(&eh2));
    handler_calls = handler2_calls = 0;
    MT_CALL(MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER));
    MT_CALL(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER));
    MT_CHECK(handler_calls == 1 && handler2_calls == 1, "handler calls %d / %d", handler_calls,
             handler2_calls);

    /* Communicators with user handlers still communicate. */
    int v = mt_rank, sum = 0;
    MT_CALL(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup2));
    MT_CHECK(sum == mt_size * (mt_size - 1) / 2, "allreduce on dup2 = %d", sum);

    MT_CALL(MPI_Comm_free(&dup2));
    MT_CALL(MPI_Comm_free(&dup));

    /* Back to ERRORS_RETURN on the world for the rest of the program. */
    MT_CALL(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MT_CALL(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    MT_CHECK(got == MPI_ERRORS_RETURN, "world handler not ERRORS_RETURN after set");
    MT_EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, mt_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    mt_after_init(0); /* keep the default handlers: check_handlers looks at them */
    check_handlers(); /* ends with ERRORS_RETURN on MPI_COMM_WORLD */
    check_classes();
    check_dynamic_errors();
    return mt_finalize();
}

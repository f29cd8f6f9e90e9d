/* Attribute caching on communicators: copy and delete callbacks.
 *
 *   - which callbacks MPI_Comm_dup / idup / dup_with_info / idup_with_info
 *     run, in which order, with which arguments (old communicator, keyval,
 *     extra_state, value), and what the duplicate holds afterwards:
 *     user copy function with flag 1 and 0, MPI_COMM_DUP_FN,
 *     MPI_COMM_NULL_COPY_FN;
 *   - delete callbacks on MPI_Comm_delete_attr, on overwrite, and on
 *     MPI_Comm_free (newest value first), MPI_COMM_NULL_DELETE_FN;
 *   - a callback that fails makes the call fail with its code: dup (and the
 *     values already copied are deleted again), delete_attr, set_attr,
 *     MPI_Comm_free (the communicator stays usable);
 *   - a freed keyval stays usable while attached and dies with its last
 *     value;
 *   - the deprecated MPI-1 names (MPI_Keyval_create, MPI_Attr_put ...,
 *     MPI_DUP_FN, MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN). */
#include "mtest.h"

#include <stdint.h>

/* ---- a log of callback invocations ------------------------------------ */
typedef struct {
    char     what;          /* 'c' copy, 'd' delete */
    int      keyval;
    intptr_t value;
    MPI_Comm comm;
    void    *extra;
} ev_t;

static ev_t ev[256];
static int nev;
static int fail_code;       /* callbacks marked "failing" return this when set */

static void log_ev(char what, MPI_Comm comm, int keyval, void *value, void *extra)
{
    if (nev < (int)(sizeof ev / sizeof ev[0])) {
        ev[nev].what = what;
        ev[nev].keyval = keyval;
        ev[nev].value = (intptr_t)value;
        ev[nev].comm = comm;
        ev[nev].extra = extra;
    }
    nev++;
}

static int copy_inc(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    log_ev('c', comm, keyval, in, extra);
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_noflag(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    log_ev('c', comm, keyval, in, extra);
    *(void **)out = (void *)(intptr_t)-1;     /* must be ignored: flag is 0 */
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_failing(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                        int *flag)
{
    log_ev('c', comm, keyval, in, extra);
    if (fail_code != 0) {
        return fail_code;
    }
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_log(MPI_Comm comm, int keyval, void *value, void *extra)
{
    log_ev('d', comm, keyval, value, extra);
    return MPI_SUCCESS;
}

static int del_failing(MPI_Comm comm, int keyval, void *value, void *extra)
{
    log_ev('d', comm, keyval, value, extra);
    return fail_code;
}

/* legacy types */
static int legacy_del(MPI_Comm comm, int keyval, void *value, void *extra)
{
    log_ev('d', comm, keyval, value, extra);
    return MPI_SUCCESS;
}

/* Event i must be (what, keyval, value, comm). */
#define EXPECT_EV(i, w, k, v, c)                                                       \
    MT_CHECK((i) < nev && ev[i].what == (w) && ev[i].keyval == (k) &&                  \
                 ev[i].value == (intptr_t)(v) && ev[i].comm == (c),                    \
             "event %d: got %c key %d value %ld (of %d events), want %c key %d value %ld", \
             (i), (i) < nev ? ev[i].what : '-', (i) < nev ? ev[i].keyval : -1,         \
             (long)((i) < nev ? ev[i].value : -1), nev, (w), (k), (long)(v))

static void expect_attr(MPI_Comm comm, int keyval, int want_flag, intptr_t want,
                        const char *what)
{
    void *v = (void *)(intptr_t)-12345;
    int flag = -1;
    MT_CALL(MPI_Comm_get_attr(comm, keyval, &v, &flag));
    MT_CHECK(flag == want_flag, "%s: flag %d, want %d", what, flag, want_flag);
    if (want_flag && flag) {
        MT_CHECK((intptr_t)v == want, "%s: value %ld, want %ld", what, (long)(intptr_t)v,
                 (long)want);
    }
}

#define P(x) ((void *)(intptr_t)(x))

static int extra_a, extra_b;

static void dup_and_free_order(void)
{
    MPI_Comm base, d;
    int kA, kB, kC, kD, kE;

    MT_CALL(MPI_Comm_create_keyval(copy_inc, del_log, &kA, &extra_a));
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &kB, &extra_b));
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &kC, NULL));
    MT_CALL(MPI_Comm_create_keyval(copy_noflag, del_log, &kD, NULL));
    MT_CALL(MPI_Comm_create_keyval(copy_inc, MPI_COMM_NULL_DELETE_FN, &kE, NULL));
    MT_CHECK(kA != MPI_KEYVAL_INVALID && kA != kB && kB != kC && kC != kD && kD != kE,
             "keyvals %d %d %d %d %d", kA, kB, kC, kD, kE);

    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    expect_attr(base, kA, 0, 0, "unset kA");
    MT_CALL(MPI_Comm_set_attr(base, kC, P(30)));
    MT_CALL(MPI_Comm_set_attr(base, kA, P(10)));
    MT_CALL(MPI_Comm_set_attr(base, kE, P(50)));
    MT_CALL(MPI_Comm_set_attr(base, kD, P(40)));
    MT_CALL(MPI_Comm_set_attr(base, kB, P(20)));
    MT_CHECK(nev == 0, "setting new attributes ran %d callbacks", nev);

    /* dup: user copy functions run oldest first, with the old comm */
    MT_CALL(MPI_Comm_dup(base, &d));
    MT_CHECK(nev == 3, "dup ran %d callbacks, want 3", nev);
    EXPECT_EV(0, 'c', kA, 10, base);
    EXPECT_EV(1, 'c', kE, 50, base);
    EXPECT_EV(2, 'c', kD, 40, base);
    MT_CHECK(nev > 0 && ev[0].extra == &extra_a, "extra_state not passed to copy fn");
    expect_attr(d, kA, 1, 11, "dup kA (copy_inc)");
    expect_attr(d, kB, 1, 20, "dup kB (MPI_COMM_DUP_FN)");
    expect_attr(d, kC, 0, 0, "dup kC (MPI_COMM_NULL_COPY_FN)");
    expect_attr(d, kD, 0, 0, "dup kD (flag 0)");
    expect_attr(d, kE, 1, 51, "dup kE (copy_inc)");
    expect_attr(base, kA, 1, 10, "base kA after dup");
    expect_attr(base, kD, 1, 40, "base kD after dup");
    /* the predefined ones still read on the duplicate */
    {
        void *v = NULL;
        int flag = 0;
        MT_CALL(MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag));
        MT_CHECK(flag && v != NULL && *(int *)v >= 32767, "MPI_TAG_UB on a duplicate");
    }

    /* free: newest first; d holds kA, kE, kB in that order */
    nev = 0;
    MPI_Comm dsave = d;
    MT_CALL(MPI_Comm_free(&d));
    MT_CHECK(d == MPI_COMM_NULL, "freed handle not MPI_COMM_NULL");
    MT_CHECK(nev == 2, "free ran %d delete callbacks, want 2", nev);
    EXPECT_EV(0, 'd', kB, 20, dsave);
    EXPECT_EV(1, 'd', kA, 11, dsave);
    MT_CHECK(nev > 0 && ev[0].extra == &extra_b, "extra_state not passed to delete fn");

    /* overwrite: the old value's delete callback, once; the new value is
     * then the newest */
    nev = 0;
    MT_CALL(MPI_Comm_set_attr(base, kC, P(31)));
    MT_CHECK(nev == 1, "overwrite ran %d callbacks", nev);
    EXPECT_EV(0, 'd', kC, 30, base);
    expect_attr(base, kC, 1, 31, "overwritten kC");

    /* delete_attr: callback, then gone; deleting again does nothing */
    nev = 0;
    MT_CALL(MPI_Comm_delete_attr(base, kA));
    MT_CHECK(nev == 1, "delete_attr ran %d callbacks", nev);
    EXPECT_EV(0, 'd', kA, 10, base);
    expect_attr(base, kA, 0, 0, "deleted kA");
    MT_CALL(MPI_Comm_delete_attr(base, kA));
    MT_CHECK(nev == 1, "deleting an unset attribute ran a callback");

    /* free base: kE, kD, kB, kC remain, set in that order (kC overwritten
     * last); kE has no delete function */
    nev = 0;
    MT_CALL(MPI_Comm_free(&base));
    MT_CHECK(nev == 3, "free ran %d delete callbacks, want 3", nev);
    EXPECT_EV(0, 'd', kC, 31, ev[0].comm);
    EXPECT_EV(1, 'd', kB, 20, ev[0].comm);
    EXPECT_EV(2, 'd', kD, 40, ev[0].comm);

    MT_CALL(MPI_Comm_free_keyval(&kA));
    MT_CALL(MPI_Comm_free_keyval(&kB));
    MT_CALL(MPI_Comm_free_keyval(&kC));
    MT_CALL(MPI_Comm_free_keyval(&kD));
    MT_CALL(MPI_Comm_free_keyval(&kE));
    MT_CHECK(kA == MPI_KEYVAL_INVALID && kE == MPI_KEYVAL_INVALID,
             "freed keyvals not set to MPI_KEYVAL_INVALID");
    nev = 0;
}

/* The other duplicating calls copy attributes the same way. */
static void other_dups(void)
{
    MPI_Comm base, d1, d2, d3;
    MPI_Request req;
    MPI_Info info;
    int k, flag = 0;

    MT_CALL(MPI_Comm_create_keyval(copy_inc, del_log, &k, NULL));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    MT_CALL(MPI_Comm_set_attr(base, k, P(7)));
    nev = 0;

    MT_CALL(MPI_Comm_idup(base, &d1, &req));
    MT_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MT_CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
    expect_attr(d1, k, 1, 8, "idup");

    MT_CALL(MPI_Info_create(&info));
    MT_CALL(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MT_CALL(MPI_Comm_dup_with_info(base, info, &d2));
    expect_attr(d2, k, 1, 8, "dup_with_info");

    MT_CALL(MPI_Comm_idup_with_info(d2, info, &d3, &req));
    /* nonblocking: complete once every member has called it */
    do {
        MT_CALL(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    MT_CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Test");
    expect_attr(d3, k, 1, 9, "idup_with_info of a duplicate");
    MT_CHECK(nev == 3, "%d copy callbacks, want 3", nev);
    EXPECT_EV(0, 'c', k, 7, base);
    EXPECT_EV(1, 'c', k, 7, base);
    EXPECT_EV(2, 'c', k, 8, d2);
    MT_CALL(MPI_Info_free(&info));

    nev = 0;
    MT_CALL(MPI_Comm_free(&d3));
    MT_CALL(MPI_Comm_free(&d2));
    MT_CALL(MPI_Comm_free(&d1));
    MT_CALL(MPI_Comm_free(&base));
    MT_CHECK(nev == 4, "%d delete callbacks, want 4", nev);
    EXPECT_EV(0, 'd', k, 9, ev[0].comm);
    EXPECT_EV(1, 'd', k, 8, ev[1].comm);
    EXPECT_EV(2, 'd', k, 8, ev[2].comm);
    EXPECT_EV(3, 'd', k, 7, ev[3].comm);
    MT_CALL(MPI_Comm_free_keyval(&k));
    nev = 0;
}

static void failing_callbacks(void)
{
    MPI_Comm base, d = MPI_COMM_NULL, saved;
    int cls, code, kA, kF, size = -1;

    MT_CALL(MPI_Add_error_class(&cls));
    MT_CALL(MPI_Add_error_code(cls, &code));
    MT_CALL(MPI_Comm_create_keyval(copy_inc, del_log, &kA, NULL));
    MT_CALL(MPI_Comm_create_keyval(copy_failing, del_failing, &kF, NULL));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &base));   /* inherits MPI_ERRORS_RETURN */
    MT_CALL(MPI_Comm_set_attr(base, kA, P(1)));
    MT_CALL(MPI_Comm_set_attr(base, kF, P(2)));

    /* a failing copy callback fails the dup with its code; what was copied
     * already is deleted again */
    nev = 0;
    fail_code = code;
    int rc = MPI_Comm_dup(base, &d);
    MT_CHECK(rc == code, "dup with a failing copy callback returned %d, want %d", rc, code);
    MT_CHECK(d == MPI_COMM_NULL, "newcomm set by a failed dup");
    MT_CHECK(nev == 3, "%d callbacks, want 3", nev);
    EXPECT_EV(0, 'c', kA, 1, base);
    EXPECT_EV(1, 'c', kF, 2, base);
    EXPECT_EV(2, 'd', kA, 2, ev[2].comm);

    /* failing delete: delete_attr, overwrite and free fail, the value stays */
    nev = 0;
    rc = MPI_Comm_delete_attr(base, kF);
    MT_CHECK(rc == code, "delete_attr returned %d, want %d", rc, code);
    expect_attr(base, kF, 1, 2, "value after failed delete");
    rc = MPI_Comm_set_attr(base, kF, P(3));
    MT_CHECK(rc == code, "overwrite returned %d, want %d", rc, code);
    expect_attr(base, kF, 1, 2, "value after failed overwrite");
    saved = base;
    rc = MPI_Comm_free(&base);
    MT_CHECK(rc == code, "MPI_Comm_free returned %d, want %d", rc, code);
    MT_CHECK(base == saved, "failed MPI_Comm_free changed the handle");
    MT_CALL(MPI_Comm_size(base, &size));
    MT_CHECK(size == mt_size, "communicator unusable after failed free");
    MT_CALL(MPI_Barrier(base));
    MT_CHECK(nev == 3, "%d delete callbacks, want 3", nev);

    /* it works once the callback succeeds again */
    fail_code = 0;
    nev = 0;
    MT_CALL(MPI_Comm_free(&base));
    MT_CHECK(nev == 2, "%d delete callbacks, want 2", nev);
    EXPECT_EV(0, 'd', kF, 2, saved);
    EXPECT_EV(1, 'd', kA, 1, saved);
    MT_CALL(MPI_Comm_free_keyval(&kA));
    MT_CALL(MPI_Comm_free_keyval(&kF));
    nev = 0;
}

/* A freed keyval stays usable while attached; its id dies with its last
 * value. */
static void keyval_lifetime(void)
{
    MPI_Comm c1, c2;
    int k, saved, copy;

    MT_CALL(MPI_Comm_create_keyval(copy_inc, del_log, &k, NULL));
    saved = copy = k;
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &c1));
    MT_CALL(MPI_Comm_set_attr(c1, k, P(100)));
    MT_CALL(MPI_Comm_free_keyval(&k));
    MT_CHECK(k == MPI_KEYVAL_INVALID, "keyval not reset");
    expect_attr(c1, saved, 1, 100, "attribute of a freed keyval");
    MT_EXPECT_CLASS(MPI_Comm_free_keyval(&copy), MPI_ERR_KEYVAL);
    MT_CHECK(copy == saved, "failed free changed the keyval");

    nev = 0;
    MT_CALL(MPI_Comm_dup(c1, &c2));
    MT_CHECK(nev == 1, "copy callback of a freed keyval ran %d times", nev);
    EXPECT_EV(0, 'c', saved, 100, c1);
    expect_attr(c2, saved, 1, 101, "copied attribute of a freed keyval");
    MT_CALL(MPI_Comm_free(&c1));
    MT_CHECK(nev == 2, "delete callback of a freed keyval not run");
    EXPECT_EV(1, 'd', saved, 100, ev[1].comm);
    expect_attr(c2, saved, 1, 101, "still attached on the duplicate");
    MT_CALL(MPI_Comm_free(&c2));
    MT_CHECK(nev == 3, "delete callback of the last value not run");
    EXPECT_EV(2, 'd', saved, 101, ev[2].comm);

    /* now the id is gone for good */
    void *v;
    int flag;
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, P(1)), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Comm_free_keyval(&saved), MPI_ERR_KEYVAL);

    /* a keyval freed while unused dies at once; new ids never reuse it */
    int k2, k2saved;
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    k2saved = k2;
    MT_CALL(MPI_Comm_free_keyval(&k2));
    MT_EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, k2saved), MPI_ERR_KEYVAL);
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
    MT_CHECK(k2 != k2saved && k2 != copy, "keyval id %d reused", k2);
    MT_CALL(MPI_Comm_free_keyval(&k2));
    nev = 0;
}

static void legacy_names(void)
{
    MPI_Comm base, d;
    int kdup, knull, flag = 0;
    void *v = NULL;

    MT_CALL(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kdup, NULL));
    MT_CALL(MPI_Keyval_create(MPI_NULL_COPY_FN, legacy_del, &knull, P(77)));
    MT_CALL(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    MT_CALL(MPI_Attr_put(base, kdup, P(5)));
    MT_CALL(MPI_Attr_put(base, knull, P(6)));
    MT_CALL(MPI_Attr_get(base, kdup, &v, &flag));
    MT_CHECK(flag && v == P(5), "MPI_Attr_get: flag %d value %p", flag, v);
    /* the two families share keyvals */
    expect_attr(base, knull, 1, 6, "MPI_Comm_get_attr of an MPI_Attr_put value");

    nev = 0;
    MT_CALL(MPI_Comm_dup(base, &d));
    MT_CHECK(nev == 0, "predefined copy functions ran a callback");
    flag = -1;
    MT_CALL(MPI_Attr_get(d, kdup, &v, &flag));
    MT_CHECK(flag == 1 && v == P(5), "MPI_DUP_FN copy: flag %d value %p", flag, v);
    MT_CALL(MPI_Attr_get(d, knull, &v, &flag));
    MT_CHECK(flag == 0, "MPI_NULL_COPY_FN copied the attribute");

    MT_CALL(MPI_Attr_delete(base, knull));
    MT_CHECK(nev == 1 && ev[0].what == 'd' && ev[0].value == 6 && ev[0].extra == P(77) &&
                 ev[0].comm == base, "legacy delete callback");
    MT_CALL(MPI_Attr_get(base, knull, &v, &flag));
    MT_CHECK(flag == 0, "MPI_Attr_delete left the value");
    MT_CALL(MPI_Comm_free(&d));
    MT_CALL(MPI_Comm_free(&base));
    MT_CHECK(nev == 1, "MPI_NULL_DELETE_FN ran a callback");
    MT_CALL(MPI_Keyval_free(&kdup));
    MT_CALL(MPI_Keyval_free(&knull));
    MT_CHECK(kdup == MPI_KEYVAL_INVALID && knull == MPI_KEYVAL_INVALID,
             "MPI_Keyval_free did not reset");
    nev = 0;
}

/* Attributes on the predefined communicators. */
static void predefined_comms(void)
{
    int k;
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &k, NULL));
    MT_CALL(MPI_Comm_set_attr(MPI_COMM_WORLD, k, P(1)));
    MT_CALL(MPI_Comm_set_attr(MPI_COMM_SELF, k, P(2)));
    expect_attr(MPI_COMM_WORLD, k, 1, 1, "world");
    expect_attr(MPI_COMM_SELF, k, 1, 2, "self");
    nev = 0;
    MT_CALL(MPI_Comm_delete_attr(MPI_COMM_WORLD, k));
    MT_CALL(MPI_Comm_delete_attr(MPI_COMM_SELF, k));
    MT_CHECK(nev == 2, "%d delete callbacks", nev);
    EXPECT_EV(0, 'd', k, 1, MPI_COMM_WORLD);
    EXPECT_EV(1, 'd', k, 2, MPI_COMM_SELF);
    MT_CALL(MPI_Comm_free_keyval(&k));
    nev = 0;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    dup_and_free_order();
    other_dups();
    failing_callbacks();
    keyval_lifetime();
    legacy_names();
    predefined_comms();
    return mt_finalize();
}

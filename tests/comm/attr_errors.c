/* Error classes of the attribute functions (MPI_ERRORS_RETURN):
 * MPI_ERR_KEYVAL for MPI_KEYVAL_INVALID, unknown ids, window keys,
 * predefined keys that are written, deleted or freed; MPI_ERR_COMM for bad
 * communicators; MPI_ERR_ARG for NULL output arguments.  Failed calls leave
 * their outputs and the attributes alone, and the predefined attributes
 * keep reading correctly. */
#include "mtest.h"

#include <stdint.h>

static void keyval_errors(void)
{
    void *v = (void *)(intptr_t)42;
    int flag = 7, k, bad;
    const int predefined[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
                              MPI_APPNUM, MPI_LASTUSEDCODE, MPI_UNIVERSE_SIZE};

    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag),
                    MPI_ERR_KEYVAL);
    MT_CHECK(flag == 7 && v == (void *)(intptr_t)42, "failed get changed its outputs");
    MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL),
                    MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    k = MPI_KEYVAL_INVALID;
    MT_EXPECT_CLASS(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Keyval_free(&k), MPI_ERR_KEYVAL);

    /* ids never handed out */
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, 0x7fff0000, NULL), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Attr_get(MPI_COMM_WORLD, -4, &v, &flag), MPI_ERR_KEYVAL);
    bad = 999;
    MT_EXPECT_CLASS(MPI_Comm_free_keyval(&bad), MPI_ERR_KEYVAL);
    MT_CHECK(bad == 999, "failed free changed the keyval");

    /* window keys are not communicator keys */
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag),
                    MPI_ERR_KEYVAL);

    /* predefined keys are read-only and cannot be freed */
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        int p = predefined[i];
        MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, p, NULL), MPI_ERR_KEYVAL);
        MT_EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, p, NULL), MPI_ERR_KEYVAL);
        MT_EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, p), MPI_ERR_KEYVAL);
        MT_EXPECT_CLASS(MPI_Attr_delete(MPI_COMM_WORLD, p), MPI_ERR_KEYVAL);
        MT_EXPECT_CLASS(MPI_Comm_free_keyval(&p), MPI_ERR_KEYVAL);
        MT_CHECK(p == predefined[i], "failed free changed a predefined key");
    }
    /* ... and still read */
    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    MT_CHECK(flag && *(int *)v >= 32767, "MPI_TAG_UB after failed writes");
    flag = 0;
    MT_CALL(MPI_Attr_get(MPI_COMM_SELF, MPI_HOST, &v, &flag));
    MT_CHECK(flag, "MPI_HOST through MPI_Attr_get");
}

static void comm_and_arg_errors(void)
{
    void *v = NULL;
    int flag = 0, k;

    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_NULL, k, NULL), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_NULL, k, &v, &flag), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_delete_attr(MPI_COMM_NULL, k), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Attr_put(MPI_COMM_NULL, k, NULL), MPI_ERR_COMM);
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, k, NULL, &flag), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, NULL,
                                           NULL), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, NULL, NULL),
                    MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG);

    /* failed calls changed nothing: k still works */
    MT_CALL(MPI_Comm_set_attr(MPI_COMM_WORLD, k, (void *)(intptr_t)9));
    flag = 0;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag));
    MT_CHECK(flag && v == (void *)(intptr_t)9, "attribute after failed calls");
    MT_CALL(MPI_Comm_delete_attr(MPI_COMM_WORLD, k));
    MT_CALL(MPI_Comm_free_keyval(&k));

    /* a fresh keyval reads as unset on every communicator */
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL));
    flag = -1;
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_SELF, k, &v, &flag));
    MT_CHECK(flag == 0, "unset attribute has flag %d", flag);
    MT_CALL(MPI_Comm_free_keyval(&k));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    keyval_errors();
    comm_and_arg_errors();
    return mt_finalize();
}

/* Datatype attributes: keyvals, set/get/delete, copy callbacks on
 * MPI_Type_dup (user, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN), delete
 * callbacks on overwrite, Type_delete_attr and Type_free, predefined types,
 * errors (wrong kind of keyval, invalid keyval, failing callbacks). */
#include "mtest.h"

static int copies, deletes, last_deleted;

static int copy_fn(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t; (void)kv; (void)extra;
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_fn(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t; (void)kv; (void)extra;
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static int bad_del(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t; (void)kv; (void)val; (void)extra;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int k1, k2, k3, flag;
    void *v;
    MT_CALL(MPI_Type_create_keyval(copy_fn, del_fn, &k1, NULL));
    MT_CALL(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL));
    MT_CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, del_fn, &k3, NULL));

    MPI_Datatype t, d;
    MT_CALL(MPI_Type_contiguous(4, MPI_INT, &t));
    MT_CALL(MPI_Type_get_attr(t, k1, &v, &flag));
    MT_CHECK(!flag, "attribute set before set_attr");
    MT_CALL(MPI_Type_set_attr(t, k1, (void *)(intptr_t)10));
    MT_CALL(MPI_Type_set_attr(t, k2, (void *)(intptr_t)20));
    MT_CALL(MPI_Type_set_attr(t, k3, (void *)(intptr_t)30));
    MT_CALL(MPI_Type_get_attr(t, k2, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 20, "k2 = %ld", (long)(intptr_t)v);

    /* overwrite runs the delete callback of the old value */
    MT_CALL(MPI_Type_set_attr(t, k1, (void *)(intptr_t)11));
    MT_CHECK(deletes == 1 && last_deleted == 10, "overwrite: %d deletes, last %d", deletes,
             last_deleted);

    /* dup: k1 copied by copy_fn (+1), k2 as is, k3 not */
    MT_CALL(MPI_Type_dup(t, &d));
    MT_CHECK(copies == 1, "copies %d", copies);
    MT_CALL(MPI_Type_get_attr(d, k1, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 12, "dup k1 %d %ld", flag, (long)(intptr_t)v);
    MT_CALL(MPI_Type_get_attr(d, k2, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 20, "dup k2 %d %ld", flag, (long)(intptr_t)v);
    MT_CALL(MPI_Type_get_attr(d, k3, &v, &flag));
    MT_CHECK(!flag, "dup k3 copied");

    /* delete_attr, then free runs the remaining delete callbacks */
    MT_CALL(MPI_Type_delete_attr(t, k3));
    MT_CHECK(deletes == 2 && last_deleted == 30, "delete_attr: %d %d", deletes, last_deleted);
    MT_CALL(MPI_Type_delete_attr(t, k3));   /* not set: nothing happens */
    MT_CHECK(deletes == 2, "second delete ran a callback");
    MT_CALL(MPI_Type_free(&t));
    MT_CHECK(deletes == 3 && last_deleted == 11, "free t: %d %d", deletes, last_deleted);
    MT_CALL(MPI_Type_free(&d));
    MT_CHECK(deletes == 4 && last_deleted == 12, "free d: %d %d", deletes, last_deleted);

    /* predefined types carry attributes too */
    MT_CALL(MPI_Type_set_attr(MPI_DOUBLE, k1, (void *)(intptr_t)77));
    MT_CALL(MPI_Type_get_attr(MPI_DOUBLE, k1, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 77, "predefined %d %ld", flag, (long)(intptr_t)v);
    MT_CALL(MPI_Type_get_attr(MPI_INT, k1, &v, &flag));
    MT_CHECK(!flag, "attribute leaked to MPI_INT");
    MT_CALL(MPI_Type_dup(MPI_DOUBLE, &d));
    MT_CALL(MPI_Type_get_attr(d, k1, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 78, "dup of predefined %d %ld", flag, (long)(intptr_t)v);
    MT_CALL(MPI_Type_free(&d));
    MT_CALL(MPI_Type_delete_attr(MPI_DOUBLE, k1));
    MT_CHECK(last_deleted == 77, "predefined delete %d", last_deleted);

    /* a failing delete callback: Type_free fails, the type stays */
    int kb;
    MT_CALL(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, bad_del, &kb, NULL));
    MT_CALL(MPI_Type_contiguous(2, MPI_INT, &t));
    MT_CALL(MPI_Type_set_attr(t, kb, NULL));
    MT_EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_OTHER);
    MT_EXPECT_CLASS(MPI_Type_delete_attr(t, kb), MPI_ERR_OTHER);
    int size = 0;
    MT_CALL(MPI_Type_size(t, &size));
    MT_CHECK(size == 2 * (int)sizeof(int), "type gone after failed free: %d", size);

    /* errors: comm keyval on a type, type keyval on a comm, invalid ones */
    int ck;
    MT_CALL(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    MT_EXPECT_CLASS(MPI_Type_set_attr(MPI_INT, ck, NULL), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, NULL), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    MT_EXPECT_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, k1, NULL), MPI_ERR_TYPE);
    MT_EXPECT_CLASS(MPI_Type_get_attr(MPI_INT, k1, NULL, &flag), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Type_free_keyval(&ck), MPI_ERR_KEYVAL);
    MT_CALL(MPI_Comm_free_keyval(&ck));

    /* freeing a keyval: still usable while attached, then gone */
    MT_CALL(MPI_Type_set_attr(MPI_CHAR, k2, (void *)(intptr_t)5));
    int k2copy = k2;
    MT_CALL(MPI_Type_free_keyval(&k2));
    MT_CHECK(k2 == MPI_KEYVAL_INVALID, "keyval not reset");
    MT_CALL(MPI_Type_get_attr(MPI_CHAR, k2copy, &v, &flag));
    MT_CHECK(flag && (intptr_t)v == 5, "freed keyval value %d", flag);
    MT_EXPECT_CLASS(MPI_Type_free_keyval(&k2copy), MPI_ERR_KEYVAL);
    MT_CALL(MPI_Type_delete_attr(MPI_CHAR, k2copy));
    MT_EXPECT_CLASS(MPI_Type_get_attr(MPI_CHAR, k2copy, &v, &flag), MPI_ERR_KEYVAL);

    MT_CALL(MPI_Type_free_keyval(&k1));
    MT_CALL(MPI_Type_free_keyval(&k3));
    return mt_finalize();
}

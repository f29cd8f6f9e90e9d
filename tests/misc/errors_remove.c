/* MPI-4.1 MPI_Remove_error_class/code/string: only user-added ones, a class
 * only once its codes are gone, a class or code only once its string is
 * gone; removed numbers become invalid and MPI_LASTUSEDCODE follows. */
#include "mtest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, code, cls2, c = -1, len, flag, *last;
    char s[MPI_MAX_ERROR_STRING];

    MT_CALL(MPI_Add_error_class(&cls));
    MT_CALL(MPI_Add_error_code(cls, &code));
    MT_CALL(MPI_Add_error_class(&cls2));
    MT_CALL(MPI_Add_error_string(code, "my code"));
    MT_CALL(MPI_Add_error_string(cls, "my class"));

    /* predefined ones cannot go */
    MT_EXPECT_CLASS(MPI_Remove_error_class(MPI_ERR_TAG), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Remove_error_code(MPI_ERR_TAG), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Remove_error_string(MPI_ERR_TAG), MPI_ERR_ARG);
    /* a class with a code still attached */
    MT_EXPECT_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    /* a class is not a code, a code not a class */
    MT_EXPECT_CLASS(MPI_Remove_error_code(cls), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Remove_error_class(code), MPI_ERR_ARG);
    /* a code that still has its string */
    MT_EXPECT_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG);
    MT_CALL(MPI_Error_string(code, s, &len));
    MT_CHECK(strcmp(s, "my code") == 0, "string after refused removal: '%s'", s);

    MT_CALL(MPI_Remove_error_string(code));
    MT_CALL(MPI_Error_string(code, s, &len));
    MT_CHECK(len == 0, "string after removal: '%s'", s);
    MT_EXPECT_CLASS(MPI_Remove_error_string(code), MPI_ERR_ARG);
    MT_CALL(MPI_Error_class(code, &c));
    MT_CHECK(c == cls, "class %d", c);

    MT_CALL(MPI_Remove_error_code(code));
    MT_EXPECT_CLASS(MPI_Error_class(code, &c), MPI_ERR_ARG);
    MT_EXPECT_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG);
    /* the class still has its string */
    MT_EXPECT_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    MT_CALL(MPI_Error_class(cls, &c));
    MT_CHECK(c == cls, "class of the class %d", c);
    MT_CALL(MPI_Remove_error_string(cls));
    MT_CALL(MPI_Remove_error_class(cls));
    MT_EXPECT_CLASS(MPI_Add_error_code(cls, &code), MPI_ERR_ARG);

    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(flag && *last == cls2, "lastusedcode %d, want %d", flag ? *last : -1, cls2);
    MT_CALL(MPI_Remove_error_class(cls2));
    MT_CALL(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    MT_CHECK(flag && *last < cls, "lastusedcode %d after removing all", flag ? *last : -1);
    return mt_finalize();
}

/* MPI info functions, MPI_INFO_ENV, and the ABI description queries
 * (MPI_Abi_get_info, MPI_Abi_get_fortran_info).
 *
 * Every function here may be called at any time, before MPI_Init and after
 * MPI_Finalize included (MPI-4.0 lists the info functions among those).
 * Errors have no communicator: tn_mpi_err(NULL, ...) reports them to
 * MPI_COMM_WORLD's handler once MPI is initialized, to the fatal handler
 * before. */
#include "mpi/mpi_impl.h"
#include "mpi/mpi_info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define TN_INFO_ENV_HANDLE 0x131u

/* MPI_INFO_ENV.  env_phase says what it was built with: 0 nothing yet,
 * 1 before MPI_Init (no world size or thread level), 2 after. */
static tn_info_t tn_info_env = {
    .magic = TN_INFO_MAGIC, .refcount = 1, .predefined = 1, .handle = TN_INFO_ENV_HANDLE,
};
static int tn_info_env_phase;
static pthread_mutex_t tn_info_env_lock = PTHREAD_MUTEX_INITIALIZER;

static void tn_info_env_fill(tn_info_t *info, int argc, char **argv);

static tn_info_t *tn_info_env_get(void)
{
    int want = tn_rt.initialized ? 2 : 1;
    pthread_mutex_lock(&tn_info_env_lock);
    if (tn_info_env_phase < want) {
        tn_info_clear(&tn_info_env);
        tn_info_env_fill(&tn_info_env, 0, NULL);
        tn_info_env_phase = want;
    }
    pthread_mutex_unlock(&tn_info_env_lock);
    return &tn_info_env;
}

tn_info_t *tn_mpi_info_get(MPI_Info h)
{
    uintptr_t v = tn_mpi_hval(h);
    if (v == TN_INFO_ENV_HANDLE) {
        return tn_info_env_get();
    }
    if (v < TN_MPI_HANDLE_MAX_PREDEF) {
        return NULL;                    /* MPI_INFO_NULL and other small values */
    }
    tn_info_t *info = (tn_info_t *)(void *)h;
    if (!tn_objreg_has(info, TN_OBJ_INFO)) {
        return NULL;                    /* garbage, freed, or another kind */
    }
    return info->magic == TN_INFO_MAGIC ? info : NULL;
}

MPI_Info tn_mpi_info_handle(tn_info_t *info)
{
    return info->predefined ? (MPI_Info)info->handle : (MPI_Info)(void *)info;
}

/* ------------------------------------------------------------ checks */

static int tn_info_arg(const char *fn, MPI_Info h, const char *arg, tn_info_t **info_p)
{
    tn_info_t *info = tn_mpi_info_get(h);
    if (info == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_INFO, fn, arg, "%s",
                          h == MPI_INFO_NULL ? "MPI_INFO_NULL is not an info object"
                                             : "invalid info handle");
    }
    *info_p = info;
    return MPI_SUCCESS;
}

/* An info object the call may change: not MPI_INFO_ENV. */
static int tn_info_arg_rw(const char *fn, MPI_Info h, tn_info_t **info_p)
{
    int rc = tn_info_arg(fn, h, "info", info_p);
    if (rc == MPI_SUCCESS && (*info_p)->predefined) {
        return tn_mpi_err(NULL, MPI_ERR_INFO, fn, "info",
                          "MPI_INFO_ENV is predefined and cannot be changed");
    }
    return rc;
}

static int tn_ptr_arg(const char *fn, const void *p, const char *arg)
{
    if (p == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, arg, "NULL pointer");
    }
    return MPI_SUCCESS;
}

static int tn_key_arg(const char *fn, const char *key)
{
    if (key == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "key", "NULL pointer");
    }
    size_t len = strnlen(key, MPI_MAX_INFO_KEY);
    if (len == 0 || len >= MPI_MAX_INFO_KEY) {
        return tn_mpi_err(NULL, MPI_ERR_INFO_KEY, fn, "key", "%s",
                          len == 0 ? "empty key"
                                   : "key longer than MPI_MAX_INFO_KEY - 1 (255) characters");
    }
    return MPI_SUCCESS;
}

static int tn_value_arg(const char *fn, const char *value)
{
    if (value == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "value", "NULL pointer");
    }
    if (strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL) {
        return tn_mpi_err(NULL, MPI_ERR_INFO_VALUE, fn, "value",
                          "value longer than MPI_MAX_INFO_VAL - 1 (1023) characters");
    }
    return MPI_SUCCESS;
}

static int tn_info_out(const char *fn, tn_status_t st, tn_info_t *info, MPI_Info *out)
{
    if (st != TN_OK) {
        return tn_mpi_err_status(NULL, st, fn);
    }
    *out = tn_mpi_info_handle(info);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------ info functions */

int tn_mpi_Info_create(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create";
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_ptr_arg(fn, info, "info"))) {
        return rc;
    }
    st = tn_info_new(&ni);
    return tn_info_out(fn, st, ni, info);
}

int tn_mpi_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char fn[] = "MPI_Info_set";
    tn_info_t *i = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_info_arg_rw(fn, info, &i)) || (rc = tn_key_arg(fn, key)) ||
        (rc = tn_value_arg(fn, value))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_info_set(i, key, value);
    tn_mpi_leave();
    return st == TN_OK ? MPI_SUCCESS : tn_mpi_err_status(NULL, st, fn);
}

int tn_mpi_Info_delete(MPI_Info info, const char *key)
{
    static const char fn[] = "MPI_Info_delete";
    tn_info_t *i = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_info_arg_rw(fn, info, &i)) || (rc = tn_key_arg(fn, key))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_info_delete(i, key);
    tn_mpi_leave();
    if (st == TN_ERR_NOTFOUND) {
        return tn_mpi_err(NULL, MPI_ERR_INFO_NOKEY, fn, "key", "no key \"%s\" in the info object",
                          key);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_key_arg(fn, key)) ||
        (rc = tn_ptr_arg(fn, value, "value")) || (rc = tn_ptr_arg(fn, flag, "flag"))) {
        return rc;
    }
    if (valuelen < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "valuelen", "negative length %d", valuelen);
    }
    tn_mpi_enter();
    const char *v = tn_info_get(i, key);
    *flag = v != NULL;
    if (v != NULL) {
        /* valuelen counts characters, the terminating null comes on top */
        size_t n = strlen(v);
        if (n > (size_t)valuelen) {
            n = (size_t)valuelen;
        }
        memcpy(value, v, n);
        value[n] = '\0';
    }
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get_string";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_key_arg(fn, key)) ||
        (rc = tn_ptr_arg(fn, buflen, "buflen")) || (rc = tn_ptr_arg(fn, flag, "flag"))) {
        return rc;
    }
    if (*buflen < 0) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "buflen", "negative length %d", *buflen);
    }
    if (*buflen > 0 && value == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "value", "NULL pointer with buflen %d",
                          *buflen);
    }
    tn_mpi_enter();
    const char *v = tn_info_get(i, key);
    *flag = v != NULL;
    if (v != NULL) {
        /* buflen in: the buffer's size; out: the size the value needs.  A
         * short buffer gets a truncated, still null-terminated value; a zero
         * one is left alone. */
        size_t need = strlen(v) + 1;
        if (*buflen > 0) {
            size_t n = need <= (size_t)*buflen ? need - 1 : (size_t)*buflen - 1;
            memcpy(value, v, n);
            value[n] = '\0';
        }
        *buflen = (int)need;
    }
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char fn[] = "MPI_Info_get_valuelen";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_key_arg(fn, key)) ||
        (rc = tn_ptr_arg(fn, valuelen, "valuelen")) || (rc = tn_ptr_arg(fn, flag, "flag"))) {
        return rc;
    }
    tn_mpi_enter();
    const char *v = tn_info_get(i, key);
    *flag = v != NULL;
    if (v != NULL) {
        *valuelen = (int)strlen(v);
    }
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char fn[] = "MPI_Info_get_nkeys";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_ptr_arg(fn, nkeys, "nkeys"))) {
        return rc;
    }
    tn_mpi_enter();
    *nkeys = tn_info_nkeys(i);
    tn_mpi_leave();
    return MPI_SUCCESS;
}

int tn_mpi_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char fn[] = "MPI_Info_get_nthkey";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_ptr_arg(fn, key, "key"))) {
        return rc;
    }
    tn_mpi_enter();
    const char *k = tn_info_nthkey(i, n);
    int nkeys = tn_info_nkeys(i);
    if (k != NULL) {
        snprintf(key, MPI_MAX_INFO_KEY, "%s", k);
    }
    tn_mpi_leave();
    if (k == NULL) {
        return tn_mpi_err(NULL, MPI_ERR_ARG, fn, "n", "%d is not in [0, %d)", n, nkeys);
    }
    return MPI_SUCCESS;
}

int tn_mpi_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char fn[] = "MPI_Info_dup";
    tn_info_t *i = NULL, *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_info_arg(fn, info, "info", &i)) || (rc = tn_ptr_arg(fn, newinfo, "newinfo"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_info_dup(i, &ni);
    tn_mpi_leave();
    return tn_info_out(fn, st, ni, newinfo);
}

int tn_mpi_Info_free(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_free";
    tn_info_t *i = NULL;
    int rc;

    if ((rc = tn_ptr_arg(fn, info, "info")) || (rc = tn_info_arg(fn, *info, "info", &i))) {
        return rc;
    }
    if (i->predefined) {
        return tn_mpi_err(NULL, MPI_ERR_INFO, fn, "info", "MPI_INFO_ENV cannot be freed");
    }
    tn_mpi_enter();
    tn_info_release(i);
    tn_mpi_leave();
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- environment */

/* Set key to s, cut to what an info value may hold. */
static void tn_info_env_set(tn_info_t *info, const char *key, const char *s)
{
    char v[MPI_MAX_INFO_VAL];
    snprintf(v, sizeof(v), "%s", s);
    (void)tn_info_set(info, key, v);   /* out of memory: the key is left out */
}

/* The command line: argv[0] as "command", the rest joined by spaces as
 * "argv" (left out when there are no arguments).  From argc/argv when given,
 * else from /proc/self/cmdline. */
static void tn_info_env_cmdline(tn_info_t *info, int argc, char **argv)
{
    char *buf = NULL;
    size_t len = 0;

    if (argv == NULL || argc <= 0 || argv[0] == NULL) {
        FILE *f = fopen("/proc/self/cmdline", "r");
        if (f == NULL) {
            return;
        }
        size_t cap = 0;
        for (;;) {
            if (len + 1024 + 1 > cap) {
                cap = cap ? cap * 2 : 4096;
                char *nb = realloc(buf, cap);
                if (nb == NULL) {
                    break;
                }
                buf = nb;
            }
            size_t got = fread(buf + len, 1, cap - len - 1, f);
            if (got == 0) {
                break;
            }
            len += got;
        }
        fclose(f);
        if (buf == NULL || len == 0) {
            free(buf);
            return;
        }
        if (buf[len - 1] != '\0') {
            buf[len++] = '\0';
        }
    } else {
        for (int a = 0; a < argc && argv[a] != NULL; a++) {
            len += strlen(argv[a]) + 1;
        }
        buf = malloc(len);
        if (buf == NULL) {
            return;
        }
        size_t off = 0;
        for (int a = 0; a < argc && argv[a] != NULL; a++) {
            size_t n = strlen(argv[a]) + 1;
            memcpy(buf + off, argv[a], n);
            off += n;
        }
    }
    /* buf holds len bytes of null-terminated strings: the command, then
     * its arguments, which become one space-separated string. */
    size_t first = strlen(buf) + 1;
    tn_info_env_set(info, "command", buf);
    if (first < len) {
        for (size_t k = first; k < len - 1; k++) {
            if (buf[k] == '\0') {
                buf[k] = ' ';
            }
        }
        tn_info_env_set(info, "argv", buf + first);
    }
    free(buf);
}

static const char *tn_info_thread_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:     return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:   return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:   return "MPI_THREAD_MULTIPLE";
    default:                    return NULL;
    }
}

/* The keys the standard reserves for the execution environment, in its
 * order; those Tern cannot know ("soft", "file") are left out, and so are
 * "maxprocs" and "thread_level" before MPI_Init. */
static void tn_info_env_fill(tn_info_t *info, int argc, char **argv)
{
    char s[MPI_MAX_INFO_VAL];
    tn_info_env_cmdline(info, argc, argv);
    int init = tn_rt.initialized;
    if (init) {
        snprintf(s, sizeof(s), "%d", tn_rt.world_size);
        tn_info_env_set(info, "maxprocs", s);
    }
    if (init && tn_rt.hostname[0] != '\0') {
        tn_info_env_set(info, "host", tn_rt.hostname);
    } else if (gethostname(s, sizeof(s)) == 0) {
        s[sizeof(s) - 1] = '\0';
        tn_info_env_set(info, "host", s);
    }
    struct utsname u;
    if (uname(&u) == 0) {
        tn_info_env_set(info, "arch", u.machine);
    }
    if (getcwd(s, sizeof(s)) != NULL) {
        tn_info_env_set(info, "wdir", s);
    }
    const char *tl = init ? tn_info_thread_name(tn_rt.thread_level) : NULL;
    if (tl != NULL) {
        tn_info_env_set(info, "thread_level", tl);
    }
}

int tn_mpi_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create_env";
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_ptr_arg(fn, info, "info"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_info_new(&ni);
    if (st == TN_OK) {
        tn_info_env_fill(ni, argc, argv);
    }
    tn_mpi_leave();
    return tn_info_out(fn, st, ni, info);
}

/* ------------------------------------------------------ ABI description */

int tn_mpi_Abi_get_info(MPI_Info *info)
{
    static const char fn[] = "MPI_Abi_get_info";
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {
        { "mpi_aint_size", sizeof(MPI_Aint) },
        { "mpi_count_size", sizeof(MPI_Count) },
        { "mpi_offset_size", sizeof(MPI_Offset) },
    };
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_ptr_arg(fn, info, "info"))) {
        return rc;
    }
    st = tn_info_new(&ni);
    for (size_t k = 0; st == TN_OK && k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char v[24];
        snprintf(v, sizeof(v), "%zu", sizes[k].size);
        st = tn_info_set(ni, sizes[k].key, v);
    }
    if (st != TN_OK && ni != NULL) {
        tn_info_release(ni);
    }
    return tn_info_out(fn, st, ni, info);
}

/* Tern has no Fortran bindings and has not been told the properties of a
 * Fortran compiler (MPI_Abi_set_fortran_info is not supported): MPI-5.0
 * says MPI_INFO_NULL is the answer then. */
int tn_mpi_Abi_get_fortran_info(MPI_Info *info)
{
    int rc = tn_ptr_arg("MPI_Abi_get_fortran_info", info, "info");
    if (rc == MPI_SUCCESS) {
        *info = MPI_INFO_NULL;
    }
    return rc;
}

/* MPI-4.1: hardware resources known to the library.  Tern does not
 * describe its hardware through this interface yet; the standard allows an
 * empty info object, which the caller frees. */
int tn_mpi_Get_hw_resource_info(MPI_Info *hw_info)
{
    static const char fn[] = "MPI_Get_hw_resource_info";
    tn_info_t *ni = NULL;
    tn_status_t st;
    int rc;

    if ((rc = tn_mpi_check_init(fn)) || (rc = tn_ptr_arg(fn, hw_info, "hw_info"))) {
        return rc;
    }
    tn_mpi_enter();
    st = tn_info_new(&ni);
    tn_mpi_leave();
    return tn_info_out(fn, st, ni, hw_info);
}

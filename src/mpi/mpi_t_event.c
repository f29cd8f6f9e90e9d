/* MPI_T events and sources: the events of base/events.h.
 *
 * One source, "clock_monotonic" (CLOCK_MONOTONIC, ns, ordered).  Every
 * event carries int elements (events.h names them), binds to no object,
 * and is raised inside the progress engine, with the runtime lock held:
 * callbacks run there, in context MPI_T_CB_REQUIRE_MPI_RESTRICTED (in the
 * progress thread of TERN_ASYNC_PROGRESS, which is not the application's:
 * MPI_T_CB_REQUIRE_THREAD_SAFE), so a registration gets an event through
 * its callback of the least strict level that is at least that; one with
 * no such callback cannot take it, and its dropped handler is told at once.  An
 * event instance is valid inside its callback only. */
#include "mpi/mpi_t_impl.h"
#include "base/events.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TN_T_REG_MAGIC 0x54455652u    /* "TEVR" */
#define TN_T_INST_MAGIC 0x54455649u   /* "TEVI" */
#define TN_T_LEVELS 4

typedef struct tn_t_reg {
    uint32_t         magic;
    int              event;
    struct tn_t_reg *next;
    MPI_T_event_cb_function *cb[TN_T_LEVELS];   /* by safety level */
    void            *user_data[TN_T_LEVELS];
    MPI_T_event_dropped_cb_function *dropped;
    void            *last_user_data;
    /* a callback of it runs (deliveries nest only on one thread: the event
     * lock is held); freed meanwhile, it is released when the last returns */
    int              busy;
    int              dead;
    uint64_t         stamp;                      /* the last delivery that saw it */
    MPI_T_event_free_cb_function *free_cb;       /* dead: to call at release */
    void            *free_data;
} tn_t_reg_t;

typedef struct {
    uint32_t magic;
    int      event;
    uint64_t ts;
    int      n;
    int      elems[TN_EVENT_MAX_ELEMS];
} tn_t_inst_t;

static pthread_mutex_t tn_t_ev_mutex;
static uint64_t tn_t_unlinked;    /* registrations taken off the list so far */
static uint64_t tn_t_deliveries;
static pthread_once_t tn_t_ev_once = PTHREAD_ONCE_INIT;
static tn_t_reg_t *tn_t_regs;
static __thread const tn_t_inst_t *tn_t_current;   /* inside a callback */
static const MPI_T_cb_safety tn_t_levels[TN_T_LEVELS] = {
    MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE };

static void tn_t_ev_init(void)
{
    /* recursive: a callback may free or register (it should not) */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&tn_t_ev_mutex, &a);
    pthread_mutexattr_destroy(&a);
}

static void tn_t_ev_lock(void)
{
    pthread_once(&tn_t_ev_once, tn_t_ev_init);
    pthread_mutex_lock(&tn_t_ev_mutex);
}

static void tn_t_ev_unlock(void)
{
    pthread_mutex_unlock(&tn_t_ev_mutex);
}

static int tn_t_level(MPI_T_cb_safety s)
{
    for (int l = 0; l < TN_T_LEVELS; l++) {
        if (tn_t_levels[l] == s) {
            return l;
        }
    }
    return -1;
}

/* Arm event ev when a registration of it has a callback.  Event lock held. */
static void tn_t_rearm(int ev)
{
    int on = 0;
    for (tn_t_reg_t *r = tn_t_regs; r != NULL && !on; r = r->next) {
        for (int l = 0; l < TN_T_LEVELS && !on; l++) {
            on = r->event == ev && r->cb[l] != NULL;
        }
    }
    tn_event_arm((tn_event_t)ev, on);
}

/* A registration off the list and out of every callback: tell the tool,
 * then free it.  Event lock held (the tool's callback may take it again). */
static void tn_t_release(tn_t_reg_t *r)
{
    if (r->free_cb != NULL) {
        r->free_cb((MPI_T_event_registration)r, MPI_T_CB_REQUIRE_NONE, r->free_data);
    }
    r->magic = 0;
    free(r);
}

/* The sink of base/events.h: deliver to every registration.  A callback
 * may free registrations, its own included: the walk starts again from
 * the head when one left the list, skipping those this delivery saw. */
static void tn_t_deliver(tn_event_t ev, uint64_t ts, const int *elems, int n)
{
    tn_t_inst_t inst = { TN_T_INST_MAGIC, (int)ev, ts, n, { 0 } };
    /* MPI_T_CB_REQUIRE_MPI_RESTRICTED, or THREAD_SAFE off the application's threads */
    int least = tn_rt_async_self() ? 2 : 1;
    memcpy(inst.elems, elems, (size_t)n * sizeof(int));
    tn_t_ev_lock();
    uint64_t me = ++tn_t_deliveries;
again:
    for (tn_t_reg_t *r = tn_t_regs; r != NULL; r = r->next) {
        if (r->event != (int)ev || r->stamp == me) {
            continue;
        }
        r->stamp = me;
        uint64_t unlinked = tn_t_unlinked;
        r->busy++;
        int l = least;
        while (l < TN_T_LEVELS && r->cb[l] == NULL) {
            l++;
        }
        if (l < TN_T_LEVELS) {
            const tn_t_inst_t *outer = tn_t_current;
            tn_t_current = &inst;
            r->cb[l]((MPI_T_event_instance)&inst, (MPI_T_event_registration)r,
                     tn_t_levels[least], r->user_data[l]);
            tn_t_current = outer;
        } else if (r->dropped != NULL) {
            for (int d = 0; d < least; d++) {
                if (r->cb[d] != NULL) {
                    r->dropped(1, (MPI_T_event_registration)r, 0, tn_t_levels[least],
                               r->user_data[d]);
                    break;
                }
            }
        }
        if (--r->busy == 0 && r->dead) {
            tn_t_release(r);
        }
        if (tn_t_unlinked != unlinked) {
            goto again;
        }
    }
    tn_t_ev_unlock();
}

int tn_mpi_T_event_get_num(int *num_events)
{
    TN_T_CHECK_INIT();
    if (num_events == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_events = TN_EVENT_COUNT_;
    return MPI_SUCCESS;
}

int tn_mpi_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                            MPI_Datatype array_of_datatypes[],
                            MPI_Aint array_of_displacements[], int *num_elements,
                            MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len,
                            int *bind)
{
    TN_T_CHECK_INIT();
    const tn_event_desc_t *d = tn_event_desc(event_index);
    if (d == NULL) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (num_elements == NULL) {
        return MPI_T_ERR_INVALID;
    }
    /* the arrays are filled up to *num_elements on input, when given */
    int room = *num_elements;
    for (int k = 0; k < d->nelems && k < room; k++) {
        if (array_of_datatypes != NULL) {
            array_of_datatypes[k] = MPI_INT;
        }
        if (array_of_displacements != NULL) {
            array_of_displacements[k] = (MPI_Aint)(k * (int)sizeof(int));
        }
    }
    *num_elements = d->nelems;
    tn_t_str(name, name_len, d->name);
    tn_t_str(desc, desc_len, d->help);
    if (verbosity != NULL) {
        *verbosity = tn_t_verbosity(d->verb);
    }
    if (enumtype != NULL) {
        *enumtype = MPI_T_ENUM_NULL;
    }
    if (info != NULL) {
        *info = MPI_INFO_NULL;      /* no hints */
    }
    if (bind != NULL) {
        *bind = MPI_T_BIND_NO_OBJECT;
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_event_get_index(const char *name, int *event_index)
{
    TN_T_CHECK_INIT();
    if (name == NULL || event_index == NULL) {
        return MPI_T_ERR_INVALID;
    }
    for (int i = 0; i < TN_EVENT_COUNT_; i++) {
        if (strcmp(tn_event_desc(i)->name, name) == 0) {
            *event_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

int tn_mpi_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                MPI_T_event_registration *event_registration)
{
    TN_T_CHECK_INIT();
    if (tn_event_desc(event_index) == NULL) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (event_registration == NULL) {
        return MPI_T_ERR_INVALID;
    }
    tn_t_reg_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return MPI_T_ERR_OUT_OF_HANDLES;
    }
    r->magic = TN_T_REG_MAGIC;
    r->event = event_index;
    tn_event_set_sink(tn_t_deliver);
    tn_t_ev_lock();
    r->next = tn_t_regs;
    tn_t_regs = r;
    tn_t_ev_unlock();
    *event_registration = (MPI_T_event_registration)r;
    return MPI_SUCCESS;
}

/* The registration, checked, or NULL.  Event lock held. */
static tn_t_reg_t *tn_t_reg_of(MPI_T_event_registration reg)
{
    for (tn_t_reg_t *r = tn_t_regs; r != NULL; r = r->next) {
        if (r == (tn_t_reg_t *)reg && r->magic == TN_T_REG_MAGIC) {
            return r;
        }
    }
    return NULL;
}

int tn_mpi_T_event_register_callback(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                     MPI_T_event_cb_function event_cb_function)
{
    TN_T_CHECK_INIT();
    int l = tn_t_level(cb_safety);
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    int rc = r == NULL ? MPI_T_ERR_INVALID_HANDLE : l < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        r->cb[l] = event_cb_function;     /* NULL removes it */
        r->user_data[l] = user_data;
        r->last_user_data = user_data;
        tn_t_rearm(r->event);
    }
    tn_t_ev_unlock();
    return rc;
}

int tn_mpi_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                       MPI_T_event_dropped_cb_function dropped_cb_function)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    if (r != NULL) {
        r->dropped = dropped_cb_function;
    }
    tn_t_ev_unlock();
    return r != NULL ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int tn_mpi_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                               MPI_T_event_free_cb_function free_cb_function)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t **pp = &tn_t_regs;
    while (*pp != NULL && *pp != (tn_t_reg_t *)event_registration) {
        pp = &(*pp)->next;
    }
    tn_t_reg_t *r = *pp;
    if (r == NULL) {
        tn_t_ev_unlock();
        return MPI_T_ERR_INVALID_HANDLE;
    }
    *pp = r->next;
    tn_t_unlinked++;
    tn_t_rearm(r->event);
    r->free_cb = free_cb_function;
    r->free_data = user_data;
    r->magic = 0;                 /* invalid as a handle from now on */
    if (r->busy > 0) {
        r->dead = 1;              /* freed from inside its own callback */
    } else {
        tn_t_release(r);          /* no callback of it runs: tell the tool now */
    }
    tn_t_ev_unlock();
    return MPI_SUCCESS;
}

void tn_t_event_release_all(void)
{
    tn_t_ev_lock();
    while (tn_t_regs != NULL) {
        tn_t_reg_t *r = tn_t_regs;
        tn_t_regs = r->next;
        tn_t_unlinked++;
        tn_t_rearm(r->event);
        r->free_cb = NULL;
        if (r->busy > 0) {
            r->magic = 0;
            r->dead = 1;
        } else {
            tn_t_release(r);
        }
    }
    tn_t_ev_unlock();
}

/* Info hints: none are known; what a tool gives is accepted and ignored,
 * and what was used is an empty info. */
static int tn_t_info_used(MPI_Info *info_used)
{
    if (info_used == NULL) {
        return MPI_T_ERR_INVALID;
    }
    return tn_mpi_Info_create(info_used) == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}

int tn_mpi_T_event_handle_get_info(MPI_T_event_registration event_registration,
                                   MPI_Info *info_used)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    tn_t_ev_unlock();
    return r == NULL ? MPI_T_ERR_INVALID_HANDLE : tn_t_info_used(info_used);
}

int tn_mpi_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    tn_t_ev_unlock();
    return r == NULL ? MPI_T_ERR_INVALID_HANDLE : MPI_SUCCESS;
}

int tn_mpi_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    tn_t_ev_unlock();
    if (r == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    return tn_t_level(cb_safety) < 0 ? MPI_T_ERR_INVALID : tn_t_info_used(info_used);
}

int tn_mpi_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info info)
{
    TN_T_CHECK_INIT();
    tn_t_ev_lock();
    tn_t_reg_t *r = tn_t_reg_of(event_registration);
    tn_t_ev_unlock();
    if (r == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    return tn_t_level(cb_safety) < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

/* The instance, valid only inside its callback on this thread. */
static const tn_t_inst_t *tn_t_inst_of(MPI_T_event_instance inst)
{
    const tn_t_inst_t *i = tn_t_current;
    return i != NULL && i == (const tn_t_inst_t *)inst && i->magic == TN_T_INST_MAGIC ? i : NULL;
}

int tn_mpi_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    TN_T_CHECK_INIT();
    const tn_t_inst_t *i = tn_t_inst_of(event_instance);
    if (i == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (element_index < 0 || element_index >= tn_event_desc(i->event)->nelems) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (buffer == NULL) {
        return MPI_T_ERR_INVALID;
    }
    memcpy(buffer, &i->elems[element_index], sizeof(int));
    return MPI_SUCCESS;
}

int tn_mpi_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    TN_T_CHECK_INIT();
    const tn_t_inst_t *i = tn_t_inst_of(event_instance);
    if (i == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (buffer == NULL) {
        return MPI_T_ERR_INVALID;
    }
    memcpy(buffer, i->elems, (size_t)tn_event_desc(i->event)->nelems * sizeof(int));
    return MPI_SUCCESS;
}

int tn_mpi_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    TN_T_CHECK_INIT();
    const tn_t_inst_t *i = tn_t_inst_of(event_instance);
    if (i == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (event_timestamp == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *event_timestamp = (MPI_Count)i->ts;
    return MPI_SUCCESS;
}

int tn_mpi_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    TN_T_CHECK_INIT();
    if (tn_t_inst_of(event_instance) == NULL) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    if (source_index == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *source_index = 0;
    return MPI_SUCCESS;
}

/* ---- sources ---------------------------------------------------------------- */

int tn_mpi_T_source_get_num(int *num_sources)
{
    TN_T_CHECK_INIT();
    if (num_sources == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *num_sources = 1;
    return MPI_SUCCESS;
}

int tn_mpi_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                             int *desc_len, MPI_T_source_order *ordering,
                             MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    TN_T_CHECK_INIT();
    if (source_index != 0) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    tn_t_str(name, name_len, "clock_monotonic");
    tn_t_str(desc, desc_len, "The process's CLOCK_MONOTONIC in nanoseconds; events from it "
                             "are raised in order");
    if (ordering != NULL) {
        *ordering = MPI_T_SOURCE_ORDERED;
    }
    if (ticks_per_second != NULL) {
        *ticks_per_second = 1000000000;
    }
    if (max_ticks != NULL) {
        *max_ticks = INT64_MAX;
    }
    if (info != NULL) {
        *info = MPI_INFO_NULL;
    }
    return MPI_SUCCESS;
}

int tn_mpi_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    TN_T_CHECK_INIT();
    if (source_index != 0) {
        return MPI_T_ERR_INVALID_INDEX;
    }
    if (timestamp == NULL) {
        return MPI_T_ERR_INVALID;
    }
    *timestamp = (MPI_Count)tn_event_now();
    return MPI_SUCCESS;
}

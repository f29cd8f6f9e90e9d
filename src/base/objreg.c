/* Registry of live objects: open addressing with linear probing and
 * tombstones, grown (and cleaned) at half load.
 *
 * Writers (create and destroy, rare) take a spinlock and bump a sequence
 * number around each change.  Readers (every lookup of a derived handle)
 * take no lock: they probe, then retry if the sequence moved or was odd
 * (a seqlock), so a lookup costs a few loads.  Because readers hold no lock,
 * a table replaced by a bigger one is retired, not freed: a reader may still
 * be probing it.  Tables double, so the retired ones together are no bigger
 * than the live one. */
#include "base/objreg.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The seqlock's two fences.  ThreadSanitizer does not model fences (GCC
 * refuses them under -fsanitize=thread), so there they become read-modify-
 * writes of the sequence word that order the same accesses: slower, and
 * only in that build. */
#ifdef __SANITIZE_THREAD__
#define TN_OBJREG_WRITER_FENCE() \
    ((void)atomic_fetch_add_explicit(&tn_objreg.seq, 0, memory_order_acq_rel))
#define TN_OBJREG_READER_FENCE() \
    ((void)atomic_fetch_add_explicit(&tn_objreg.seq, 0, memory_order_acq_rel))
#else
#define TN_OBJREG_WRITER_FENCE() atomic_thread_fence(memory_order_release)
#define TN_OBJREG_READER_FENCE() atomic_thread_fence(memory_order_acquire)
#endif

#define TN_OBJREG_TOMB ((uintptr_t)1)   /* no object lives at address 1 */

typedef struct {
    uintptr_t key;     /* 0 empty, TN_OBJREG_TOMB removed (atomic access) */
    uint8_t   kind;    /* (atomic access) */
} tn_objreg_slot_t;

typedef struct tn_objreg_table {
    size_t                  cap;      /* power of two */
    struct tn_objreg_table *retired;  /* the table this one replaced */
    tn_objreg_slot_t        slots[];
} tn_objreg_table_t;

static struct {
    tn_objreg_table_t *_Atomic table;  /* NULL before the first add */
    size_t                     used;   /* live + tombstones (writers only) */
    atomic_uint                seq;    /* odd while a writer changes the table */
    atomic_flag                lock;
} tn_objreg = { .lock = ATOMIC_FLAG_INIT };

static void objreg_write_begin(void)
{
    while (atomic_flag_test_and_set_explicit(&tn_objreg.lock, memory_order_acquire)) {
    }
    atomic_fetch_add_explicit(&tn_objreg.seq, 1, memory_order_relaxed);
    TN_OBJREG_WRITER_FENCE();
}

static void objreg_write_end(void)
{
    atomic_fetch_add_explicit(&tn_objreg.seq, 1, memory_order_release);
    atomic_flag_clear_explicit(&tn_objreg.lock, memory_order_release);
}

static size_t objreg_hash(uintptr_t p, size_t cap)
{
    uint64_t h = (uint64_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

static uintptr_t slot_key(const tn_objreg_slot_t *s)
{
    return __atomic_load_n(&s->key, __ATOMIC_RELAXED);
}

static void slot_set(tn_objreg_slot_t *s, uintptr_t key, uint8_t kind)
{
    __atomic_store_n(&s->key, key, __ATOMIC_RELAXED);
    __atomic_store_n(&s->kind, kind, __ATOMIC_RELAXED);
}

/* Slot holding p in t, or NULL.  Bounded by cap, so a reader racing a
 * writer cannot loop forever; the seqlock then discards what it found. */
static tn_objreg_slot_t *objreg_find(tn_objreg_table_t *t, uintptr_t p)
{
    if (t == NULL) {
        return NULL;
    }
    size_t s = objreg_hash(p, t->cap);
    for (size_t n = 0; n < t->cap; n++, s = (s + 1) & (t->cap - 1)) {
        uintptr_t k = slot_key(&t->slots[s]);
        if (k == 0) {
            return NULL;
        }
        if (k == p) {
            return &t->slots[s];
        }
    }
    return NULL;
}

/* A new table with the live entries of the current one, at a size that
 * keeps them under a quarter (write lock held). */
static tn_status_t objreg_grow(void)
{
    tn_objreg_table_t *old = atomic_load_explicit(&tn_objreg.table, memory_order_relaxed);
    size_t live = 0;
    for (size_t i = 0; old != NULL && i < old->cap; i++) {
        live += old->slots[i].key > TN_OBJREG_TOMB;
    }
    size_t cap = 64;
    while (cap < 4 * (live + 1)) {
        cap *= 2;
    }
    tn_objreg_table_t *t = calloc(1, sizeof(*t) + cap * sizeof(t->slots[0]));
    if (t == NULL) {
        return TN_ERR_NOMEM;
    }
    t->cap = cap;
    t->retired = old;
    for (size_t i = 0; old != NULL && i < old->cap; i++) {
        uintptr_t k = old->slots[i].key;
        if (k > TN_OBJREG_TOMB) {
            size_t s = objreg_hash(k, cap);
            while (t->slots[s].key != 0) {
                s = (s + 1) & (cap - 1);
            }
            t->slots[s] = old->slots[i];
        }
    }
    tn_objreg.used = live;
    atomic_store_explicit(&tn_objreg.table, t, memory_order_release);
    return TN_OK;
}

tn_status_t tn_objreg_add(void *p, tn_obj_kind_t kind)
{
    uintptr_t key = (uintptr_t)p;
    tn_status_t st = TN_OK;

    objreg_write_begin();
    tn_objreg_table_t *t = atomic_load_explicit(&tn_objreg.table, memory_order_relaxed);
    tn_objreg_slot_t *slot = objreg_find(t, key);
    if (slot != NULL) {
        slot_set(slot, key, (uint8_t)kind);     /* address reused without a del */
        goto out;
    }
    if (t == NULL || 2 * (tn_objreg.used + 1) > t->cap) {
        if ((st = objreg_grow()) != TN_OK) {
            goto out;
        }
        t = atomic_load_explicit(&tn_objreg.table, memory_order_relaxed);
    }
    /* a tombstone on the probe path is reused, otherwise an empty slot is
     * taken, and only that adds to the load */
    size_t s = objreg_hash(key, t->cap);
    while (t->slots[s].key > TN_OBJREG_TOMB) {
        s = (s + 1) & (t->cap - 1);
    }
    tn_objreg.used += t->slots[s].key == 0;
    slot_set(&t->slots[s], key, (uint8_t)kind);
out:
    objreg_write_end();
    return st;
}

void tn_objreg_del(const void *p)
{
    objreg_write_begin();
    tn_objreg_slot_t *slot =
        objreg_find(atomic_load_explicit(&tn_objreg.table, memory_order_relaxed), (uintptr_t)p);
    if (slot != NULL) {
        slot_set(slot, TN_OBJREG_TOMB, 0);
    }
    objreg_write_end();
}

int tn_objreg_has(const void *p, tn_obj_kind_t kind)
{
    uintptr_t key = (uintptr_t)p;
    unsigned s1, s2;
    int has;

    if (key <= TN_OBJREG_TOMB) {
        return 0;
    }
    do {
        s1 = atomic_load_explicit(&tn_objreg.seq, memory_order_acquire);
        tn_objreg_slot_t *slot =
            objreg_find(atomic_load_explicit(&tn_objreg.table, memory_order_acquire), key);
        has = slot != NULL && __atomic_load_n(&slot->kind, __ATOMIC_RELAXED) == (uint8_t)kind;
        TN_OBJREG_READER_FENCE();
        s2 = atomic_load_explicit(&tn_objreg.seq, memory_order_relaxed);
    } while ((s1 & 1) != 0 || s1 != s2);
    return has;
}

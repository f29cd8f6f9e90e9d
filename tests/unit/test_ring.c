/* The SPSC cell ring: order, full/empty, wrap-around, and a two-thread
 * stress run that checks every value arrives once, in order. */
#include "xport/shm/shm_ring.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define NCELLS 8
#define CELL   256
#define STRESS 200000

static tn_shm_ring_hdr_t hdr;
static char *cells;

static void ring_pair(tn_shm_ring_t *prod, tn_shm_ring_t *cons)
{
    tn_shm_ring_format(cells, NCELLS, CELL);
    tn_shm_ring_t r = { &hdr, cells, 0, NCELLS - 1, CELL };
    *prod = r;
    *cons = r;
}

static void *producer(void *arg)
{
    tn_shm_ring_t *p = arg;
    for (uint64_t i = 0; i < STRESS; i++) {
        tn_shm_cell_t *c;
        while ((c = tn_shm_ring_reserve(p)) == NULL) {
        }
        c->hdr.size = i;
        memcpy(tn_shm_cell_payload(c), &i, sizeof(i));
        c->len = sizeof(i);
        tn_shm_ring_publish(p, c);
    }
    return NULL;
}

int main(void)
{
    cells = aligned_alloc(64, NCELLS * CELL);
    tn_shm_ring_t p, c;
    ring_pair(&p, &c);

    CHECK(tn_shm_ring_peek(&c) == NULL);
    for (int i = 0; i < NCELLS; i++) {
        tn_shm_cell_t *cell = tn_shm_ring_reserve(&p);
        CHECK(cell != NULL);
        if (cell == NULL) {
            return 1;
        }
        cell->hdr.tag = i;
        tn_shm_ring_publish(&p, cell);
    }
    CHECK(tn_shm_ring_reserve(&p) == NULL);      /* full */
    for (int round = 0; round < 3; round++) {     /* wrap around a few times */
        for (int i = 0; i < NCELLS; i++) {
            tn_shm_cell_t *cell = tn_shm_ring_peek(&c);
            CHECK(cell != NULL && cell->hdr.tag == round * NCELLS + i);
            if (cell == NULL) {
                return 1;
            }
            tn_shm_ring_release(&c, cell);
            tn_shm_cell_t *w = tn_shm_ring_reserve(&p);
            CHECK(w != NULL);
            if (w == NULL) {
                return 1;
            }
            w->hdr.tag = (round + 1) * NCELLS + i;
            tn_shm_ring_publish(&p, w);
        }
    }

    ring_pair(&p, &c);
    pthread_t t;
    pthread_create(&t, NULL, producer, &p);
    for (uint64_t i = 0; i < STRESS; i++) {
        tn_shm_cell_t *cell;
        while ((cell = tn_shm_ring_peek(&c)) == NULL) {
        }
        uint64_t v;
        memcpy(&v, tn_shm_cell_payload(cell), sizeof(v));
        if (v != i || cell->hdr.size != i) {
            fprintf(stderr, "stress: expected %llu got %llu\n", (unsigned long long)i,
                    (unsigned long long)v);
            failures++;
            break;
        }
        tn_shm_ring_release(&c, cell);
    }
    pthread_join(t, NULL);
    free(cells);
    if (failures == 0) {
        printf("ring: all checks passed\n");
    }
    return failures != 0;
}

/* tern-sim's reader of tern-coll-plan's output (tools/tern-sim/sim_plan.c:
 * tn_sim_plan_parse), the plans of Tern's collectives that a replay
 * expands: another program's output, checked like any input.
 *
 * Input: the text of a plan.  Checks beyond the sanitizers: an accepted
 * plan is consistent (every message has one send and one receive that
 * agree on ranks and bytes, every wait names earlier posts of its rank,
 * every op lies in its rank's range), and expanding it into a replay
 * program of its ranks either gives a DAG or is refused with a reason
 * (a plan that deadlocks is a cycle there).
 *
 * An input whose first byte is 0xC0 goes to tern-coll-plan's own
 * --counts decode step instead (tools/tern-coll-plan/plan_counts.c): the
 * second byte picks how many blocks (1..64), the rest is the text.  An
 * accepted text gives exactly that many counts in range, and printing
 * them and reading them back gives the same.  0xC1 goes to its
 * --neighbors decode step: the second byte picks the ranks (1..16); an
 * accepted text gives every rank its lists, neighbours in range and
 * never itself, degrees and bytes in range, and printing the lists and
 * reading them back gives the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_counts.h"
#include "sim_plan.h"
#include "sim_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_counts(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    size_t want = (size_t)(data[1] % 64) + 1;
    int64_t v[64], w[64];
    const char *why = NULL;
    if (pl_counts_parse((const char *)data + 2, size - 2, want, v, &why) != 0) {
        if (why == NULL) {
            abort();
        }
        return 0;
    }
    char text[64 * 16];
    size_t o = 0;
    for (size_t k = 0; k < want; k++) {
        if (v[k] < 0 || v[k] > PL_COUNT_MAX) {
            abort();
        }
        o += (size_t)snprintf(text + o, sizeof(text) - o, "%lld ", (long long)v[k]);
    }
    if (pl_counts_parse(text, o, want, w, &why) != 0 || memcmp(v, w, sizeof(int64_t) * want) != 0) {
        abort();
    }
    return 0;
}

static int fuzz_nbrs(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    int n = data[1] % 16 + 1;
    pl_nbrs_t nb, back;
    const char *why = NULL;
    if (pl_nbrs_parse((const char *)data + 2, size - 2, n, &nb, &why) != 0) {
        if (why == NULL || nb.v != NULL || nb.first != NULL) {
            abort();
        }
        return 0;
    }
    size_t total = nb.first[n];
    char *text = malloc(total * 16 + 1);
    if (text == NULL) {
        abort();
    }
    size_t o = 0;
    for (int r = 0; r < n; r++) {
        const int64_t *v = nb.v + nb.first[r];
        int64_t in = v[0], out = v[1];
        if (in < 0 || out < 0 || in > PL_NBR_MAX || out > PL_NBR_MAX ||
            nb.first[r + 1] - nb.first[r] != 2 + 2 * (size_t)(in + out)) {
            abort();
        }
        for (int64_t k = 0; k < 2 * (in + out); k++) {
            int64_t x = v[2 + k];
            if (x < 0 || (k < in + out && (x >= n || x == r)) || x > PL_COUNT_MAX) {
                abort();
            }
        }
        for (size_t k = nb.first[r]; k < nb.first[r + 1]; k++) {
            o += (size_t)snprintf(text + o, 16, "%lld ", (long long)nb.v[k]);
        }
    }
    if (pl_nbrs_parse(text, o, n, &back, &why) != 0 || back.first[n] != total ||
        memcmp(back.v, nb.v, sizeof(int64_t) * total) != 0 ||
        memcmp(back.first, nb.first, sizeof(size_t) * ((size_t)n + 1)) != 0) {
        abort();
    }
    free(text);
    free(nb.v);
    free(nb.first);
    free(back.v);
    free(back.first);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tn_sim_plan_t pl;
    if (size > 0 && data[0] == 0xC0) {
        return fuzz_counts(data, size);
    }
    if (size > 0 && data[0] == 0xC1) {
        return fuzz_nbrs(data, size);
    }
    char why[256] = "";

    if (tn_sim_plan_parse((const char *)data, size, &pl, why, sizeof(why)) != TN_SIM_OK) {
        if (why[0] == '\0') {
            abort();   /* refused without a reason */
        }
        return 0;
    }
    if (pl.n <= 0 || pl.first[pl.n] != pl.nops) {
        abort();
    }
    int64_t *sends = calloc((size_t)pl.nmsg + 1, sizeof(int64_t));
    int64_t *recvs = calloc((size_t)pl.nmsg + 1, sizeof(int64_t));
    if (sends == NULL || recvs == NULL) {
        abort();
    }
    for (int32_t i = 0; i < pl.n; i++) {
        for (size_t k = pl.first[i]; k < pl.first[i + 1]; k++) {
            const tn_sim_plan_op_t *o = &pl.ops[k];
            if (o->type == 's' || o->type == 'r') {
                int64_t *cnt = o->type == 's' ? sends : recvs;
                int32_t src = o->type == 's' ? i : o->peer, dst = o->type == 's' ? o->peer : i;
                if (o->id < 0 || o->id >= pl.nmsg || pl.msrc[o->id] != src || pl.mdst[o->id] != dst ||
                    pl.mbytes[o->id] != o->bytes) {
                    abort();
                }
                cnt[o->id]++;
            } else if (o->type == 'w') {
                for (uint32_t q = 0; q < o->wn; q++) {
                    int64_t id = pl.waits[o->wfirst + q];
                    if (id < 0 || id >= pl.nmsg || (pl.msrc[id] != i && pl.mdst[id] != i)) {
                        abort();
                    }
                }
            } else if (o->type == 'y' && (o->id < 0 || o->id >= pl.ngroups)) {
                abort();
            } else if (o->type != 'w' && o->type != 'c' && o->type != 'm' && o->type != 'y') {
                abort();
            }
        }
    }
    for (int64_t m = 0; m < pl.nmsg; m++) {
        if (sends[m] != 1 || recvs[m] != 1) {
            abort();
        }
    }
    free(sends);
    free(recvs);
    /* expanded on a program of its ranks, one node each; small plans only
     * (the expansion is linear, the check is what matters) */
    if (pl.n <= 256 && pl.nops <= 100000) {
        tn_sim_prog_t p;
        tn_sim_prog_init(&p);
        int32_t *world = malloc(sizeof(int32_t) * (size_t)pl.n), *state = malloc(sizeof(int32_t) * (size_t)pl.n);
        if (world == NULL || state == NULL || tn_sim_prog_ranks(&p, pl.n) != TN_SIM_OK) {
            abort();
        }
        for (int32_t i = 0; i < pl.n; i++) {
            world[i] = i;
            state[i] = tn_sim_prog_node(&p, i, -1, 0, 0);
        }
        tn_sim_plan_conf_t pc = {100, 500, 10, 1, 2};
        if (tn_sim_plan_expand(&p, &pl, world, state, &pc) == TN_SIM_OK) {
            tn_sim_replay_conf_t rc;
            memset(&rc, 0, sizeof(rc));
            rc.eager = 100;
            rc.shm_lat = 500;
            rc.shm_bw = 10;
            rc.slot_mode = TN_SIM_SLOT_RANK;
            tn_sim_dag_t g;
            why[0] = '\0';
            if (tn_sim_prog_dag(&p, &rc, &g, why, sizeof(why)) == TN_SIM_OK) {
                tn_sim_dag_free(&g);
            } else if (why[0] == '\0') {
                abort();
            }
        }
        free(world);
        free(state);
        tn_sim_prog_free(&p);
    }
    tn_sim_plan_free(&pl);
    return 0;
}

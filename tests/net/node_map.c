/* The node map across network namespaces acting as nodes: argv[1] lists
 * the node of every world rank as the launcher places them ("0,0,0,1,1"),
 * in any numbering.  Every rank checks tn_comm_nodes(COMM_WORLD) against it
 * (nodes numbered by lowest rank, leaders, ranks per node, whether nodes
 * are rank blocks, the ranks grouped by node) and against MPI_Comm_split_type(SHARED); then, when the
 * job spans several nodes with several ranks on one, that the automatic
 * barrier went two-level (the node and leader sub-communicators exist and
 * hold the right ranks), and that an allreduce over them is right. */
#include "mtest.h"
#include "comm/comm.h"

static int parse_nodes(const char *s, int *out, int n)
{
    int k = 0;

    while (*s != '\0' && k < n) {
        out[k++] = (int)strtol(s, (char **)&s, 10);
        if (*s == ',') {
            s++;
        }
    }
    return k;
}

int main(int argc, char **argv)
{
    int *given, *want_node, *leader, *nlocal, n, r, k, nnodes = 0, max_local = 0;
    int blocked = 1, shared_size, sum;
    const tn_comm_nodes_t *m;
    MPI_Comm shared;

    mt_init(&argc, &argv);
    n = mt_size;
    given = calloc((size_t)n, sizeof(int));
    want_node = calloc((size_t)n, sizeof(int));
    leader = calloc((size_t)n, sizeof(int));
    nlocal = calloc((size_t)n, sizeof(int));
    if (argc < 2 || parse_nodes(argv[1], given, n) != n) {
        MT_DIE("usage: node_map NODE0,NODE1,... (one per rank, %d ranks)", n);
    }
    /* nodes numbered in order of their lowest rank */
    for (r = 0; r < n; r++) {
        for (k = 0; k < r && given[k] != given[r]; k++) {
        }
        if (k == r) {
            want_node[r] = nnodes;
            leader[nnodes++] = r;
        } else {
            want_node[r] = want_node[k];
            if (given[r - 1] != given[r]) {
                blocked = 0;
            }
        }
        if (++nlocal[want_node[r]] > max_local) {
            max_local = nlocal[want_node[r]];
        }
    }
    m = tn_comm_nodes(&tn_comm_world);
    MT_CHECK(m != NULL, "no node map");
    if (m != NULL) {
        MT_CHECK(m->nnodes == nnodes, "nnodes %d, expected %d", m->nnodes, nnodes);
        MT_CHECK(m->max_local == max_local, "max_local %d, expected %d", m->max_local, max_local);
        MT_CHECK(m->blocked == blocked, "blocked %d, expected %d", m->blocked, blocked);
        MT_CHECK(m->my_node == want_node[mt_rank], "my_node %d, expected %d", m->my_node,
                 want_node[mt_rank]);
        for (r = 0; r < n; r++) {
            MT_CHECK(m->node_of[r] == want_node[r], "node_of[%d] %d, expected %d", r,
                     m->node_of[r], want_node[r]);
        }
        for (k = 0; k < nnodes && k < m->nnodes; k++) {
            MT_CHECK(m->leaders[k] == leader[k], "leaders[%d] %d, expected %d", k,
                     m->leaders[k], leader[k]);
            MT_CHECK(m->nlocal[k] == nlocal[k], "nlocal[%d] %d, expected %d", k, m->nlocal[k],
                     nlocal[k]);
        }
        /* ranks grouped by node, in rank order within each */
        for (k = 0, sum = 0; k < nnodes && k < m->nnodes; k++) {
            MT_CHECK(m->start[k] == sum, "start[%d] %d, expected %d", k, m->start[k], sum);
            for (r = 0; r < n; r++) {
                if (want_node[r] == k) {
                    MT_CHECK(m->order[sum] == r, "order[%d] %d, expected %d", sum, m->order[sum],
                             r);
                    sum++;
                }
            }
        }
    }
    MT_CALL(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                &shared));
    MT_CALL(MPI_Comm_size(shared, &shared_size));
    MT_CHECK(shared_size == nlocal[want_node[mt_rank]], "shared comm of %d ranks, expected %d",
             shared_size, nlocal[want_node[mt_rank]]);
    MT_CALL(MPI_Comm_free(&shared));

    /* the automatic choice: two-level when several nodes and several ranks
     * on one; the sub-communicators appear at the first such call */
    MT_CALL(MPI_Barrier(MPI_COMM_WORLD));
    m = tn_comm_world.nodes;
    if (m != NULL && nnodes > 1 && max_local > 1) {
        MT_CHECK(m->subs_made, "barrier did not go two-level");
        if (m->subs_made) {
            int me = want_node[mt_rank], idx = 0;

            for (r = 0; r < mt_rank; r++) {
                idx += want_node[r] == me;
            }
            MT_CHECK(m->node_comm->size == nlocal[me] && m->node_comm->rank == idx,
                     "node comm: rank %d of %d, expected %d of %d", m->node_comm->rank,
                     m->node_comm->size, idx, nlocal[me]);
            MT_CHECK((m->leader_comm != NULL) == (leader[me] == mt_rank),
                     "leader comm %s", m->leader_comm != NULL ? "present" : "missing");
            if (m->leader_comm != NULL) {
                MT_CHECK(m->leader_comm->size == nnodes && m->leader_comm->rank == me,
                         "leader comm: rank %d of %d, expected %d of %d",
                         m->leader_comm->rank, m->leader_comm->size, me, nnodes);
            }
        }
    }
    MT_CALL(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MT_CHECK(sum == n * (n - 1) / 2, "allreduce sum %d, expected %d", sum, n * (n - 1) / 2);
    free(given);
    free(want_node);
    free(leader);
    free(nlocal);
    return mt_finalize();
}

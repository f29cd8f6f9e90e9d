/* The synthetic collective workload (pattern = coll, docs/sim.md,
 * "Collectives"): every rank of the job runs one collective `iters`
 * times, `delay` ns of compute between them, as a batch DAG.
 *
 * coll_algo:
 *   auto, nbc, or one of Tern's algorithm names: the messages Tern's own
 *     code sends (tern-coll-plan, sim_plan.h; every rank on a node of its
 *     own), or for communicators above coll_plan_max (or without the
 *     planner) the models of sim_replay_coll.c where there is one;
 *   llf, glf (allreduce, allgather, alltoall on a dragonfly or
 *     megafly): hierarchical by group.  Allreduce: LLF (local links
 *     first) reduce-scatters inside each group,
 *     allreduces each piece across the groups between the ranks holding
 *     it, and allgathers inside the group; GLF (global links first)
 *     reduce-scatters across the groups among the ranks of equal index
 *     first, allreduces the pieces inside each group, and allgathers
 *     across groups.  Each phase is a ring.  LLF moves the whole vector
 *     over local links and 1/m of it (m ranks per group) over global
 *     ones; GLF the reverse.  Allgather (b per rank): LLF gathers the
 *     group's blocks inside it, then exchanges m-block sets across
 *     groups ((g-1) m b per rank on global links); GLF exchanges single
 *     blocks across first ((g-1) b), then g-block sets inside.  All-to-all
 *     (b per pair): the same bytes either way ((m-1) g b local, (g-1) m b
 *     global per rank), in the opposite order.  Every group must hold the
 *     same number of the job's ranks;
 *   mcast (bcast): a hardware multicast, one flow from the root over a
 *     tree of the fabric's routes to every other rank, its bytes once on
 *     each tree link (tn_sim_coll_mcast; flow level only). */
#ifndef TN_SIM_COLL_JOB_H
#define TN_SIM_COLL_JOB_H

#include "sim_dag.h"
#include "sim_replay.h"
#include "sim_topo.h"
#include "sim_work.h"

#define TN_SIM_COLL_ALGO_CHOICES                                                              \
    "auto|nbc|llf|glf|mcast|binomial|scatter_allgather|pipeline|twolevel|rabenseifner|"     \
    "recdbl|reduce_bcast|ring|linear|bruck|pairwise|scattered|rechalving|dissemination|flat"

enum { TN_SIM_CA_AUTO, TN_SIM_CA_NBC, TN_SIM_CA_LLF, TN_SIM_CA_GLF, TN_SIM_CA_MCAST };

/* The DAG of job j (pattern coll) in g; rc for the planner and the eager
 * limit.  Fails with why (an algorithm that does not apply, no planner
 * for a kind without a model, ...). */
tn_sim_status_t tn_sim_coll_dag(const tn_sim_job_t *j, const tn_sim_topo_t *t, const tn_sim_replay_conf_t *rc,
                                int jobno, tn_sim_dag_t *g, char *why, size_t whylen);

#endif

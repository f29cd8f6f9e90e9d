/* The one declarative configuration table: every TERN_* variable.
 *
 * X(field, NAME, TYPE, default, help)
 *   field   - member of tn_config_t (tn_cfg.field)
 *   NAME    - read from the environment variable TERN_<NAME>
 *   TYPE    - BOOL (0/1/yes/no/on/off/true/false), INT, SIZE (accepts k/m/g
 *             suffixes, powers of 1024), DOUBLE, STRING
 *   default - default as a string, parsed like a user value
 *   help    - one line shown by tern-info and docs/config.md
 *
 * Nothing in Tern calls getenv() for TERN_* variables except the loader of
 * this table; unknown TERN_* variables are warned about at MPI_Init. */
#ifndef TN_BASE_CONFIG_TABLE_H
#define TN_BASE_CONFIG_TABLE_H

#define TN_CONFIG_TABLE(X)                                                     \
    X(log_level, LOG_LEVEL, STRING, "warn",                                    \
      "Log verbosity: error, warn, info, debug, trace, data")                  \
    X(log_subsys, LOG_SUBSYS, STRING, "all",                                   \
      "Comma-separated subsystems to log (base,rt,shm,self,p2p,coll,mpi) or all") \
    X(backtrace, BACKTRACE, BOOL, "1",                                         \
      "Print a backtrace when a rank dies of a fatal signal")                  \
    X(stats, STATS, BOOL, "0",                                                 \
      "Print per-transport counters at MPI_Finalize")                          \
    X(xport, XPORT, STRING, "auto",                                            \
      "Transport for peers on other ranks: auto, shm (same node only)")        \
    X(wait, WAIT, STRING, "auto",                                              \
      "How to wait: spin, yield, block, or auto (spin, then yield, then block)") \
    X(wait_spin, WAIT_SPIN, INT, "4000",                                       \
      "Polls before a waiting rank starts yielding (auto mode, cores >= ranks)") \
    X(wait_yield, WAIT_YIELD, INT, "200",                                      \
      "Yields before a waiting rank blocks in the kernel (auto mode)")         \
    X(shm_cells, SHM_CELLS, INT, "64",                                         \
      "Cells in each per-pair shared-memory ring (power of two)")              \
    X(shm_cell_size, SHM_CELL_SIZE, SIZE, "8k",                                \
      "Bytes per shared-memory cell, header included (power of two, >= 256)")  \
    X(shm_tiny_threshold, SHM_TINY_THRESHOLD, SIZE, "0",                       \
      "Largest message sent inline in the header cache line (0 = all that fit)") \
    X(shm_eager_threshold, SHM_EAGER_THRESHOLD, SIZE, "16k",                   \
      "Largest message sent eagerly through cells; larger ones use rendezvous") \
    X(shm_cma, SHM_CMA, BOOL, "1",                                             \
      "Use single-copy process_vm_readv (CMA) for rendezvous when permitted")  \
    X(self_eager_threshold, SELF_EAGER_THRESHOLD, SIZE, "64k",                 \
      "Largest send-to-self buffered eagerly; larger ones wait for the receive") \
    X(run_timeout, RUN_TIMEOUT, INT, "0",                                      \
      "tern-run: end the job after this many seconds (0 = no limit)")

#endif

/* sim_boot.h - making communicators: unique ids, the bootstrap root, the
 * full mesh of connections, ncclCommInitAll, split and shrink.
 *
 * The unique id holds the TCP port of a listener on 127.0.0.1 and a random
 * nonce.  ncclGetUniqueId starts a detached thread (the root) that accepts
 * one connection per rank, collects each rank's own listening port and node
 * name, and sends the whole table back to every rank.  Each rank then
 * connects to every lower rank and accepts every higher one, each
 * connection opening with the nonce and both ranks, so a stray or late
 * connection is refused.  Split and shrink exchange the new listeners over
 * the parent communicator and build a new mesh the same way.
 *
 * Environment read here: SIMNCCL_TOPO (topology file, parsed once per
 * process), SIMNCCL_NODE / SLURMD_NODENAME (node name, default "n1"),
 * SIMNCCL_RANK (global rank for stragglers), SIMNCCL_START_NS (the job's
 * start, for link directives with from=), SIMNCCL_LOCAL_RANK /
 * LOCAL_RANK / SLURM_LOCALID (ncclCommCuDevice), SIMNCCL_TIMEOUT (seconds
 * to wait for peers during bootstrap, default 300).
 */
#ifndef SIMNCCL_SIM_BOOT_H
#define SIMNCCL_SIM_BOOT_H

#include <stdint.h>

#include "collprof/cp_nccl.h"

struct ncclComm;
struct sim_topo;

/* The process's topology (SIMNCCL_TOPO, parsed once), NULL when the file is
 * bad (the error is then recorded for ncclGetLastError). */
const struct sim_topo *sim_boot_topology(void);

/* The job's start on CLOCK_MONOTONIC, from which link directives' from=
 * count: SIMNCCL_START_NS (simrun sets it as it starts the ranks), else
 * when this process first read its topology. */
int64_t sim_boot_start_ns(void);

ncclResult_t sim_boot_unique_id(ncclUniqueId *id);

/* Blocks until all nranks ranks have joined.  *out is the caller's. */
ncclResult_t sim_boot_init_rank(struct ncclComm **out, int nranks,
                                const ncclUniqueId *id, int rank);

/* ndev communicators of this process, joined by socketpairs. */
ncclResult_t sim_boot_init_all(struct ncclComm **comms, int ndev,
                               const int *devlist);

/* Collective over parent; *out is NULL for color NCCL_SPLIT_NOCOLOR. */
ncclResult_t sim_boot_split(struct ncclComm *parent, int color, int key,
                            struct ncclComm **out);

/* Called by the ranks that stay (not by the excluded ones). */
ncclResult_t sim_boot_shrink(struct ncclComm *parent, const int *exclude,
                             int n_exclude, struct ncclComm **out);

#endif

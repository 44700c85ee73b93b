/* sim_coll.h - the algorithms: each NCCL operation as steps of a plan.
 *
 *   all-reduce      ring reduce-scatter then ring all-gather, chunks of n/p
 *   reduce-scatter  ring, p-1 steps, double-buffered partial sums
 *   all-gather      ring, p-1 steps
 *   broadcast       pipelined chain root -> root+1 -> ..., 1 MiB pieces
 *   reduce          pipelined chain root+1 -> ... -> root, reducing on the way
 *   all-to-all      pairwise exchange, p-1 steps
 *   gather, scatter direct to / from the root
 *   send, recv      one transfer, not held by the collectives' waits
 *
 * Ring order is rank order.  Every collective starts with the rank's planted
 * straggler delay, if any.
 */
#ifndef SIMNCCL_SIM_COLL_H
#define SIMNCCL_SIM_COLL_H

#include <stddef.h>

#include "collprof/cp_nccl.h"

struct sim_plan;

enum sim_op_kind {
    SIM_OP_ALLREDUCE,
    SIM_OP_BROADCAST,
    SIM_OP_REDUCE,
    SIM_OP_ALLGATHER,
    SIM_OP_REDUCESCATTER,
    SIM_OP_ALLTOALL,
    SIM_OP_GATHER,
    SIM_OP_SCATTER,
    SIM_OP_SEND,
    SIM_OP_RECV
};

/* One call, as the application made it (arguments already checked). */
struct sim_op {
    enum sim_op_kind kind;
    const void *sendbuff;
    void *recvbuff;
    size_t count; /* per-rank count as in the NCCL prototype */
    ncclDataType_t datatype;
    ncclRedOp_t redop;
    int root; /* or the peer of send / recv */
    ncclComm_t comm;
};

/* 1 for ncclSend / ncclRecv. */
int sim_coll_is_p2p(enum sim_op_kind kind);

/* Append the steps of op (for op->comm) to plan.  Returns 0, or -1 when out
 * of memory. */
int sim_coll_build(struct sim_plan *plan, const struct sim_op *op);

#endif

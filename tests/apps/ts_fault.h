/* ts_fault.h - the planted faults that train_sim acts out itself.
 *
 * The topology file of simnccl (SIMNCCL_TOPO, tests/simnccl/README.md)
 * plants faults by global rank.  Those of the program's own behaviour are
 * acted out here, in the one place train_sim calls NCCL (ts_comm.c): a
 * library cannot stop a program from calling it, nor change the arguments
 * it passed.
 *   hang rank=R after=N         rank R never makes its collective number N
 *                               (stuck in compute after N collectives)
 *   kill rank=R after=N         rank R dies (SIGKILL) instead of making its
 *                               collective number N
 *   mismatch rank=R seq=S count=+K | op=OP
 *                               rank R's collective number S is called with
 *                               K more elements, or as OP
 *   swap rank=R seq=S           rank R calls its collectives S and S+1 in
 *                               the other order
 * Once a mismatch or swap was acted out, the rank's results are no longer
 * checked (ts_run.faulted).
 * Collectives are counted per process from 0, send and recv excluded, in
 * call order; `hang ... in=OP` and `kill` are the library's (sim_fault.h).
 */
#ifndef TS_FAULT_H
#define TS_FAULT_H

#include <stddef.h>

#include <collprof/cp_nccl.h>

#include "ts_run.h"

struct ts_comm;

/* One collective call, as the program means it. */
struct ts_call {
    const char *op; /* allreduce, broadcast, bcast, reduce, allgather,
                       reducescatter, alltoall */
    const char *tensor;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t dtype;
    ncclRedOp_t redop;
    int root;
};

/* Read this rank's faults from SIMNCCL_TOPO (none without it).  A bad
 * file ends the run (ts_run_fail) naming file and line. */
void ts_fault_load(struct ts_run *run);

/* Make the collective call c on comm, acting out a fault planted for it.
 * Returns NCCL's result (of the call the program meant, or of the
 * mismatched one); a deferred call (swap) is made after the next
 * collective and its result is checked there. */
ncclResult_t ts_fault_collective(struct ts_run *run, struct ts_comm *comm,
                                 const struct ts_call *c);

/* The NCCL call c on comm, no fault. */
ncclResult_t ts_call_issue(const struct ts_comm *comm, const struct ts_call *c);

#endif

/* sim_exec.h - plans and the progress engine.
 *
 * An operation is compiled into a plan: a straight list of steps for one
 * communicator.  Local steps (copy, reduce, divide) run when reached; send
 * and receive steps are posted to their connection and complete later; a
 * wait step holds the plan until the transfers of the current collective
 * are done; a delay step holds it for a planted straggler delay.
 *
 * sim_exec_run drives any number of plans at once from the calling thread
 * with one ppoll loop, so the plans of one group (and the communicators of
 * one ncclCommInitAll) progress together and never deadlock on each other.
 *
 * Pacing: a send of m bytes posted at time t on a link with latency L and
 * bandwidth B starts at s = max(t, link free), leaves the wire at
 * e = s + m/B (the link is busy until then, the send completes then), and
 * completes on the receiver no earlier than e + L.  The receiver learns e + L
 * from the message header (CLOCK_MONOTONIC is shared by the processes of a
 * machine).  All waiting is done sleeping in ppoll, never spinning.
 */
#ifndef SIMNCCL_SIM_EXEC_H
#define SIMNCCL_SIM_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "collprof/cp_nccl.h"

struct ncclComm;
struct sim_plan;

/* Flags of send/recv steps. */
#define SIM_STEP_P2P 1     /* ncclSend/ncclRecv: not held by wait steps */
#define SIM_STEP_UNPACED 2 /* bootstrap traffic: no latency, no bandwidth */

/* An empty plan for comm; NULL when out of memory.  Owned by the caller. */
struct sim_plan *sim_plan_create(struct ncclComm *comm);
void sim_plan_destroy(struct sim_plan *plan);

/* Temporary buffer that lives as long as the plan; NULL when out of
 * memory. */
void *sim_plan_scratch(struct sim_plan *plan, size_t bytes);

/* Append steps.  Each returns 0, or -1 when out of memory; the plan also
 * remembers the failure (sim_plan_failed), so a builder may check once at
 * the end. */
int sim_plan_send(struct sim_plan *plan, int peer, const void *buf,
                  size_t bytes, int flags);
int sim_plan_recv(struct sim_plan *plan, int peer, void *buf, size_t bytes,
                  int flags);
int sim_plan_copy(struct sim_plan *plan, void *dst, const void *src,
                  size_t bytes);
int sim_plan_reduce(struct sim_plan *plan, void *dst, const void *a,
                    const void *b, size_t count, ncclDataType_t datatype,
                    ncclRedOp_t op);
int sim_plan_divide(struct sim_plan *plan, void *buf, size_t count,
                    ncclDataType_t datatype, int divisor);
int sim_plan_wait(struct sim_plan *plan);
int sim_plan_delay(struct sim_plan *plan, int64_t ns);

/* The kernel's initial sync, as NCCL's kernels (profiler API v7) report
 * it: a dissemination barrier over every rank of the communicator (zero
 * bytes, unpaced, on the collectives' channel), then a mark where the
 * kernel channels' initial-sync phase ends and their compute phase starts
 * (sim_prof_kernel_synced).  Appended first, to a plan of collectives
 * only: every member runs it.  0, or -1 when out of memory. */
int sim_plan_sync(struct sim_plan *plan);

/* Steps so far; sim_plan_tag marks the steps from `from` on as built for
 * operation op_index of the group. */
size_t sim_plan_nsteps(const struct sim_plan *plan);
void sim_plan_tag(struct sim_plan *plan, size_t from, int op_index);

/* The profiler task event of each operation of the group (tasks[op_index],
 * NULL for none), kept by the caller until sim_exec_run returns: the run
 * then emits proxy, step and kernel-channel events (sim_prof.h). */
void sim_plan_profile(struct sim_plan *plan, void **tasks, size_t n);

/* 1 when an append or a scratch allocation failed. */
int sim_plan_failed(const struct sim_plan *plan);

/* The communicator the plan was created for. */
struct ncclComm *sim_plan_comm(const struct sim_plan *plan);

/* Run the plans to completion.  On failure returns the error (message in
 * sim_error_last) and marks every communicator involved as broken
 * (async_error), since its connections may hold half a message.  Plans on
 * communicators of one ncclCommInitAll must include every member they talk
 * to (only the calling thread can move their bytes); otherwise
 * ncclInvalidUsage, before anything runs. */
ncclResult_t sim_exec_run(struct sim_plan **plans, int n);

#endif

/* sim_prof.h - NCCL's profiler-plugin loader and its events, in simnccl.
 *
 * As NCCL (2.28) does: at a communicator's first use the library named by
 * NCCL_PROFILER_PLUGIN is dlopened (a bare name NAME is also tried as
 * libnccl-profiler-NAME.so; "none" or unset: no profiler) and the newest
 * table it knows is looked up, ncclProfiler_v5, then _v4, _v3
 * (SIMNCCL_PROFILER_API=N starts the search at vN, to stand in for another
 * NCCL: 7 and 6 look up ncclProfiler_v7 and _v6 first, v7 with user tags
 * (SIMNCCL_PROFILER_TAG), a kernel variant and, per kernel channel, an
 * initial-sync phase (a barrier over real sockets: sim_plan_sync) and a
 * compute phase; SIMNCCL_PROFILER_CE, _MASK, _RANK0 and _DAMAGE: docs/nccl-profiler.md; N = 1 or 2 look up only v2/v1, whose layouts simnccl does not
 * speak: it then calls init only, as a check that the plugin declines).
 * No table, a failed dlopen or a failed init: no profiler, the job goes on.
 *
 * Events come at NCCL's points: an API event per call (v5; captured calls
 * at capture time, flagged graphCaptured), a group event, a task event per
 * collective or send/recv (started and stopped around the "launch", before
 * the data moves), then while the data moves: a proxy operation per
 * (task, peer, direction) with a step per transfer (posted when the
 * transfer is handed to the socket, done when the paced transfer
 * completes), and a kernel-channel event whose GPU timestamps come from a
 * simulated device timer (CLOCK_MONOTONIC + 10^15 ns).
 */
#ifndef SIMNCCL_SIM_PROF_H
#define SIMNCCL_SIM_PROF_H

#include <stddef.h>
#include <stdint.h>

struct ncclComm;
struct sim_op;

/* 1 when a profiler is loaded (after the first sim_prof_comm). */
int sim_prof_active(void);

/* The profiler context of comm, made at its first use; NULL without one. */
void *sim_prof_comm(struct ncclComm *comm);
void sim_prof_comm_fini(struct ncclComm *comm);

/* An API event for op (v5 only; NULL otherwise), started and stopped. */
void *sim_prof_api(struct ncclComm *comm, const struct sim_op *op, int graph);

/* Group and task events of n ops (tasks[i] gets op i's handle, NULL when
 * none); api[i] is op i's API event or NULL. */
void sim_prof_launch(const struct sim_op *ops, void *const *api, size_t n,
                     void **tasks);

/* Proxy operations, steps, kernel channels. */
void *sim_prof_proxy_start(struct ncclComm *comm, void *task, int peer,
                           int is_send, int nsteps, size_t chunk);
void sim_prof_proxy_stop(void *op);
void *sim_prof_step_start(struct ncclComm *comm, void *op, int step,
                          int is_send, size_t bytes);
void sim_prof_step_posted(void *step, int is_send, size_t bytes);
void sim_prof_step_done(void *step, int is_send, size_t bytes);
/* 1 when the loaded plugin speaks v7, whose kernel channels report phases:
 * then every collective's plan starts with sim_plan_sync. */
int sim_prof_phases(void);

/* With initial_sync (a plan that starts with sim_plan_sync), a v7 kernel
 * channel's first phase is its initial sync (phaseId 0), until
 * sim_prof_kernel_synced starts its compute phase (1); otherwise the
 * compute phase covers the channel. */
void *sim_prof_kernel_start(struct ncclComm *comm, void *task,
                            int initial_sync);
void sim_prof_kernel_synced(struct ncclComm *comm, void *kch);
void sim_prof_kernel_stop(void *kch);

#endif

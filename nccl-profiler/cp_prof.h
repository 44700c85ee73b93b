/* cp_prof.h - the version-independent core of collprof's NCCL profiler
 * plugin (libcollprof-nccl-profiler.so).
 *
 * NCCL calls the plugin through one of the ncclProfiler_vN tables
 * (cp_prof_abi.c); each version's adapter turns its descriptor into a
 * struct cp_prof_event and calls the core, which writes the same rank-log
 * format as the shim (include/collprof/cp_logfmt.h) into its own file,
 * <node>.<pid>.nccl.cplog:
 *   - a call record (kind 1) per collective or p2p task, at the task's stop,
 *     with collprof's own sequence numbers (per communicator; per
 *     communicator, peer and direction for p2p) so that the analyzer joins
 *     ranks as it joins the shim's records;
 *   - a kind 6 record per task (algorithm, protocol, channels, warps, graph,
 *     NCCL's own sequence number, raw kernel-channel GPU times) and a kind 5
 *     record with the kernel interval on the CLOCK_REALTIME scale, once the
 *     task's kernel channels stopped;
 *   - a kind 7 record per proxy operation and a kind 8 record per proxy step
 *     (within the step budget, COLLPROF_PLUGIN_STEPS).
 * Events live in fixed pools: no malloc, no lock after a communicator's
 * init.  An event that finds no free entry is not recorded (NCCL accepts a
 * NULL handle) and counted in the header's records_dropped.
 */
#ifndef COLLPROF_CP_PROF_H
#define COLLPROF_CP_PROF_H

#include <stdint.h>

#include "collprof/cp_nccl_profiler.h"

/* What the adapters hand the core: the union of what the versions say. */
struct cp_prof_event {
    unsigned type;        /* ncclProfile* bit */
    void *parent;         /* parentObj (v5 coll/p2p: the API event) */
    void *group_parent;   /* v5 coll/p2p: parentGroup; else NULL */
    int rank;
    /* coll / p2p */
    const char *func, *datatype, *algo, *proto;
    uint64_t count;
    uint64_t nccl_seq;
    uint64_t comm_hash; /* v3: per event; 0 otherwise */
    int root_or_peer;
    unsigned nchannels, nwarps;
    /* API events (v5) */
    int graph_captured;
    /* proxy op */
    int channel, peer, nsteps, chunk_size, is_send;
    /* proxy step */
    int step;
    /* kernel channel: GPU timer at start (v4+), 0 when not given */
    uint64_t ptimer;
};

/* Arguments of init, whichever version called it. */
struct cp_prof_init {
    unsigned api; /* the ncclProfiler_vN NCCL took */
    uint64_t comm_hash; /* 0 when the version does not give it (v3) */
    const char *comm_name;
    int nnodes, nranks, rank; /* -1 when not given (v3) */
};

ncclResult_t cp_prof_init(void **context, int *mask,
                          const struct cp_prof_init *in);
ncclResult_t cp_prof_start(void *context, void **handle,
                           const struct cp_prof_event *ev);
ncclResult_t cp_prof_stop(void *handle);
/* state: an ncclProfilerEventState_t; trans_size and ptimer from the
 * state's arguments (0 when absent). */
ncclResult_t cp_prof_state(void *handle, int state, uint64_t trans_size,
                           uint64_t ptimer);
ncclResult_t cp_prof_finalize(void *context);

/* Whether parent (a v5 task's parentObj) is the handle the core gave a
 * graph-captured API event of this context. */
int cp_prof_parent_is_graph(void *context, void *parent);

/* NCCL asked for an API older than v3: say so once, decline. */
ncclResult_t cp_prof_too_old(unsigned api);

#endif

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
 *   - by default (CP_STEPS_LINKS) a kind 11 record per task and peer it
 *     sent to: its proxy operations' sends over every channel summed once
 *     the last of them stopped (receives are their senders' sends);
 *     with COLLPROF_PLUGIN_STEPS=all, none or a budget instead a kind 7
 *     record per proxy operation and a kind 8 record per proxy step
 *     (every step, none, or until the budget).
 * The log is of format 4 (a ring and a compact stream) unless
 * COLLPROF_LOG_FORMAT=3, as the shim's.
 * Events live in fixed pools: no malloc, no lock after a communicator's
 * init.  An event that finds no free entry is not recorded (NCCL accepts a
 * NULL handle) and counted in the header's records_dropped.
 */
#ifndef COLLPROF_CP_PROF_H
#define COLLPROF_CP_PROF_H

#include <stdint.h>

#include "collprof/cp_nccl_profiler.h"

/* What the adapters hand the core: the union of what the versions say
 * (every field of every version, so that an event can be handed on to the
 * next profiler in any version's layout, cp_prof_next.c). */
struct cp_prof_event {
    unsigned type;        /* ncclProfile* bit */
    void *parent;         /* parentObj (v5 coll/p2p: the API event) */
    void *group_parent;   /* v5 coll/p2p: parentGroup; else NULL */
    int rank;
    /* coll / p2p / API events / copy-engine collective */
    const char *func, *datatype, *algo, *proto;
    uint64_t count;
    uint64_t nccl_seq;
    uint64_t comm_hash; /* v3: per event; 0 otherwise */
    int root_or_peer;
    unsigned nchannels, nwarps;
    const void *send_buff;
    void *recv_buff; /* p2p: its buffer */
    void *stream;    /* API events, kernel launch, copy-engine collective */
    /* v7 */
    uint64_t user_tag;          /* 0: untagged */
    const char *kernel_variant; /* coll */
    int sym_coll;               /* coll */
    int phase;                  /* kernel phase: CP_NCCL_PHASE_* */
    const char *phase_name;
    /* API events (v5) */
    int graph_captured;
    int group_depth; /* group API */
    /* proxy op */
    int pid, channel, peer, nsteps, chunk_size, is_send;
    /* proxy step */
    int step;
    /* kernel channel, kernel phase: GPU timer at start (v4+) */
    uint64_t ptimer;
    /* network plugin event */
    int64_t net_id;
    void *net_data;
    /* copy-engine collective, sync, batch (v6) */
    const char *sync_strategy;
    int intra_batch_sync;
    uint32_t batch_size, num_batches, ce_seq;
    int ce_sync_complete, ce_nranks;
    int ce_ops, ce_intra_sync;
    uint64_t ce_bytes;
};

/* Arguments of init, whichever version called it. */
struct cp_prof_init {
    unsigned api; /* the ncclProfiler_vN NCCL took */
    uint64_t comm_hash; /* 0 when the version does not give it (v3) */
    const char *comm_name;
    int nnodes, nranks, rank; /* -1 when not given (v3) */
    ncclDebugLogger_t logfn;  /* v4+; NULL otherwise */
};

ncclResult_t cp_prof_init(void **context, int *mask,
                          const struct cp_prof_init *in);
ncclResult_t cp_prof_start(void *context, void **handle,
                           const struct cp_prof_event *ev);
ncclResult_t cp_prof_stop(void *handle);
/* state: an ncclProfilerEventState_t; trans_size and ptimer from the
 * state's arguments (0 when absent); args: NCCL's own state arguments, in
 * the layout of the version NCCL took (handed on to a next profiler). */
ncclResult_t cp_prof_state(void *handle, int state, uint64_t trans_size,
                           uint64_t ptimer, void *args);
ncclResult_t cp_prof_finalize(void *context);

/* Whether parent (a v5 task's parentObj) is the handle the core gave a
 * graph-captured API event of this context. */
int cp_prof_parent_is_graph(void *context, void *parent);

/* NCCL asked for an API older than v3: say so once, decline. */
ncclResult_t cp_prof_too_old(unsigned api);

#endif

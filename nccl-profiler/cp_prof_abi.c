/* cp_prof_abi.c - the ncclProfiler_vN tables NCCL looks up, one adapter per
 * descriptor layout (v3, v4, v5/v6), each turning NCCL's descriptor into the
 * core's struct cp_prof_event.  v1 and v2 exist only to tell the user, once,
 * that this NCCL is too old, and to decline (NCCL then runs without a
 * profiler, as when no plugin is found). */
#include "config.h"

#include <string.h>

#include "cp_prof.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- v3 ------------------------------------------------------------------- */

static ncclResult_t init_v3(void **context, int *mask)
{
    struct cp_prof_init in = {.api = 3, .nnodes = -1, .nranks = -1, .rank = -1};
    return cp_prof_init(context, mask, &in);
}

static ncclResult_t start_v3(void *context, void **handle,
                             ncclProfilerEventDescr_v3_t *d)
{
    struct cp_prof_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = d->type;
    ev.parent = d->parentObj;
    ev.rank = d->rank;
    switch (d->type) {
    case ncclProfileColl:
        ev.func = d->coll.func;
        ev.datatype = d->coll.datatype;
        ev.algo = d->coll.algo;
        ev.proto = d->coll.proto;
        ev.count = d->coll.count;
        ev.nccl_seq = d->coll.seqNumber;
        ev.comm_hash = d->coll.commHash;
        ev.root_or_peer = d->coll.root;
        ev.nchannels = d->coll.nMaxChannels;
        ev.nwarps = d->coll.nWarps;
        break;
    case ncclProfileP2p:
        ev.func = d->p2p.func;
        ev.datatype = d->p2p.datatype;
        ev.count = d->p2p.count;
        ev.comm_hash = d->p2p.commHash;
        ev.root_or_peer = d->p2p.peer;
        ev.nchannels = 1;
        break;
    case ncclProfileProxyOp:
        ev.channel = d->proxyOp.channelId;
        ev.peer = d->proxyOp.peer;
        ev.nsteps = d->proxyOp.nSteps;
        ev.chunk_size = d->proxyOp.chunkSize;
        ev.is_send = d->proxyOp.isSend;
        break;
    case ncclProfileProxyStep:
        ev.step = d->proxyStep.step;
        break;
    case ncclProfileKernelCh:
        ev.channel = d->kernelCh.channelId;
        break;
    default:
        break;
    }
    return cp_prof_start(context, handle, &ev);
}

static ncclResult_t state_v3(void *handle, ncclProfilerEventState_t state,
                             ncclProfilerEventStateArgs_v3_t *args)
{
    uint64_t trans = 0;

    if (args && state <= ncclProfilerProxyOpRecvDone)
        trans = args->proxyOp.transSize;
    return cp_prof_state(handle, (int)state, trans, 0);
}

/* ---- v4 ------------------------------------------------------------------- */

static ncclResult_t init_v4(void **context, int *mask, const char *comm_name,
                            uint64_t comm_hash, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    struct cp_prof_init in = {.api = 4,
                              .comm_hash = comm_hash,
                              .comm_name = comm_name,
                              .nnodes = nnodes,
                              .nranks = nranks,
                              .rank = rank};
    (void)logfn;
    return cp_prof_init(context, mask, &in);
}

static ncclResult_t start_v4(void *context, void **handle,
                             ncclProfilerEventDescr_v4_t *d)
{
    struct cp_prof_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = d->type;
    ev.parent = d->parentObj;
    ev.rank = d->rank;
    switch (d->type) {
    case ncclProfileColl:
        ev.func = d->coll.func;
        ev.datatype = d->coll.datatype;
        ev.algo = d->coll.algo;
        ev.proto = d->coll.proto;
        ev.count = d->coll.count;
        ev.nccl_seq = d->coll.seqNumber;
        ev.root_or_peer = d->coll.root;
        ev.nchannels = d->coll.nChannels;
        ev.nwarps = d->coll.nWarps;
        break;
    case ncclProfileP2p:
        ev.func = d->p2p.func;
        ev.datatype = d->p2p.datatype;
        ev.count = d->p2p.count;
        ev.root_or_peer = d->p2p.peer;
        ev.nchannels = d->p2p.nChannels;
        break;
    case ncclProfileProxyOp:
        ev.channel = d->proxyOp.channelId;
        ev.peer = d->proxyOp.peer;
        ev.nsteps = d->proxyOp.nSteps;
        ev.chunk_size = d->proxyOp.chunkSize;
        ev.is_send = d->proxyOp.isSend;
        break;
    case ncclProfileProxyStep:
        ev.step = d->proxyStep.step;
        break;
    case ncclProfileKernelCh:
        ev.channel = d->kernelCh.channelId;
        ev.ptimer = d->kernelCh.pTimer;
        break;
    default:
        break;
    }
    return cp_prof_start(context, handle, &ev);
}

/* The state arguments are the same union from v4 on. */
static ncclResult_t state_v4(void *handle, ncclProfilerEventState_t state,
                             ncclProfilerEventStateArgs_v4_t *args)
{
    uint64_t trans = 0, ptimer = 0;

    if (args) {
        if (state == ncclProfilerKernelChStop)
            ptimer = args->kernelCh.pTimer;
        else if (state >= ncclProfilerProxyStepSendGPUWait &&
                 state <= ncclProfilerProxyStepRecvGPUWait)
            trans = args->proxyStep.transSize;
        else if (state == ncclProfilerProxyStepSendPeerWait_v4)
            trans = args->proxyStep.transSize;
    }
    return cp_prof_state(handle, (int)state, trans, ptimer);
}

/* ---- v5 and v6 ------------------------------------------------------------ */

static ncclResult_t init_v5_common(unsigned api, void **context,
                                   uint64_t comm_id, int *mask,
                                   const char *comm_name, int nnodes,
                                   int nranks, int rank)
{
    struct cp_prof_init in = {.api = api,
                              .comm_hash = comm_id,
                              .comm_name = comm_name,
                              .nnodes = nnodes,
                              .nranks = nranks,
                              .rank = rank};
    return cp_prof_init(context, mask, &in);
}

static ncclResult_t init_v5(void **context, uint64_t comm_id, int *mask,
                            const char *comm_name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    (void)logfn;
    return init_v5_common(5, context, comm_id, mask, comm_name, nnodes, nranks,
                          rank);
}

static ncclResult_t init_v6(void **context, uint64_t comm_id, int *mask,
                            const char *comm_name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    (void)logfn;
    return init_v5_common(6, context, comm_id, mask, comm_name, nnodes, nranks,
                          rank);
}

static ncclResult_t start_v5(void *context, void **handle,
                             ncclProfilerEventDescr_v5_t *d)
{
    struct cp_prof_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = (unsigned)d->type;
    ev.parent = d->parentObj;
    ev.rank = d->rank;
    switch (d->type) {
    case ncclProfileCollApi:
        ev.graph_captured = d->collApi.graphCaptured;
        break;
    case ncclProfileP2pApi:
        ev.graph_captured = d->p2pApi.graphCaptured;
        break;
    case ncclProfileColl:
        ev.func = d->coll.func;
        ev.datatype = d->coll.datatype;
        ev.algo = d->coll.algo;
        ev.proto = d->coll.proto;
        ev.count = d->coll.count;
        ev.nccl_seq = d->coll.seqNumber;
        ev.root_or_peer = d->coll.root;
        ev.nchannels = d->coll.nChannels;
        ev.nwarps = d->coll.nWarps;
        ev.group_parent = d->coll.parentGroup;
        break;
    case ncclProfileP2p:
        ev.func = d->p2p.func;
        ev.datatype = d->p2p.datatype;
        ev.count = d->p2p.count;
        ev.root_or_peer = d->p2p.peer;
        ev.nchannels = d->p2p.nChannels;
        ev.group_parent = d->p2p.parentGroup;
        break;
    case ncclProfileProxyOp:
        ev.channel = d->proxyOp.channelId;
        ev.peer = d->proxyOp.peer;
        ev.nsteps = d->proxyOp.nSteps;
        ev.chunk_size = d->proxyOp.chunkSize;
        ev.is_send = d->proxyOp.isSend;
        break;
    case ncclProfileProxyStep:
        ev.step = d->proxyStep.step;
        break;
    case ncclProfileKernelCh:
        ev.channel = d->kernelCh.channelId;
        ev.ptimer = d->kernelCh.pTimer;
        break;
    default:
        break;
    }
    /* v5: the task's parent is its API event, which tells a graph replay */
    if (d->type == ncclProfileColl || d->type == ncclProfileP2p)
        ev.graph_captured = cp_prof_parent_is_graph(context, d->parentObj);
    return cp_prof_start(context, handle, &ev);
}

/* ---- too old ---------------------------------------------------------------- */

static ncclResult_t init_v1(void **context, int *mask)
{
    (void)mask;
    *context = NULL;
    return cp_prof_too_old(1);
}

static ncclResult_t init_v2(void **context, int *mask)
{
    (void)mask;
    *context = NULL;
    return cp_prof_too_old(2);
}

static ncclResult_t start_none(void *context, void **handle, void *d)
{
    (void)context;
    (void)d;
    *handle = NULL;
    return ncclSuccess;
}

static ncclResult_t state_none(void *handle, ncclProfilerEventState_t state,
                               void *args)
{
    (void)handle;
    (void)state;
    (void)args;
    return ncclSuccess;
}

/* ---- the tables --------------------------------------------------------------- */

EXPORT const ncclProfiler_v6_t ncclProfiler_v6 = {
    .name = "collprof",
    .init = init_v6,
    .startEvent = start_v5,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_v4,
    .finalize = cp_prof_finalize,
};

EXPORT const ncclProfiler_v5_t ncclProfiler_v5 = {
    .name = "collprof",
    .init = init_v5,
    .startEvent = start_v5,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_v4,
    .finalize = cp_prof_finalize,
};

EXPORT const ncclProfiler_v4_t ncclProfiler_v4 = {
    .name = "collprof",
    .init = init_v4,
    .startEvent = start_v4,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_v4,
    .finalize = cp_prof_finalize,
};

EXPORT const ncclProfiler_v3_t ncclProfiler_v3 = {
    .name = "collprof",
    .init = init_v3,
    .startEvent = start_v3,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_v3,
    .finalize = cp_prof_finalize,
};

EXPORT const ncclProfiler_v2_t ncclProfiler_v2 = {
    .name = "collprof",
    .init = init_v2,
    .startEvent = start_none,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_none,
    .finalize = cp_prof_finalize,
};

EXPORT const ncclProfiler_v1_t ncclProfiler_v1 = {
    .name = "collprof",
    .init = init_v1,
    .startEvent = start_none,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_none,
    .finalize = cp_prof_finalize,
};

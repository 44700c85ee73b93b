/* cp_prof_abi.c - the ncclProfiler_vN tables NCCL looks up, one adapter per
 * descriptor layout (v3, v4, v5/v6, v7), each turning NCCL's descriptor into
 * the core's struct cp_prof_event (every field, for a next profiler).  v1 and v2 exist only to tell the user, once,
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
        ev.send_buff = d->coll.sendBuff;
        ev.recv_buff = d->coll.recvBuff;
        break;
    case ncclProfileP2p:
        ev.func = d->p2p.func;
        ev.datatype = d->p2p.datatype;
        ev.count = d->p2p.count;
        ev.comm_hash = d->p2p.commHash;
        ev.root_or_peer = d->p2p.peer;
        ev.nchannels = 1;
        ev.recv_buff = d->p2p.buff;
        break;
    case ncclProfileProxyOp:
        ev.pid = d->proxyOp.pid;
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
    case ncclProfileNetPlugin:
        ev.net_id = d->netPlugin.id;
        ev.net_data = d->netPlugin.data;
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
    return cp_prof_state(handle, (int)state, trans, 0, args);
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
                              .rank = rank,
                              .logfn = logfn};
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
        ev.send_buff = d->coll.sendBuff;
        ev.recv_buff = d->coll.recvBuff;
        break;
    case ncclProfileP2p:
        ev.func = d->p2p.func;
        ev.datatype = d->p2p.datatype;
        ev.count = d->p2p.count;
        ev.root_or_peer = d->p2p.peer;
        ev.nchannels = d->p2p.nChannels;
        ev.recv_buff = d->p2p.buff;
        break;
    case ncclProfileProxyOp:
        ev.pid = d->proxyOp.pid;
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
    case ncclProfileNetPlugin:
        ev.net_id = d->netPlugin.id;
        ev.net_data = d->netPlugin.data;
        break;
    default:
        break;
    }
    return cp_prof_start(context, handle, &ev);
}

/* The state arguments are the same union from v4 on (v7's phase stop uses
 * the kernel channel's member). */
static ncclResult_t state_v4(void *handle, ncclProfilerEventState_t state,
                             ncclProfilerEventStateArgs_v4_t *args)
{
    uint64_t trans = 0, ptimer = 0;

    if (args) {
        if (state == ncclProfilerKernelChStop ||
            state == ncclProfilerKernelPhaseStop)
            ptimer = args->kernelCh.pTimer;
        else if (state >= ncclProfilerProxyStepSendGPUWait &&
                 state <= ncclProfilerProxyStepRecvGPUWait)
            trans = args->proxyStep.transSize;
        else if (state == ncclProfilerProxyStepSendPeerWait_v4)
            trans = args->proxyStep.transSize;
    }
    return cp_prof_state(handle, (int)state, trans, ptimer, args);
}

/* ---- v5 and v6 ------------------------------------------------------------ */

static ncclResult_t init_v5_common(unsigned api, void **context,
                                   uint64_t comm_id, int *mask,
                                   const char *comm_name, int nnodes,
                                   int nranks, int rank,
                                   ncclDebugLogger_t logfn)
{
    struct cp_prof_init in = {.api = api,
                              .comm_hash = comm_id,
                              .comm_name = comm_name,
                              .nnodes = nnodes,
                              .nranks = nranks,
                              .rank = rank,
                              .logfn = logfn};
    return cp_prof_init(context, mask, &in);
}

static ncclResult_t init_v5(void **context, uint64_t comm_id, int *mask,
                            const char *comm_name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    return init_v5_common(5, context, comm_id, mask, comm_name, nnodes, nranks,
                          rank, logfn);
}

static ncclResult_t init_v6(void **context, uint64_t comm_id, int *mask,
                            const char *comm_name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    return init_v5_common(6, context, comm_id, mask, comm_name, nnodes, nranks,
                          rank, logfn);
}

static ncclResult_t init_v7(void **context, uint64_t comm_id, int *mask,
                            const char *comm_name, int nnodes, int nranks,
                            int rank, ncclDebugLogger_t logfn)
{
    return init_v5_common(7, context, comm_id, mask, comm_name, nnodes, nranks,
                          rank, logfn);
}

/* The members v5, v6 and v7 share (the same names, at v7's offsets for v7):
 * one body for both layouts. */
#define CP_START_V5_COMMON(d, ev)                                              \
    switch ((d)->type) {                                                       \
    case ncclProfileGroupApi:                                                  \
        (ev).graph_captured = (d)->groupApi.graphCaptured;                     \
        (ev).group_depth = (d)->groupApi.groupDepth;                           \
        break;                                                                 \
    case ncclProfileCollApi:                                                   \
        (ev).func = (d)->collApi.func;                                         \
        (ev).count = (d)->collApi.count;                                       \
        (ev).datatype = (d)->collApi.datatype;                                 \
        (ev).root_or_peer = (d)->collApi.root;                                 \
        (ev).stream = (d)->collApi.stream;                                     \
        (ev).graph_captured = (d)->collApi.graphCaptured;                      \
        break;                                                                 \
    case ncclProfileP2pApi:                                                    \
        (ev).func = (d)->p2pApi.func;                                          \
        (ev).count = (d)->p2pApi.count;                                        \
        (ev).datatype = (d)->p2pApi.datatype;                                  \
        (ev).stream = (d)->p2pApi.stream;                                      \
        (ev).graph_captured = (d)->p2pApi.graphCaptured;                       \
        break;                                                                 \
    case ncclProfileKernelLaunch:                                              \
        (ev).stream = (d)->kernelLaunch.stream;                                \
        break;                                                                 \
    case ncclProfileColl:                                                      \
        (ev).func = (d)->coll.func;                                            \
        (ev).datatype = (d)->coll.datatype;                                    \
        (ev).algo = (d)->coll.algo;                                            \
        (ev).proto = (d)->coll.proto;                                          \
        (ev).count = (d)->coll.count;                                          \
        (ev).nccl_seq = (d)->coll.seqNumber;                                   \
        (ev).root_or_peer = (d)->coll.root;                                    \
        (ev).nchannels = (d)->coll.nChannels;                                  \
        (ev).nwarps = (d)->coll.nWarps;                                        \
        (ev).group_parent = (d)->coll.parentGroup;                             \
        (ev).send_buff = (d)->coll.sendBuff;                                   \
        (ev).recv_buff = (d)->coll.recvBuff;                                   \
        break;                                                                 \
    case ncclProfileP2p:                                                       \
        (ev).func = (d)->p2p.func;                                             \
        (ev).datatype = (d)->p2p.datatype;                                     \
        (ev).count = (d)->p2p.count;                                           \
        (ev).root_or_peer = (d)->p2p.peer;                                     \
        (ev).nchannels = (d)->p2p.nChannels;                                   \
        (ev).group_parent = (d)->p2p.parentGroup;                              \
        (ev).recv_buff = (d)->p2p.buff;                                        \
        break;                                                                 \
    case ncclProfileProxyOp:                                                   \
        (ev).pid = (d)->proxyOp.pid;                                           \
        (ev).channel = (d)->proxyOp.channelId;                                 \
        (ev).peer = (d)->proxyOp.peer;                                         \
        (ev).nsteps = (d)->proxyOp.nSteps;                                     \
        (ev).chunk_size = (d)->proxyOp.chunkSize;                              \
        (ev).is_send = (d)->proxyOp.isSend;                                    \
        break;                                                                 \
    case ncclProfileProxyStep:                                                 \
        (ev).step = (d)->proxyStep.step;                                       \
        break;                                                                 \
    case ncclProfileKernelCh:                                                  \
        (ev).channel = (d)->kernelCh.channelId;                                \
        (ev).ptimer = (d)->kernelCh.pTimer;                                    \
        break;                                                                 \
    case ncclProfileNetPlugin:                                                 \
        (ev).net_id = (d)->netPlugin.id;                                       \
        (ev).net_data = (d)->netPlugin.data;                                   \
        break;                                                                 \
    case ncclProfileCeColl:                                                    \
        (ev).nccl_seq = (d)->ceColl.seqNumber;                                 \
        (ev).func = (d)->ceColl.func;                                          \
        (ev).send_buff = (d)->ceColl.sendBuff;                                 \
        (ev).recv_buff = (d)->ceColl.recvBuff;                                 \
        (ev).count = (d)->ceColl.count;                                        \
        (ev).root_or_peer = (d)->ceColl.root;                                  \
        (ev).datatype = (d)->ceColl.datatype;                                  \
        (ev).sync_strategy = (d)->ceColl.syncStrategy;                         \
        (ev).intra_batch_sync = (d)->ceColl.intraBatchSync;                    \
        (ev).batch_size = (d)->ceColl.batchSize;                               \
        (ev).num_batches = (d)->ceColl.numBatches;                             \
        (ev).ce_seq = (d)->ceColl.ceSeqNum;                                    \
        (ev).stream = (d)->ceColl.stream;                                      \
        break;                                                                 \
    case ncclProfileCeSync:                                                    \
        (ev).ce_sync_complete = (d)->ceCollSync.isComplete;                    \
        (ev).ce_nranks = (d)->ceCollSync.nRanks;                               \
        break;                                                                 \
    case ncclProfileCeBatch:                                                   \
        (ev).ce_ops = (d)->ceCollBatch.numOps;                                 \
        (ev).ce_bytes = (d)->ceCollBatch.totalBytes;                           \
        (ev).ce_intra_sync = (d)->ceCollBatch.useIntraSync;                    \
        break;                                                                 \
    default:                                                                   \
        break;                                                                 \
    }

static ncclResult_t start_v5(void *context, void **handle,
                             ncclProfilerEventDescr_v5_t *d)
{
    struct cp_prof_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = (unsigned)d->type;
    ev.parent = d->parentObj;
    ev.rank = d->rank;
    CP_START_V5_COMMON(d, ev)
    /* v5: the task's parent is its API event, which tells a graph replay */
    if (d->type == ncclProfileColl || d->type == ncclProfileP2p)
        ev.graph_captured = cp_prof_parent_is_graph(context, d->parentObj);
    return cp_prof_start(context, handle, &ev);
}

static ncclResult_t start_v7(void *context, void **handle,
                             ncclProfilerEventDescr_v7_t *d)
{
    struct cp_prof_event ev;

    memset(&ev, 0, sizeof ev);
    ev.type = (unsigned)d->type;
    ev.parent = d->parentObj;
    ev.rank = d->rank;
    CP_START_V5_COMMON(d, ev)
    switch (d->type) {
    case ncclProfileCollApi:
        ev.user_tag = d->collApi.userTag;
        break;
    case ncclProfileP2pApi:
        ev.user_tag = d->p2pApi.userTag;
        break;
    case ncclProfileColl:
        ev.user_tag = d->coll.userTag;
        ev.kernel_variant = d->coll.kernelVariant;
        ev.sym_coll = d->coll.isSymColl;
        break;
    case ncclProfileP2p:
        ev.user_tag = d->p2p.userTag;
        break;
    case ncclProfileCeColl:
        ev.user_tag = d->ceColl.userTag;
        break;
    case ncclProfileKernelPhase:
        ev.channel = d->kernelPhase.channelId;
        ev.phase = d->kernelPhase.phaseId;
        ev.phase_name = d->kernelPhase.phaseName;
        ev.ptimer = d->kernelPhase.pTimer;
        break;
    default:
        break;
    }
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

EXPORT const ncclProfiler_v7_t ncclProfiler_v7 = {
    .name = "collprof",
    .init = init_v7,
    .startEvent = start_v7,
    .stopEvent = cp_prof_stop,
    .recordEventState = state_v4,
    .finalize = cp_prof_finalize,
};

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

/* cp_prof_next.c - the next profiler plugin (see cp_prof_next.h). */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_prof_next.h"

static void *lib;
static unsigned nccl_api; /* the version NCCL took from collprof */
static unsigned next_api; /* the version the next plugin is spoken to */
static const ncclProfiler_v7_t *t7;
static const ncclProfiler_v5_t *t5; /* v5 and v6 */
static const ncclProfiler_v4_t *t4;
static const ncclProfiler_v3_t *t3;

/* The next plugin's context, with what its events need that NCCL gave
 * collprof's init only (v3 descriptors carry the communicator's hash). */
struct next_ctx {
    void *ctx;
    uint64_t comm_hash;
};

int cp_next_load(unsigned api, void (*warn)(const char *line))
{
    const char *path = getenv("COLLPROF_NEXT_PROFILER");
    char line[640];
    unsigned v;

    if (!path || !*path)
        return 0;
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(line, sizeof line,
                 "COLLPROF_NEXT_PROFILER: cannot load %.200s (%.300s); "
                 "collprof profiles alone",
                 path, dlerror());
        warn(line);
        return 0;
    }
    /* the newest version both know, at most the one NCCL speaks */
    for (v = api > 7 ? 7 : api; v >= 3; v--) {
        char sym[32];
        void *p;
        snprintf(sym, sizeof sym, "ncclProfiler_v%u", v);
        p = dlsym(lib, sym);
        if (!p)
            continue;
        if (v == 7)
            t7 = p;
        else if (v >= 5)
            t5 = p;
        else if (v == 4)
            t4 = p;
        else
            t3 = p;
        next_api = v;
        nccl_api = api;
        return 1;
    }
    snprintf(line, sizeof line,
             "COLLPROF_NEXT_PROFILER: %.200s exports no ncclProfiler_v3 to "
             "v%u; collprof profiles alone",
             path, api > 7 ? 7 : api);
    warn(line);
    dlclose(lib);
    lib = NULL;
    return 0;
}

ncclResult_t cp_next_init(void **ctx, int *mask, const struct cp_prof_init *in)
{
    struct next_ctx *n;
    ncclResult_t rc = ncclInternalError;

    *ctx = NULL;
    *mask = 0;
    if (!lib)
        return ncclInternalError;
    n = calloc(1, sizeof *n);
    if (!n)
        return ncclSystemError;
    n->comm_hash = in->comm_hash;
    if (t7)
        rc = t7->init(&n->ctx, in->comm_hash, mask, in->comm_name, in->nnodes,
                      in->nranks, in->rank, in->logfn);
    else if (t5)
        rc = t5->init(&n->ctx, in->comm_hash, mask, in->comm_name, in->nnodes,
                      in->nranks, in->rank, in->logfn);
    else if (t4)
        rc = t4->init(&n->ctx, mask, in->comm_name, in->comm_hash, in->nnodes,
                      in->nranks, in->rank, in->logfn);
    else if (t3)
        rc = t3->init(&n->ctx, mask);
    if (rc != ncclSuccess) {
        /* as NCCL does: a plugin whose init failed gets nothing more */
        free(n);
        *mask = 0;
        return rc;
    }
    *ctx = n;
    return ncclSuccess;
}

/* Whether the next plugin's version has this event type at all. */
static int known(unsigned type)
{
    if (type == ncclProfileKernelPhase)
        return next_api >= 7;
    if (type == ncclProfileCeColl || type == ncclProfileCeSync ||
        type == ncclProfileCeBatch)
        return next_api >= 6;
    if (type > 0xff)
        return next_api >= 5;
    return 1;
}

/* The members v5, v6 and v7 share, from the event. */
#define CP_FILL_V5_COMMON(d, ev)                                               \
    switch ((ev)->type) {                                                      \
    case ncclProfileGroupApi:                                                  \
        (d).groupApi.graphCaptured = (ev)->graph_captured != 0;                \
        (d).groupApi.groupDepth = (ev)->group_depth;                           \
        break;                                                                 \
    case ncclProfileCollApi:                                                   \
        (d).collApi.func = (ev)->func;                                         \
        (d).collApi.count = (ev)->count;                                       \
        (d).collApi.datatype = (ev)->datatype;                                 \
        (d).collApi.root = (ev)->root_or_peer;                                 \
        (d).collApi.stream = (ev)->stream;                                     \
        (d).collApi.graphCaptured = (ev)->graph_captured != 0;                 \
        break;                                                                 \
    case ncclProfileP2pApi:                                                    \
        (d).p2pApi.func = (ev)->func;                                          \
        (d).p2pApi.count = (ev)->count;                                        \
        (d).p2pApi.datatype = (ev)->datatype;                                  \
        (d).p2pApi.stream = (ev)->stream;                                      \
        (d).p2pApi.graphCaptured = (ev)->graph_captured != 0;                  \
        break;                                                                 \
    case ncclProfileKernelLaunch:                                              \
        (d).kernelLaunch.stream = (ev)->stream;                                \
        break;                                                                 \
    case ncclProfileColl:                                                      \
        (d).coll.seqNumber = (ev)->nccl_seq;                                   \
        (d).coll.func = (ev)->func;                                            \
        (d).coll.sendBuff = (ev)->send_buff;                                   \
        (d).coll.recvBuff = (ev)->recv_buff;                                   \
        (d).coll.count = (ev)->count;                                          \
        (d).coll.root = (ev)->root_or_peer;                                    \
        (d).coll.datatype = (ev)->datatype;                                    \
        (d).coll.nChannels = (uint8_t)(ev)->nchannels;                         \
        (d).coll.nWarps = (uint8_t)(ev)->nwarps;                               \
        (d).coll.algo = (ev)->algo;                                            \
        (d).coll.proto = (ev)->proto;                                          \
        (d).coll.parentGroup = (ev)->group_parent;                             \
        break;                                                                 \
    case ncclProfileP2p:                                                       \
        (d).p2p.func = (ev)->func;                                             \
        (d).p2p.buff = (ev)->recv_buff;                                        \
        (d).p2p.datatype = (ev)->datatype;                                     \
        (d).p2p.count = (ev)->count;                                           \
        (d).p2p.peer = (ev)->root_or_peer;                                     \
        (d).p2p.nChannels = (uint8_t)(ev)->nchannels;                          \
        (d).p2p.parentGroup = (ev)->group_parent;                              \
        break;                                                                 \
    case ncclProfileProxyOp:                                                   \
        (d).proxyOp.pid = (ev)->pid;                                           \
        (d).proxyOp.channelId = (uint8_t)(ev)->channel;                        \
        (d).proxyOp.peer = (ev)->peer;                                         \
        (d).proxyOp.nSteps = (ev)->nsteps;                                     \
        (d).proxyOp.chunkSize = (ev)->chunk_size;                              \
        (d).proxyOp.isSend = (ev)->is_send;                                    \
        break;                                                                 \
    case ncclProfileProxyStep:                                                 \
        (d).proxyStep.step = (ev)->step;                                       \
        break;                                                                 \
    case ncclProfileKernelCh:                                                  \
        (d).kernelCh.channelId = (uint8_t)(ev)->channel;                       \
        (d).kernelCh.pTimer = (ev)->ptimer;                                    \
        break;                                                                 \
    case ncclProfileNetPlugin:                                                 \
        (d).netPlugin.id = (ev)->net_id;                                       \
        (d).netPlugin.data = (ev)->net_data;                                   \
        break;                                                                 \
    case ncclProfileCeColl:                                                    \
        (d).ceColl.seqNumber = (ev)->nccl_seq;                                 \
        (d).ceColl.func = (ev)->func;                                          \
        (d).ceColl.sendBuff = (ev)->send_buff;                                 \
        (d).ceColl.recvBuff = (ev)->recv_buff;                                 \
        (d).ceColl.count = (ev)->count;                                        \
        (d).ceColl.root = (ev)->root_or_peer;                                  \
        (d).ceColl.datatype = (ev)->datatype;                                  \
        (d).ceColl.syncStrategy = (ev)->sync_strategy;                         \
        (d).ceColl.intraBatchSync = (ev)->intra_batch_sync != 0;               \
        (d).ceColl.batchSize = (ev)->batch_size;                               \
        (d).ceColl.numBatches = (ev)->num_batches;                             \
        (d).ceColl.ceSeqNum = (ev)->ce_seq;                                    \
        (d).ceColl.stream = (ev)->stream;                                      \
        break;                                                                 \
    case ncclProfileCeSync:                                                    \
        (d).ceCollSync.isComplete = (ev)->ce_sync_complete != 0;               \
        (d).ceCollSync.nRanks = (ev)->ce_nranks;                               \
        break;                                                                 \
    case ncclProfileCeBatch:                                                   \
        (d).ceCollBatch.numOps = (ev)->ce_ops;                                 \
        (d).ceCollBatch.totalBytes = (size_t)(ev)->ce_bytes;                   \
        (d).ceCollBatch.useIntraSync = (ev)->ce_intra_sync != 0;               \
        break;                                                                 \
    default:                                                                   \
        break;                                                                 \
    }

static void start_v7(struct next_ctx *n, void **h, const struct cp_prof_event *ev)
{
    ncclProfilerEventDescr_v7_t d;

    memset(&d, 0, sizeof d);
    d.type = ev->type;
    d.parentObj = ev->parent;
    d.rank = ev->rank;
    CP_FILL_V5_COMMON(d, ev)
    switch (ev->type) {
    case ncclProfileCollApi:
        d.collApi.userTag = ev->user_tag;
        break;
    case ncclProfileP2pApi:
        d.p2pApi.userTag = ev->user_tag;
        break;
    case ncclProfileColl:
        d.coll.kernelVariant = ev->kernel_variant;
        d.coll.isSymColl = ev->sym_coll != 0;
        d.coll.userTag = ev->user_tag;
        break;
    case ncclProfileP2p:
        d.p2p.userTag = ev->user_tag;
        break;
    case ncclProfileCeColl:
        d.ceColl.userTag = ev->user_tag;
        break;
    case ncclProfileKernelPhase:
        d.kernelPhase.channelId = (uint8_t)ev->channel;
        d.kernelPhase.phaseId = (uint8_t)ev->phase;
        d.kernelPhase.phaseName = ev->phase_name;
        d.kernelPhase.pTimer = ev->ptimer;
        break;
    default:
        break;
    }
    t7->startEvent(n->ctx, h, &d);
}

static void start_v5(struct next_ctx *n, void **h, const struct cp_prof_event *ev)
{
    ncclProfilerEventDescr_v5_t d;

    memset(&d, 0, sizeof d);
    d.type = ev->type;
    d.parentObj = ev->parent;
    d.rank = ev->rank;
    CP_FILL_V5_COMMON(d, ev)
    t5->startEvent(n->ctx, h, &d);
}

/* A task's parent in v3 and v4 is its group event; from v5 on, its API
 * event (then the group is parentGroup). */
static void *task_parent(const struct cp_prof_event *ev)
{
    if (nccl_api >= 5 &&
        (ev->type == ncclProfileColl || ev->type == ncclProfileP2p))
        return ev->group_parent;
    return ev->parent;
}

static void start_v4(struct next_ctx *n, void **h, const struct cp_prof_event *ev)
{
    ncclProfilerEventDescr_v4_t d;

    memset(&d, 0, sizeof d);
    d.type = (uint8_t)ev->type;
    d.parentObj = task_parent(ev);
    d.rank = ev->rank;
    switch (ev->type) {
    case ncclProfileColl:
        d.coll.seqNumber = ev->nccl_seq;
        d.coll.func = ev->func;
        d.coll.sendBuff = ev->send_buff;
        d.coll.recvBuff = ev->recv_buff;
        d.coll.count = ev->count;
        d.coll.root = ev->root_or_peer;
        d.coll.datatype = ev->datatype;
        d.coll.nChannels = (uint8_t)ev->nchannels;
        d.coll.nWarps = (uint8_t)ev->nwarps;
        d.coll.algo = ev->algo;
        d.coll.proto = ev->proto;
        break;
    case ncclProfileP2p:
        d.p2p.func = ev->func;
        d.p2p.buff = ev->recv_buff;
        d.p2p.datatype = ev->datatype;
        d.p2p.count = ev->count;
        d.p2p.peer = ev->root_or_peer;
        d.p2p.nChannels = (uint8_t)ev->nchannels;
        break;
    case ncclProfileProxyOp:
        d.proxyOp.pid = ev->pid;
        d.proxyOp.channelId = (uint8_t)ev->channel;
        d.proxyOp.peer = ev->peer;
        d.proxyOp.nSteps = ev->nsteps;
        d.proxyOp.chunkSize = ev->chunk_size;
        d.proxyOp.isSend = ev->is_send;
        break;
    case ncclProfileProxyStep:
        d.proxyStep.step = ev->step;
        break;
    case ncclProfileKernelCh:
        d.kernelCh.channelId = (uint8_t)ev->channel;
        d.kernelCh.pTimer = ev->ptimer;
        break;
    case ncclProfileNetPlugin:
        d.netPlugin.id = ev->net_id;
        d.netPlugin.data = ev->net_data;
        break;
    default:
        break;
    }
    t4->startEvent(n->ctx, h, &d);
}

static void start_v3(struct next_ctx *n, void **h, const struct cp_prof_event *ev)
{
    ncclProfilerEventDescr_v3_t d;
    uint64_t hash = ev->comm_hash ? ev->comm_hash : n->comm_hash;

    memset(&d, 0, sizeof d);
    d.type = (uint8_t)ev->type;
    d.parentObj = task_parent(ev);
    d.rank = ev->rank;
    switch (ev->type) {
    case ncclProfileColl:
        d.coll.commHash = hash;
        d.coll.seqNumber = ev->nccl_seq;
        d.coll.func = ev->func;
        d.coll.sendBuff = ev->send_buff;
        d.coll.recvBuff = ev->recv_buff;
        d.coll.count = ev->count;
        d.coll.root = ev->root_or_peer;
        d.coll.datatype = ev->datatype;
        d.coll.nMaxChannels = (uint8_t)ev->nchannels;
        d.coll.nWarps = (uint8_t)ev->nwarps;
        d.coll.algo = ev->algo;
        d.coll.proto = ev->proto;
        break;
    case ncclProfileP2p:
        d.p2p.commHash = hash;
        d.p2p.func = ev->func;
        d.p2p.buff = ev->recv_buff;
        d.p2p.datatype = ev->datatype;
        d.p2p.count = ev->count;
        d.p2p.peer = ev->root_or_peer;
        break;
    case ncclProfileProxyOp:
        d.proxyOp.pid = ev->pid;
        d.proxyOp.channelId = (uint8_t)ev->channel;
        d.proxyOp.peer = ev->peer;
        d.proxyOp.nSteps = ev->nsteps;
        d.proxyOp.chunkSize = ev->chunk_size;
        d.proxyOp.isSend = ev->is_send;
        break;
    case ncclProfileProxyStep:
        d.proxyStep.step = ev->step;
        break;
    case ncclProfileKernelCh:
        d.kernelCh.channelId = (uint8_t)ev->channel;
        break;
    case ncclProfileNetPlugin:
        d.netPlugin.id = ev->net_id;
        d.netPlugin.data = ev->net_data;
        break;
    default:
        break;
    }
    t3->startEvent(n->ctx, h, &d);
}

void *cp_next_start(void *ctx, const struct cp_prof_event *ev)
{
    struct next_ctx *n = ctx;
    void *h = NULL;

    if (!n || !known(ev->type))
        return NULL;
    if (t7)
        start_v7(n, &h, ev);
    else if (t5)
        start_v5(n, &h, ev);
    else if (t4)
        start_v4(n, &h, ev);
    else if (t3)
        start_v3(n, &h, ev);
    return h;
}

void cp_next_stop(void *handle)
{
    if (t7)
        t7->stopEvent(handle);
    else if (t5)
        t5->stopEvent(handle);
    else if (t4)
        t4->stopEvent(handle);
    else if (t3)
        t3->stopEvent(handle);
}

void cp_next_state(void *handle, int state, uint64_t trans_size,
                   uint64_t ptimer, void *args)
{
    ncclProfilerEventState_t st = (ncclProfilerEventState_t)state;

    /* from v4 on the state arguments are one union: handed on as they are */
    if (t7)
        t7->recordEventState(handle, st, args);
    else if (t5)
        t5->recordEventState(handle, st, args);
    else if (t4)
        t4->recordEventState(handle, st, args);
    else if (t3) {
        ncclProfilerEventStateArgs_v3_t a;
        if (nccl_api == 3) {
            t3->recordEventState(handle, st, args);
            return;
        }
        /* NCCL speaks v4+: v3's union from what it said */
        memset(&a, 0, sizeof a);
        if (state <= ncclProfilerProxyOpRecvDone)
            a.proxyOp.transSize = (size_t)trans_size;
        (void)ptimer;
        t3->recordEventState(handle, st, &a);
    }
}

void cp_next_finalize(void *ctx)
{
    struct next_ctx *n = ctx;

    if (!n)
        return;
    if (t7)
        t7->finalize(n->ctx);
    else if (t5)
        t5->finalize(n->ctx);
    else if (t4)
        t4->finalize(n->ctx);
    else if (t3)
        t3->finalize(n->ctx);
    free(n);
}

/* sim_prof.c - the profiler-plugin loader of simnccl (see sim_prof.h). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_nccl_profiler.h"
#include "sim_coll.h"
#include "sim_comm.h"
#include "sim_prof.h"

#define DEVICE_TIMER_OFFSET_NS UINT64_C(1000000000000000)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static void *lib;
static unsigned api; /* 0: no profiler */
static const ncclProfiler_v7_t *v7;
static const ncclProfiler_v5_t *v5; /* v5, or v6 (same layout) */
static const ncclProfiler_v4_t *v4;
static const ncclProfiler_v3_t *v3;
static int mask;

/* SIMNCCL_PROFILER_RANK0=1: every event says rank 0 (as NCCL's API events
 * have been seen to); SIMNCCL_PROFILER_TAG=N: v7's user tag of every call,
 * or FUNC=N,... (NCCL's function names, AllReduce=1,Send=2): the tag of
 * each function's calls, 0 for the others;
 * SIMNCCL_PROFILER_DAMAGE=1: every kernel channel starts at GPU time 0. */
static int rank0, damage, ce;
static uint64_t user_tag;
#define FUNC_TAGS_MAX 16
static struct {
    char func[16];
    uint64_t tag;
} func_tags[FUNC_TAGS_MAX];
static int nfunc_tags;

/* SIMNCCL_PROFILER_TAG's FUNC=N list into func_tags. */
static void parse_func_tags(const char *text)
{
    while (*text && nfunc_tags < FUNC_TAGS_MAX) {
        const char *eq = strchr(text, '='), *comma;
        size_t len;
        if (!eq)
            return;
        len = (size_t)(eq - text);
        if (len >= sizeof func_tags[0].func)
            len = sizeof func_tags[0].func - 1;
        memcpy(func_tags[nfunc_tags].func, text, len);
        func_tags[nfunc_tags].func[len] = '\0';
        func_tags[nfunc_tags].tag = strtoull(eq + 1, NULL, 0);
        nfunc_tags++;
        comma = strchr(eq, ',');
        if (!comma)
            return;
        text = comma + 1;
    }
}

/* The user tag of a call of function func. */
static uint64_t tag_of(const char *func)
{
    int i;

    if (!nfunc_tags)
        return user_tag;
    for (i = 0; func && i < nfunc_tags; i++)
        if (strcasecmp(func_tags[i].func, func) == 0)
            return func_tags[i].tag;
    return 0;
}

static uint64_t device_timer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
           DEVICE_TIMER_OFFSET_NS;
}

static void *open_plugin(const char *name)
{
    char path[512];
    void *h;

    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h || strchr(name, '/'))
        return h;
    snprintf(path, sizeof path, "libnccl-profiler-%s.so", name);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void load(void)
{
    const char *name = getenv("NCCL_PROFILER_PLUGIN");
    const char *start = getenv("SIMNCCL_PROFILER_API");
    unsigned from = start && *start ? (unsigned)atoi(start) : 5;

    if (!name || !*name || strcasecmp(name, "none") == 0)
        return;
    rank0 = getenv("SIMNCCL_PROFILER_RANK0") != NULL;
    damage = getenv("SIMNCCL_PROFILER_DAMAGE") != NULL;
    /* SIMNCCL_PROFILER_CE=1 (v6+): all-gathers of a communicator within
     * one node reported as copy-engine collectives, from their launch to
     * the end of their data movement (NCCL copies over NVLink only: an
     * all-gather across nodes stays a kernel's) */
    ce = getenv("SIMNCCL_PROFILER_CE") != NULL;
    if (getenv("SIMNCCL_PROFILER_TAG")) {
        const char *t = getenv("SIMNCCL_PROFILER_TAG");
        if (strchr(t, '='))
            parse_func_tags(t);
        else
            user_tag = strtoull(t, NULL, 0);
    }
    lib = open_plugin(name);
    if (!lib)
        return;
    if (from >= 7 && (v7 = dlsym(lib, "ncclProfiler_v7")) != NULL)
        api = 7;
    else if (from >= 6 && (v5 = dlsym(lib, "ncclProfiler_v6")) != NULL)
        api = 6;
    else if (from >= 5 && (v5 = dlsym(lib, "ncclProfiler_v5")) != NULL)
        api = 5;
    else if (from >= 4 && (v4 = dlsym(lib, "ncclProfiler_v4")) != NULL)
        api = 4;
    else if (from >= 3 && (v3 = dlsym(lib, "ncclProfiler_v3")) != NULL)
        api = 3;
    else if (from <= 2) {
        /* v2 / v1: only init, to see the plugin decline */
        const ncclProfiler_v2_t *old =
            dlsym(lib, from == 2 ? "ncclProfiler_v2" : "ncclProfiler_v1");
        void *ctx = NULL;
        int m = 0;
        if (old && old->init(&ctx, &m) == ncclSuccess && old->finalize)
            old->finalize(ctx); /* a plugin that accepted: not profiled */
    }
    if (!api) {
        dlclose(lib);
        lib = NULL;
    }
}

int sim_prof_active(void)
{
    pthread_once(&load_once, load);
    return api != 0;
}

void *sim_prof_comm(struct ncclComm *comm)
{
    int nnodes = 0, i, j;
    ncclResult_t rc = ncclInternalError;

    if (comm->prof_tried)
        return comm->prof_ctx;
    comm->prof_tried = 1;
    if (!sim_prof_active())
        return NULL;
    for (i = 0; i < comm->nranks; i++) {
        for (j = 0; j < i; j++)
            if (strcmp(comm->nodes[i], comm->nodes[j]) == 0)
                break;
        nnodes += j == i;
    }
    comm->prof_nodes = nnodes;
    /* NCCL's commHash is equal on every member: the nonce is too. */
    if (api == 7)
        rc = v7->init(&comm->prof_ctx, comm->nonce, &mask, NULL, nnodes,
                      comm->nranks, comm->rank, NULL);
    else if (api >= 5)
        rc = v5->init(&comm->prof_ctx, comm->nonce, &mask, NULL, nnodes,
                      comm->nranks, comm->rank, NULL);
    else if (api == 4)
        rc = v4->init(&comm->prof_ctx, &mask, NULL, comm->nonce, nnodes,
                      comm->nranks, comm->rank, NULL);
    else if (api == 3)
        rc = v3->init(&comm->prof_ctx, &mask);
    if (rc != ncclSuccess)
        comm->prof_ctx = NULL; /* as NCCL: continue without profiler */
    /* as NCCL's RAS may: a mask widened for the whole job after init */
    if (comm->prof_ctx && getenv("SIMNCCL_PROFILER_MASK"))
        mask = (int)strtol(getenv("SIMNCCL_PROFILER_MASK"), NULL, 0);
    return comm->prof_ctx;
}

void sim_prof_comm_fini(struct ncclComm *comm)
{
    if (!comm->prof_ctx)
        return;
    if (api == 7)
        v7->finalize(comm->prof_ctx);
    else if (api >= 5)
        v5->finalize(comm->prof_ctx);
    else if (api == 4)
        v4->finalize(comm->prof_ctx);
    else if (api == 3)
        v3->finalize(comm->prof_ctx);
    comm->prof_ctx = NULL;
}

/* ---- a version-neutral event, turned into the version's descriptor ------ */

struct ev {
    unsigned type;
    void *parent, *group;
    int rank;
    const char *func, *datatype, *algo, *proto;
    size_t count;
    uint64_t seq;
    int root;
    int peer, nsteps, chunk, is_send, step;
    uint64_t ptimer;
    int graph;
};

static void *start(struct ncclComm *comm, const struct ev *e)
{
    void *h = NULL;

    if (!comm->prof_ctx || !(mask & (int)e->type))
        return NULL;
    if (api == 7) {
        ncclProfilerEventDescr_v7_t d;
        memset(&d, 0, sizeof d);
        d.type = e->type;
        d.parentObj = e->parent;
        d.rank = rank0 ? 0 : comm->rank;
        switch (e->type) {
        case ncclProfileCollApi:
            d.collApi.func = e->func;
            d.collApi.count = e->count;
            d.collApi.datatype = e->datatype;
            d.collApi.root = e->root;
            d.collApi.graphCaptured = e->graph != 0;
            d.collApi.userTag = tag_of(e->func);
            break;
        case ncclProfileP2pApi:
            d.p2pApi.func = e->func;
            d.p2pApi.count = e->count;
            d.p2pApi.datatype = e->datatype;
            d.p2pApi.graphCaptured = e->graph != 0;
            d.p2pApi.userTag = tag_of(e->func);
            break;
        case ncclProfileColl:
            d.coll.seqNumber = e->seq;
            d.coll.func = e->func;
            d.coll.count = e->count;
            d.coll.root = e->root;
            d.coll.datatype = e->datatype;
            d.coll.nChannels = 1;
            d.coll.nWarps = 16;
            d.coll.algo = e->algo;
            d.coll.proto = e->proto;
            d.coll.parentGroup = e->group;
            d.coll.kernelVariant = "simnccl_ring_simple";
            d.coll.userTag = tag_of(e->func);
            break;
        case ncclProfileP2p:
            d.p2p.func = e->func;
            d.p2p.datatype = e->datatype;
            d.p2p.count = e->count;
            d.p2p.peer = e->peer;
            d.p2p.nChannels = 1;
            d.p2p.parentGroup = e->group;
            d.p2p.userTag = tag_of(e->func);
            break;
        case ncclProfileProxyOp:
            d.proxyOp.pid = getpid();
            d.proxyOp.peer = e->peer;
            d.proxyOp.nSteps = e->nsteps;
            d.proxyOp.chunkSize = e->chunk;
            d.proxyOp.isSend = e->is_send;
            break;
        case ncclProfileProxyStep:
            d.proxyStep.step = e->step;
            break;
        case ncclProfileKernelCh:
            d.kernelCh.pTimer = e->ptimer;
            break;
        case ncclProfileCeColl:
            d.ceColl.seqNumber = e->seq;
            d.ceColl.func = e->func;
            d.ceColl.count = e->count;
            d.ceColl.root = e->root;
            d.ceColl.datatype = e->datatype;
            d.ceColl.syncStrategy = "simnccl";
            d.ceColl.userTag = tag_of(e->func);
            break;
        case ncclProfileKernelPhase:
            d.kernelPhase.phaseId = (uint8_t)e->step;
            d.kernelPhase.phaseName =
                e->step == 0 ? "initial_sync" : "compute";
            d.kernelPhase.pTimer = e->ptimer;
            break;
        default:
            break;
        }
        v7->startEvent(comm->prof_ctx, &h, &d);
    } else if (api >= 5) {
        ncclProfilerEventDescr_v5_t d;
        memset(&d, 0, sizeof d);
        d.type = e->type;
        d.parentObj = e->parent;
        d.rank = rank0 ? 0 : comm->rank;
        switch (e->type) {
        case ncclProfileCollApi:
            d.collApi.func = e->func;
            d.collApi.count = e->count;
            d.collApi.datatype = e->datatype;
            d.collApi.root = e->root;
            d.collApi.graphCaptured = e->graph != 0;
            break;
        case ncclProfileP2pApi:
            d.p2pApi.func = e->func;
            d.p2pApi.count = e->count;
            d.p2pApi.datatype = e->datatype;
            d.p2pApi.graphCaptured = e->graph != 0;
            break;
        case ncclProfileCeColl:
            d.ceColl.seqNumber = e->seq;
            d.ceColl.func = e->func;
            d.ceColl.count = e->count;
            d.ceColl.root = e->root;
            d.ceColl.datatype = e->datatype;
            d.ceColl.syncStrategy = "simnccl";
            break;
        case ncclProfileColl:
            d.coll.seqNumber = e->seq;
            d.coll.func = e->func;
            d.coll.count = e->count;
            d.coll.root = e->root;
            d.coll.datatype = e->datatype;
            d.coll.nChannels = 1;
            d.coll.nWarps = 16;
            d.coll.algo = e->algo;
            d.coll.proto = e->proto;
            d.coll.parentGroup = e->group;
            break;
        case ncclProfileP2p:
            d.p2p.func = e->func;
            d.p2p.datatype = e->datatype;
            d.p2p.count = e->count;
            d.p2p.peer = e->peer;
            d.p2p.nChannels = 1;
            d.p2p.parentGroup = e->group;
            break;
        case ncclProfileProxyOp:
            d.proxyOp.pid = getpid();
            d.proxyOp.peer = e->peer;
            d.proxyOp.nSteps = e->nsteps;
            d.proxyOp.chunkSize = e->chunk;
            d.proxyOp.isSend = e->is_send;
            break;
        case ncclProfileProxyStep:
            d.proxyStep.step = e->step;
            break;
        case ncclProfileKernelCh:
            d.kernelCh.pTimer = e->ptimer;
            break;
        default:
            break;
        }
        v5->startEvent(comm->prof_ctx, &h, &d);
    } else if (api == 4) {
        ncclProfilerEventDescr_v4_t d;
        memset(&d, 0, sizeof d);
        d.type = (uint8_t)e->type;
        d.parentObj = e->parent;
        d.rank = comm->rank;
        switch (e->type) {
        case ncclProfileColl:
            d.coll.seqNumber = e->seq;
            d.coll.func = e->func;
            d.coll.count = e->count;
            d.coll.root = e->root;
            d.coll.datatype = e->datatype;
            d.coll.nChannels = 1;
            d.coll.nWarps = 16;
            d.coll.algo = e->algo;
            d.coll.proto = e->proto;
            break;
        case ncclProfileP2p:
            d.p2p.func = e->func;
            d.p2p.datatype = e->datatype;
            d.p2p.count = e->count;
            d.p2p.peer = e->peer;
            d.p2p.nChannels = 1;
            break;
        case ncclProfileProxyOp:
            d.proxyOp.pid = getpid();
            d.proxyOp.peer = e->peer;
            d.proxyOp.nSteps = e->nsteps;
            d.proxyOp.chunkSize = e->chunk;
            d.proxyOp.isSend = e->is_send;
            break;
        case ncclProfileProxyStep:
            d.proxyStep.step = e->step;
            break;
        case ncclProfileKernelCh:
            d.kernelCh.pTimer = e->ptimer;
            break;
        default:
            break;
        }
        v4->startEvent(comm->prof_ctx, &h, &d);
    } else if (api == 3) {
        ncclProfilerEventDescr_v3_t d;
        memset(&d, 0, sizeof d);
        d.type = (uint8_t)e->type;
        d.parentObj = e->parent;
        d.rank = comm->rank;
        switch (e->type) {
        case ncclProfileColl:
            d.coll.commHash = comm->nonce;
            d.coll.seqNumber = e->seq;
            d.coll.func = e->func;
            d.coll.count = e->count;
            d.coll.root = e->root;
            d.coll.datatype = e->datatype;
            d.coll.nMaxChannels = 1;
            d.coll.nWarps = 16;
            d.coll.algo = e->algo;
            d.coll.proto = e->proto;
            break;
        case ncclProfileP2p:
            d.p2p.commHash = comm->nonce;
            d.p2p.func = e->func;
            d.p2p.datatype = e->datatype;
            d.p2p.count = e->count;
            d.p2p.peer = e->peer;
            break;
        case ncclProfileProxyOp:
            d.proxyOp.pid = getpid();
            d.proxyOp.peer = e->peer;
            d.proxyOp.nSteps = e->nsteps;
            d.proxyOp.chunkSize = e->chunk;
            d.proxyOp.isSend = e->is_send;
            break;
        case ncclProfileProxyStep:
            d.proxyStep.step = e->step;
            break;
        default:
            break;
        }
        v3->startEvent(comm->prof_ctx, &h, &d);
    }
    return h;
}

static void stop(void *h)
{
    if (!h)
        return;
    if (api == 7)
        v7->stopEvent(h);
    else if (api >= 5)
        v5->stopEvent(h);
    else if (api == 4)
        v4->stopEvent(h);
    else if (api == 3)
        v3->stopEvent(h);
}

static void state(void *h, ncclProfilerEventState_t s, size_t trans,
                  uint64_t ptimer)
{
    if (!h)
        return;
    if (api >= 4) {
        ncclProfilerEventStateArgs_v4_t a;
        memset(&a, 0, sizeof a);
        if (s == ncclProfilerKernelChStop || s == ncclProfilerKernelPhaseStop)
            a.kernelCh.pTimer = ptimer;
        else
            a.proxyStep.transSize = trans;
        if (api == 7)
            v7->recordEventState(h, s, &a);
        else if (api >= 5)
            v5->recordEventState(h, s, &a);
        else
            v4->recordEventState(h, s, &a);
    } else if (api == 3) {
        ncclProfilerEventStateArgs_v3_t a;
        memset(&a, 0, sizeof a);
        v3->recordEventState(h, s, &a);
    }
}

/* ---- NCCL's names -------------------------------------------------------- */

static const char *const func_name[] = {
    [SIM_OP_ALLREDUCE] = "AllReduce",     [SIM_OP_BROADCAST] = "Broadcast",
    [SIM_OP_REDUCE] = "Reduce",           [SIM_OP_ALLGATHER] = "AllGather",
    [SIM_OP_REDUCESCATTER] = "ReduceScatter",
    [SIM_OP_ALLTOALL] = "AlltoAll",       [SIM_OP_GATHER] = "Gather",
    [SIM_OP_SCATTER] = "Scatter",         [SIM_OP_SEND] = "Send",
    [SIM_OP_RECV] = "Recv",
};

static const char *datatype_name(ncclDataType_t t)
{
    static const char *const name[12] = {
        "ncclInt8",    "ncclUint8",   "ncclInt32",   "ncclUint32",
        "ncclInt64",   "ncclUint64",  "ncclFloat16", "ncclFloat32",
        "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
    return (unsigned)t < 12 ? name[t] : "unknown";
}

/* simnccl's algorithms: rings for the all-* collectives, a pipelined chain
 * (NCCL calls its chain a ring too) for broadcast and reduce, pairwise
 * exchanges for the rest; one protocol, NCCL's "Simple". */
static const char *algo_name(const struct sim_op *op)
{
    (void)op;
    return "Ring";
}

/* the copy-engine collectives in flight (their handles) */
#define OPEN_CE 1024
static pthread_mutex_t ce_lock = PTHREAD_MUTEX_INITIALIZER;
static void *open_ce[OPEN_CE];

static void ce_put(void *h)
{
    int i;
    pthread_mutex_lock(&ce_lock);
    for (i = 0; i < OPEN_CE && open_ce[i]; i++)
        ;
    if (i < OPEN_CE)
        open_ce[i] = h;
    pthread_mutex_unlock(&ce_lock);
}

static int ce_take(void *h)
{
    int i, found = 0;
    pthread_mutex_lock(&ce_lock);
    for (i = 0; i < OPEN_CE; i++)
        if (open_ce[i] == h) {
            open_ce[i] = NULL;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&ce_lock);
    return found;
}

void *sim_prof_api(struct ncclComm *comm, const struct sim_op *op, int graph)
{
    struct ev e;
    void *h;

    if (!sim_prof_comm(comm) || api < 5)
        return NULL;
    memset(&e, 0, sizeof e);
    e.type = sim_coll_is_p2p(op->kind) ? ncclProfileP2pApi : ncclProfileCollApi;
    e.func = func_name[op->kind];
    e.datatype = datatype_name(op->datatype);
    e.count = op->count;
    e.root = op->root;
    e.graph = graph;
    h = start(comm, &e);
    stop(h); /* the API call returns at once */
    return h;
}

void sim_prof_launch(const struct sim_op *ops, void *const *api_ev, size_t n,
                     void **tasks)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct ncclComm *comm = ops[i].comm;
        struct ev e;
        void *group = NULL;

        tasks[i] = NULL;
        if (!sim_prof_comm(comm))
            continue;
        memset(&e, 0, sizeof e);
        e.type = ncclProfileGroup;
        if (mask & ncclProfileGroup)
            group = start(comm, &e);
        memset(&e, 0, sizeof e);
        e.func = func_name[ops[i].kind];
        e.datatype = datatype_name(ops[i].datatype);
        e.count = ops[i].count;
        e.group = group;
        e.parent = api >= 5 ? api_ev[i] : group;
        if (sim_coll_is_p2p(ops[i].kind)) {
            e.type = ncclProfileP2p;
            e.peer = ops[i].root;
        } else {
            e.type = ncclProfileColl;
            e.root = ops[i].root;
            e.seq = comm->prof_seq[ops[i].kind]++;
            e.algo = algo_name(&ops[i]);
            e.proto = "Simple";
        }
        if (ce && api >= 6 && ops[i].kind == SIM_OP_ALLGATHER &&
            comm->prof_nodes == 1) {
            /* a copy-engine collective: no kernel; it stops when its data
             * has moved (sim_prof_kernel_stop).  Only within a node: the
             * copy engines reach the node's peers alone */
            e.type = ncclProfileCeColl;
            tasks[i] = start(comm, &e);
            if (tasks[i])
                ce_put(tasks[i]);
            stop(group);
            continue;
        }
        /* NCCL starts and stops the task around the kernel launch */
        tasks[i] = start(comm, &e);
        stop(tasks[i]);
        stop(group);
    }
}

void *sim_prof_proxy_start(struct ncclComm *comm, void *task, int peer,
                           int is_send, int nsteps, size_t chunk)
{
    struct ev e;

    memset(&e, 0, sizeof e);
    e.type = ncclProfileProxyOp;
    e.parent = task;
    e.peer = peer;
    e.is_send = is_send;
    e.nsteps = nsteps;
    e.chunk = chunk > INT32_MAX ? INT32_MAX : (int)chunk;
    return start(comm, &e);
}

void sim_prof_proxy_stop(void *op)
{
    stop(op);
}

void *sim_prof_step_start(struct ncclComm *comm, void *op, int step,
                          int is_send, size_t bytes)
{
    struct ev e;
    void *h;

    if (!op)
        return NULL;
    memset(&e, 0, sizeof e);
    e.type = ncclProfileProxyStep;
    e.parent = op;
    e.step = step;
    h = start(comm, &e);
    if (is_send)
        state(h, ncclProfilerProxyStepSendGPUWait, bytes, 0);
    return h;
}

void sim_prof_step_posted(void *step, int is_send, size_t bytes)
{
    state(step,
          is_send ? ncclProfilerProxyStepSendWait
                  : ncclProfilerProxyStepRecvWait,
          bytes, 0);
}

void sim_prof_step_done(void *step, int is_send, size_t bytes)
{
    if (!is_send)
        state(step, ncclProfilerProxyStepRecvGPUWait, bytes, 0);
    stop(step);
}

/* the open phases of the kernel channels (v7): kernel channel -> phase */
#define OPEN_PHASES 1024
static pthread_mutex_t phase_lock = PTHREAD_MUTEX_INITIALIZER;
static void *open_kch[OPEN_PHASES], *open_phase[OPEN_PHASES];

static void phase_put(void *kch, void *ph)
{
    int i;
    pthread_mutex_lock(&phase_lock);
    for (i = 0; i < OPEN_PHASES; i++)
        if (!open_kch[i]) {
            open_kch[i] = kch;
            open_phase[i] = ph;
            break;
        }
    pthread_mutex_unlock(&phase_lock);
    if (i == OPEN_PHASES) /* no room: the phase ends at once */
        stop(ph);
}

static void *phase_take(void *kch)
{
    void *ph = NULL;
    int i;
    pthread_mutex_lock(&phase_lock);
    for (i = 0; i < OPEN_PHASES; i++)
        if (open_kch[i] == kch) {
            ph = open_phase[i];
            open_kch[i] = NULL;
            break;
        }
    pthread_mutex_unlock(&phase_lock);
    return ph;
}

/* Start phase `phase` of kernel channel kch (v7), kept until it ends. */
static void phase_start(struct ncclComm *comm, void *kch, int phase)
{
    struct ev e;
    void *ph;

    memset(&e, 0, sizeof e);
    e.type = ncclProfileKernelPhase;
    e.parent = kch;
    e.step = phase;
    e.ptimer = device_timer();
    ph = start(comm, &e);
    if (ph)
        phase_put(kch, ph);
}

/* End kch's open phase, if any (v7). */
static void phase_end(void *kch)
{
    void *ph = phase_take(kch);

    if (ph) {
        state(ph, ncclProfilerKernelPhaseStop, 0, device_timer());
        stop(ph);
    }
}

int sim_prof_phases(void)
{
    return sim_prof_active() && api >= 7;
}

void *sim_prof_kernel_start(struct ncclComm *comm, void *task,
                            int initial_sync)
{
    struct ev e;
    void *kch;

    if (!task)
        return NULL;
    if (ce) {
        /* a copy-engine collective has no kernel: its own handle marks it */
        pthread_mutex_lock(&ce_lock);
        for (int i = 0; i < OPEN_CE; i++)
            if (open_ce[i] == task) {
                pthread_mutex_unlock(&ce_lock);
                return task;
            }
        pthread_mutex_unlock(&ce_lock);
    }
    memset(&e, 0, sizeof e);
    e.type = ncclProfileKernelCh;
    e.parent = task;
    e.ptimer = damage ? 0 : device_timer();
    kch = start(comm, &e);
    /* v7: the channel's phases under it: the initial sync until every rank
     * has come (sim_prof_kernel_synced), else the compute phase at once */
    if (kch && api >= 7)
        phase_start(comm, kch, initial_sync ? 0 : 1);
    return kch;
}

void sim_prof_kernel_synced(struct ncclComm *comm, void *kch)
{
    int copy_engine = 0;

    if (!kch || api < 7)
        return;
    if (ce) {
        pthread_mutex_lock(&ce_lock);
        for (int i = 0; i < OPEN_CE; i++)
            copy_engine |= open_ce[i] == kch;
        pthread_mutex_unlock(&ce_lock);
    }
    if (copy_engine)
        return;
    phase_end(kch);
    phase_start(comm, kch, 1);
}

void sim_prof_kernel_stop(void *kch)
{
    if (!kch)
        return;
    if (ce && ce_take(kch)) {
        stop(kch); /* the copy-engine collective's data has moved */
        return;
    }
    if (api >= 7)
        phase_end(kch);
    state(kch, ncclProfilerKernelChStop, 0, device_timer());
    stop(kch);
}

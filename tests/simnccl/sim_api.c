/* sim_api.c - the exported NCCL API of simnccl: argument checks like
 * NCCL's, group handling, and the pncclX aliases.
 *
 * Data movers check their arguments, then either run at once (blocking) or,
 * between ncclGroupStart and ncclGroupEnd, wait in the calling thread's
 * group list for the outermost ncclGroupEnd, which runs them all together.
 * ncclCommInitRank* and ncclCommSplit inside a group are deferred the same
 * way and run in parallel threads at ncclGroupEnd, before the operations.
 * Entry points never call each other through exported names (a profiler
 * interposing on those names would count a call twice).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_nccl.h"
#include "sim_boot.h"
#include "sim_coll.h"
#include "sim_comm.h"
#include "sim_dtype.h"
#include "sim_error.h"
#include "sim_fault.h"
#include "sim_exec.h"
#include "sim_prof.h"
#include "simnccl_graph.h"

#define SIM_EXPORT __attribute__((visibility("default")))
#define SIM_VERSION_CODE 22809

/* NCCL's group state is per thread; so is ours. */
static __thread int group_depth;
static __thread struct sim_op *group_ops;
static __thread size_t group_n, group_cap;
static __thread ncclResult_t group_error;

/* Communicator creations called inside a group.  NCCL lets one thread
 * create several communicators between ncclGroupStart and ncclGroupEnd (one
 * per GPU it drives); each creation waits for its peers, so the outermost
 * ncclGroupEnd runs them in parallel, one thread each. */
enum create_kind { CREATE_INIT, CREATE_SPLIT };

struct creation {
    enum create_kind kind;
    ncclComm_t *out;
    int nranks, rank;  /* init */
    ncclUniqueId id;   /* init */
    ncclComm_t parent; /* split */
    int color, key;    /* split */
    ncclResult_t rc;
    char message[512]; /* the worker thread's error text */
    pthread_t thread;
    int started;
};

static __thread struct creation *group_creations;
static __thread size_t group_n_creations, group_cap_creations;

static const char *result_text(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess:
        return "no error";
    case ncclUnhandledCudaError:
        return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
        return "unhandled system error (run with NCCL_DEBUG=INFO for "
               "details)";
    case ncclInternalError:
        return "internal error - please report this issue to the NCCL "
               "developers";
    case ncclInvalidArgument:
        return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
        return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
        return "remote process exited or there was a network error";
    case ncclInProgress:
        return "NCCL operation in progress";
    default:
        return "unknown result code";
    }
}

/* healthy: also refuse a communicator broken by an earlier failure. */
static ncclResult_t check_comm(ncclComm_t comm, const char *fn, int healthy)
{
    if (!comm)
        return sim_error(ncclInvalidArgument, "%s: comm is NULL", fn);
    if (comm->magic != SIM_COMM_MAGIC)
        return sim_error(ncclInvalidArgument,
                         "%s: comm is not a live simnccl communicator", fn);
    if (healthy && comm->async_error != ncclSuccess)
        return sim_error(comm->async_error,
                         "%s: the communicator failed earlier (%s); destroy "
                         "or shrink it",
                         fn, result_text(comm->async_error));
    return ncclSuccess;
}

static ncclResult_t check_config(const ncclConfig_t *config, const char *fn)
{
    if (!config)
        return ncclSuccess;
    if (config->size < offsetof(ncclConfig_t, magic) + sizeof config->magic ||
        config->magic != NCCL_CONFIG_MAGIC)
        return sim_error(ncclInvalidArgument,
                         "%s: config was not set up with "
                         "NCCL_CONFIG_INITIALIZER (bad size or magic)",
                         fn);
    return ncclSuccess;
}

/* ---- running operations ------------------------------------------------ */

/* One plan per communicator, in order of first use.  Send/recv go first,
 * all posted at once so that they progress together; the collectives
 * follow in call order.  The two kinds use separate connections, so their
 * relative order never affects matching. */
/* A CUDA graph of simnccl (simncclGraph*): the captured operations, each
 * with the API event the profiler got at capture time. */
struct simnccl_graph {
    struct sim_op *ops;
    void **api;
    size_t n, cap;
};

static __thread struct simnccl_graph *capturing;

/* 1 when one of the n operations is a collective of comm. */
static int has_collective(const struct sim_op *ops, size_t n,
                          const struct ncclComm *comm)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (ops[i].comm == comm && !sim_coll_is_p2p(ops[i].kind))
            return 1;
    return 0;
}

/* Run n operations together.  api[i]: op i's profiler API event from the
 * capture (graph replays), or NULL to make one now. */
static ncclResult_t run_ops_api(const struct sim_op *ops, size_t n,
                                void *const *graph_api)
{
    struct sim_plan **plans = calloc(n ? n : 1, sizeof *plans);
    void **tasks = NULL, **api = NULL;
    ncclResult_t rc = ncclSuccess;
    size_t i, j, n_plans = 0;
    int pass;

    if (!plans)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    if (sim_prof_active()) {
        tasks = calloc(n ? n : 1, sizeof *tasks);
        api = calloc(n ? n : 1, sizeof *api);
        if (!tasks || !api) {
            free(tasks);
            free(api);
            tasks = api = NULL;
        } else {
            for (i = 0; i < n; i++)
                api[i] = graph_api ? graph_api[i]
                                   : sim_prof_api(ops[i].comm, &ops[i], 0);
            sim_prof_launch(ops, api, n, tasks);
        }
    }
    for (pass = 0; pass < 2 && rc == ncclSuccess; pass++) {
        for (i = 0; i < n; i++) {
            struct sim_plan *plan = NULL;

            if (sim_coll_is_p2p(ops[i].kind) != (pass == 0))
                continue;
            for (j = 0; j < n_plans && !plan; j++)
                if (sim_plan_comm(plans[j]) == ops[i].comm)
                    plan = plans[j];
            if (!plan) {
                plan = sim_plan_create(ops[i].comm);
                if (!plan) {
                    rc = sim_error(ncclSystemError, "simnccl: out of memory");
                    break;
                }
                plans[n_plans++] = plan;
                if (tasks)
                    sim_plan_profile(plan, tasks, n);
                /* a plan with a collective starts with the kernels'
                 * initial sync, whose phase v7 reports (every member has
                 * that collective in its group, so every member syncs) */
                if (tasks && sim_prof_phases() &&
                    has_collective(ops, n, ops[i].comm) &&
                    sim_plan_sync(plan) != 0) {
                    rc = sim_error(ncclSystemError, "simnccl: out of memory");
                    break;
                }
            }
            {
                size_t from = sim_plan_nsteps(plan);
                if (sim_coll_build(plan, &ops[i]) != 0) {
                    rc = sim_error(ncclSystemError, "simnccl: out of memory "
                                                    "planning an operation");
                    break;
                }
                sim_plan_tag(plan, from, (int)i);
            }
        }
    }
    if (rc == ncclSuccess && n_plans > 0)
        rc = sim_exec_run(plans, (int)n_plans);
    for (j = 0; j < n_plans; j++)
        sim_plan_destroy(plans[j]);
    free(plans);
    free(tasks);
    free(api);
    return rc;
}

static ncclResult_t run_ops(const struct sim_op *ops, size_t n)
{
    return run_ops_api(ops, n, NULL);
}

/* Capture instead of running (simncclGraphBegin .. End). */
static ncclResult_t capture(const struct sim_op *op)
{
    struct simnccl_graph *g = capturing;

    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        struct sim_op *ops = realloc(g->ops, cap * sizeof *ops);
        void **api;
        if (!ops)
            return sim_error(ncclSystemError, "simnccl: out of memory");
        g->ops = ops;
        api = realloc(g->api, cap * sizeof *api);
        if (!api)
            return sim_error(ncclSystemError, "simnccl: out of memory");
        g->api = api;
        g->cap = cap;
    }
    g->ops[g->n] = *op;
    g->api[g->n] = sim_prof_active() ? sim_prof_api(op->comm, op, 1) : NULL;
    g->n++;
    return ncclSuccess;
}

/* Graph capture and replay: simnccl_graph.h. */
SIM_EXPORT ncclResult_t simncclGraphBegin(void)
{
    if (capturing || group_depth > 0)
        return sim_error(ncclInvalidUsage, "simncclGraphBegin: already "
                                           "capturing, or inside a group");
    capturing = calloc(1, sizeof *capturing);
    if (!capturing)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t simncclGraphEnd(void **graph)
{
    if (!capturing || !graph)
        return sim_error(ncclInvalidUsage, "simncclGraphEnd: not capturing");
    *graph = capturing;
    capturing = NULL;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t simncclGraphLaunch(void *graph)
{
    struct simnccl_graph *g = graph;

    if (!g || capturing || group_depth > 0)
        return sim_error(ncclInvalidUsage, "simncclGraphLaunch: no graph, or "
                                           "called while capturing or in a "
                                           "group");
    return g->n ? run_ops_api(g->ops, g->n, g->api) : ncclSuccess;
}

SIM_EXPORT void simncclGraphDestroy(void *graph)
{
    struct simnccl_graph *g = graph;

    if (!g)
        return;
    free(g->ops);
    free(g->api);
    free(g);
}

static ncclResult_t enqueue(const struct sim_op *op)
{
    if (group_n == group_cap) {
        size_t cap = group_cap ? group_cap * 2 : 16;
        struct sim_op *bigger = realloc(group_ops, cap * sizeof *bigger);
        if (!bigger)
            return sim_error(ncclSystemError, "simnccl: out of memory");
        group_ops = bigger;
        group_cap = cap;
    }
    group_ops[group_n++] = *op;
    return ncclSuccess;
}

static const char *const op_names[] = {
    [SIM_OP_ALLREDUCE] = "ncclAllReduce",
    [SIM_OP_BROADCAST] = "ncclBroadcast",
    [SIM_OP_REDUCE] = "ncclReduce",
    [SIM_OP_ALLGATHER] = "ncclAllGather",
    [SIM_OP_REDUCESCATTER] = "ncclReduceScatter",
    [SIM_OP_ALLTOALL] = "ncclAlltoAll",
    [SIM_OP_GATHER] = "ncclGather",
    [SIM_OP_SCATTER] = "ncclScatter",
    [SIM_OP_SEND] = "ncclSend",
    [SIM_OP_RECV] = "ncclRecv",
};

/* What each operation needs, for the checks. */
static int has_root(enum sim_op_kind k)
{
    return k == SIM_OP_BROADCAST || k == SIM_OP_REDUCE || k == SIM_OP_GATHER ||
           k == SIM_OP_SCATTER || k == SIM_OP_SEND || k == SIM_OP_RECV;
}

static int has_redop(enum sim_op_kind k)
{
    return k == SIM_OP_ALLREDUCE || k == SIM_OP_REDUCE ||
           k == SIM_OP_REDUCESCATTER;
}

/* Buffers that must be non-NULL when count > 0, on this rank. */
static void needed_buffers(const struct sim_op *op, int *send, int *recv)
{
    int is_root = op->comm->rank == op->root;

    *send = *recv = 1;
    switch (op->kind) {
    case SIM_OP_BROADCAST:
    case SIM_OP_SCATTER:
        *send = is_root;
        break;
    case SIM_OP_REDUCE:
    case SIM_OP_GATHER:
        *recv = is_root;
        break;
    case SIM_OP_SEND:
        *recv = 0;
        break;
    case SIM_OP_RECV:
        *send = 0;
        break;
    default:
        break;
    }
}

/* Elements of the larger buffer per count (p for the gathers, scatters,
 * all-to-all), to refuse sizes that overflow. */
static size_t buffer_scale(const struct sim_op *op)
{
    switch (op->kind) {
    case SIM_OP_ALLGATHER:
    case SIM_OP_REDUCESCATTER:
    case SIM_OP_ALLTOALL:
    case SIM_OP_GATHER:
    case SIM_OP_SCATTER:
        return (size_t)op->comm->nranks;
    default:
        return 1;
    }
}

static ncclResult_t submit(struct sim_op *op)
{
    const char *fn = op_names[op->kind];
    ncclResult_t rc;
    int need_send, need_recv, hang = 0;
    size_t es;

    rc = check_comm(op->comm, fn, 1);
    if (rc != ncclSuccess)
        goto out;
    hang = sim_fault_enter(op) && group_depth == 0;
    if (has_root(op->kind) && (op->root < 0 || op->root >= op->comm->nranks)) {
        rc = sim_error(ncclInvalidArgument, "%s: %s %d out of range [0, %d)",
                       fn,
                       op->kind == SIM_OP_SEND || op->kind == SIM_OP_RECV
                           ? "peer"
                           : "root",
                       op->root, op->comm->nranks);
        goto out;
    }
    es = sim_dtype_size((int)op->datatype);
    if (es == 0) {
        rc = sim_error(ncclInvalidArgument, "%s: invalid datatype %d", fn,
                       (int)op->datatype);
        goto out;
    }
    if (has_redop(op->kind) && ((int)op->redop < 0 || op->redop >= ncclNumOps)) {
        rc = sim_error(ncclInvalidArgument,
                       "%s: invalid reduction operation %d (simnccl has no "
                       "custom operations)",
                       fn, (int)op->redop);
        goto out;
    }
    if (op->count > SIZE_MAX / es / buffer_scale(op)) {
        rc = sim_error(ncclInvalidArgument, "%s: count %zu is too large", fn,
                       op->count);
        goto out;
    }
    needed_buffers(op, &need_send, &need_recv);
    if (op->count > 0 && ((need_send && !op->sendbuff) ||
                          (need_recv && !op->recvbuff))) {
        rc = sim_error(ncclInvalidArgument, "%s: %s is NULL with count %zu",
                       fn, need_send && !op->sendbuff ? "sendbuff" : "recvbuff",
                       op->count);
        goto out;
    }
    if (op->count == 0) /* NCCL returns at once, no synchronisation */
        goto out;
    if (capturing)
        rc = capture(op);
    else if (group_depth > 0)
        rc = enqueue(op);
    else
        rc = run_ops(op, 1);
    if (hang)
        sim_fault_hang();
out:
    /* An error inside a group fails the whole group at ncclGroupEnd. */
    if (rc != ncclSuccess && group_depth > 0 && group_error == ncclSuccess)
        group_error = rc;
    return rc;
}

/* ---- data movers ------------------------------------------------------- */

SIM_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff,
                                      size_t count, ncclDataType_t datatype,
                                      ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_ALLREDUCE, sendbuff, recvbuff, count,
                       datatype, op, 0, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff,
                                      size_t count, ncclDataType_t datatype,
                                      int root, ncclComm_t comm,
                                      cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_BROADCAST, sendbuff, recvbuff, count,
                       datatype, ncclSum, root, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclBcast(void *buff, size_t count,
                                  ncclDataType_t datatype, int root,
                                  ncclComm_t comm, cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_BROADCAST, buff, buff, count,
                       datatype, ncclSum, root, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff,
                                   size_t count, ncclDataType_t datatype,
                                   ncclRedOp_t op, int root, ncclComm_t comm,
                                   cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_REDUCE, sendbuff, recvbuff, count,
                       datatype, op, root, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                                      size_t sendcount,
                                      ncclDataType_t datatype, ncclComm_t comm,
                                      cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_ALLGATHER, sendbuff, recvbuff, sendcount,
                       datatype, ncclSum, 0, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff,
                                          void *recvbuff, size_t recvcount,
                                          ncclDataType_t datatype,
                                          ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_REDUCESCATTER, sendbuff, recvbuff, recvcount,
                       datatype, op, 0, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff,
                                     size_t count, ncclDataType_t datatype,
                                     ncclComm_t comm, cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_ALLTOALL, sendbuff, recvbuff, count,
                       datatype, ncclSum, 0, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclGather(const void *sendbuff, void *recvbuff,
                                   size_t count, ncclDataType_t datatype,
                                   int root, ncclComm_t comm,
                                   cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_GATHER, sendbuff, recvbuff, count,
                       datatype, ncclSum, root, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff,
                                    size_t count, ncclDataType_t datatype,
                                    int root, ncclComm_t comm,
                                    cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_SCATTER, sendbuff, recvbuff, count,
                       datatype, ncclSum, root, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count,
                                 ncclDataType_t datatype, int peer,
                                 ncclComm_t comm, cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_SEND, sendbuff, NULL, count,
                       datatype, ncclSum, peer, comm};
    return submit(&o);
}

SIM_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count,
                                 ncclDataType_t datatype, int peer,
                                 ncclComm_t comm, cudaStream_t stream)
{
    struct sim_op o = {SIM_OP_RECV, NULL, recvbuff, count,
                       datatype, ncclSum, peer, comm};
    return submit(&o);
}

static ncclResult_t defer_creation(const struct creation *c)
{
    if (group_n_creations == group_cap_creations) {
        size_t cap = group_cap_creations ? group_cap_creations * 2 : 8;
        struct creation *bigger =
            realloc(group_creations, cap * sizeof *bigger);
        if (!bigger)
            return sim_error(ncclSystemError, "simnccl: out of memory");
        group_creations = bigger;
        group_cap_creations = cap;
    }
    group_creations[group_n_creations++] = *c;
    return ncclSuccess;
}

static void *create_main(void *arg)
{
    struct creation *c = arg;

    if (c->kind == CREATE_INIT)
        c->rc = sim_boot_init_rank(c->out, c->nranks, &c->id, c->rank);
    else
        c->rc = sim_boot_split(c->parent, c->color, c->key, c->out);
    if (c->rc != ncclSuccess)
        snprintf(c->message, sizeof c->message, "%s", sim_error_last());
    return NULL;
}

/* Run the deferred creations together; the first failure is reported.
 * Splits of one parent must run one after the other (each is a collective
 * over the parent's connections), so they go in waves: the k-th split of
 * every parent in wave k, all of a wave in parallel. */
static ncclResult_t run_creations(struct creation *cs, size_t n)
{
    ncclResult_t rc = ncclSuccess;
    size_t i, j, wave, waves = 1, *wave_of = calloc(n, sizeof *wave_of);

    if (!wave_of)
        return sim_error(ncclSystemError, "simnccl: out of memory");
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++)
            if (cs[i].kind == CREATE_SPLIT && cs[j].kind == CREATE_SPLIT &&
                cs[j].parent == cs[i].parent)
                wave_of[i]++;
        if (wave_of[i] + 1 > waves)
            waves = wave_of[i] + 1;
    }
    for (wave = 0; wave < waves && rc == ncclSuccess; wave++) {
        size_t in_wave = 0;

        for (i = 0; i < n; i++)
            in_wave += wave_of[i] == wave;
        for (i = 0; i < n; i++)
            if (wave_of[i] == wave)
                cs[i].started = in_wave > 1 &&
                                pthread_create(&cs[i].thread, NULL,
                                               create_main, &cs[i]) == 0;
        /* A thread that could not start runs here (only safe when alone). */
        for (i = 0; i < n; i++)
            if (wave_of[i] == wave && !cs[i].started)
                create_main(&cs[i]);
        for (i = 0; i < n; i++) {
            if (wave_of[i] != wave)
                continue;
            if (cs[i].started)
                pthread_join(cs[i].thread, NULL);
            if (cs[i].rc != ncclSuccess && rc == ncclSuccess)
                rc = sim_error(cs[i].rc, "%s", cs[i].message);
        }
    }
    free(wave_of);
    return rc;
}

SIM_EXPORT ncclResult_t ncclGroupStart(void)
{
    if (group_depth == 0)
        group_error = ncclSuccess;
    group_depth++;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclGroupEnd(void)
{
    ncclResult_t rc;

    if (group_depth == 0)
        return sim_error(ncclInvalidUsage,
                         "ncclGroupEnd: no matching ncclGroupStart");
    if (--group_depth > 0)
        return ncclSuccess;
    rc = group_error;
    if (rc == ncclSuccess && group_n_creations > 0)
        rc = run_creations(group_creations, group_n_creations);
    if (rc == ncclSuccess && group_n > 0)
        rc = run_ops(group_ops, group_n);
    free(group_ops);
    group_ops = NULL;
    group_n = group_cap = 0;
    free(group_creations);
    group_creations = NULL;
    group_n_creations = group_cap_creations = 0;
    group_error = ncclSuccess;
    return rc;
}

/* ---- communicators ----------------------------------------------------- */

SIM_EXPORT ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return sim_error(ncclInvalidArgument, "ncclGetVersion: version is "
                                              "NULL");
    *version = SIM_VERSION_CODE;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    if (!uniqueId)
        return sim_error(ncclInvalidArgument,
                         "ncclGetUniqueId: uniqueId is NULL");
    return sim_boot_unique_id(uniqueId);
}

SIM_EXPORT const char *ncclGetErrorString(ncclResult_t result)
{
    return result_text(result);
}

SIM_EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
    return sim_error_last();
}

static ncclResult_t init_rank(ncclComm_t *comm, int nranks,
                              const ncclUniqueId *id, int rank,
                              const ncclConfig_t *config, const char *fn)
{
    ncclResult_t rc;

    if (!comm)
        return sim_error(ncclInvalidArgument, "%s: comm is NULL", fn);
    *comm = NULL;
    if (nranks < 1)
        return sim_error(ncclInvalidArgument, "%s: nranks %d is not positive",
                         fn, nranks);
    if (rank < 0 || rank >= nranks)
        return sim_error(ncclInvalidArgument,
                         "%s: rank %d out of range [0, %d)", fn, rank, nranks);
    rc = check_config(config, fn);
    if (rc == ncclSuccess && group_depth > 0) {
        struct creation c = {.kind = CREATE_INIT,
                             .out = comm,
                             .nranks = nranks,
                             .rank = rank,
                             .id = *id};
        rc = defer_creation(&c);
    } else if (rc == ncclSuccess) {
        rc = sim_boot_init_rank(comm, nranks, id, rank);
    }
    if (rc != ncclSuccess && group_depth > 0 && group_error == ncclSuccess)
        group_error = rc;
    return rc;
}

SIM_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                         ncclUniqueId commId, int rank)
{
    return init_rank(comm, nranks, &commId, rank, NULL, "ncclCommInitRank");
}

SIM_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                               ncclUniqueId commId, int rank,
                                               ncclConfig_t *config)
{
    return init_rank(comm, nranks, &commId, rank, config,
                     "ncclCommInitRankConfig");
}

SIM_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm,
                                                 int nranks, int myrank,
                                                 int nId,
                                                 ncclUniqueId *commIds,
                                                 ncclConfig_t *config)
{
    if (nId < 1 || !commIds)
        return sim_error(ncclInvalidArgument,
                         "ncclCommInitRankScalable: need at least one id "
                         "(nId %d)",
                         nId);
    /* One root serves any number of ranks here; the first id is enough. */
    return init_rank(newcomm, nranks, &commIds[0], myrank, config,
                     "ncclCommInitRankScalable");
}

SIM_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev,
                                        const int *devlist)
{
    int i, j;

    if (!comm)
        return sim_error(ncclInvalidArgument, "ncclCommInitAll: comm is NULL");
    if (ndev < 1)
        return sim_error(ncclInvalidArgument,
                         "ncclCommInitAll: ndev %d is not positive", ndev);
    for (i = 0; devlist && i < ndev; i++) {
        if (devlist[i] < 0)
            return sim_error(ncclInvalidArgument,
                             "ncclCommInitAll: devlist[%d] = %d is negative",
                             i, devlist[i]);
        for (j = 0; j < i; j++)
            if (devlist[j] == devlist[i])
                return sim_error(ncclInvalidUsage,
                                 "ncclCommInitAll: device %d listed twice",
                                 devlist[i]);
    }
    return sim_boot_init_all(comm, ndev, devlist);
}

static ncclResult_t comm_split(ncclComm_t comm, int color, int key,
                               ncclComm_t *newcomm, ncclConfig_t *config)
{
    const char *fn = "ncclCommSplit";
    ncclResult_t rc = check_comm(comm, fn, 1);

    if (rc != ncclSuccess)
        return rc;
    if (!newcomm)
        return sim_error(ncclInvalidArgument, "%s: newcomm is NULL", fn);
    *newcomm = NULL;
    if (color < 0 && color != NCCL_SPLIT_NOCOLOR)
        return sim_error(ncclInvalidArgument,
                         "%s: color %d is negative and not "
                         "NCCL_SPLIT_NOCOLOR",
                         fn, color);
    rc = check_config(config, fn);
    if (rc != ncclSuccess)
        return rc;
    if (comm->clique && comm->clique->size > 1)
        return sim_error(ncclInvalidUsage,
                         "%s: not supported on ncclCommInitAll "
                         "communicators in simnccl",
                         fn);
    if (group_depth > 0) {
        struct creation c = {.kind = CREATE_SPLIT,
                             .out = newcomm,
                             .parent = comm,
                             .color = color,
                             .key = key};
        return defer_creation(&c);
    }
    return sim_boot_split(comm, color, key, newcomm);
}

SIM_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                                      ncclComm_t *newcomm,
                                      ncclConfig_t *config)
{
    ncclResult_t rc = comm_split(comm, color, key, newcomm, config);

    if (rc != ncclSuccess && group_depth > 0 && group_error == ncclSuccess)
        group_error = rc;
    return rc;
}

SIM_EXPORT ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList,
                                       int excludeRanksCount,
                                       ncclComm_t *newcomm,
                                       ncclConfig_t *config, int shrinkFlags)
{
    const char *fn = "ncclCommShrink";
    ncclResult_t rc = check_comm(comm, fn, 0);
    int i;

    if (rc != ncclSuccess)
        return rc;
    if (!newcomm)
        return sim_error(ncclInvalidArgument, "%s: newcomm is NULL", fn);
    *newcomm = NULL;
    if (excludeRanksCount < 0 || (excludeRanksCount > 0 && !excludeRanksList))
        return sim_error(ncclInvalidArgument,
                         "%s: bad exclude list (count %d)", fn,
                         excludeRanksCount);
    if (shrinkFlags != 0 && shrinkFlags != 1)
        return sim_error(ncclInvalidArgument, "%s: unknown shrinkFlags %d", fn,
                         shrinkFlags);
    for (i = 0; i < excludeRanksCount; i++) {
        int r = excludeRanksList[i];
        if (r < 0 || r >= comm->nranks)
            return sim_error(ncclInvalidArgument,
                             "%s: excluded rank %d out of range [0, %d)", fn,
                             r, comm->nranks);
        if (r == comm->rank)
            return sim_error(ncclInvalidArgument,
                             "%s: rank %d is in its own exclude list", fn, r);
    }
    rc = check_config(config, fn);
    if (rc != ncclSuccess)
        return rc;
    if (comm->clique && comm->clique->size > 1)
        return sim_error(ncclInvalidUsage,
                         "%s: not supported on ncclCommInitAll "
                         "communicators in simnccl",
                         fn);
    return sim_boot_shrink(comm, excludeRanksList, excludeRanksCount, newcomm);
}

SIM_EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    /* Every operation is complete when its call returns: nothing to
     * flush. */
    return check_comm(comm, "ncclCommFinalize", 0);
}

SIM_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    ncclResult_t rc;

    if (!comm)
        return ncclSuccess; /* as NCCL */
    rc = check_comm(comm, "ncclCommDestroy", 0);
    if (rc == ncclSuccess)
        sim_comm_free(comm);
    return rc;
}

SIM_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    ncclResult_t rc;

    if (!comm)
        return ncclSuccess;
    rc = check_comm(comm, "ncclCommAbort", 0);
    if (rc == ncclSuccess)
        sim_comm_free(comm);
    return rc;
}

SIM_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    ncclResult_t rc = check_comm(comm, "ncclCommCount", 0);

    if (rc != ncclSuccess)
        return rc;
    if (!count)
        return sim_error(ncclInvalidArgument, "ncclCommCount: count is NULL");
    *count = comm->nranks;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    ncclResult_t rc = check_comm(comm, "ncclCommCuDevice", 0);

    if (rc != ncclSuccess)
        return rc;
    if (!device)
        return sim_error(ncclInvalidArgument,
                         "ncclCommCuDevice: device is NULL");
    *device = comm->cuda_device;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    ncclResult_t rc = check_comm(comm, "ncclCommUserRank", 0);

    if (rc != ncclSuccess)
        return rc;
    if (!rank)
        return sim_error(ncclInvalidArgument, "ncclCommUserRank: rank is NULL");
    *rank = comm->rank;
    return ncclSuccess;
}

SIM_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm,
                                              ncclResult_t *asyncError)
{
    ncclResult_t rc = check_comm(comm, "ncclCommGetAsyncError", 0);

    if (rc != ncclSuccess)
        return rc;
    if (!asyncError)
        return sim_error(ncclInvalidArgument,
                         "ncclCommGetAsyncError: asyncError is NULL");
    *asyncError = comm->async_error;
    return ncclSuccess;
}

/* NCCL exports every entry point twice, as ncclX and pncclX (the profiling
 * interface); tools may look for either. */
#define SIM_ALIAS(name)                                                        \
    __typeof__(name) p##name                                                   \
        __attribute__((alias(#name), visibility("default")))

SIM_ALIAS(ncclGetVersion);
SIM_ALIAS(ncclGetUniqueId);
SIM_ALIAS(ncclGetErrorString);
SIM_ALIAS(ncclGetLastError);
SIM_ALIAS(ncclCommInitRank);
SIM_ALIAS(ncclCommInitRankConfig);
SIM_ALIAS(ncclCommInitRankScalable);
SIM_ALIAS(ncclCommInitAll);
SIM_ALIAS(ncclCommSplit);
SIM_ALIAS(ncclCommShrink);
SIM_ALIAS(ncclCommFinalize);
SIM_ALIAS(ncclCommDestroy);
SIM_ALIAS(ncclCommAbort);
SIM_ALIAS(ncclCommCount);
SIM_ALIAS(ncclCommCuDevice);
SIM_ALIAS(ncclCommUserRank);
SIM_ALIAS(ncclCommGetAsyncError);
SIM_ALIAS(ncclAllReduce);
SIM_ALIAS(ncclBroadcast);
SIM_ALIAS(ncclBcast);
SIM_ALIAS(ncclReduce);
SIM_ALIAS(ncclAllGather);
SIM_ALIAS(ncclReduceScatter);
SIM_ALIAS(ncclAlltoAll);
SIM_ALIAS(ncclGather);
SIM_ALIAS(ncclScatter);
SIM_ALIAS(ncclSend);
SIM_ALIAS(ncclRecv);
SIM_ALIAS(ncclGroupStart);
SIM_ALIAS(ncclGroupEnd);

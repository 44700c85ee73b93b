/* fakenccl.c - nccl/libnccl.so.2 of the GPU timer tests: an NCCL that
 * launches its collectives on the fake CUDA's streams (see fakecuda.h).
 *
 * Like NCCL: a call outside a group launches one kernel named
 * ncclDevKernel_<Coll>_... on its stream before returning; calls inside
 * GroupStart/End are queued and the outermost GroupEnd launches one kernel
 * (ncclDevKernel_Generic) for all of them; a communicator made with
 * config->blocking = 0 returns ncclInProgress and launches from a thread of
 * its own a little later (ncclCommGetAsyncError says when); with
 * FAKENCCL_CE=1 collectives are copy-engine memcpys.  Results are computed
 * on host memory (an all-reduce of float32 multiplies by nranks), so a test
 * can check that profiling changed nothing.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/cp_nccl.h"
#include "fakecuda.h"

#define EXPORT __attribute__((visibility("default")))

struct ncclComm {
    int nranks, rank, dev, nonblocking;
    int async; /* atomic ncclResult_t of the last non-blocking launch */
};

/* Per-thread group state through a key (LeakSanitizer and the dynamic TLS
 * of dlopen'd libraries do not mix). */
struct group_state {
    int depth, calls;
    void *stream;
    struct ncclComm *nonblocking;
};
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void make_key(void)
{
    pthread_key_create(&key, free);
}

static struct group_state *G(void)
{
    static struct group_state fallback;
    struct group_state *g;
    pthread_once(&key_once, make_key);
    g = pthread_getspecific(key);
    if (!g) {
        g = calloc(1, sizeof *g);
        if (!g || pthread_setspecific(key, g) != 0) {
            free(g);
            return &fallback;
        }
    }
    return g;
}

int cudaGetDevice(int *);

static uint64_t duration(size_t count)
{
    const char *v = getenv("FAKENCCL_KERNEL_NS");
    uint64_t t = v ? strtoull(v, NULL, 10) : 300000;
    return t + count / 64;
}

static int what(void)
{
    const char *v = getenv("FAKENCCL_CE");
    return v && strcmp(v, "1") == 0 ? FAKECUDA_MEMCPY : FAKECUDA_KERNEL;
}

struct job {
    struct ncclComm *comm;
    void *stream;
    const char *name;
    uint64_t dur;
};

static void *async_launch(void *arg)
{
    struct job *j = arg;
    usleep(2000); /* NCCL's thread gets to it a little later */
    fakecuda_launch(j->stream, j->name, what(), j->dur);
    __atomic_store_n(&j->comm->async, ncclSuccess, __ATOMIC_RELEASE);
    free(j);
    return NULL;
}

/* Launch (or, outside a group, queue) one collective's device work. */
static ncclResult_t launch(struct ncclComm *comm, void *stream,
                           const char *name, size_t count)
{
    struct group_state *g = G();
    if (g->depth > 0) {
        if (!g->calls++)
            g->stream = stream;
        if (comm->nonblocking)
            g->nonblocking = comm;
        return ncclSuccess;
    }
    if (comm->nonblocking) {
        pthread_t t;
        pthread_attr_t attr;
        struct job *j = malloc(sizeof *j);
        if (!j)
            return ncclSystemError;
        j->comm = comm;
        j->stream = stream;
        j->name = name;
        j->dur = duration(count);
        __atomic_store_n(&comm->async, ncclInProgress, __ATOMIC_RELEASE);
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, async_launch, j) != 0) {
            free(j);
            pthread_attr_destroy(&attr);
            return ncclSystemError;
        }
        pthread_attr_destroy(&attr);
        return ncclInProgress;
    }
    fakecuda_launch(stream, name, what(), duration(count));
    return ncclSuccess;
}

static ncclResult_t check(ncclComm_t comm, ncclDataType_t dt)
{
    if (!comm || (unsigned)dt >= ncclNumTypes)
        return ncclInvalidArgument;
    return ncclSuccess;
}

static ncclResult_t make(ncclComm_t *comm, int nranks, int rank,
                         const ncclConfig_t *config)
{
    int dev = 0;
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    *comm = calloc(1, sizeof **comm);
    if (!*comm)
        return ncclSystemError;
    (void)cudaGetDevice(&dev);
    (*comm)->nranks = nranks;
    (*comm)->rank = rank;
    (*comm)->dev = dev;
    (*comm)->nonblocking = config && config->blocking == 0;
    return (*comm)->nonblocking ? ncclInProgress : ncclSuccess;
}

EXPORT ncclResult_t ncclGetVersion(int *version)
{
    *version = 22809;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    memset(id, 0x42, sizeof *id);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                     ncclUniqueId id, int rank)
{
    (void)id;
    return make(comm, nranks, rank, NULL);
}

EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                           ncclUniqueId id, int rank,
                                           ncclConfig_t *config)
{
    (void)id;
    return make(comm, nranks, rank, config);
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *e)
{
    if (!comm || !e)
        return ncclInvalidArgument;
    *e = (ncclResult_t)__atomic_load_n(&comm->async, __ATOMIC_ACQUIRE);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    /* a non-blocking launch still in flight keeps it */
    if (__atomic_load_n(&comm->async, __ATOMIC_ACQUIRE) != ncclInProgress)
        free(comm);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm)
        return ncclInvalidArgument;
    *device = comm->dev;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclAllReduce(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, ncclRedOp_t op,
                                  ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    size_t i;
    (void)op;
    if (rc != ncclSuccess)
        return rc;
    if (dt == ncclFloat32 && s && r)
        for (i = 0; i < count; i++)
            ((float *)r)[i] = ((const float *)s)[i] * (float)comm->nranks;
    return launch(comm, st, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", count);
}

/* ncclReduce and ncclGetErrorString: for collprof bench, which needs them
 * (tests/bench-cli/gputimer.sh); the root gets the sum, as in
 * ncclAllReduce. */
EXPORT ncclResult_t ncclReduce(const void *s, void *r, size_t count,
                               ncclDataType_t dt, ncclRedOp_t op, int root,
                               ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    size_t i;
    (void)op;
    if (rc != ncclSuccess || root < 0 || root >= comm->nranks)
        return rc != ncclSuccess ? rc : ncclInvalidArgument;
    if (dt == ncclFloat32 && s && r && comm->rank == root)
        for (i = 0; i < count; i++)
            ((float *)r)[i] = ((const float *)s)[i] * (float)comm->nranks;
    return launch(comm, st, "ncclDevKernel_Reduce_Sum_f32_RING_LL", count);
}

EXPORT const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess:
        return "no error";
    case ncclInvalidArgument:
        return "invalid argument (fake NCCL)";
    case ncclSystemError:
        return "system error (fake NCCL)";
    case ncclInProgress:
        return "operation in progress (fake NCCL)";
    default:
        return "error (fake NCCL)";
    }
}

EXPORT ncclResult_t ncclBroadcast(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, int root, ncclComm_t comm,
                                  cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    (void)s;
    (void)r;
    if (rc != ncclSuccess || root < 0 || root >= comm->nranks)
        return rc != ncclSuccess ? rc : ncclInvalidArgument;
    return launch(comm, st, "ncclDevKernel_Broadcast_RING_LL", count);
}

EXPORT ncclResult_t ncclAllGather(const void *s, void *r, size_t count,
                                  ncclDataType_t dt, ncclComm_t comm,
                                  cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    (void)s;
    (void)r;
    if (rc != ncclSuccess)
        return rc;
    return launch(comm, st, "ncclDevKernel_AllGather_RING_LL", count);
}

EXPORT ncclResult_t ncclReduceScatter(const void *s, void *r, size_t count,
                                      ncclDataType_t dt, ncclRedOp_t op,
                                      ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    (void)s;
    (void)r;
    (void)op;
    if (rc != ncclSuccess)
        return rc;
    return launch(comm, st, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL",
                  count);
}

EXPORT ncclResult_t ncclSend(const void *s, size_t count, ncclDataType_t dt,
                             int peer, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    (void)s;
    if (rc != ncclSuccess || peer < 0 || peer >= comm->nranks)
        return rc != ncclSuccess ? rc : ncclInvalidArgument;
    return launch(comm, st, "ncclDevKernel_SendRecv", count);
}

EXPORT ncclResult_t ncclRecv(void *r, size_t count, ncclDataType_t dt,
                             int peer, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t rc = check(comm, dt);
    (void)r;
    if (rc != ncclSuccess || peer < 0 || peer >= comm->nranks)
        return rc != ncclSuccess ? rc : ncclInvalidArgument;
    return launch(comm, st, "ncclDevKernel_SendRecv", count);
}

EXPORT ncclResult_t ncclGroupStart(void)
{
    struct group_state *g = G();
    if (g->depth++ == 0) {
        g->calls = 0;
        g->stream = NULL;
        g->nonblocking = NULL;
    }
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupEnd(void)
{
    struct group_state *g = G();
    if (g->depth == 0)
        return ncclInvalidUsage;
    if (--g->depth > 0 || g->calls == 0)
        return ncclSuccess;
    /* One kernel for everything the group queued. */
    if (g->nonblocking)
        return launch(g->nonblocking, g->stream, "ncclDevKernel_Generic",
                      (size_t)g->calls);
    fakecuda_launch(g->stream, "ncclDevKernel_Generic", what(),
                    duration((size_t)g->calls));
    return ncclSuccess;
}

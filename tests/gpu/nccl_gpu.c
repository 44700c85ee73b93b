/* nccl_gpu.c - a small real-NCCL program on one GPU for tests/gpu/run.sh.
 *
 *   nccl_gpu all        every collective at sizes 4 B .. 256 MB, a group of
 *                       four all-reduces, a non-blocking communicator, and
 *                       an all-reduce captured into a CUDA graph and
 *                       replayed; prints one line per phase
 *   nccl_gpu overhead   host time of a 4-byte ncclAllReduce: median ns/call
 *                       of 21 batches of 500 (run with and without the shim)
 *   nccl_gpu graph N    10 all-reduces, 2 all-reduces captured into a CUDA
 *                       graph launched N times, 5 more all-reduces (for
 *                       NCCL's profiler plugin: tests/gpu/plugin_check.c)
 *
 * World size 1 (one rank, one device): every collective still launches its
 * kernel, which is what the GPU timers time.  Built by run.sh against the
 * toolkit's nccl.h and cuda_runtime_api.h.  Exit status 0 when every NCCL
 * and CUDA call succeeded.
 */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#define CUDA(x)                                                                \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "nccl_gpu: %s: %s\n", #x, cudaGetErrorString(e_)); \
            exit(2);                                                           \
        }                                                                      \
    } while (0)
#define NCCL(x)                                                                \
    do {                                                                       \
        ncclResult_t r_ = (x);                                                 \
        if (r_ != ncclSuccess && r_ != ncclInProgress) {                       \
            fprintf(stderr, "nccl_gpu: %s: %s\n", #x, ncclGetErrorString(r_)); \
            exit(3);                                                           \
        }                                                                      \
    } while (0)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void wait_comm(ncclComm_t comm)
{
    ncclResult_t st = ncclInProgress;
    while (st == ncclInProgress)
        NCCL(ncclCommGetAsyncError(comm, &st));
    NCCL(st);
}

static ncclComm_t make_comm(int blocking)
{
    ncclUniqueId id;
    ncclComm_t comm;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;

    config.blocking = blocking;
    NCCL(ncclGetUniqueId(&id));
    NCCL(ncclCommInitRankConfig(&comm, 1, id, 0, &config));
    if (!blocking)
        wait_comm(comm);
    return comm;
}

static int overhead(void)
{
    enum { BATCH = 500, ROUNDS = 21 };
    ncclComm_t comm = make_comm(1);
    cudaStream_t s;
    float *buf;
    double t[ROUNDS];
    int r, i;

    CUDA(cudaStreamCreate(&s));
    CUDA(cudaMalloc((void **)&buf, 4096));
    for (i = 0; i < 200; i++)
        NCCL(ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, comm, s));
    CUDA(cudaStreamSynchronize(s));
    for (r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (i = 0; i < BATCH; i++)
            NCCL(ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, comm, s));
        t[r] = (now_ns() - t0) / BATCH;
        CUDA(cudaStreamSynchronize(s));
    }
    qsort(t, ROUNDS, sizeof t[0], cmp);
    printf("overhead: %.1f ns per 4-byte ncclAllReduce call (median of %d "
           "batches of %d)\n",
           t[ROUNDS / 2], ROUNDS, BATCH);
    NCCL(ncclCommDestroy(comm));
    return 0;
}

static int all(void)
{
    static const size_t sizes[] = {4,        64,        1024,      16384,
                                   262144,   4194304,   67108864,  268435456};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    size_t k;
    ncclComm_t comm = make_comm(1), nb;
    cudaStream_t s, s2;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    char *send, *recv;
    int version = 0, i, calls = 0;

    NCCL(ncclGetVersion(&version));
    printf("nccl_gpu: NCCL %d, one rank on device 0\n", version);
    CUDA(cudaStreamCreate(&s));
    CUDA(cudaStreamCreate(&s2));
    CUDA(cudaMalloc((void **)&send, sizes[nsizes - 1]));
    CUDA(cudaMalloc((void **)&recv, sizes[nsizes - 1]));
    CUDA(cudaMemset(send, 0, sizes[nsizes - 1]));
    for (k = 0; k < nsizes; k++) {
        size_t n = sizes[k] / 4 ? sizes[k] / 4 : 1; /* float32 elements */
        int iters = sizes[k] >= 67108864 ? 3 : 5;
        for (i = 0; i < iters; i++) {
            NCCL(ncclAllReduce(send, recv, n, ncclFloat32, ncclSum, comm, s));
            NCCL(ncclBroadcast(send, recv, n, ncclFloat32, 0, comm, s));
            NCCL(ncclReduce(send, recv, n, ncclFloat32, ncclSum, 0, comm, s));
            NCCL(ncclAllGather(send, recv, n, ncclFloat32, comm, s));
            NCCL(ncclReduceScatter(send, recv, n, ncclFloat32, ncclSum, comm, s));
            calls += 5;
#if NCCL_VERSION_CODE >= 22800
            NCCL(ncclAlltoAll(send, recv, n, ncclFloat32, comm, s));
            NCCL(ncclGather(send, recv, n, ncclFloat32, 0, comm, s));
            NCCL(ncclScatter(send, recv, n, ncclFloat32, 0, comm, s));
            calls += 3;
#endif
            /* send/recv to itself: a group of two */
            NCCL(ncclGroupStart());
            NCCL(ncclSend(send, n, ncclFloat32, 0, comm, s));
            NCCL(ncclRecv(recv, n, ncclFloat32, 0, comm, s));
            NCCL(ncclGroupEnd());
            calls += 2;
        }
        CUDA(cudaStreamSynchronize(s));
    }
    printf("nccl_gpu: %d collective and point-to-point calls, 4 B .. 256 MB\n",
           calls);

    for (i = 0; i < 3; i++) { /* a group of four all-reduces: one launch */
        NCCL(ncclGroupStart());
        for (k = 0; k < 4; k++)
            NCCL(ncclAllReduce(send + k * 1048576, recv + k * 1048576, 262144,
                               ncclFloat32, ncclSum, comm, s));
        NCCL(ncclGroupEnd());
    }
    CUDA(cudaStreamSynchronize(s));
    printf("nccl_gpu: 3 groups of 4 all-reduces\n");

    /* captured once, replayed three times: the shim sees one call */
    CUDA(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
    NCCL(ncclAllReduce(send, recv, 1048576, ncclFloat32, ncclSum, comm, s2));
    CUDA(cudaStreamEndCapture(s2, &graph));
    CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (i = 0; i < 3; i++)
        CUDA(cudaGraphLaunch(exec, s2));
    CUDA(cudaStreamSynchronize(s2));
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(graph));
    printf("nccl_gpu: 1 all-reduce captured, 3 replays\n");

    nb = make_comm(0); /* non-blocking: NCCL's thread launches */
    for (i = 0; i < 5; i++) {
        NCCL(ncclAllReduce(send, recv, 1048576, ncclFloat32, ncclSum, nb, s));
        wait_comm(nb);
    }
    CUDA(cudaStreamSynchronize(s));
    printf("nccl_gpu: 5 all-reduces on a non-blocking communicator\n");

    NCCL(ncclCommDestroy(nb));
    NCCL(ncclCommDestroy(comm));
    CUDA(cudaFree(send));
    CUDA(cudaFree(recv));
    return 0;
}

static int graph(int replays)
{
    ncclComm_t comm = make_comm(1);
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t exec;
    char *send, *recv;
    int i;

    CUDA(cudaStreamCreate(&s));
    CUDA(cudaMalloc((void **)&send, 4194304));
    CUDA(cudaMalloc((void **)&recv, 4194304));
    CUDA(cudaMemset(send, 0, 4194304));
    for (i = 0; i < 10; i++)
        NCCL(ncclAllReduce(send, recv, 262144, ncclFloat32, ncclSum, comm, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    NCCL(ncclAllReduce(send, recv, 16384, ncclFloat32, ncclSum, comm, s));
    NCCL(ncclAllReduce(send, recv, 1048576, ncclFloat32, ncclSum, comm, s));
    CUDA(cudaStreamEndCapture(s, &g));
    CUDA(cudaGraphInstantiate(&exec, g, 0));
    for (i = 0; i < replays; i++)
        CUDA(cudaGraphLaunch(exec, s));
    CUDA(cudaStreamSynchronize(s));
    for (i = 0; i < 5; i++)
        NCCL(ncclAllReduce(send, recv, 262144, ncclFloat32, ncclSum, comm, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaGraphExecDestroy(exec));
    CUDA(cudaGraphDestroy(g));
    {
        int version = 0;
        NCCL(ncclGetVersion(&version));
        printf("nccl_gpu: NCCL %d: 10 + 5 all-reduces, a graph of 2 launched "
               "%d times\n",
               version, replays);
    }
    NCCL(ncclCommDestroy(comm));
    CUDA(cudaFree(send));
    CUDA(cudaFree(recv));
    return 0;
}

int main(int argc, char **argv)
{
    int dev = 0;
    CUDA(cudaGetDeviceCount(&dev));
    CUDA(cudaSetDevice(0));
    if (argc > 1 && strcmp(argv[1], "overhead") == 0)
        return overhead();
    if (argc > 2 && strcmp(argv[1], "graph") == 0)
        return graph(atoi(argv[2]));
    return all();
}

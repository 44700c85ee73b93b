/* shim_bench.c - what the shim adds to one NCCL call, measured side by side.
 *
 * The real library is the null NCCL (calls return at once), so the bare call
 * is the baseline and the difference is the shim's own cost.  Rounds
 * alternate bare and wrapped batches; the figure printed is the median of
 * the per-round differences, so background noise hits both sides alike.
 * Run through tests/bench/run.sh (make bench), which preloads the shim.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_nccl.h"

#define ROUNDS 21

typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t,
                                     ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                     cudaStream_t);
typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);

static double clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the batch: this thread's, and the other threads' (the shim's
 * log preparer), ns per call. */
static double last_cpu, last_other;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double batch(allreduce_fn f, ncclComm_t comm, long n)
{
    float buf[4];
    double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    double p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    double t0 = now(), t1, c1, p1;
    long i;
    for (i = 0; i < n; i++)
        f(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL);
    t1 = now();
    c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    last_cpu = (c1 - c0) / (double)n;
    last_other = ((p1 - p0) - (c1 - c0)) / (double)n;
    return (t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
    const char *lib = argc > 1 ? argv[1] : "libnccl.so.2";
    long n = argc > 2 ? atol(argv[2]) : 50000;
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    allreduce_fn bare, wrapped;
    init_fn init;
    ncclComm_t comm;
    ncclUniqueId id;
    double b[ROUNDS], w[ROUNDS], d[ROUNDS], dc[ROUNDS], o[ROUNDS];
    int r;

    if (!h) {
        fprintf(stderr, "shim_bench: %s\n", dlerror());
        return 1;
    }
    bare = (allreduce_fn)dlsym(h, "ncclAllReduce");
    wrapped = (allreduce_fn)dlsym(RTLD_DEFAULT, "ncclAllReduce");
    init = (init_fn)dlsym(RTLD_DEFAULT, "ncclCommInitRank");
    memset(&id, 1, sizeof id);
    if (!bare || !wrapped || !init || init(&comm, 8, id, 3) != ncclSuccess) {
        fprintf(stderr, "shim_bench: cannot set up\n");
        return 1;
    }
    if (bare == wrapped)
        fprintf(stderr, "shim_bench: the shim is not preloaded; both sides "
                        "are the bare call\n");
    /* Warm up for 0.3 s of calls: a process's first calls are not its
     * steady state (pages, branch predictors; the shim's clock calibrates
     * 0.1 s after its first call, see docs/timers.md). */
    {
        double t_end = now() + 0.3e9;
        while (now() < t_end) {
            batch(bare, comm, n / 10);
            batch(wrapped, comm, n / 10);
        }
    }
    for (r = 0; r < ROUNDS; r++) {
        double bare_cpu;
        b[r] = batch(bare, comm, n);
        bare_cpu = last_cpu;
        w[r] = batch(wrapped, comm, n);
        d[r] = w[r] - b[r];
        dc[r] = last_cpu - bare_cpu;
        o[r] = last_other;
    }
    qsort(b, ROUNDS, sizeof b[0], cmp);
    qsort(w, ROUNDS, sizeof w[0], cmp);
    qsort(d, ROUNDS, sizeof d[0], cmp);
    qsort(dc, ROUNDS, sizeof dc[0], cmp);
    qsort(o, ROUNDS, sizeof o[0], cmp);
    printf("%s: bare %.1f ns/call, with shim %.1f ns/call, added %.1f "
           "ns/call (median of %d rounds of %ld calls; target <= 100)\n",
           getenv("CP_BENCH_LABEL") ? getenv("CP_BENCH_LABEL") : "shim",
           b[ROUNDS / 2], w[ROUNDS / 2], d[ROUNDS / 2], ROUNDS, n);
    /* Wall time counts whatever else the machine runs; CPU time is the
     * shim's own work (the caller's, page faults included, and its log
     * thread's), whatever the load. */
    printf("%s, CPU time: added %.1f ns/call on the calling thread, %.1f "
           "ns/call on the shim's log thread (medians)\n",
           getenv("CP_BENCH_LABEL") ? getenv("CP_BENCH_LABEL") : "shim",
           dc[ROUNDS / 2], o[ROUNDS / 2]);
    return 0;
}

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

static double now(void)
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

static double batch(allreduce_fn f, ncclComm_t comm, long n)
{
    float buf[4];
    double t0 = now();
    long i;
    for (i = 0; i < n; i++)
        f(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL);
    return (now() - t0) / (double)n;
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
    double b[ROUNDS], w[ROUNDS], d[ROUNDS];
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
    batch(bare, comm, n / 10);
    batch(wrapped, comm, n / 10);
    for (r = 0; r < ROUNDS; r++) {
        b[r] = batch(bare, comm, n);
        w[r] = batch(wrapped, comm, n);
        d[r] = w[r] - b[r];
    }
    qsort(b, ROUNDS, sizeof b[0], cmp);
    qsort(w, ROUNDS, sizeof w[0], cmp);
    qsort(d, ROUNDS, sizeof d[0], cmp);
    printf("%s: bare %.1f ns/call, with shim %.1f ns/call, added %.1f "
           "ns/call (median of %d rounds of %ld calls; target <= 100)\n",
           getenv("CP_BENCH_LABEL") ? getenv("CP_BENCH_LABEL") : "shim",
           b[ROUNDS / 2], w[ROUNDS / 2], d[ROUNDS / 2], ROUNDS, n);
    return 0;
}

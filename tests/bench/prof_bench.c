/* prof_bench.c - the NCCL profiler plugin's host cost per collective.
 *
 * usage: prof_bench PLUGIN.so N STEPS
 * Drives ncclProfiler_v5 of PLUGIN the way NCCL does for one collective
 * with one channel and one send proxy operation of STEPS steps (task
 * start/stop, kernel channel start/stop, proxy op start/stop, per step
 * start, SendWait, stop), N times, and the same sequence of calls through a
 * table of empty functions; prints the difference per collective.  The log
 * goes to $COLLPROF_DIR. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_nccl_profiler.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int dummy;
static ncclResult_t e_start(void *c, void **h, ncclProfilerEventDescr_v5_t *d)
{
    (void)c;
    (void)d;
    *h = &dummy;
    return ncclSuccess;
}
static ncclResult_t e_stop(void *h)
{
    (void)h;
    return ncclSuccess;
}
static ncclResult_t e_state(void *h, ncclProfilerEventState_t s,
                            ncclProfilerEventStateArgs_v5_t *a)
{
    (void)h;
    (void)s;
    (void)a;
    return ncclSuccess;
}
static const ncclProfiler_v5_t empty = {"empty", NULL, e_start, e_stop,
                                        e_state, NULL};

static double run(const ncclProfiler_v5_t *p, void *ctx, long n, int steps)
{
    ncclProfilerEventDescr_v5_t d;
    ncclProfilerEventStateArgs_v5_t a;
    uint64_t gpu = 1000000000000ull;
    double t0 = now();
    long i;
    int s;

    for (i = 0; i < n; i++) {
        void *task = NULL, *kch = NULL, *op = NULL, *st = NULL;
        memset(&d, 0, sizeof d);
        d.type = ncclProfileColl;
        d.coll.seqNumber = (uint64_t)i;
        d.coll.func = "AllReduce";
        d.coll.count = 262144;
        d.coll.datatype = "ncclFloat32";
        d.coll.nChannels = 1;
        d.coll.nWarps = 16;
        d.coll.algo = "Ring";
        d.coll.proto = "Simple";
        p->startEvent(ctx, &task, &d);
        p->stopEvent(task);
        memset(&d, 0, sizeof d);
        d.type = ncclProfileKernelCh;
        d.parentObj = task;
        d.kernelCh.pTimer = gpu += 1000;
        p->startEvent(ctx, &kch, &d);
        memset(&d, 0, sizeof d);
        d.type = ncclProfileProxyOp;
        d.parentObj = task;
        d.proxyOp.peer = 1;
        d.proxyOp.nSteps = steps;
        d.proxyOp.chunkSize = 131072;
        d.proxyOp.isSend = 1;
        p->startEvent(ctx, &op, &d);
        for (s = 0; s < steps; s++) {
            memset(&d, 0, sizeof d);
            d.type = ncclProfileProxyStep;
            d.parentObj = op;
            d.proxyStep.step = s;
            p->startEvent(ctx, &st, &d);
            memset(&a, 0, sizeof a);
            a.proxyStep.transSize = 131072;
            p->recordEventState(st, ncclProfilerProxyStepSendWait, &a);
            p->stopEvent(st);
        }
        p->stopEvent(op);
        memset(&a, 0, sizeof a);
        a.kernelCh.pTimer = gpu += 1000;
        p->recordEventState(kch, ncclProfilerKernelChStop, &a);
        p->stopEvent(kch);
    }
    return (now() - t0) / (double)n;
}

int main(int argc, char **argv)
{
    const ncclProfiler_v5_t *p;
    void *lib, *ctx = NULL;
    int mask = 0, steps;
    long n;
    double base, with;

    if (argc != 4) {
        fprintf(stderr, "usage: prof_bench PLUGIN.so N STEPS\n");
        return 2;
    }
    n = atol(argv[2]);
    steps = atoi(argv[3]);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
    if (!p || p->init(&ctx, 0x1234, &mask, "bench", 2, 2, 0, NULL) != 0) {
        fprintf(stderr, "prof_bench: cannot load or init %s\n", argv[1]);
        return 1;
    }
    run(&empty, NULL, n / 10, steps); /* warm up */
    run(p, ctx, n / 10, steps);
    base = run(&empty, NULL, n, steps);
    with = run(p, ctx, n, steps);
    printf("nccl profiler plugin: %.0f ns per collective (1 channel, 1 proxy "
           "op of %d steps) over empty callbacks (%.0f ns)\n",
           with - base, steps, base);
    p->finalize(ctx);
    return 0;
}

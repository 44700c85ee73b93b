/* prof_links.c - the NCCL profiler plugin's link records (kind 11) where
 * the CPU NCCL does not go: several channels per call, operations that
 * stop after their call finished, more peers than a task keeps, an
 * operation whose parent was not seen.  For nccl_profiler.sh.
 *
 * usage: prof_links PLUGIN.so
 * Drives ncclProfiler_v5 of PLUGIN as NCCL would (the log goes to
 * $COLLPROF_DIR):
 *   call 0 (all-reduce, 4 channels): its kernel channels stop, then its
 *     4 sends to peer 1 (2 steps of 1000 bytes each) and its 4 receives
 *     from peer 15 stop: one link record, peer 1, 4 channels, 8 steps,
 *     8000 bytes; no receive;
 *   call 1 (all-to-all, 1 channel): a send of 1 step of 100 bytes to each
 *     of peers 1 .. 10 (more than the 8 a task keeps): 10 link records,
 *     each its own peer's;
 *   an operation without a parent, to peer 3, 1 step of 7 bytes: a link
 *     record that names no call.
 * Exits 0 when every call into the plugin returned ncclSuccess. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_nccl_profiler.h"

static const ncclProfiler_v5_t *p;
static void *ctx;
static int bad;

static void *start(ncclProfilerEventDescr_v5_t *d)
{
    void *h = NULL;

    bad |= p->startEvent(ctx, &h, d) != ncclSuccess;
    return h;
}

static void stop(void *h)
{
    bad |= p->stopEvent(h) != ncclSuccess;
}

static void state(void *h, ncclProfilerEventState_t s, size_t bytes,
                  uint64_t ptimer)
{
    ncclProfilerEventStateArgs_v5_t a;

    memset(&a, 0, sizeof a);
    if (ptimer)
        a.kernelCh.pTimer = ptimer;
    else
        a.proxyStep.transSize = bytes;
    bad |= p->recordEventState(h, s, &a) != ncclSuccess;
}

static void nap(void)
{
    struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
}

static void *task(const char *func, int nchannels)
{
    ncclProfilerEventDescr_v5_t d;

    memset(&d, 0, sizeof d);
    d.type = ncclProfileColl;
    d.coll.func = func;
    d.coll.count = 1024;
    d.coll.datatype = "ncclFloat32";
    d.coll.nChannels = (uint8_t)nchannels;
    d.coll.nWarps = 8;
    d.coll.algo = "Ring";
    d.coll.proto = "Simple";
    return start(&d);
}

static void *op(void *parent, int channel, int peer, int is_send, int nsteps)
{
    ncclProfilerEventDescr_v5_t d;

    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyOp;
    d.parentObj = parent;
    d.proxyOp.channelId = (uint8_t)channel;
    d.proxyOp.peer = peer;
    d.proxyOp.nSteps = nsteps;
    d.proxyOp.chunkSize = 1000;
    d.proxyOp.isSend = is_send;
    return start(&d);
}

/* nsteps steps of bytes each under operation o */
static void steps(void *o, int is_send, int nsteps, size_t bytes)
{
    int s;

    for (s = 0; s < nsteps; s++) {
        ncclProfilerEventDescr_v5_t d;
        void *h;
        memset(&d, 0, sizeof d);
        d.type = ncclProfileProxyStep;
        d.parentObj = o;
        d.proxyStep.step = s;
        h = start(&d);
        state(h, is_send ? ncclProfilerProxyStepSendWait
                         : ncclProfilerProxyStepRecvWait,
              bytes, 0);
        nap();
        if (!is_send)
            state(h, ncclProfilerProxyStepRecvGPUWait, bytes, 0);
        stop(h);
    }
}

static void kernel_channels(void *t, int n)
{
    static uint64_t gpu = 1000000000000ull;
    void *k[8];
    int c;

    for (c = 0; c < n; c++) {
        ncclProfilerEventDescr_v5_t d;
        memset(&d, 0, sizeof d);
        d.type = ncclProfileKernelCh;
        d.parentObj = t;
        d.kernelCh.channelId = (uint8_t)c;
        d.kernelCh.pTimer = gpu += 1000;
        k[c] = start(&d);
    }
    for (c = 0; c < n; c++) {
        state(k[c], ncclProfilerKernelChStop, 0, gpu += 1000);
        stop(k[c]);
    }
}

int main(int argc, char **argv)
{
    void *lib, *t, *sends[4], *recvs[4], *o[10];
    int mask = 0, c;

    if (argc != 2) {
        fprintf(stderr, "usage: prof_links PLUGIN.so\n");
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
    if (!p || p->init(&ctx, 0x1234, &mask, "links", 16, 16, 0, NULL) != 0) {
        fprintf(stderr, "prof_links: cannot load or init %s\n", argv[1]);
        return 1;
    }
    /* call 0: 4 channels; the kernel ends before the proxy is done */
    t = task("AllReduce", 4);
    stop(t);
    for (c = 0; c < 4; c++) {
        sends[c] = op(t, c, 1, 1, 2);
        recvs[c] = op(t, c, 15, 0, 2);
    }
    for (c = 0; c < 4; c++) {
        steps(sends[c], 1, 2, 1000);
        steps(recvs[c], 0, 2, 1000);
    }
    kernel_channels(t, 4);
    for (c = 0; c < 4; c++) {
        stop(recvs[c]);
        stop(sends[c]);
    }
    /* call 1: ten peers */
    t = task("AllToAll", 1);
    stop(t);
    for (c = 0; c < 10; c++)
        o[c] = op(t, 0, c + 1, 1, 1);
    for (c = 0; c < 10; c++)
        steps(o[c], 1, 1, 100);
    for (c = 0; c < 10; c++)
        stop(o[c]);
    kernel_channels(t, 1);
    /* an operation whose parent NCCL did not give */
    o[0] = op(NULL, 0, 3, 1, 1);
    steps(o[0], 1, 1, 7);
    stop(o[0]);
    bad |= p->finalize(ctx) != ncclSuccess;
    return bad;
}

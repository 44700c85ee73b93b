/* timer_join.c - joining CUPTI activity to calls (preload/cp_timer_join.c),
 * fed synthetic records built from the real cupti_activity.h structs. */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_timer_join.h"
#include "tap.h"

#ifdef HAVE_REAL_CUPTI_H
#include <cupti.h>

#define GROUP (UINT64_C(1) << 63)
#define CUSTOM2 CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2
#define NCCL_KERNEL "ncclDevKernel_AllReduce_Sum_f32_RING_LL"

static struct {
    uint64_t ext, start, end;
    uint16_t flags;
    int final;
} out[256];
static int nout;
static uint64_t refuse; /* emit says "not yet" to this id once */

static int emit(void *ctx, uint64_t ext, uint16_t flags, uint64_t start,
                uint64_t end, int final)
{
    (void)ctx;
    if (ext == refuse && !final) {
        refuse = 0;
        return -1;
    }
    if (nout < 256) {
        out[nout].ext = ext;
        out[nout].flags = flags;
        out[nout].start = start;
        out[nout].end = end;
        out[nout].final = final;
        nout++;
    }
    return 0;
}

static void external(struct cp_join *j, uint32_t corr, uint64_t id, int kind)
{
    CUpti_ActivityExternalCorrelation r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    r.externalKind = (CUpti_ExternalCorrelationKind)kind;
    r.externalId = id;
    r.correlationId = corr;
    cp_join_record(j, &r);
}

static void kernel(struct cp_join *j, uint32_t corr, uint64_t start,
                   uint64_t end, uint32_t stream, const char *name)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.streamId = stream;
    k.correlationId = corr;
    k.name = name;
    cp_join_record(j, &k);
}

static void copy(struct cp_join *j, uint32_t corr, uint64_t start,
                 uint64_t end, int peer)
{
    if (peer) {
        CUpti_ActivityMemcpyPtoP4 m;
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
        m.start = start;
        m.end = end;
        m.correlationId = corr;
        cp_join_record(j, &m);
    } else {
        CUpti_ActivityMemcpy6 m;
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m.start = start;
        m.end = end;
        m.correlationId = corr;
        cp_join_record(j, &m);
    }
}

static void launch_api(struct cp_join *j, uint32_t corr, uint64_t start)
{
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    a.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
    a.start = start;
    a.end = start + 100;
    a.correlationId = corr;
    cp_join_record(j, &a);
}

static unsigned settle(struct cp_join *j, int n)
{
    unsigned e = 0;
    while (n-- > 0)
        e += cp_join_settle(j, 0, emit, NULL);
    return e;
}

/* The emission of ext, NULL if none; *count: how many. */
static int found(uint64_t ext, int *count)
{
    int k, at = -1;
    *count = 0;
    for (k = 0; k < nout; k++)
        if (out[k].ext == ext) {
            (*count)++;
            at = k;
        }
    return at;
}

static struct cp_join *fresh(void)
{
    struct cp_join_params p = {2, 2, 10};
    nout = 0;
    return cp_join_create(&p);
}

int main(void)
{
    struct cp_join *j;
    struct cp_join_stats st;
    uint64_t base;
    int k, n, i;

    /* Correlation, then kernel: out once quiet for two rounds. */
    j = fresh();
    external(j, 1, 101, CUSTOM2);
    kernel(j, 1, 1000, 2000, 7, NCCL_KERNEL);
    is_int(settle(j, 2), 0, "not emitted while it may still grow");
    is_int(settle(j, 1), 1, "emitted after two quiet rounds");
    k = found(101, &n);
    ok(n == 1 && out[k].start == 1000 && out[k].end == 2000 &&
           out[k].flags == 0,
       "call's interval = its kernel's");

    /* Kernel first, correlation two flushes later (other buffer). */
    kernel(j, 2, 3000, 4500, 7, NCCL_KERNEL);
    settle(j, 1);
    external(j, 2, 102, CUSTOM2);
    settle(j, 3);
    k = found(102, &n);
    ok(n == 1 && out[k].start == 3000 && out[k].end == 4500,
       "out of order across buffers: joined");

    /* Correlation first, kernel five rounds later (a long collective). */
    external(j, 3, 103, CUSTOM2);
    settle(j, 5);
    found(103, &n);
    is_int(n, 0, "a launch waits for its kernel");
    kernel(j, 3, 5000, 9000, 7, NCCL_KERNEL);
    settle(j, 3);
    k = found(103, &n);
    ok(n == 1 && out[k].end == 9000, "long kernel: joined when it comes");

    /* A group: one kernel under the group's id. */
    external(j, 4, GROUP | 101, CUSTOM2);
    kernel(j, 4, 10000, 11000, 7, "ncclDevKernel_Generic");
    settle(j, 3);
    k = found(GROUP | 101, &n);
    ok(n == 1 && out[k].start == 10000,
       "a group's kernel: one interval for the group's id");

    /* Two launches under one id (two plans): the union. */
    external(j, 5, 105, CUSTOM2);
    external(j, 6, 105, CUSTOM2);
    kernel(j, 6, 12500, 14000, 8, NCCL_KERNEL);
    kernel(j, 5, 12000, 13000, 7, NCCL_KERNEL);
    settle(j, 3);
    k = found(105, &n);
    ok(n == 1 && out[k].start == 12000 && out[k].end == 14000,
       "two kernels of one call: one interval, their union");

    /* Copy-engine collectives: memcpy and peer memcpy records. */
    external(j, 7, 107, CUSTOM2);
    copy(j, 7, 15000, 15500, 0);
    external(j, 8, 108, CUSTOM2);
    copy(j, 8, 16000, 16800, 1);
    settle(j, 3);
    k = found(107, &n);
    ok(n == 1 && out[k].end == 15500, "memcpy of a copy-engine collective");
    k = found(108, &n);
    ok(n == 1 && out[k].end == 16800, "peer memcpy (MEMCPY2)");

    /* Another tool's correlation kind is not ours. */
    external(j, 9, 109, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
    kernel(j, 9, 17000, 18000, 7, NCCL_KERNEL);
    settle(j, 4);
    found(109, &n);
    is_int(n, 0, "Kineto's CUSTOM0 ids are ignored");

    /* Kernels of other libraries never wait; copies wait a little. */
    base = cp_join_pending(j);
    for (i = 0; i < 1000; i++)
        kernel(j, 1000 + (uint32_t)i, 1, 2, 7, "at_native_vectorized_kernel");
    is_int(cp_join_pending(j), base, "1000 foreign kernels: nothing held");
    for (i = 0; i < 1000; i++)
        copy(j, 3000 + (uint32_t)i, 1, 2, 0);
    ok(cp_join_pending(j) >= base + 1000, "1000 foreign copies: held a while");
    settle(j, 3);
    is_int(cp_join_pending(j), base, "  and dropped after the orphan rounds");

    /* The emitter can ask for a retry (group record not written yet). */
    refuse = 110;
    external(j, 10, 110, CUSTOM2);
    kernel(j, 10, 20000, 21000, 7, NCCL_KERNEL);
    settle(j, 3);
    found(110, &n);
    is_int(n, 0, "refused once: kept");
    settle(j, 1);
    found(110, &n);
    is_int(n, 1, "  emitted the next round");

    /* Missing kernel, kernel that never ends: only at the end, incomplete. */
    external(j, 11, 111, CUSTOM2);
    external(j, 12, 112, CUSTOM2);
    kernel(j, 12, 22000, 0, 7, NCCL_KERNEL);
    settle(j, 4);
    found(111, &n);
    i = n;
    found(112, &n);
    ok(i == 0 && n == 0, "no interval while the work may still end");
    /* A buffer completed at exit: records, then the final settle. */
    external(j, 13, 113, CUSTOM2);
    kernel(j, 13, 23000, 24000, 7, NCCL_KERNEL);
    /* A stray correlation for an id already out adds nothing. */
    external(j, 14, 101, CUSTOM2);
    cp_join_settle(j, 1, emit, NULL);
    k = found(111, &n);
    ok(n == 1 && out[k].flags == CP_CALL_INCOMPLETE && out[k].start == 0 &&
           out[k].end == 0,
       "kernel record never came: incomplete, no times");
    k = found(112, &n);
    ok(n == 1 && out[k].flags == CP_CALL_INCOMPLETE && out[k].start == 22000 &&
           out[k].end == 0,
       "kernel never ended: incomplete, its start kept");
    k = found(113, &n);
    ok(n == 1 && out[k].flags == 0 && out[k].end == 24000 && out[k].final,
       "buffer completed at exit: emitted by the final settle");
    found(101, &n);
    is_int(n, 1, "no empty second record for an id already emitted");
    cp_join_get_stats(j, &st);
    ok(st.incomplete == 2 && st.emitted == 11,
       "stats: %" PRIu64 " emitted, %" PRIu64 " incomplete", st.emitted,
       st.incomplete);
    is_int(cp_join_pending(j), 0, "nothing held after the end");
    cp_join_destroy(j);

    /* Non-blocking: NCCL's thread launches outside the pushed id. */
    j = fresh();
    cp_join_deferred(j, 201, 5, 10000); /* stream 5, began at 10000 */
    cp_join_deferred(j, 202, 6, 10200); /* another stream */
    cp_join_deferred(j, 203, 5, 20000); /* began after the launch */
    launch_api(j, 40, 10500);
    kernel(j, 40, 11000, 12000, 5, NCCL_KERNEL);
    settle(j, 6);
    k = found(201, &n);
    ok(n == 1 && out[k].start == 11000 && out[k].end == 12000,
       "non-blocking: the kernel goes to the launch on its stream that began "
       "before it");
    found(202, &n);
    i = n;
    found(203, &n);
    ok(i == 0 && n == 0, "  not to another stream's, nor to a later one");
    cp_join_settle(j, 1, emit, NULL);
    cp_join_get_stats(j, &st);
    is_int(st.deferred, 1, "  counted as a deferred join");
    cp_join_destroy(j);

    /* Late piece: a second kernel long after the first was emitted. */
    j = fresh();
    external(j, 50, 301, CUSTOM2);
    kernel(j, 50, 1000, 2000, 7, NCCL_KERNEL);
    settle(j, 3);
    external(j, 51, 301, CUSTOM2);
    kernel(j, 51, 5000, 6000, 7, NCCL_KERNEL);
    settle(j, 3);
    found(301, &n);
    is_int(n, 2, "a piece that comes after the call was emitted: a second "
                 "interval for the same call (readers take the union)");
    cp_join_destroy(j);
    return done_testing();
}
#else
int main(void)
{
    skip_all("no cupti.h at configure time (--with-cuda=DIR)");
}
#endif

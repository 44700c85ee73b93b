/* cp_timer_event.c - the `event` GPU timer: CUDA events around each call.
 *
 * For when CUPTI is not to be had (another subscriber: Nsight Systems,
 * PyTorch's profiler; no libcupti).  Events are created up front, per device,
 * when a communicator on that device appears: POOL entries, each a (start,
 * end) pair.  Per call (hot path): claim an entry with one compare-and-swap,
 * cudaEventRecord(start, stream), the real call, cudaEventRecord(end,
 * stream), publish.  Inside a group the streams are remembered and the
 * outermost GroupEnd is bracketed on each of them instead.
 * The background thread polls published entries with cudaEventQuery (never a
 * synchronisation of the user's stream), turns each finished pair into
 * CLOCK_REALTIME with cudaEventElapsedTime against an anchor event that it
 * records on a private stream and synchronises once a second, writes the
 * CP_REC_GPU record, and frees the entry.
 * Limits, said in the records: a call on a stream being captured is marked
 * captured and not timed (an event recorded there would become part of the
 * user's graph); a call that returns ncclInProgress (non-blocking
 * communicator) is launched later by NCCL's thread, after our end event, so
 * it is marked incomplete; with every entry in flight a call is marked
 * incomplete rather than waiting.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_timer_event.h"

#define POOL 4096 /* power of two; in flight at once, per process */
#define MAX_DEV 64
#define CLAIM_TRIES 8
#define ANCHOR_NS UINT64_C(1000000000)

enum { E_FREE = 0, E_CLAIMED = 1, E_RECORDED = 2 };

struct entry {
    int state; /* atomic */
    int dev;
    uint16_t flags;
    uint16_t nparts; /* entries sharing ext (a group on several streams) */
    uint64_t ext;
};

struct pool {
    cp_cuda_event start[POOL], end[POOL];
    cp_cuda_event anchor;
    cp_cuda_stream stream; /* private, non-blocking */
    uint64_t anchor_rt;    /* CLOCK_REALTIME of the anchor event */
    uint64_t anchor_taken; /* when it was refreshed */
    int anchor_ok;
};

static struct entry entries[POOL];
static uint32_t claim_hint; /* atomic */
static struct pool *pools[MAX_DEV]; /* atomic pointers */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t want_pools; /* atomic: devices a call found without a pool */

int cp_event_open(struct cp_error *err)
{
    int n = 0;
    cp_cuda_error e;

    if (!cp_gpu_rt.lib)
        return cp_errorf(err, "no libcudart");
    if (!cp_gpu_rt.event_create || !cp_gpu_rt.event_record ||
        !cp_gpu_rt.event_query || !cp_gpu_rt.event_elapsed ||
        !cp_gpu_rt.event_synchronize || !cp_gpu_rt.stream_create ||
        !cp_gpu_rt.get_device || !cp_gpu_rt.set_device ||
        !cp_gpu_rt.stream_is_capturing)
        return cp_errorf(err, "libcudart lacks the event calls");
    e = cp_gpu_rt.get_device_count(&n);
    if (e != CP_CUDA_SUCCESS || n <= 0)
        return cp_errorf(err, "no CUDA device (error %d)", (int)e);
    return 0;
}

/* ---- pools (not on the per-call path) ----------------------------------- */
/* A fresh anchor: an event on an idle private stream, waited for. */
static void refresh_anchor(struct pool *p)
{
    uint64_t a, b;

    a = cp_gpu_realtime_ns();
    if (cp_gpu_rt.event_record(p->anchor, p->stream) != CP_CUDA_SUCCESS ||
        cp_gpu_rt.event_synchronize(p->anchor) != CP_CUDA_SUCCESS) {
        p->anchor_ok = 0;
        return;
    }
    b = cp_gpu_realtime_ns();
    p->anchor_rt = a + (b - a) / 2;
    p->anchor_taken = b;
    p->anchor_ok = 1;
}

int cp_event_pool(int dev)
{
    struct pool *p;
    int saved = -1, i, rc = -1;

    if (dev < 0 || dev >= MAX_DEV)
        return -1;
    if (__atomic_load_n(&pools[dev], __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&pool_lock);
    if (pools[dev]) {
        pthread_mutex_unlock(&pool_lock);
        return 0;
    }
    p = calloc(1, sizeof *p);
    if (!p)
        goto out;
    if (cp_gpu_rt.get_device(&saved) != CP_CUDA_SUCCESS)
        saved = -1;
    if (cp_gpu_rt.set_device(dev) != CP_CUDA_SUCCESS)
        goto out;
    for (i = 0; i < POOL; i++)
        if (cp_gpu_rt.event_create(&p->start[i], CP_CUDA_EVENT_DEFAULT) !=
                CP_CUDA_SUCCESS ||
            cp_gpu_rt.event_create(&p->end[i], CP_CUDA_EVENT_DEFAULT) !=
                CP_CUDA_SUCCESS)
            goto out;
    if (cp_gpu_rt.event_create(&p->anchor, CP_CUDA_EVENT_DEFAULT) !=
            CP_CUDA_SUCCESS ||
        cp_gpu_rt.stream_create(&p->stream, CP_CUDA_STREAM_NON_BLOCKING) !=
            CP_CUDA_SUCCESS)
        goto out;
    refresh_anchor(p);
    __atomic_store_n(&pools[dev], p, __ATOMIC_RELEASE);
    p = NULL;
    rc = 0;
out:
    if (saved >= 0)
        (void)cp_gpu_rt.set_device(saved);
    /* A half-made pool keeps its events: destroying them is not worth a
     * failure path of its own, and they are few. */
    free(p);
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

/* ---- entries ------------------------------------------------------------------ */
static int32_t claim(void)
{
    uint32_t h = __atomic_fetch_add(&claim_hint, 1, __ATOMIC_RELAXED);
    int k;

    for (k = 0; k < CLAIM_TRIES; k++) {
        uint32_t i = (h + (uint32_t)k) & (POOL - 1);
        int expected = E_FREE;
        if (__atomic_compare_exchange_n(&entries[i].state, &expected, E_CLAIMED,
                                        0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return (int32_t)i;
    }
    return -1;
}

static void release(int32_t i)
{
    __atomic_store_n(&entries[i].state, E_FREE, __ATOMIC_RELEASE);
}

static int device_of(const void *comm)
{
    int dev = cp_gpu_comm_device(comm);

    if (dev < 0 && cp_gpu_rt.get_device(&dev) != CP_CUDA_SUCCESS)
        dev = -1;
    return dev;
}

static struct pool *pool_of(int dev)
{
    struct pool *p;

    if (dev < 0 || dev >= MAX_DEV)
        return NULL;
    p = __atomic_load_n(&pools[dev], __ATOMIC_ACQUIRE);
    if (!p)
        __atomic_fetch_or(&want_pools, UINT64_C(1) << dev, __ATOMIC_RELAXED);
    return p;
}

/* Claim an entry and record its start on stream; -1 when not timed. */
static int32_t start_entry(int dev, void *stream)
{
    struct pool *p = pool_of(dev);
    int32_t i;
    cp_cuda_error e;

    if (!p || (i = claim()) < 0)
        return -1;
    entries[i].dev = dev;
    e = cp_gpu_rt.event_record(p->start[i], (cp_cuda_stream)stream);
    if (e != CP_CUDA_SUCCESS) {
        release(i);
        cp_gpu_event_failed("cudaEventRecord", e);
        return -1;
    }
    return i;
}

static int end_entry(int32_t i, void *stream)
{
    struct pool *p = __atomic_load_n(&pools[entries[i].dev], __ATOMIC_ACQUIRE);
    cp_cuda_error e = cp_gpu_rt.event_record(p->end[i], (cp_cuda_stream)stream);

    if (e != CP_CUDA_SUCCESS) {
        cp_gpu_event_failed("cudaEventRecord", e);
        return -1;
    }
    return 0;
}

static void publish(int32_t i, uint64_t ext, uint16_t nparts)
{
    entries[i].ext = ext;
    entries[i].nparts = nparts;
    entries[i].flags = 0;
    __atomic_store_n(&entries[i].state, E_RECORDED, __ATOMIC_RELEASE);
}

/* ---- per call (the NCCL callers' threads) ------------------------------- */
void cp_event_call_begin(struct cp_gpu_call *g, uint64_t slot, void *stream,
                         const void *comm, int in_group)
{
    int dev = device_of(comm);

    /* Never record into a capture: the event would join the user's graph. */
    if (cp_gpu_stream_capturing(stream)) {
        g->flags |= CP_CALL_CAPTURED;
        if (in_group)
            cp_gpu_group.captured = 1;
        return;
    }
    if (in_group) {
        struct cp_gpu_group *tg = &cp_gpu_group;
        int k;
        for (k = 0; k < tg->nstreams; k++)
            if (tg->stream[k] == stream && tg->dev[k] == dev)
                return;
        if (tg->nstreams == CP_GPU_GROUP_STREAMS) {
            tg->overflow = 1;
            return;
        }
        tg->stream[tg->nstreams] = stream;
        tg->dev[tg->nstreams] = dev;
        tg->nstreams++;
        return;
    }
    g->ext = cp_ext_call(slot);
    g->entry = start_entry(dev, stream);
    if (g->entry < 0)
        g->flags |= CP_CALL_INCOMPLETE; /* not timed: no pool, pool full */
}

void cp_event_call_end(struct cp_gpu_call *g, int result)
{
    int32_t i = g->entry;

    if (i < 0)
        return;
    if (result == ncclSuccess && end_entry(i, g->stream) == 0) {
        publish(i, g->ext, 1);
        return;
    }
    release(i);
    /* In progress: launched later by NCCL's thread, after our end event. */
    if (result == ncclInProgress || result == ncclSuccess)
        g->flags |= CP_CALL_INCOMPLETE;
}

void cp_event_group_begin(struct cp_gpu_call *g, uint64_t slot,
                          uint64_t first_slot)
{
    struct cp_gpu_group *tg = &cp_gpu_group;
    int k;

    g->ext = cp_ext_group(slot, first_slot);
    if (tg->captured || tg->nstreams == 0)
        return;
    if (tg->overflow) {
        g->flags |= CP_CALL_INCOMPLETE; /* too many streams to bracket */
        return;
    }
    for (k = 0; k < tg->nstreams; k++) {
        tg->entry[k] = start_entry(tg->dev[k], tg->stream[k]);
        if (tg->entry[k] < 0) {
            while (k-- > 0)
                release(tg->entry[k]);
            g->flags |= CP_CALL_INCOMPLETE;
            return;
        }
    }
    g->nentries = tg->nstreams;
}

void cp_event_group_end(struct cp_gpu_call *g, int result)
{
    struct cp_gpu_group *tg = &cp_gpu_group;
    int k, ok = result == ncclSuccess;

    for (k = 0; ok && k < g->nentries; k++)
        ok = end_entry(tg->entry[k], tg->stream[k]) == 0;
    for (k = 0; k < g->nentries; k++) {
        if (ok)
            publish(tg->entry[k], g->ext, (uint16_t)g->nentries);
        else
            release(tg->entry[k]);
    }
    if (!ok && (result == ncclSuccess || result == ncclInProgress))
        g->flags |= CP_CALL_INCOMPLETE;
    if ((g->flags & CP_CALL_INCOMPLETE) && !tg->captured)
        /* the group record has no flags: its GPU record says it */
        (void)cp_gpu_emit(cp_ext_call(cp_ext_slot(g->ext)), CP_TIMER_EVENT,
                          CP_CALL_INCOMPLETE, 0, 0, 1);
}

/* ---- background ----------------------------------------------------------------- */
/* Groups on several streams: parts add up until all are in. */
#define MAX_PARTIAL 256
static struct {
    uint64_t ext;
    unsigned need, got;
    uint64_t start, end;
    uint16_t flags;
} partial[MAX_PARTIAL];
static unsigned npartial;

/* Nanoseconds from event a to event b (float milliseconds: ~0.1 us at a
 * second's distance, so durations are measured pair-wise, not through the
 * anchor). */
static int64_t elapsed_ns(cp_cuda_event a, cp_cuda_event b, int *ok)
{
    float ms = 0;
    double ns;

    if (cp_gpu_rt.event_elapsed(&ms, a, b) != CP_CUDA_SUCCESS) {
        *ok = 0;
        return 0;
    }
    ns = (double)ms * 1e6;
    return (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

/* Add a finished part; 1 when the interval is complete and written (or
 * given up), 0 to keep the entry for another round. */
static int finish(uint64_t ext, unsigned nparts, uint16_t flags,
                  uint64_t start, uint64_t end, int final)
{
    unsigned k;

    if (nparts <= 1)
        return cp_gpu_emit(ext, CP_TIMER_EVENT, flags, start, end, final) == 0;
    for (k = 0; k < npartial && partial[k].ext != ext; k++)
        ;
    if (k == npartial) {
        if (npartial == MAX_PARTIAL)
            return cp_gpu_emit(ext, CP_TIMER_EVENT, flags | CP_CALL_INCOMPLETE,
                               start, end, 1) == 0;
        partial[k].ext = ext;
        partial[k].need = nparts;
        partial[k].got = 0;
        partial[k].start = start;
        partial[k].end = end;
        partial[k].flags = 0;
        npartial++;
    }
    partial[k].got++;
    partial[k].flags |= flags;
    if (start < partial[k].start)
        partial[k].start = start;
    if (end > partial[k].end)
        partial[k].end = end;
    return 1;
}

/* Partials complete (or, at the end, not): written, retried if too early. */
static void flush_partials(int final)
{
    unsigned k = 0;

    while (k < npartial) {
        int done = partial[k].got >= partial[k].need;
        if ((done || final) &&
            cp_gpu_emit(partial[k].ext, CP_TIMER_EVENT,
                        partial[k].flags | (done ? 0 : CP_CALL_INCOMPLETE),
                        partial[k].start, partial[k].end, final) == 0) {
            partial[k] = partial[--npartial];
            continue;
        }
        k++;
    }
}

static void poll_entries(int final)
{
    int32_t i;

    for (i = 0; i < POOL; i++) {
        struct entry *e = &entries[i];
        struct pool *p;
        cp_cuda_error q;
        uint64_t s, t;
        int ok = 1;

        if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != E_RECORDED)
            continue;
        p = __atomic_load_n(&pools[e->dev], __ATOMIC_ACQUIRE);
        q = cp_gpu_rt.event_query(p->end[i]);
        if (q == CP_CUDA_ERROR_NOT_READY) {
            if (!final)
                continue;
            /* never finished before exit: say so, do not wait */
            if (finish(e->ext, e->nparts, CP_CALL_INCOMPLETE, 0, 0, 1))
                release(i);
            continue;
        }
        if (q == CP_CUDA_SUCCESS && p->anchor_ok) {
            s = (uint64_t)((int64_t)p->anchor_rt +
                           elapsed_ns(p->anchor, p->start[i], &ok));
            t = s + (uint64_t)elapsed_ns(p->start[i], p->end[i], &ok);
        } else {
            ok = 0;
            s = t = 0;
        }
        if (finish(e->ext, e->nparts, ok ? 0 : CP_CALL_INCOMPLETE, s, t, final))
            release(i);
    }
    flush_partials(final);
}

void cp_event_round(void)
{
    uint64_t want = __atomic_exchange_n(&want_pools, 0, __ATOMIC_RELAXED);
    uint64_t now = cp_gpu_realtime_ns();
    int d;

    for (d = 0; want && d < MAX_DEV; d++)
        if (want & (UINT64_C(1) << d))
            (void)cp_event_pool(d);
    for (d = 0; d < MAX_DEV; d++) {
        struct pool *p = __atomic_load_n(&pools[d], __ATOMIC_ACQUIRE);
        if (p && now - p->anchor_taken >= ANCHOR_NS) {
            (void)cp_gpu_rt.set_device(d);
            refresh_anchor(p);
        }
    }
    poll_entries(0);
}

void cp_event_final(void)
{
    poll_entries(1);
}

/* fakecudart.c - libcudart.so.13 of the GPU timer tests (see fakecuda.h).
 *
 * Streams hold a virtual timeline in CLOCK_REALTIME: work starts when the
 * stream is free and ends dur_ns later; an event recorded on a stream
 * completes when the work queued before it does.  Only what the shim and the
 * tests call exists.  Return codes are cudaError_t values.
 *
 * Memory, for collprof bench's GPU timer test (tests/bench-cli/gputimer.sh):
 * "device" memory is host memory (fakenccl computes on it), and the copies
 * are plain memcpys that do not wait for the streams.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakecuda.h"

#define EXPORT __attribute__((visibility("default")))
#define NEVER UINT64_MAX

typedef int cudaError_t;

enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorUnknown = 999
};

struct stream {
    uint32_t id;
    int dev;
    int capturing;
    uint64_t busy_until;
};

struct event {
    int dev;
    int recorded, captured, timing;
    uint64_t time;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream legacy = {7, 0, 0, 0};
static uint32_t next_stream_id = 100;
static uint64_t launches, captured_records;
static struct stream *streams[1024]; /* kept: work on them may still run */
static unsigned nstreams;

/* Per-thread state through a key, not __thread: LeakSanitizer cannot walk
 * the dynamic TLS of a dlopen'd library. */
struct per_thread {
    int current_device, capture_mode;
};
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void make_key(void)
{
    pthread_key_create(&key, free);
}

static struct per_thread *T(void)
{
    static struct per_thread fallback;
    struct per_thread *t;
    pthread_once(&key_once, make_key);
    t = pthread_getspecific(key);
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t || pthread_setspecific(key, t) != 0) {
            free(t);
            return &fallback;
        }
    }
    return t;
}
static fakecuda_launch_hook launch_hook;
static fakecuda_capture_hook capture_hook;

EXPORT uint64_t fakecuda_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct stream *S(void *s)
{
    return s ? (struct stream *)s : &legacy;
}

static int devices(void)
{
    const char *v = getenv("FAKECUDA_DEVICES");
    if (!fakecuda_driver_present())
        return 0;
    return v ? atoi(v) : 1;
}

EXPORT void fakecuda_set_hooks(fakecuda_launch_hook launch,
                               fakecuda_capture_hook capture)
{
    pthread_mutex_lock(&lock);
    launch_hook = launch;
    capture_hook = capture;
    pthread_mutex_unlock(&lock);
}

EXPORT uint32_t fakecuda_stream_id(void *s)
{
    return S(s)->id;
}

EXPORT uint64_t fakecuda_captured_event_records(void)
{
    uint64_t n;
    pthread_mutex_lock(&lock);
    n = captured_records;
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT int fakecuda_launch(void *s, const char *name, int what, uint64_t dur)
{
    struct stream *st = S(s);
    fakecuda_launch_hook hook;
    uint64_t now = fakecuda_now_ns(), start, end, n, hang = 0;
    const char *v = getenv("FAKECUDA_HANG");
    int captured;

    if (v)
        hang = strtoull(v, NULL, 10);
    pthread_mutex_lock(&lock);
    n = ++launches;
    hook = launch_hook;
    captured = st->capturing;
    start = end = 0;
    if (!captured) {
        start = st->busy_until > now ? st->busy_until : now;
        end = (n == hang || start == NEVER) ? NEVER : start + dur;
        st->busy_until = end;
    }
    pthread_mutex_unlock(&lock);
    if (hook)
        hook(st->id, name, what, start == NEVER ? 0 : start,
             end == NEVER ? 0 : end, captured);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceCount(int *n)
{
    int d = devices();
    if (!n)
        return cudaErrorInvalidValue;
    *n = d > 0 ? d : 0;
    return d > 0 ? cudaSuccess : cudaErrorNoDevice;
}

EXPORT cudaError_t cudaGetDevice(int *d)
{
    if (devices() <= 0)
        return cudaErrorNoDevice;
    *d = T()->current_device;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int d)
{
    if (d < 0 || d >= devices())
        return cudaErrorInvalidDevice;
    T()->current_device = d;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCreateWithFlags(void **s, unsigned flags)
{
    struct stream *st = calloc(1, sizeof *st);
    (void)flags;
    if (!st)
        return cudaErrorUnknown;
    pthread_mutex_lock(&lock);
    st->id = next_stream_id++;
    if (nstreams < sizeof streams / sizeof streams[0])
        streams[nstreams++] = st;
    pthread_mutex_unlock(&lock);
    st->dev = T()->current_device;
    *s = st;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCreate(void **s)
{
    return cudaStreamCreateWithFlags(s, 0);
}

EXPORT cudaError_t cudaStreamDestroy(void *s)
{
    (void)s; /* kept: work queued on it still completes */
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamSynchronize(void *s)
{
    for (;;) {
        uint64_t busy;
        pthread_mutex_lock(&lock);
        busy = S(s)->busy_until;
        pthread_mutex_unlock(&lock);
        if (busy == NEVER)
            return cudaErrorUnknown; /* a test must not wait forever */
        if (fakecuda_now_ns() >= busy)
            return cudaSuccess;
        usleep(100);
    }
}

EXPORT cudaError_t cudaStreamIsCapturing(void *s, int *status)
{
    pthread_mutex_lock(&lock);
    *status = S(s)->capturing ? 1 : 0;
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamBeginCapture(void *s, int mode)
{
    fakecuda_capture_hook hook;
    (void)mode;
    pthread_mutex_lock(&lock);
    S(s)->capturing = 1;
    hook = capture_hook;
    pthread_mutex_unlock(&lock);
    if (hook)
        hook();
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamEndCapture(void *s, void **graph)
{
    pthread_mutex_lock(&lock);
    S(s)->capturing = 0;
    pthread_mutex_unlock(&lock);
    if (graph)
        *graph = (void *)1;
    return cudaSuccess;
}

EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(int *mode)
{
    int old = T()->capture_mode;
    T()->capture_mode = *mode;
    *mode = old;
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventCreateWithFlags(void **e, unsigned flags)
{
    struct event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return cudaErrorUnknown;
    ev->dev = T()->current_device;
    ev->timing = !(flags & 2u);
    *e = ev;
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventCreate(void **e)
{
    return cudaEventCreateWithFlags(e, 0);
}

EXPORT cudaError_t cudaEventDestroy(void *e)
{
    free(e);
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventRecord(void *e, void *s)
{
    struct event *ev = e;
    struct stream *st = S(s);
    uint64_t now = fakecuda_now_ns();

    if (!ev)
        return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&lock);
    if (s && st->dev != ev->dev) {
        pthread_mutex_unlock(&lock);
        return cudaErrorInvalidResourceHandle;
    }
    if (st->capturing) {
        /* it would become a node of the user's graph */
        captured_records++;
        ev->captured = 1;
        ev->recorded = 1;
    } else {
        ev->captured = 0;
        ev->recorded = 1;
        ev->time = st->busy_until > now ? st->busy_until : now;
    }
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

static cudaError_t query(const struct event *ev)
{
    if (!ev->recorded)
        return cudaSuccess;
    if (ev->captured)
        return cudaErrorStreamCaptureUnsupported;
    return fakecuda_now_ns() >= ev->time ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaEventQuery(void *e)
{
    cudaError_t r;
    pthread_mutex_lock(&lock);
    r = query(e);
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT cudaError_t cudaEventSynchronize(void *e)
{
    for (;;) {
        cudaError_t r;
        uint64_t t;
        pthread_mutex_lock(&lock);
        r = query(e);
        t = ((struct event *)e)->time;
        pthread_mutex_unlock(&lock);
        if (r != cudaErrorNotReady)
            return r;
        if (t == NEVER)
            return cudaErrorUnknown;
        usleep(50);
    }
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, void *a, void *b)
{
    struct event *x = a, *y = b;
    cudaError_t r = cudaSuccess;

    pthread_mutex_lock(&lock);
    if (!x->recorded || !y->recorded || !x->timing || !y->timing ||
        x->dev != y->dev)
        r = cudaErrorInvalidResourceHandle;
    else if (query(x) != cudaSuccess || query(y) != cudaSuccess)
        r = cudaErrorNotReady;
    else
        *ms = (float)((double)(int64_t)(y->time - x->time) / 1e6);
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT cudaError_t cudaMalloc(void **p, size_t n)
{
    if (!p)
        return cudaErrorInvalidValue;
    if (devices() <= 0)
        return cudaErrorNoDevice;
    *p = calloc(1, n ? n : 1);
    return *p ? cudaSuccess : cudaErrorUnknown;
}

EXPORT cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
    (void)kind;
    if ((!dst || !src) && n)
        return cudaErrorInvalidValue;
    memmove(dst, src, n);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemset(void *p, int value, size_t n)
{
    if (!p && n)
        return cudaErrorInvalidValue;
    memset(p, value, n);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (devices() <= 0)
        return cudaErrorNoDevice;
    *free_bytes = (size_t)1 << 30;
    *total = (size_t)2 << 30;
    return cudaSuccess;
}

EXPORT const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorNotReady:
        return "device not ready";
    default:
        return "fake cuda error";
    }
}

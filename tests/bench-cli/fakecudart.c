/* fakecudart.c - a libcudart.so for collprof bench's device-buffer path on
 * machines without a GPU (tests/bench-cli/devicepath.sh).
 *
 * "Device" memory is host memory that this library hands out and tracks, so
 * that the CPU NCCL (simnccl) can move it, and so that the test sees whether
 * the bench used it the right way round: a copy to the device must land in
 * an allocation and come from outside one, a copy back the reverse, memset
 * only on allocations, cudaSetDevice before the first allocation, a device
 * number below the count, every allocation freed.  Anything else counts as
 * "bad" and fails the call with cudaErrorInvalidValue.  At exit the counts
 * are appended, one line per process, to $FAKECUDART_LOG:
 *   malloc=N free=N h2d=N d2h=N memset=N sync=N streams=N bad=N leaked=N
 *   events=N records=N elapsed=N events_left=N
 * $FAKECUDART_DEVICES sets the device count (default 1), $FAKECUDART_FREE
 * the free memory cudaMemGetInfo reports (default 1 GiB).
 *
 * Events: the CPU NCCL has finished a call when it returns, so an event
 * "completes" when it is recorded and holds CLOCK_MONOTONIC then; an
 * event must be recorded on the bench's stream, and cudaEventElapsedTime
 * wants two recorded events of this library.  With $FAKECUDART_NO_EVENTS
 * set to a rank (SIMNCCL_RANK, 0 without it), cudaEventCreate fails on
 * that rank (cudaErrorNotSupported).
 *
 * Only what the bench calls exists; cudaError_t values are CUDA's.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_ALLOCS 256

enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotSupported = 801
};
enum { H2D = 1, D2H = 2 };

struct allocation {
    char *p;
    size_t n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct allocation allocs[MAX_ALLOCS];
static int nallocs;
static int device = -1;
static unsigned long n_malloc, n_free, n_h2d, n_d2h, n_memset, n_sync,
    n_streams, n_bad;
static char stream_object;
static unsigned long n_events, n_records, n_elapsed, n_events_left;

struct event {
    int recorded;
    double at; /* CLOCK_MONOTONIC, s */
};

static int devices(void)
{
    const char *e = getenv("FAKECUDART_DEVICES");
    return e ? atoi(e) : 1;
}

/* [p, p+n) inside one allocation. */
static int inside(const void *p, size_t n)
{
    const char *c = p;
    for (int i = 0; i < nallocs; i++)
        if (c >= allocs[i].p && c + n <= allocs[i].p + allocs[i].n)
            return 1;
    return 0;
}

static int bad(void)
{
    n_bad++;
    return cudaErrorInvalidValue;
}

EXPORT int cudaGetDeviceCount(int *n)
{
    *n = devices();
    return *n > 0 ? cudaSuccess : cudaErrorNoDevice;
}

EXPORT int cudaSetDevice(int d)
{
    if (d < 0 || d >= devices()) {
        n_bad++;
        return cudaErrorInvalidDevice;
    }
    device = d;
    return cudaSuccess;
}

EXPORT int cudaMalloc(void **p, size_t n)
{
    int rc = cudaSuccess;

    pthread_mutex_lock(&lock);
    if (device < 0 || nallocs == MAX_ALLOCS) {
        rc = bad();
        goto out;
    }
    *p = calloc(1, n ? n : 1);
    if (!*p) {
        rc = cudaErrorMemoryAllocation;
        goto out;
    }
    allocs[nallocs].p = *p;
    allocs[nallocs++].n = n;
    n_malloc++;
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT int cudaFree(void *p)
{
    int rc = cudaSuccess, i;

    pthread_mutex_lock(&lock);
    for (i = 0; i < nallocs && allocs[i].p != p; i++)
        ;
    if (i == nallocs) {
        rc = bad();
        goto out;
    }
    free(p);
    allocs[i] = allocs[--nallocs];
    n_free++;
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT int cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
    int rc = cudaSuccess;

    pthread_mutex_lock(&lock);
    if ((kind == H2D && inside(dst, n) && !inside(src, n)) ||
        (kind == D2H && inside(src, n) && !inside(dst, n))) {
        memcpy(dst, src, n);
        if (kind == H2D)
            n_h2d++;
        else
            n_d2h++;
    } else {
        rc = bad();
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT int cudaMemset(void *p, int value, size_t n)
{
    int rc = cudaSuccess;

    pthread_mutex_lock(&lock);
    if (inside(p, n)) {
        memset(p, value, n);
        n_memset++;
    } else {
        rc = bad();
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT int cudaStreamCreate(void **s)
{
    *s = &stream_object;
    n_streams++;
    return cudaSuccess;
}

EXPORT int cudaStreamSynchronize(void *s)
{
    if (s != &stream_object)
        return bad();
    n_sync++;
    return cudaSuccess;
}

EXPORT int cudaStreamDestroy(void *s)
{
    return s == &stream_object ? cudaSuccess : bad();
}

EXPORT int cudaEventCreate(void **e)
{
    const char *no = getenv("FAKECUDART_NO_EVENTS"),
               *rank = getenv("SIMNCCL_RANK");
    struct event *ev;

    if (no && atoi(no) == (rank ? atoi(rank) : 0))
        return cudaErrorNotSupported;
    ev = calloc(1, sizeof *ev);
    if (!ev)
        return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&lock);
    n_events++;
    n_events_left++;
    pthread_mutex_unlock(&lock);
    *e = ev;
    return cudaSuccess;
}

EXPORT int cudaEventRecord(void *e, void *s)
{
    struct event *ev = e;
    struct timespec t;

    if (!ev || s != &stream_object)
        return bad();
    clock_gettime(CLOCK_MONOTONIC, &t);
    ev->at = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    ev->recorded = 1;
    n_records++;
    return cudaSuccess;
}

EXPORT int cudaEventElapsedTime(float *ms, void *a, void *b)
{
    struct event *x = a, *y = b;

    if (!ms || !x || !y || !x->recorded || !y->recorded) {
        n_bad++;
        return cudaErrorInvalidResourceHandle;
    }
    *ms = (float)((y->at - x->at) * 1e3);
    n_elapsed++;
    return cudaSuccess;
}

EXPORT int cudaEventDestroy(void *e)
{
    if (!e)
        return bad();
    free(e);
    pthread_mutex_lock(&lock);
    n_events_left--;
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

EXPORT int cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    const char *e = getenv("FAKECUDART_FREE");
    *free_bytes = e ? (size_t)strtoull(e, NULL, 10) : (size_t)1 << 30;
    *total = 2 * *free_bytes;
    return cudaSuccess;
}

EXPORT const char *cudaGetErrorString(int e)
{
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument (fake cudart)";
    case cudaErrorMemoryAllocation:
        return "out of memory (fake cudart)";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected (fake cudart)";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal (fake cudart)";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle (fake cudart)";
    case cudaErrorNotSupported:
        return "operation not supported (fake cudart)";
    default:
        return "unknown error (fake cudart)";
    }
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FAKECUDART_LOG");
    FILE *f;

    if (!path || !(f = fopen(path, "a")))
        return;
    fprintf(f,
            "malloc=%lu free=%lu h2d=%lu d2h=%lu memset=%lu sync=%lu "
            "streams=%lu bad=%lu leaked=%d events=%lu records=%lu "
            "elapsed=%lu events_left=%lu\n",
            n_malloc, n_free, n_h2d, n_d2h, n_memset, n_sync, n_streams,
            n_bad, nallocs, n_events, n_records, n_elapsed, n_events_left);
    fclose(f);
}

/* fakecupti.c - libcupti.so.13 of the GPU timer tests (see fakecuda.h).
 *
 * The entry points the shim calls, with CUPTI's contract: one subscriber;
 * activity records handed over in client buffers through the registered
 * callbacks, read with cuptiActivityGetNextRecord; an external correlation
 * record before each API record made while an id is pushed.  Each launch of
 * the fake cudart becomes: (external correlation records, one per pushed
 * kind), an API record (if its kind or its callback id is enabled), and a
 * kernel or memcpy record once the work has ended.  Layouts are those of
 * preload/cp_cuda_abi.h (checked against the real cupti.h by cuda_abi.t);
 * kernel records are padded to CUpti_ActivityKernel10's size.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_cuda_abi.h"
#include "fakecuda.h"

#define EXPORT __attribute__((visibility("default")))
#define KERNEL_SIZE 216
#define MEMCPY_SIZE 96
#define MAX_STACK 16
#define NKINDS 8

typedef int CUptiResult;

struct rec {
    uint64_t not_before; /* deliver at a flush with a higher number */
    uint64_t end_rt;     /* device work: when it ends (0: never) */
    int device, held;
    size_t size;
    uint8_t bytes[KERNEL_SIZE];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int subscribed, capture_cb_on, finalized;
static cp_cupti_callback_fn subscriber_cb;
static void *subscriber_ud;
static cp_cupti_buffer_request_fn request_cb;
static cp_cupti_buffer_complete_fn complete_cb;
static int kind_on[64];
static uint8_t driver_api_on[1024], runtime_api_on[1024];
static struct rec *pending;
static size_t npending, cap_pending;
static uint64_t corr_next, nlaunches, flushes;
static struct rec *late;
static size_t nlate;

static int mode_multiple, mode_unknown, mode_reorder, mode_hold, mode_late;
static uint64_t missing_at, finalize_after;
static int64_t offset_ns;

/* External id stacks, per thread and kind, through a key (LeakSanitizer
 * and the dynamic TLS of dlopen'd libraries do not mix). */
struct stack {
    uint64_t id[MAX_STACK];
    int n;
};
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void make_key(void)
{
    pthread_key_create(&key, free);
}

static struct stack *stacks_of_thread(void)
{
    static struct stack fallback[NKINDS];
    struct stack *s;
    pthread_once(&key_once, make_key);
    s = pthread_getspecific(key);
    if (!s) {
        s = calloc(NKINDS, sizeof *s);
        if (!s || pthread_setspecific(key, s) != 0) {
            free(s);
            return fallback;
        }
    }
    return s;
}

static uint64_t cupti_now(void)
{
    return (uint64_t)((int64_t)fakecuda_now_ns() + offset_ns);
}

static uint64_t shift(uint64_t t)
{
    return t ? (uint64_t)((int64_t)t + offset_ns) : 0;
}

static struct rec *add(void)
{
    struct rec *r;
    if (npending == cap_pending) {
        size_t n = cap_pending ? cap_pending * 2 : 256;
        struct rec *p = realloc(pending, n * sizeof *p);
        if (!p)
            return NULL;
        pending = p;
        cap_pending = n;
    }
    r = &pending[npending++];
    memset(r, 0, sizeof *r);
    r->not_before = flushes;
    return r;
}

/* A launch of the fake cudart, on the launching thread. */
static void on_launch(uint32_t stream_id, const char *name, int what,
                      uint64_t start, uint64_t end, int captured)
{
    uint32_t cbid = what == FAKECUDA_KERNEL ? 652 /* cuLaunchKernelEx */
                                            : 306 /* cuMemcpyAsync */;
    struct stack *stacks = stacks_of_thread();
    uint32_t corr;
    uint64_t n;
    int k;

    pthread_mutex_lock(&lock);
    n = ++nlaunches;
    if (finalize_after && n > finalize_after)
        __atomic_store_n(&finalized, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&finalized, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&lock);
        return;
    }
    corr = (uint32_t)++corr_next;
    if (kind_on[CP_CUPTI_KIND_DRIVER] || driver_api_on[cbid]) {
        struct cp_cupti_api api;
        struct rec *r;
        for (k = 0; kind_on[CP_CUPTI_KIND_EXTERNAL_CORRELATION] && k < NKINDS;
             k++) {
            struct cp_cupti_external_correlation x;
            if (!stacks[k].n || !(r = add()))
                continue;
            memset(&x, 0, sizeof x);
            x.kind = CP_CUPTI_KIND_EXTERNAL_CORRELATION;
            x.externalKind = (uint32_t)k;
            x.externalId = stacks[k].id[stacks[k].n - 1];
            x.correlationId = corr;
            r->size = sizeof x;
            memcpy(r->bytes, &x, sizeof x);
            if (mode_reorder)
                r->not_before = flushes + 1;
        }
        if ((r = add()) != NULL) {
            memset(&api, 0, sizeof api);
            api.kind = CP_CUPTI_KIND_DRIVER;
            api.cbid = cbid;
            api.start = cupti_now();
            api.end = api.start + 1000;
            api.processId = (uint32_t)getpid();
            api.correlationId = corr;
            r->size = sizeof api;
            memcpy(r->bytes, &api, sizeof api);
        }
    }
    if (!captured && n != missing_at) {
        struct rec *r = NULL;
        if (what == FAKECUDA_KERNEL && kind_on[CP_CUPTI_KIND_CONCURRENT_KERNEL] &&
            (r = add()) != NULL) {
            struct cp_cupti_kernel kr;
            memset(&kr, 0, sizeof kr);
            kr.kind = CP_CUPTI_KIND_CONCURRENT_KERNEL;
            kr.start = shift(start);
            kr.end = shift(end);
            kr.streamId = stream_id;
            kr.correlationId = corr;
            kr.name = name;
            r->size = KERNEL_SIZE;
            memcpy(r->bytes, &kr, sizeof kr);
        } else if (what == FAKECUDA_MEMCPY && kind_on[CP_CUPTI_KIND_MEMCPY] &&
                   (r = add()) != NULL) {
            struct cp_cupti_memcpy m;
            memset(&m, 0, sizeof m);
            m.kind = CP_CUPTI_KIND_MEMCPY;
            m.copyKind = 8; /* device to device */
            m.bytes = 1u << 20;
            m.start = shift(start);
            m.end = shift(end);
            m.streamId = stream_id;
            m.correlationId = corr;
            r->size = MEMCPY_SIZE;
            memcpy(r->bytes, &m, sizeof m);
        }
        if (r) {
            r->device = 1;
            r->end_rt = end;
            r->held = mode_hold;
        }
    }
    pthread_mutex_unlock(&lock);
}

static void on_capture(void)
{
    cp_cupti_callback_fn cb;
    void *ud;

    pthread_mutex_lock(&lock);
    cb = subscribed && capture_cb_on ? subscriber_cb : NULL;
    ud = subscriber_ud;
    pthread_mutex_unlock(&lock);
    if (cb)
        cb(ud, CP_CUPTI_DOMAIN_RUNTIME_API, 315, NULL);
}

static int has(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;
    while (p && (p = strstr(p, word)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* Hand records to the client, in as many buffers as it takes. */
static void deliver(struct rec *recs, size_t n)
{
    size_t i = 0;

    while (i < n) {
        uint8_t *buf = NULL;
        size_t size = 0, max = 0, used = 0;
        request_cb(&buf, &size, &max);
        if (!buf)
            return; /* declined: the records are dropped, as CUPTI does */
        while (i < n && used + 8 + recs[i].size <= size) {
            uint64_t sz = recs[i].size;
            memcpy(buf + used, &sz, 8);
            memcpy(buf + used + 8, recs[i].bytes, recs[i].size);
            used += 8 + recs[i].size;
            i++;
        }
        complete_cb(NULL, 0, buf, size, used);
    }
}

static void take_late(struct rec *got, size_t *ngot)
{
    /* the last few records wait for the destructor */
    size_t keep = *ngot < 3 ? *ngot : 3;
    late = malloc(keep * sizeof *late);
    if (!late)
        return;
    memcpy(late, got + *ngot - keep, keep * sizeof *late);
    nlate = keep;
    *ngot -= keep;
}

__attribute__((constructor)) static void fake_init(void)
{
    const char *m = getenv("FAKECUPTI_MODE"), *v;

    mode_multiple = has(m, "multiple");
    mode_unknown = has(m, "unknown");
    mode_reorder = has(m, "reorder");
    mode_hold = has(m, "hold");
    mode_late = has(m, "late");
    if ((v = getenv("FAKECUPTI_MISSING")) != NULL)
        missing_at = strtoull(v, NULL, 10);
    if ((v = getenv("FAKECUPTI_FINALIZE_AFTER")) != NULL)
        finalize_after = strtoull(v, NULL, 10);
    if ((v = getenv("FAKECUPTI_OFFSET_NS")) != NULL)
        offset_ns = strtoll(v, NULL, 10);
    fakecuda_set_hooks(on_launch, on_capture);
}

__attribute__((destructor)) static void fake_fini(void)
{
    fakecuda_set_hooks(NULL, NULL);
    /* A buffer CUPTI completes at exit, after the client stopped. */
    if (nlate && request_cb && complete_cb)
        deliver(late, nlate);
    free(late);
    late = NULL;
    nlate = 0;
}

/* ---- the CUPTI entry points ------------------------------------------------ */
EXPORT uint64_t fakecupti_launches(void)
{
    uint64_t n;
    pthread_mutex_lock(&lock);
    n = nlaunches;
    pthread_mutex_unlock(&lock);
    return n;
}

EXPORT CUptiResult cuptiSubscribe(void **sub, cp_cupti_callback_fn cb, void *ud)
{
    CUptiResult r = CP_CUPTI_SUCCESS;

    pthread_mutex_lock(&lock);
    if (mode_multiple || subscribed)
        r = CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    else if (mode_unknown)
        r = CP_CUPTI_ERROR_UNKNOWN;
    else {
        subscribed = 1;
        subscriber_cb = cb;
        subscriber_ud = ud;
        *sub = &subscribed;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT CUptiResult cuptiUnsubscribe(void *sub)
{
    (void)sub;
    pthread_mutex_lock(&lock);
    subscribed = 0;
    subscriber_cb = NULL;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, void *sub, int domain,
                                       uint32_t cbid)
{
    (void)sub;
    if (domain == CP_CUPTI_DOMAIN_RUNTIME_API && cbid == 315) {
        pthread_mutex_lock(&lock);
        capture_cb_on = enable != 0;
        pthread_mutex_unlock(&lock);
    }
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(int kind)
{
    if (kind < 0 || kind >= 64)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    kind_on[kind] = 1;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityDisable(int kind)
{
    if (kind < 0 || kind >= 64)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    kind_on[kind] = 0;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableDriverApi(uint32_t cbid, uint8_t enable)
{
    if (cbid >= 1024)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    driver_api_on[cbid] = enable;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableRuntimeApi(uint32_t cbid, uint8_t enable)
{
    if (cbid >= 1024)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    runtime_api_on[cbid] = enable;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityRegisterCallbacks(cp_cupti_buffer_request_fn req,
                               cp_cupti_buffer_complete_fn done)
{
    if (!req || !done)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&lock);
    request_cb = req;
    complete_cb = done;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    int forced = (flag & CP_CUPTI_FLUSH_FORCED) != 0;
    uint64_t now = fakecuda_now_ns();
    struct rec *got;
    size_t i, ngot = 0, kept = 0;

    pthread_mutex_lock(&lock);
    if (__atomic_load_n(&finalized, __ATOMIC_RELAXED) || !request_cb) {
        pthread_mutex_unlock(&lock);
        return request_cb ? CP_CUPTI_ERROR_NOT_INITIALIZED : CP_CUPTI_SUCCESS;
    }
    flushes++;
    got = malloc((npending ? npending : 1) * sizeof *got);
    if (!got) {
        pthread_mutex_unlock(&lock);
        return CP_CUPTI_ERROR_UNKNOWN;
    }
    for (i = 0; i < npending; i++) {
        struct rec *r = &pending[i];
        int ready;
        if (r->device)
            ready = forced || (!r->held && r->end_rt && r->end_rt <= now);
        else
            ready = forced || r->not_before < flushes;
        if (ready)
            got[ngot++] = *r;
        else
            pending[kept++] = *r;
    }
    npending = kept;
    if (forced && mode_late && !late)
        take_late(got, &ngot);
    pthread_mutex_unlock(&lock);
    deliver(got, ngot);
    free(got);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
                                              void **record)
{
    uint8_t *next;
    uint64_t size;

    if (*record) {
        uint64_t prev;
        memcpy(&prev, (uint8_t *)*record - 8, 8);
        next = (uint8_t *)*record + prev;
    } else {
        next = buffer;
    }
    if (next + 8 > buffer + valid)
        return 12; /* CUPTI_ERROR_MAX_LIMIT_REACHED */
    memcpy(&size, next, 8);
    *record = next + 8;
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPushExternalCorrelationId(int kind, uint64_t id)
{
    struct stack *stacks = stacks_of_thread();

    if (__atomic_load_n(&finalized, __ATOMIC_RELAXED))
        return CP_CUPTI_ERROR_NOT_INITIALIZED;
    if (kind <= 0 || kind >= NKINDS || stacks[kind].n == MAX_STACK)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    stacks[kind].id[stacks[kind].n++] = id;
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPopExternalCorrelationId(int kind,
                                                         uint64_t *last)
{
    struct stack *stacks = stacks_of_thread();

    if (__atomic_load_n(&finalized, __ATOMIC_RELAXED))
        return CP_CUPTI_ERROR_NOT_INITIALIZED;
    if (kind <= 0 || kind >= NKINDS)
        return CP_CUPTI_ERROR_INVALID_PARAMETER;
    if (!stacks[kind].n)
        return CP_CUPTI_ERROR_QUEUE_EMPTY;
    stacks[kind].n--;
    if (last)
        *last = stacks[kind].id[stacks[kind].n];
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
    *ts = cupti_now();
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetStreamIdEx(void *ctx, void *stream, uint8_t pts,
                                      uint32_t *id)
{
    (void)ctx;
    (void)pts;
    *id = fakecuda_stream_id(stream);
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
    switch (r) {
    case CP_CUPTI_SUCCESS:
        *s = "CUPTI_SUCCESS";
        break;
    case CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        *s = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
        break;
    case CP_CUPTI_ERROR_NOT_INITIALIZED:
        *s = "CUPTI_ERROR_NOT_INITIALIZED";
        break;
    default:
        *s = "CUPTI_ERROR_UNKNOWN";
        break;
    }
    return CP_CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiFinalize(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&finalized, 1, __ATOMIC_RELAXED);
    subscribed = 0;
    pthread_mutex_unlock(&lock);
    return CP_CUPTI_SUCCESS;
}

/* cp_gpu.c - what the GPU timers share (see cp_gpu.h): the CUDA runtime,
 * stream captures, communicators' devices, and the records they write.
 *
 * Called from the NCCL callers' threads (capture checks, device look-ups,
 * an event failure: no malloc, no lock, no print) and from the background
 * thread (records).  Calls nothing of the timers above it.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "cp_gpu.h"
#include "cp_logwrite.h"

int cp_gpu_mode;
int cp_gpu_capture_seen;
struct cp_cudart cp_gpu_rt;
CP_GPU_TLS struct cp_gpu_group cp_gpu_group;

static struct cp_log *the_log;

/* A failure of the event timer seen on the hot path, said by the thread. */
static int event_failure;     /* atomic: 1 pending, 2 said */
static char event_failure_what[160];

static uint64_t monotonic_ns(void)
{
    return cp_clock_ns(CLOCK_MONOTONIC);
}

/* ---- finding the libraries ---------------------------------------------- */
static const char *const cuda_dirs[] = {"/usr/local/cuda/lib64",
                                        "/usr/local/cuda/lib",
                                        "/usr/local/cuda/extras/CUPTI/lib64",
                                        NULL};

void *cp_gpu_dlopen(const char *const *names)
{
    const char *const *n, *const *d;
    void *h = NULL;

    /* The copy the process already uses comes first: two CUDA runtimes or
     * two CUPTIs in one process do not agree on anything. */
    for (n = names; !h && *n; n++)
        h = dlopen(*n, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    for (n = names; !h && *n; n++)
        h = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
    for (d = cuda_dirs; !h && *d; d++)
        for (n = names; !h && *n; n++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", *d, *n);
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    (void)dlerror(); /* leave no message of ours for the program to find */
    return h;
}

int cp_gpu_load_cudart(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12",
                                        "libcudart.so.11.0", "libcudart.so",
                                        NULL};
    void *h;

    if (cp_gpu_rt.lib)
        return 0;
    h = cp_gpu_dlopen(names);
    if (!h)
        return -1;
#define SYM(field, name) *(void **)&cp_gpu_rt.field = dlsym(h, name)
    SYM(get_device_count, "cudaGetDeviceCount");
    SYM(get_device, "cudaGetDevice");
    SYM(set_device, "cudaSetDevice");
    SYM(event_create, "cudaEventCreateWithFlags");
    SYM(event_record, "cudaEventRecord");
    SYM(event_query, "cudaEventQuery");
    SYM(event_elapsed, "cudaEventElapsedTime");
    SYM(event_synchronize, "cudaEventSynchronize");
    SYM(event_destroy, "cudaEventDestroy");
    SYM(stream_create, "cudaStreamCreateWithFlags");
    SYM(stream_is_capturing, "cudaStreamIsCapturing");
    SYM(exchange_capture_mode, "cudaThreadExchangeStreamCaptureMode");
    SYM(error_string, "cudaGetErrorString");
#undef SYM
    (void)dlerror();
    if (!cp_gpu_rt.get_device_count) {
        dlclose(h);
        memset(&cp_gpu_rt, 0, sizeof cp_gpu_rt);
        return -1;
    }
    cp_gpu_rt.lib = h;
    return 0;
}

int cp_gpu_stream_capturing(void *stream)
{
    int status = CP_CUDA_CAPTURE_STATUS_NONE;

    if (!cp_gpu_rt.stream_is_capturing)
        return 0;
    if (cp_gpu_rt.stream_is_capturing((cp_cuda_stream)stream, &status) !=
        CP_CUDA_SUCCESS)
        return 1;
    return status != CP_CUDA_CAPTURE_STATUS_NONE;
}

/* ---- communicators and their devices ------------------------------------ */
#define DEV_TABLE 4096 /* power of two */

static struct {
    const void *handle; /* atomic; written last */
    int dev;            /* atomic */
} dev_table[DEV_TABLE];
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t dev_mask; /* atomic: devices of known communicators (< 64) */

static size_t dev_hash(const void *p)
{
    uint64_t k = (uint64_t)(uintptr_t)p;
    k ^= k >> 29;
    k *= UINT64_C(0xbf58476d1ce4e5b9);
    return (size_t)(k >> 40) & (DEV_TABLE - 1);
}

void cp_gpu_comm_device_set(const void *comm, int dev)
{
    size_t i, n;

    pthread_mutex_lock(&dev_lock);
    for (i = dev_hash(comm), n = 0; n < DEV_TABLE;
         n++, i = (i + 1) & (DEV_TABLE - 1)) {
        const void *h = __atomic_load_n(&dev_table[i].handle, __ATOMIC_RELAXED);
        if (h == comm || !h) {
            __atomic_store_n(&dev_table[i].dev, dev, __ATOMIC_RELAXED);
            __atomic_store_n(&dev_table[i].handle, comm, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&dev_lock);
    if (dev < 64)
        __atomic_fetch_or(&dev_mask, UINT64_C(1) << dev, __ATOMIC_RELAXED);
}

int cp_gpu_comm_device(const void *comm)
{
    size_t i, n;

    if (!comm)
        return -1;
    for (i = dev_hash(comm), n = 0; n < DEV_TABLE;
         n++, i = (i + 1) & (DEV_TABLE - 1)) {
        const void *h = __atomic_load_n(&dev_table[i].handle, __ATOMIC_ACQUIRE);
        if (h == comm)
            return __atomic_load_n(&dev_table[i].dev, __ATOMIC_RELAXED);
        if (!h)
            return -1;
    }
    return -1;
}

uint64_t cp_gpu_devices_known(void)
{
    return __atomic_load_n(&dev_mask, __ATOMIC_RELAXED);
}

/* ---- records ------------------------------------------------------------- */
void cp_gpu_set_log(struct cp_log *log)
{
    the_log = log;
}

static void write_gpu(uint64_t slot, unsigned timer, uint16_t flags,
                      uint64_t start, uint64_t end)
{
    union cp_rec *rec = cp_log_slot(the_log, NULL);

    if (!rec)
        return; /* log full or closed: the shim already said so */
    memset(rec, 0, sizeof *rec);
    rec->gpu.timer = (uint8_t)timer;
    rec->gpu.flags = flags;
    rec->gpu.slot = slot;
    rec->gpu.start_ns = start;
    rec->gpu.end_ns = end;
    cp_log_commit(rec, CP_REC_GPU);
}

/* A copy of the record in slot, 0 when it is not (yet) written. */
static int peek(uint64_t slot, union cp_rec *out)
{
    uint64_t c = slot >> CP_LOG_CHUNK_SHIFT;
    union cp_rec *base, *rec;

    if (the_log->ring) {
        /* format 4: the slot while its cell still holds it (the ring's
         * last ring_slots slots); its index read again after the copy, so
         * that a cell taken for a later slot meanwhile is not believed */
        struct cp_log_ring *r = the_log->ring;
        uint64_t p = slot & r->mask;
        rec = &r->cell[p];
        if (__atomic_load_n(&r->index[p], __ATOMIC_ACQUIRE) != slot ||
            __atomic_load_n(&rec->kind, __ATOMIC_ACQUIRE) == CP_REC_EMPTY)
            return 0;
        memcpy(out, rec, sizeof *out);
        return __atomic_load_n(&r->index[p], __ATOMIC_ACQUIRE) == slot &&
               out->kind != CP_REC_EMPTY;
    }
    if (c >= CP_LOG_MAX_CHUNKS)
        return 0;
    base = __atomic_load_n(&the_log->chunk[c], __ATOMIC_ACQUIRE);
    if (!base)
        return 0;
    rec = &base[slot & (CP_LOG_CHUNK_SLOTS - 1)];
    if (__atomic_load_n(&rec->kind, __ATOMIC_ACQUIRE) == CP_REC_EMPTY)
        return 0;
    memcpy(out, rec, sizeof *out);
    return 1;
}

/* Calls of one group never lie more than this far before its record. */
#define MAX_GROUP_SCAN (UINT64_C(1) << 22)

int cp_gpu_emit(uint64_t ext, unsigned timer, uint16_t flags,
                uint64_t start_ns, uint64_t end_ns, int final)
{
    uint64_t slot = cp_ext_slot(ext), dist, s;
    union cp_rec grp, r;
    uint16_t fused = 0;

    if (!the_log)
        return 0;
    if (!(ext & CP_EXT_GROUP)) {
        write_gpu(slot, timer, flags, start_ns, end_ns);
        return 0;
    }
    if (!peek(slot, &grp)) {
        if (!final)
            return -1; /* GroupEnd has not returned yet */
        write_gpu(slot, timer, flags, start_ns, end_ns);
        return 0;
    }
    if (grp.kind != CP_REC_GROUP) {
        write_gpu(slot, timer, flags, start_ns, end_ns);
        return 0;
    }
    /* Several calls share one launch: each gets the group's interval. */
    if (grp.group.ncalls > 1)
        fused = CP_CALL_FUSED;
    dist = (ext >> 32) & 0x7fffffffu;
    if (dist > slot)
        dist = slot;
    if (dist > MAX_GROUP_SCAN)
        dist = MAX_GROUP_SCAN;
    for (s = slot - dist; s < slot; s++)
        if (peek(s, &r) && r.kind == CP_REC_CALL &&
            (r.call.flags & CP_CALL_IN_GROUP) && r.call.group == grp.group.group)
            write_gpu(s, timer, flags | fused, start_ns, end_ns);
    write_gpu(slot, timer, flags | fused, start_ns, end_ns);
    return 0;
}

void cp_gpu_write_clock(uint64_t realtime_ns, uint64_t gpu_ns)
{
    union cp_rec *rec;

    if (!the_log || !(rec = cp_log_slot(the_log, NULL)))
        return;
    memset(rec, 0, sizeof *rec);
    rec->clock.realtime_ns = realtime_ns;
    rec->clock.monotonic_ns = monotonic_ns();
    rec->clock.gpu_ns = gpu_ns;
    cp_log_commit(rec, CP_REC_CLOCK);
}

void cp_gpu_set_header_timer(unsigned timer, const char *reason)
{
    if (!the_log || !the_log->hdr)
        return;
    snprintf(the_log->hdr->timer_reason, sizeof the_log->hdr->timer_reason,
             "%s", reason);
    __atomic_store_n(&the_log->hdr->timer, timer, __ATOMIC_RELEASE);
}

/* ---- the event timer's failure ------------------------------------------ */
void cp_gpu_event_failed(const char *what, int err)
{
    int expected = 0;

    __atomic_store_n(&cp_gpu_mode, CP_GPU_OFF, __ATOMIC_RELEASE);
    if (__atomic_compare_exchange_n(&event_failure, &expected, 3, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        snprintf(event_failure_what, sizeof event_failure_what,
                 "%s failed (CUDA error %d)", what, err);
        __atomic_store_n(&event_failure, 1, __ATOMIC_RELEASE);
    }
}

const char *cp_gpu_event_failure(void)
{
    int one = 1;

    if (__atomic_compare_exchange_n(&event_failure, &one, 2, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return event_failure_what;
    return NULL;
}

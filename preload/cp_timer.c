/* cp_timer.c - choosing the GPU timer, its background thread, and the
 * records it writes (see cp_timer.h; the backends are cp_timer_cupti.c and
 * cp_timer_event.c).
 *
 * Threads: the callers of NCCL run the per-call hooks (no malloc, no lock,
 * no print); one background thread, "collprof-gpu", does everything else:
 * it flushes and joins CUPTI's activity (every 100 ms) or polls CUDA events
 * (every 2 ms), writes CP_REC_GPU and calibration records, watches for a
 * CUPTI that stopped delivering, and prints the one warning line of a
 * fallback.  Nothing ever waits on a user's stream.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_clockns.h"
#include "collprof/cp_nccl.h"
#include "cp_timer_int.h"

int cp_gpu_mode;
int cp_capture_seen;
struct cp_cudart cp_rt;
CP_TIMER_TLS struct cp_tls_group cp_tls_group;

static int chosen;  /* enum cp_gpu_mode picked by cp_timer_choose */
static int started; /* cp_timer_start ran */
static int stopped; /* atomic: cp_timer_stop ran (or a fork child) */
static struct cp_log *the_log;
static void (*warn_line)(const char *, const char *);

static pthread_t bg_thread;
static int have_bg;
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bg_wake;
static int bg_stop;

/* A failure of the event timer seen on the hot path, said by the thread. */
static int event_failure;     /* atomic: 1 pending, 2 said */
static char event_failure_what[160];

uint64_t cp_timer_realtime_ns(void)
{
    return cp_clock_ns(CLOCK_REALTIME);
}

static uint64_t monotonic_ns(void)
{
    return cp_clock_ns(CLOCK_MONOTONIC);
}

/* ---- finding the libraries ---------------------------------------------- */
static const char *const cuda_dirs[] = {"/usr/local/cuda/lib64",
                                        "/usr/local/cuda/lib",
                                        "/usr/local/cuda/extras/CUPTI/lib64",
                                        NULL};

void *cp_timer_dlopen(const char *const *names)
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

/* Whether the process has the CUDA driver loaded: an NCCL on a GPU has it
 * by its first call; a CPU-only job (the CPU NCCL of the tests) does not,
 * and auto must not bring CUDA into it. */
static int process_uses_cuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h) {
        (void)dlerror();
        return 0;
    }
    dlclose(h);
    return 1;
}

static int load_cudart(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12",
                                        "libcudart.so.11.0", "libcudart.so",
                                        NULL};
    void *h;

    if (cp_rt.lib)
        return 0;
    h = cp_timer_dlopen(names);
    if (!h)
        return -1;
#define SYM(field, name) *(void **)&cp_rt.field = dlsym(h, name)
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
    if (!cp_rt.get_device_count) {
        dlclose(h);
        memset(&cp_rt, 0, sizeof cp_rt);
        return -1;
    }
    cp_rt.lib = h;
    return 0;
}

int cp_timer_stream_capturing(void *stream)
{
    int status = CP_CUDA_CAPTURE_STATUS_NONE;

    if (!cp_rt.stream_is_capturing)
        return 0;
    if (cp_rt.stream_is_capturing((cp_cuda_stream)stream, &status) !=
        CP_CUDA_SUCCESS)
        return 1;
    return status != CP_CUDA_CAPTURE_STATUS_NONE;
}

/* ---- the choice ---------------------------------------------------------- */
void cp_timer_choose(unsigned requested, int nccl_version,
                     struct cp_timer_choice *out)
{
    struct cp_error ecupti = {.text = ""}, eevent = {.text = ""};
    const char *why_cupti = ecupti.text, *why_event = eevent.text;
    const char *name = cp_timer_name(requested);
    int conflict = 0, auto_pick = requested == CP_TIMER_NONE;
    size_t rlen = sizeof out->reason;

    memset(out, 0, sizeof *out);
    chosen = CP_GPU_OFF;
    out->timer = CP_TIMER_HOST;
    if (requested == CP_TIMER_HOST) {
        snprintf(out->reason, rlen, "COLLPROF_TIMER=host");
        return;
    }
    if (auto_pick && !process_uses_cuda()) {
        snprintf(out->reason, rlen, "auto: host (no CUDA driver in the process)");
        return;
    }
    (void)load_cudart();
    if (auto_pick || requested == CP_TIMER_CUPTI) {
        if (cp_cupti_open(nccl_version, &ecupti, &conflict) == 0) {
            chosen = CP_GPU_CUPTI;
            out->timer = CP_TIMER_CUPTI;
            snprintf(out->reason, rlen, "%s",
                     auto_pick ? "auto: cupti" : "COLLPROF_TIMER=cupti");
            return;
        }
    }
    if (cp_event_open(&eevent) == 0) {
        chosen = CP_GPU_EVENT;
        out->timer = CP_TIMER_EVENT;
        if (auto_pick)
            snprintf(out->reason, rlen, "auto: event (%.48s)", why_cupti);
        else if (requested == CP_TIMER_CUPTI)
            snprintf(out->reason, rlen, "cupti requested: event (%.32s)",
                     why_cupti);
        else
            snprintf(out->reason, rlen, "COLLPROF_TIMER=event");
        if (requested == CP_TIMER_CUPTI)
            snprintf(out->warning, sizeof out->warning,
                     "COLLPROF_TIMER=cupti: %.200s", why_cupti);
        return;
    }
    /* Host it is; say why in the header, and on stderr if it was asked. */
    if (auto_pick)
        snprintf(out->reason, rlen, "auto: host (%.48s)", why_event);
    else
        snprintf(out->reason, rlen, "%s requested: host (%.32s)", name,
                 requested == CP_TIMER_CUPTI ? why_cupti : why_event);
    if (!auto_pick && requested == CP_TIMER_CUPTI)
        snprintf(out->warning, sizeof out->warning,
                 "COLLPROF_TIMER=cupti: %.100s; CUDA events: %.100s",
                 why_cupti, why_event);
    else if (!auto_pick)
        snprintf(out->warning, sizeof out->warning,
                 "COLLPROF_TIMER=%.16s: %.200s", name, why_event);
    (void)conflict;
}

/* ---- records ------------------------------------------------------------- */
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

int cp_timer_emit(uint64_t ext, unsigned timer, uint16_t flags,
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

void cp_timer_write_clock(uint64_t realtime_ns, uint64_t gpu_ns)
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

static void set_header(unsigned timer, const char *reason)
{
    if (!the_log || !the_log->hdr)
        return;
    snprintf(the_log->hdr->timer_reason, sizeof the_log->hdr->timer_reason,
             "%s", reason);
    __atomic_store_n(&the_log->hdr->timer, timer, __ATOMIC_RELEASE);
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

void cp_timer_comm_device(const void *comm, int dev)
{
    size_t i, n;

    if (chosen == CP_GPU_OFF || !comm || dev < 0)
        return;
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
    if (cp_timer_gpu_mode() == CP_GPU_EVENT)
        (void)cp_event_pool(dev);
}

int cp_timer_comm_dev(const void *comm)
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

void cp_event_prepare_known(void)
{
    uint64_t mask = __atomic_load_n(&dev_mask, __ATOMIC_RELAXED);
    int d;

    for (d = 0; d < 64; d++)
        if (mask & (UINT64_C(1) << d))
            (void)cp_event_pool(d);
}

/* ---- fallbacks ----------------------------------------------------------- */
/* Background thread only: CUPTI was given up (why); leave for event (or
 * host), updating the header and printing the one warning line. */
static void cupti_lost(const char *why)
{
    int next = CP_GPU_OFF;

    if (cp_rt.lib && cp_event_open(NULL) == 0) {
        cp_event_prepare_known();
        next = CP_GPU_EVENT;
    }
    __atomic_store_n(&cp_gpu_mode, next, __ATOMIC_RELEASE);
    set_header(next == CP_GPU_EVENT ? CP_TIMER_EVENT : CP_TIMER_HOST,
               next == CP_GPU_EVENT ? "cupti lost mid-run: event"
                                    : "cupti lost mid-run: host");
    if (warn_line)
        warn_line(why, next == CP_GPU_EVENT
                           ? "GPU times now come from CUDA events"
                           : "GPU times are off, host times only");
}

void cp_timer_event_failed(const char *what, int err)
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

static void say_event_failure(void)
{
    int one = 1;

    if (__atomic_compare_exchange_n(&event_failure, &one, 2, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        set_header(CP_TIMER_HOST, "event timer failed mid-run: host");
        if (warn_line)
            warn_line(event_failure_what, "GPU times are off, host times only");
    }
}

/* ---- the background thread ----------------------------------------------- */
static void *bg_main(void *arg)
{
    sigset_t all;
    int mode;

    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    /* Event queries from this thread must not break a user's graph capture
     * running in the global mode on another thread. */
    if (cp_rt.exchange_capture_mode) {
        int relaxed = CP_CUDA_CAPTURE_MODE_RELAXED;
        (void)cp_rt.exchange_capture_mode(&relaxed);
    }
    pthread_mutex_lock(&bg_lock);
    while (!bg_stop) {
        struct timespec until;
        long period_ns;

        mode = cp_timer_gpu_mode();
        period_ns = mode == CP_GPU_EVENT ? 2000000L : 100000000L;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += period_ns;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!bg_stop &&
               pthread_cond_timedwait(&bg_wake, &bg_lock, &until) == 0)
            ;
        if (bg_stop)
            break;
        pthread_mutex_unlock(&bg_lock);
        say_event_failure();
        mode = cp_timer_gpu_mode();
        if (mode == CP_GPU_CUPTI) {
            const char *why = cp_cupti_round();
            if (why)
                cupti_lost(why);
        } else if (mode == CP_GPU_EVENT) {
            cp_event_round();
        }
        pthread_mutex_lock(&bg_lock);
    }
    pthread_mutex_unlock(&bg_lock);
    return NULL;
}

static void stop_at_exit(void)
{
    cp_timer_stop();
}

void cp_timer_start(struct cp_log *log,
                    void (*warn)(const char *what, const char *consequence))
{
    pthread_condattr_t attr;

    the_log = log;
    warn_line = warn;
    if (chosen == CP_GPU_OFF || __atomic_load_n(&stopped, __ATOMIC_ACQUIRE))
        return;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&bg_wake, &attr);
    pthread_condattr_destroy(&attr);
    if (chosen == CP_GPU_CUPTI)
        cp_cupti_started(); /* the first calibration pair, before the thread */
    if (pthread_create(&bg_thread, NULL, bg_main, NULL) != 0) {
        /* Nobody would read the GPU side: time on the host. */
        if (chosen == CP_GPU_CUPTI)
            cp_cupti_teardown();
        set_header(CP_TIMER_HOST, "no thread for the GPU timer: host");
        if (warn)
            warn("cannot start the GPU timer's thread",
                 "GPU times are off, host times only");
        chosen = CP_GPU_OFF;
        return;
    }
    have_bg = 1;
    pthread_setname_np(bg_thread, "collprof-gpu");
    started = 1;
    /* Registered after CUDA and CUPTI set up theirs: ours runs first. */
    atexit(stop_at_exit);
    __atomic_store_n(&cp_gpu_mode, chosen, __ATOMIC_RELEASE);
}

void cp_timer_stop(void)
{
    int mode;

    if (__atomic_exchange_n(&stopped, 1, __ATOMIC_ACQ_REL))
        return;
    mode = __atomic_exchange_n(&cp_gpu_mode, CP_GPU_OFF, __ATOMIC_ACQ_REL);
    if (!started) {
        if (chosen == CP_GPU_CUPTI)
            cp_cupti_teardown();
        return;
    }
    if (have_bg) {
        pthread_mutex_lock(&bg_lock);
        bg_stop = 1;
        pthread_cond_signal(&bg_wake);
        pthread_mutex_unlock(&bg_lock);
        pthread_join(bg_thread, NULL);
        have_bg = 0;
    }
    say_event_failure();
    if (mode == CP_GPU_CUPTI)
        cp_cupti_final();
    else if (mode == CP_GPU_EVENT)
        cp_event_final();
}

void cp_timer_forked(void)
{
    __atomic_store_n(&cp_gpu_mode, CP_GPU_OFF, __ATOMIC_RELAXED);
    __atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
    have_bg = 0; /* the thread stayed in the parent */
}

/* ---- per call ------------------------------------------------------------ */
static void gpu_call_reset(struct cp_gpu_call *g, int mode, void *stream)
{
    g->mode = mode;
    g->flags = 0;
    g->entry = -1;
    g->nentries = 0;
    g->ext = 0;
    g->stream = stream;
}

void cp_timer_call_begin(struct cp_gpu_call *g, int mode, uint64_t slot,
                         void *stream, const void *comm, int in_group)
{
    gpu_call_reset(g, mode, stream);
    if (mode == CP_GPU_CUPTI)
        cp_cupti_call_begin(g, slot, stream, in_group);
    else if (mode == CP_GPU_EVENT)
        cp_event_call_begin(g, slot, stream, comm, in_group);
}

void cp_timer_call_end(struct cp_gpu_call *g, int result, uint64_t t0)
{
    if (g->mode == CP_GPU_CUPTI)
        cp_cupti_call_end(g, result, t0);
    else if (g->mode == CP_GPU_EVENT)
        cp_event_call_end(g, result);
}

void cp_timer_group_start(void)
{
    cp_tls_group.captured = 0;
    cp_tls_group.nstreams = 0;
    cp_tls_group.overflow = 0;
}

void cp_timer_group_begin(struct cp_gpu_call *g, int mode, uint64_t slot,
                          uint64_t first_slot)
{
    gpu_call_reset(g, mode, NULL);
    if (mode == CP_GPU_CUPTI)
        cp_cupti_group_begin(g, slot, first_slot);
    else if (mode == CP_GPU_EVENT)
        cp_event_group_begin(g, slot, first_slot);
}

void cp_timer_group_end(struct cp_gpu_call *g, int result, uint64_t t0)
{
    if (g->mode == CP_GPU_CUPTI)
        cp_cupti_group_end(g, result, t0);
    else if (g->mode == CP_GPU_EVENT)
        cp_event_group_end(g, result);
}

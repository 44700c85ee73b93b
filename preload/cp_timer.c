/* cp_timer.c - the GPU timers' dispatcher: choosing the timer, its
 * background thread, the fallbacks, and routing each call's hooks to the
 * backend in force (see cp_timer.h; the backends are cp_timer_cupti.c and
 * cp_timer_event.c, and what they share is cp_gpu.c, below them both).
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

#include "cp_gpu.h"
#include "cp_timer.h"
#include "cp_timer_cupti.h"
#include "cp_timer_event.h"

static int chosen;  /* enum cp_gpu_mode picked by cp_timer_choose */
static int started; /* cp_timer_start ran */
static int stopped; /* atomic: cp_timer_stop ran (or a fork child) */
static void (*warn_line)(const char *, const char *);

static pthread_t bg_thread;
static int have_bg;
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bg_wake;
static int bg_stop;

/* ---- the choice ---------------------------------------------------------- */
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
    (void)cp_gpu_load_cudart();
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

/* ---- communicators and their devices ------------------------------------ */
void cp_timer_comm_device(const void *comm, int dev)
{
    if (chosen == CP_GPU_OFF || !comm || dev < 0)
        return;
    cp_gpu_comm_device_set(comm, dev);
    if (cp_timer_gpu_mode() == CP_GPU_EVENT)
        (void)cp_event_pool(dev);
}

/* Event pools for the devices of the communicators seen so far. */
static void event_pools_for_known(void)
{
    uint64_t mask = cp_gpu_devices_known();
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

    if (cp_gpu_rt.lib && cp_event_open(NULL) == 0) {
        event_pools_for_known();
        next = CP_GPU_EVENT;
    }
    __atomic_store_n(&cp_gpu_mode, next, __ATOMIC_RELEASE);
    if (next == CP_GPU_EVENT)
        cp_gpu_set_header_timer(CP_TIMER_EVENT, "cupti lost mid-run: event");
    else
        cp_gpu_set_header_timer(CP_TIMER_HOST, "cupti lost mid-run: host");
    if (warn_line)
        warn_line(why, next == CP_GPU_EVENT
                           ? "GPU times now come from CUDA events"
                           : "GPU times are off, host times only");
}

/* A failure of the event timer seen on the hot path, said once. */
static void say_event_failure(void)
{
    const char *what = cp_gpu_event_failure();

    if (what) {
        cp_gpu_set_header_timer(CP_TIMER_HOST,
                                "event timer failed mid-run: host");
        if (warn_line)
            warn_line(what, "GPU times are off, host times only");
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
    if (cp_gpu_rt.exchange_capture_mode) {
        int relaxed = CP_CUDA_CAPTURE_MODE_RELAXED;
        (void)cp_gpu_rt.exchange_capture_mode(&relaxed);
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

    cp_gpu_set_log(log);
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
        cp_gpu_set_header_timer(CP_TIMER_HOST,
                                "no thread for the GPU timer: host");
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
    cp_gpu_group.captured = 0;
    cp_gpu_group.nstreams = 0;
    cp_gpu_group.overflow = 0;
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

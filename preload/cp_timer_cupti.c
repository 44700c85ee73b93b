/* cp_timer_cupti.c - the `cupti` GPU timer.
 *
 * Set-up (cp_cupti_open, at the first NCCL call): dlopen libcupti (the copy
 * the process already has first), take the CUPTI subscription (a second
 * subscriber gets CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: Nsight,
 * Kineto, another collprof -- then the event timer is used), register the
 * buffer callbacks, and enable:
 *   - API records of the launch and async-copy calls only (external
 *     correlation records are written only before an API record; enabling
 *     every driver call would cost the whole application),
 *   - EXTERNAL_CORRELATION, CONCURRENT_KERNEL (never the serializing KERNEL
 *     kind), and MEMCPY / MEMCPY2 where NCCL can run copy-engine collectives
 *     (2.28 and later),
 *   - callbacks on the calls that begin a stream capture: after the first
 *     one, each call asks cudaStreamIsCapturing; before it, nothing.
 * Per call (hot path): push the call's external id, call NCCL, pop -- two
 * CUPTI calls.  Inside a group nothing is pushed: the outermost GroupEnd
 * launches, and pushes the group's id.  A call that returns ncclInProgress
 * (non-blocking communicator) is noted in a lock-free ring: NCCL's own
 * thread launches it later, outside the push.
 * Background thread, every 100 ms: drain that ring, flush CUPTI, parse the
 * completed buffers into the join (cp_timer_join.c), emit settled intervals
 * mapped to CLOCK_REALTIME with the latest calibration pair, write a
 * calibration record every second, and watch CUPTI: if calls keep being
 * pushed and for 20 s none of them is ever seen again (another client
 * re-registered the buffer callbacks, or called cuptiFinalize), or a push
 * fails, give CUPTI up: the round says why, and the dispatcher leaves for
 * the event timer with one warning line.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_timer_cupti.h"
#include "cp_timer_join.h"

static struct {
    void *lib;
    cp_cupti_result (*subscribe)(void **, cp_cupti_callback_fn, void *);
    cp_cupti_result (*unsubscribe)(void *);
    cp_cupti_result (*enable_callback)(uint32_t, void *, int, uint32_t);
    cp_cupti_result (*activity_enable)(int);
    cp_cupti_result (*activity_disable)(int);
    cp_cupti_result (*enable_driver_api)(uint32_t, uint8_t);
    cp_cupti_result (*enable_runtime_api)(uint32_t, uint8_t);
    cp_cupti_result (*register_callbacks)(cp_cupti_buffer_request_fn,
                                          cp_cupti_buffer_complete_fn);
    cp_cupti_result (*flush_all)(uint32_t);
    cp_cupti_result (*next_record)(uint8_t *, size_t, void **);
    cp_cupti_result (*push)(int, uint64_t);
    cp_cupti_result (*pop)(int, uint64_t *);
    cp_cupti_result (*get_timestamp)(uint64_t *);
    cp_cupti_result (*result_string)(cp_cupti_result, const char **);
    cp_cupti_result (*stream_id)(void *, void *, uint8_t, uint32_t *);
} cu;

static void *subscriber;
static int enabled_kinds[8], nenabled;
static int api_kinds_whole; /* DRIVER/RUNTIME enabled as whole kinds */

/* ---- activity buffers (CUPTI's threads) --------------------------------- */
#define BUF_SIZE ((size_t)2 << 20)
#define MAX_BUFS 32 /* 64 MiB at most, whatever the application launches */

static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *free_bufs[MAX_BUFS];
static unsigned nfree, nbufs;
static struct {
    uint8_t *buf;
    size_t valid;
} done_bufs[MAX_BUFS];
static unsigned ndone;
static int bufs_closed;     /* under buf_lock: no more parsing */
static uint64_t declined;   /* under buf_lock: requests we could not serve */
static uint64_t late_bufs;  /* under buf_lock: completed after the end */

static void buffer_requested(uint8_t **buffer, size_t *size,
                             size_t *max_records)
{
    uint8_t *b = NULL;

    pthread_mutex_lock(&buf_lock);
    if (nfree)
        b = free_bufs[--nfree];
    else if (nbufs < MAX_BUFS && (b = aligned_alloc(8, BUF_SIZE)) != NULL)
        nbufs++;
    else
        declined++; /* CUPTI drops records: those calls stay incomplete */
    pthread_mutex_unlock(&buf_lock);
    *buffer = b;
    *size = b ? BUF_SIZE : 0;
    *max_records = 0;
}

static void buffer_completed(void *context, uint32_t stream_id,
                             uint8_t *buffer, size_t size, size_t valid)
{
    (void)context;
    (void)stream_id;
    (void)size;
    if (!buffer)
        return;
    pthread_mutex_lock(&buf_lock);
    if (bufs_closed && valid)
        late_bufs++;
    if (valid && !bufs_closed && ndone < MAX_BUFS) {
        done_bufs[ndone].buf = buffer;
        done_bufs[ndone].valid = valid;
        ndone++;
    } else if (nfree < MAX_BUFS) {
        free_bufs[nfree++] = buffer;
    } else {
        free(buffer);
        nbufs--;
    }
    pthread_mutex_unlock(&buf_lock);
}

/* ---- state of the join (background thread, then the exit handler) ------- */
#define ROUND_MS 100
#define SETTLE_ROUNDS 2
#define ORPHAN_ROUNDS 3
#define EXPIRE_ROUNDS 600 /* a launch may wait a minute for its kernel */
#define LOST_ROUNDS 200   /* 20 s of pushes with nothing seen: CUPTI is gone */
#define HISTORY 256       /* > LOST_ROUNDS */

static struct cp_join *join;
static uint64_t last_pushed; /* atomic: the latest external id pushed */
static int push_failed;      /* atomic: a push or pop returned an error */
static int lost;             /* CUPTI no longer ours */
static uint64_t round_no;
static uint64_t pushed_at[HISTORY];

/* Calibration pairs, CUPTI clock -> CLOCK_REALTIME. */
#define NCAL 64
static struct {
    uint64_t gpu;
    int64_t offset;
} cal[NCAL];
static unsigned ncal, cal_next;
static uint64_t last_cal_rt;

/* ---- non-blocking launches (hot path -> background) --------------------- */
#define DEFERRED_RING 256
static struct {
    uint64_t seq; /* atomic: index + 1 once written */
    uint64_t ext, t_begin;
    uint32_t stream_id;
} deferred[DEFERRED_RING];
static uint64_t deferred_head; /* atomic */
static uint64_t deferred_tail; /* background */

/* ---- capture callbacks (any thread) ------------------------------------- */
static void on_callback(void *userdata, int domain, uint32_t cbid,
                        const void *cbdata)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)cbdata;
    /* Only the begin-capture calls are enabled. */
    __atomic_store_n(&cp_gpu_capture_seen, 1, __ATOMIC_RELAXED);
}

/* ---- set-up --------------------------------------------------------------- */
/* err: what CUPTI's call `what` answered; -1 */
static int describe(struct cp_error *err, const char *what, cp_cupti_result r)
{
    const char *s = NULL;

    if (r == CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        return cp_errorf(err, "CUPTI taken by another tool");
    if (!cu.result_string || cu.result_string(r, &s) != CP_CUPTI_SUCCESS ||
        !s)
        s = "";
    return cp_errorf(err, "%.40s: %.60s (%d)", what, s, r);
}

static int load(struct cp_error *err)
{
    /* The CUPTI of the CUDA the process runs: match a loaded cudart. */
    static const char *const for12[] = {"libcupti.so.12", "libcupti.so.13",
                                        "libcupti.so.11.8", "libcupti.so",
                                        NULL};
    static const char *const for13[] = {"libcupti.so.13", "libcupti.so.12",
                                        "libcupti.so.11.8", "libcupti.so",
                                        NULL};
    void *h12 = dlopen("libcudart.so.12", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    void *h;

    if (h12)
        dlclose(h12);
    (void)dlerror();
    h = cp_gpu_dlopen(h12 ? for12 : for13);
    if (!h)
        return cp_errorf(err, "no libcupti");
#define SYM(field, name) *(void **)&cu.field = dlsym(h, name)
    SYM(subscribe, "cuptiSubscribe");
    SYM(unsubscribe, "cuptiUnsubscribe");
    SYM(enable_callback, "cuptiEnableCallback");
    SYM(activity_enable, "cuptiActivityEnable");
    SYM(activity_disable, "cuptiActivityDisable");
    SYM(enable_driver_api, "cuptiActivityEnableDriverApi");
    SYM(enable_runtime_api, "cuptiActivityEnableRuntimeApi");
    SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    SYM(flush_all, "cuptiActivityFlushAll");
    SYM(next_record, "cuptiActivityGetNextRecord");
    SYM(push, "cuptiActivityPushExternalCorrelationId");
    SYM(pop, "cuptiActivityPopExternalCorrelationId");
    SYM(get_timestamp, "cuptiGetTimestamp");
    SYM(result_string, "cuptiGetResultString");
    SYM(stream_id, "cuptiGetStreamIdEx");
#undef SYM
    (void)dlerror();
    if (!cu.subscribe || !cu.unsubscribe || !cu.activity_enable ||
        !cu.activity_disable || !cu.register_callbacks || !cu.flush_all ||
        !cu.next_record || !cu.push || !cu.pop || !cu.get_timestamp) {
        dlclose(h);
        memset(&cu, 0, sizeof cu);
        return cp_errorf(err, "libcupti too old (no external correlation)");
    }
    cu.lib = h;
    return 0;
}

static int enable(int kind)
{
    if (cu.activity_enable(kind) != CP_CUPTI_SUCCESS)
        return -1;
    enabled_kinds[nenabled++] = kind;
    return 0;
}

/* API records for the calls that enqueue device work, and no other. */
static int enable_launch_apis(void)
{
    int ok = cu.enable_driver_api && cu.enable_runtime_api;

#define ON_D(name, cbid)                                                       \
    ok = ok && cu.enable_driver_api(cbid, 1) == CP_CUPTI_SUCCESS;
#define ON_R(name, cbid)                                                       \
    ok = ok && cu.enable_runtime_api(cbid, 1) == CP_CUPTI_SUCCESS;
    CP_CUPTI_DRIVER_APIS(ON_D)
    CP_CUPTI_RUNTIME_APIS(ON_R)
#undef ON_D
#undef ON_R
    if (ok)
        return 0;
    /* An older CUPTI: every API call makes a record (more overhead). */
    api_kinds_whole = 1;
    if (enable(CP_CUPTI_KIND_DRIVER) < 0 || enable(CP_CUPTI_KIND_RUNTIME) < 0)
        return -1;
    return 0;
}

static void watch_captures(void)
{
    int ok = cu.enable_callback != NULL;

#define ON_D(name, cbid)                                                       \
    ok = ok && cu.enable_callback(1, subscriber, CP_CUPTI_DOMAIN_DRIVER_API,   \
                                  cbid) == CP_CUPTI_SUCCESS;
#define ON_R(name, cbid)                                                       \
    ok = ok && cu.enable_callback(1, subscriber, CP_CUPTI_DOMAIN_RUNTIME_API,  \
                                  cbid) == CP_CUPTI_SUCCESS;
    CP_CUPTI_DRIVER_CAPTURE_APIS(ON_D)
    CP_CUPTI_RUNTIME_CAPTURE_APIS(ON_R)
#undef ON_D
#undef ON_R
    if (!ok)
        __atomic_store_n(&cp_gpu_capture_seen, 1, __ATOMIC_RELAXED);
}

void cp_cupti_teardown(void)
{
    int i;

    if (!cu.lib)
        return;
    for (i = nenabled - 1; i >= 0; i--)
        (void)cu.activity_disable(enabled_kinds[i]);
    nenabled = 0;
    if (subscriber)
        (void)cu.unsubscribe(subscriber);
    subscriber = NULL;
}

int cp_cupti_open(int nccl_version, struct cp_error *err, int *conflict)
{
    struct cp_join_params jp = {SETTLE_ROUNDS, ORPHAN_ROUNDS, EXPIRE_ROUNDS};
    cp_cupti_result r;

    *conflict = 0;
    if (!cu.lib && load(err) < 0)
        return -1;
    r = cu.subscribe(&subscriber, on_callback, NULL);
    if (r != CP_CUPTI_SUCCESS) {
        *conflict = r == CP_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
        subscriber = NULL;
        return describe(err, "cuptiSubscribe", r);
    }
    if (!join && !(join = cp_join_create(&jp))) {
        cp_errorf(err, "out of memory");
        goto fail;
    }
    r = cu.register_callbacks(buffer_requested, buffer_completed);
    if (r != CP_CUPTI_SUCCESS) {
        describe(err, "cuptiActivityRegisterCallbacks", r);
        goto fail;
    }
    if (enable_launch_apis() < 0) {
        cp_errorf(err, "cannot enable API records");
        goto fail;
    }
    if (enable(CP_CUPTI_KIND_EXTERNAL_CORRELATION) < 0 ||
        enable(CP_CUPTI_KIND_CONCURRENT_KERNEL) < 0) {
        cp_errorf(err, "cannot enable kernel activity");
        goto fail;
    }
    /* Copy-engine collectives (2.28+) show up as memcpys, not kernels. */
    if ((nccl_version == 0 || nccl_version >= 22800) &&
        (enable(CP_CUPTI_KIND_MEMCPY) < 0 || enable(CP_CUPTI_KIND_MEMCPY2) < 0)) {
        cp_errorf(err, "cannot enable memcpy activity");
        goto fail;
    }
    watch_captures();
    return 0;
fail:
    cp_cupti_teardown();
    return -1;
}

/* ---- clock ------------------------------------------------------------------ */
/* A (CLOCK_REALTIME, CUPTI) pair: the tightest of a few brackets. */
static int calibrate(uint64_t *rt, uint64_t *gpu)
{
    uint64_t best = UINT64_MAX;
    int i;

    for (i = 0; i < 5; i++) {
        uint64_t a = cp_gpu_realtime_ns(), g, b;
        if (cu.get_timestamp(&g) != CP_CUPTI_SUCCESS)
            return -1;
        b = cp_gpu_realtime_ns();
        if (b - a < best) {
            best = b - a;
            *rt = a + (b - a) / 2;
            *gpu = g;
        }
    }
    return 0;
}

static void calibration_record(void)
{
    uint64_t rt = 0, gpu = 0;

    if (calibrate(&rt, &gpu) < 0)
        return;
    cal[cal_next].gpu = gpu;
    cal[cal_next].offset = (int64_t)(rt - gpu);
    cal_next = (cal_next + 1) % NCAL;
    if (ncal < NCAL)
        ncal++;
    last_cal_rt = rt;
    cp_gpu_write_clock(rt, gpu);
}

/* CUPTI time -> CLOCK_REALTIME, with the pair nearest in time. */
static uint64_t to_realtime(uint64_t ts)
{
    unsigned i, best = 0;
    uint64_t best_d = UINT64_MAX;

    if (!ts || !ncal)
        return ts;
    for (i = 0; i < ncal; i++) {
        uint64_t d = cal[i].gpu > ts ? cal[i].gpu - ts : ts - cal[i].gpu;
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return (uint64_t)((int64_t)ts + cal[best].offset);
}

static int64_t latest_offset(void)
{
    return ncal ? cal[(cal_next + NCAL - 1) % NCAL].offset : 0;
}

void cp_cupti_started(void)
{
    calibration_record();
}

/* ---- per call (the NCCL callers' threads) ------------------------------- */
void cp_cupti_call_begin(struct cp_gpu_call *g, uint64_t slot, void *stream,
                         int in_group)
{
    uint64_t ext;

    /* A captured launch runs later, in graph replays the shim never sees. */
    if (__atomic_load_n(&cp_gpu_capture_seen, __ATOMIC_RELAXED) &&
        cp_gpu_stream_capturing(stream)) {
        g->flags |= CP_CALL_CAPTURED;
        if (in_group)
            cp_gpu_group.captured = 1;
        return;
    }
    if (in_group) {
        if (cp_gpu_group.nstreams == 0) {
            cp_gpu_group.stream[0] = stream;
            cp_gpu_group.nstreams = 1;
        }
        return; /* queued only: the outermost GroupEnd launches */
    }
    ext = cp_ext_call(slot);
    if (__builtin_expect(cu.push(CP_CUPTI_EXTERNAL_KIND_CUSTOM2, ext) !=
                             CP_CUPTI_SUCCESS,
                         0)) {
        __atomic_store_n(&push_failed, 1, __ATOMIC_RELAXED);
        return;
    }
    g->ext = ext;
    __atomic_store_n(&last_pushed, ext, __ATOMIC_RELAXED);
}

/* A launch NCCL's own thread will make (non-blocking communicator). */
static void note_deferred(uint64_t ext, void *stream, uint64_t t0)
{
    uint64_t i = __atomic_fetch_add(&deferred_head, 1, __ATOMIC_RELAXED);
    uint32_t sid = 0;
    unsigned k = (unsigned)(i % DEFERRED_RING);

    /* Asked now: the stream may be gone by the time the thread looks. */
    if (stream && cu.stream_id &&
        cu.stream_id(NULL, stream, 0, &sid) != CP_CUPTI_SUCCESS)
        sid = 0;
    deferred[k].ext = ext;
    deferred[k].t_begin = t0;
    deferred[k].stream_id = sid;
    __atomic_store_n(&deferred[k].seq, i + 1, __ATOMIC_RELEASE);
}

void cp_cupti_call_end(struct cp_gpu_call *g, int result, uint64_t t0)
{
    uint64_t last;

    if (!g->ext)
        return;
    if (__builtin_expect(cu.pop(CP_CUPTI_EXTERNAL_KIND_CUSTOM2, &last) !=
                             CP_CUPTI_SUCCESS,
                         0))
        __atomic_store_n(&push_failed, 1, __ATOMIC_RELAXED);
    if (result == ncclInProgress)
        note_deferred(g->ext, g->stream, t0);
}

void cp_cupti_group_begin(struct cp_gpu_call *g, uint64_t slot,
                          uint64_t first_slot)
{
    uint64_t ext;

    if (cp_gpu_group.captured)
        return;
    ext = cp_ext_group(slot, first_slot);
    if (cu.push(CP_CUPTI_EXTERNAL_KIND_CUSTOM2, ext) != CP_CUPTI_SUCCESS) {
        __atomic_store_n(&push_failed, 1, __ATOMIC_RELAXED);
        return;
    }
    g->ext = ext;
    g->stream = cp_gpu_group.nstreams ? cp_gpu_group.stream[0] : NULL;
    __atomic_store_n(&last_pushed, ext & 0xffffffffu, __ATOMIC_RELAXED);
}

void cp_cupti_group_end(struct cp_gpu_call *g, int result, uint64_t t0)
{
    cp_cupti_call_end(g, result, t0);
}

/* ---- background ------------------------------------------------------------- */
static void drain_deferred(void)
{
    uint64_t head = __atomic_load_n(&deferred_head, __ATOMIC_ACQUIRE);
    int64_t offset = latest_offset();

    if (head - deferred_tail > DEFERRED_RING)
        deferred_tail = head - DEFERRED_RING; /* overwritten: lost */
    for (; deferred_tail < head; deferred_tail++) {
        unsigned k = (unsigned)(deferred_tail % DEFERRED_RING);
        uint64_t ext, t;
        uint32_t sid;
        if (__atomic_load_n(&deferred[k].seq, __ATOMIC_ACQUIRE) !=
            deferred_tail + 1)
            break; /* still being written */
        ext = deferred[k].ext;
        t = deferred[k].t_begin;
        sid = deferred[k].stream_id;
        cp_join_deferred(join, ext, sid, (uint64_t)((int64_t)t - offset));
    }
}

static void parse_done(void)
{
    struct {
        uint8_t *buf;
        size_t valid;
    } work[MAX_BUFS];
    unsigned n, i;

    pthread_mutex_lock(&buf_lock);
    n = ndone;
    memcpy(work, done_bufs, n * sizeof work[0]);
    ndone = 0;
    pthread_mutex_unlock(&buf_lock);
    for (i = 0; i < n; i++) {
        void *rec = NULL;
        while (cu.next_record(work[i].buf, work[i].valid, &rec) ==
               CP_CUPTI_SUCCESS)
            cp_join_record(join, rec);
        pthread_mutex_lock(&buf_lock);
        free_bufs[nfree++] = work[i].buf; /* nfree + ndone <= nbufs */
        pthread_mutex_unlock(&buf_lock);
    }
}

static int emit(void *ctx, uint64_t ext, uint16_t flags, uint64_t start,
                uint64_t end, int final)
{
    (void)ctx;
    return cp_gpu_emit(ext, CP_TIMER_CUPTI, flags, to_realtime(start),
                       to_realtime(end), final);
}

/* Pushes went on for LOST_ROUNDS rounds and not one of them, nor any later,
 * came back as an external correlation record. */
static int cupti_gone(void)
{
    struct cp_join_stats st;
    uint64_t old, now = __atomic_load_n(&last_pushed, __ATOMIC_RELAXED);
    unsigned r, changes = 0;

    pushed_at[round_no % HISTORY] = now & 0xffffffffu;
    if (round_no < LOST_ROUNDS)
        return 0;
    old = pushed_at[(round_no - LOST_ROUNDS) % HISTORY];
    cp_join_get_stats(join, &st);
    if (!old || st.last_ext >= old)
        return 0;
    for (r = 1; r <= LOST_ROUNDS; r++)
        changes += pushed_at[(round_no - r + 1) % HISTORY] !=
                   pushed_at[(round_no - r) % HISTORY];
    return changes >= 3;
}

/* why, for the dispatcher's fallback (cp_cupti_round). */
static const char *give_up(const char *why)
{
    lost = 1;
    /* What was seen is written; launches not seen to end are incomplete. */
    cp_join_settle(join, 1, emit, NULL);
    pthread_mutex_lock(&buf_lock);
    bufs_closed = 1;
    pthread_mutex_unlock(&buf_lock);
    return why;
}

const char *cp_cupti_round(void)
{
    if (lost)
        return NULL;
    drain_deferred();
    (void)cu.flush_all(0);
    parse_done();
    cp_join_settle(join, 0, emit, NULL);
    if (cp_gpu_realtime_ns() - last_cal_rt >= 1000000000u)
        calibration_record();
    round_no++;
    if (__atomic_load_n(&push_failed, __ATOMIC_RELAXED))
        return give_up("CUPTI refused an external correlation id (another "
                       "tool finalized CUPTI?)");
    if (cupti_gone())
        return give_up("CUPTI stopped delivering activity records (another "
                       "CUPTI client took over?)");
    return NULL;
}

void cp_cupti_final(void)
{
    if (lost || !join)
        return;
    drain_deferred();
    /* Everything CUPTI holds, finished or not: never-ended work comes back
     * with no end and is written as incomplete. */
    (void)cu.flush_all(CP_CUPTI_FLUSH_FORCED);
    parse_done();
    cp_join_settle(join, 1, emit, NULL);
    calibration_record();
    pthread_mutex_lock(&buf_lock);
    bufs_closed = 1;
    pthread_mutex_unlock(&buf_lock);
}

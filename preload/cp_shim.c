/* cp_shim.c - libcollprof.so: the LD_PRELOAD wrappers around NCCL.
 *
 * Every wrapper has the same shape: make sure the shim is initialised,
 * write the call's entry record into one slot of the rank log, call the real
 * function, complete the record.  The entry record is in the page cache
 * before NCCL runs, so a call that never returns (a hang, a kill at the time
 * limit) is on disk with end_ns 0.  What NCCL returns is returned unchanged,
 * errno included.  Anything that goes wrong inside the shim turns profiling
 * off for the process, with one warning line on stderr; the job itself never
 * notices.
 *
 * Hot path (data calls): two clock reads (TSC), one lock-free table lookup,
 * one atomic add (the log slot; the communicator's sequence number is a
 * plain increment, see next_seq), a 64-byte store into a mapped page that
 * is already in the cache (cp_log_slot prefetches slots ahead) before the
 * call and three small stores after it.  No malloc, no lock, no print.  Under a GPU timer
 * (cp_timer.h) the call goes to its gpu_ twin, which reserves the slot for
 * the timer and runs the timer's hooks around the call; with the host timer
 * that costs one predictable branch.
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
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_clock.h"
#include "cp_comm.h"
#include "cp_config.h"
#include "cp_logwrite.h"
#include "cp_timer.h"
#include "cp_wrap_table.h"

#define CP_EXPORT __attribute__((visibility("default")))
#define CP_TLS __thread __attribute__((tls_model("initial-exec")))
#define CP_SEQ_NONE UINT32_MAX
#define CP_CLOCK_PERIOD_NS UINT64_C(1000000000)
#define CP_CLOCK_FIRST_NS UINT64_C(100000000)

extern char **environ;
extern char *program_invocation_short_name;

/* ---- the real functions ------------------------------------------------ */
#define CP_X_PTR_DATA(fn, params, args, ...)                                   \
    static ncclResult_t(*real_##fn) params;
#define CP_X_PTR_CALL(fn, params, args) static ncclResult_t(*real_##fn) params;
CP_WRAP_TABLE(CP_X_PTR_DATA, CP_X_PTR_CALL)
#undef CP_X_PTR_DATA
#undef CP_X_PTR_CALL

/* Not wrapped, used to describe communicators and the library. */
static ncclResult_t (*real_CommCount)(const ncclComm_t, int *);
static ncclResult_t (*real_CommUserRank)(const ncclComm_t, int *);
static ncclResult_t (*real_CommCuDevice)(const ncclComm_t, int *);
static ncclResult_t (*real_GetVersion)(int *);

/* ---- state ------------------------------------------------------------- */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int active;   /* atomic: records are being written */
static int log_open; /* the log exists and must be closed at exit */
static int warned;   /* atomic: the one warning line was printed */
static uint64_t dropped;     /* atomic: calls not recorded after a failure */
static uint64_t last_clock;  /* atomic: CLOCK_REALTIME of the last calibration */
static uint32_t group_count; /* atomic: outermost groups so far */
static uint32_t init_all_count; /* atomic: CommInitAll calls so far */
static struct cp_config settings;
static struct cp_log the_log;

static CP_TLS int tls_depth; /* inside a wrapper: inner NCCL calls pass through */
static CP_TLS int tls_group_depth;
static CP_TLS uint32_t tls_group;
static CP_TLS uint32_t tls_group_calls;
static CP_TLS uint64_t tls_group_start;
static CP_TLS uint64_t tls_group_first; /* log's next slot at GroupStart */

/* Call and group times: CLOCK_REALTIME ns, from the TSC where it can be
 * (cp_clock.h). */
static inline uint64_t now_ns(void)
{
    return cp_clock_now();
}

/* The one warning line of this process (and of its GPU timer). */
static void warn_line(int *flag, const char *what, const char *consequence)
{
    char line[640];
    int n, saved = errno;

    if (__atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL))
        return;
    n = snprintf(line, sizeof line, "collprof: %s; %s (pid %d)\n", what,
                 consequence, (int)getpid());
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) {
        /* nowhere else to say it */
    }
    errno = saved;
}

static void warn_once(const char *what, const char *consequence)
{
    warn_line(&warned, what, consequence);
}

static int timer_warned; /* atomic */

static void warn_timer(const char *what, const char *consequence)
{
    warn_line(&timer_warned, what, consequence);
}

static int turned_off; /* atomic: a failure stopped recording */

/* A failure after the log was open: stop recording, keep what is there. */
static void turn_off(const char *why)
{
    char what[640];
    int err = __atomic_load_n(&the_log.grow_errno, __ATOMIC_RELAXED);

    if (!__atomic_exchange_n(&active, 0, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&turned_off, 1, __ATOMIC_RELEASE);
    if (err == EBUSY) /* format 4: cp_log_ring_slow gave up */
        snprintf(what, sizeof what,
                 "%s %.400s: its ring is full behind a call that has not "
                 "returned for a second (a call in flight on another "
                 "thread)", why, the_log.path);
    else
        snprintf(what, sizeof what, "%s %.400s: %s", why, the_log.path,
                 err ? strerror(err) : "too many records");
    warn_once(what, "profiling is off for this process, records so far kept");
}

/* A call that passes through unrecorded: count it if recording was lost. */
static inline void count_unrecorded(void)
{
    if (__builtin_expect(__atomic_load_n(&turned_off, __ATOMIC_RELAXED), 0) &&
        !tls_depth)
        __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
}

/* ---- initialisation ---------------------------------------------------- */
static void *find_real(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    void *lib;

    if (p)
        return p;
    /* NCCL loaded with dlopen after us: look in it directly. */
    lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
        return NULL;
    p = dlsym(lib, name);
    dlclose(lib);
    return p;
}

static void resolve_all(void)
{
#define CP_X_RESOLVE_DATA(fn, params, args, ...)                               \
    *(void **)&real_##fn = find_real("nccl" #fn);
#define CP_X_RESOLVE_CALL(fn, params, args)                                    \
    *(void **)&real_##fn = find_real("nccl" #fn);
    CP_WRAP_TABLE(CP_X_RESOLVE_DATA, CP_X_RESOLVE_CALL)
#undef CP_X_RESOLVE_DATA
#undef CP_X_RESOLVE_CALL
    *(void **)&real_CommCount = find_real("ncclCommCount");
    *(void **)&real_CommUserRank = find_real("ncclCommUserRank");
    *(void **)&real_CommCuDevice = find_real("ncclCommCuDevice");
    *(void **)&real_GetVersion = find_real("ncclGetVersion");
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

static void write_clock(void)
{
    union cp_rec *rec = cp_log_slot(&the_log, NULL);
    struct timespec ts;

    if (!rec) {
        turn_off("cannot grow the log");
        return;
    }
    memset(rec, 0, sizeof *rec);
    /* the kernel's clocks themselves: these pairs are what readers check
     * the records against */
    rec->clock.realtime_ns = cp_clock_realtime();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    rec->clock.monotonic_ns =
        (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    __atomic_store_n(&last_clock, rec->clock.realtime_ns, __ATOMIC_RELAXED);
    cp_log_commit(rec, CP_REC_CLOCK);
    cp_clock_calibrate();
}

/* SIGTERM with its default action (a time limit, scancel, a launcher
 * tearing the job down): note it in the header, then die of it as the
 * process would have.  Only stores into the mapped header and
 * clock_gettime: async-signal-safe.  SA_RESETHAND restores the default
 * before this runs, so the raise() below ends the process once the handler
 * returns. */
static void on_term(int sig)
{
    struct cp_log_header *h = the_log.hdr;
    int saved = errno;

    if (h && log_open && the_log.owner == getpid()) {
        h->term_realtime_ns = cp_clock_ns(CLOCK_REALTIME);
        h->term_signal = sig;
    }
    raise(sig);
    errno = saved;
}

/* Only where SIGTERM still has its default action: a program that handles
 * it (or installs a handler later) keeps its own, unchanged. */
static void watch_term(void)
{
    struct sigaction old, sa;

    if (sigaction(SIGTERM, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
        old.sa_handler != SIG_DFL)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
}

static void child_after_fork(void)
{
    /* The mapping is shared with the parent: a child must never write to it.
     * An exec'd child loads the shim afresh and opens a log of its own. */
    __atomic_store_n(&active, 0, __ATOMIC_RELAXED);
    log_open = 0;
    cp_timer_forked();
}

static void init_shim(void)
{
    struct cp_log_ident id;
    struct cp_timer_choice timer;
    struct cp_error err;
    int version = 0, saved = errno;

    resolve_all();
    cp_config_read(&settings, env_get,
                   1u << CP_TIMER_HOST | 1u << CP_TIMER_EVENT |
                       1u << CP_TIMER_CUPTI);
    cp_config_check_env(&settings, environ);
    if (settings.disabled)
        goto out;
    if (real_GetVersion && real_GetVersion(&version) != ncclSuccess)
        version = 0;
    cp_timer_choose(settings.timer_auto ? CP_TIMER_NONE : settings.timer,
                    version, &timer);

    memset(&id, 0, sizeof id);
    id.global_rank = settings.global_rank;
    id.world_size = settings.world_size;
    id.local_rank = settings.local_rank;
    id.nccl_version = version;
    id.timer = timer.timer;
    id.node = settings.node;
    id.hostname = settings.hostname;
    id.job_id = settings.job_id;
    id.step_id = settings.step_id;
    id.timer_reason = timer.reason;
    id.program = program_invocation_short_name;
    id.format = settings.log_format;
    id.ring_slots = settings.ring_slots;
    id.policy = settings.policy_on ? &settings.policy : NULL;
    if (cp_log_open(&the_log, settings.dir, &id, &err) < 0) {
        cp_timer_stop(); /* nothing to time for */
        warn_once(err.text, "profiling is off for this process");
        goto out;
    }
    log_open = 1;
    pthread_atfork(NULL, NULL, child_after_fork);
    watch_term();
    cp_clock_init(settings.host_clock);
    write_clock();
    /* the next clock record (and the TSC's first rate) 100 ms from now */
    __atomic_store_n(&last_clock,
                     __atomic_load_n(&last_clock, __ATOMIC_RELAXED) -
                         CP_CLOCK_PERIOD_NS + CP_CLOCK_FIRST_NS,
                     __ATOMIC_RELAXED);
    cp_timer_start(&the_log, warn_timer);
    __atomic_store_n(&active, 1, __ATOMIC_RELEASE);
    if (settings.problem[0])
        warn_once(settings.problem, "profiling continues");
    if (timer.warning[0])
        warn_timer(timer.warning, timer.timer == CP_TIMER_EVENT
                                      ? "GPU times come from CUDA events"
                                      : "host times only");
out:
    errno = saved;
}

static int init_done; /* atomic: init_shim has run */

static void init_shim_once(void)
{
    init_shim();
    __atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

static inline void ensure_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&init_done, __ATOMIC_ACQUIRE), 0))
        pthread_once(&init_once, init_shim_once);
}

__attribute__((destructor)) static void fini_shim(void)
{
    uint32_t flags = 0;

    if (!log_open)
        return;
    cp_timer_stop(); /* the last GPU records, while the log is open */
    if (__atomic_load_n(&active, __ATOMIC_ACQUIRE))
        write_clock();
    else
        flags |= CP_HDR_DISABLED;
    __atomic_store_n(&active, 0, __ATOMIC_RELEASE);
    cp_log_close(&the_log, flags, __atomic_load_n(&dropped, __ATOMIC_RELAXED));
    log_open = 0;
}

static ncclResult_t missing(const char *name)
{
    char what[160];
    snprintf(what, sizeof what, "the real nccl%s was not found", name);
    warn_once(what, "returning ncclInternalError");
    return ncclInternalError;
}

/* ---- records ----------------------------------------------------------- */
static inline union cp_rec *slot_or_off(void)
{
    union cp_rec *rec = cp_log_slot(&the_log, NULL);

    if (__builtin_expect(!rec, 0)) {
        __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
        turn_off("cannot grow the log");
    }
    return rec;
}

static void learn_size(struct cp_comm *c, ncclComm_t comm)
{
    int n = 0, r = 0;

    /* A non-blocking communicator may not have answered at creation. */
    if (real_CommCount && real_CommUserRank &&
        real_CommCount(comm, &n) == ncclSuccess &&
        real_CommUserRank(comm, &r) == ncclSuccess && n > 0 && r >= 0)
        cp_comm_set_size(c, (uint32_t)n, (uint32_t)r);
}

/* Take the next sequence number of a communicator's counter.  NCCL forbids
 * calls on one communicator from several threads at once (its "thread
 * safety" rule: one communicator, one thread at a time), so a plain
 * read-modify-write is enough: a locked add would cost the call 8-10 ns
 * (make bench).  Atomic loads and stores keep each access whole. */
static inline uint32_t next_seq(uint32_t *ctr)
{
    uint32_t seq = __atomic_load_n(ctr, __ATOMIC_RELAXED);
    __atomic_store_n(ctr, seq + 1, __ATOMIC_RELAXED);
    return seq;
}

/* The call's record, written in two steps (log format 2): at entry
 * (record_enter) everything but the result, with end_ns 0, published at
 * once so that a process killed or stuck inside the real call leaves it on
 * disk as "in flight"; at return (record_leave) the result and flags, then
 * end_ns last.  rec: the slot the GPU timer reserved before the call, else
 * NULL (take one now).  Returns the slot, NULL when nothing is recorded. */
static inline __attribute__((always_inline)) union cp_rec *
record_enter(union cp_rec *rec, unsigned op, ncclComm_t comm,
             struct cp_comm *c, uint64_t count, int dtype, int redop,
             int peer, cudaStream_t stream, int inplace, uint64_t t0)
{
    uint32_t seq = CP_SEQ_NONE, nranks = 0, rank = 0;
    uint16_t flags = inplace ? CP_CALL_INPLACE : 0;

    if (c) {
        nranks = __atomic_load_n(&c->nranks, __ATOMIC_ACQUIRE);
        if (__builtin_expect(!nranks, 0)) {
            learn_size(c, comm);
            nranks = __atomic_load_n(&c->nranks, __ATOMIC_ACQUIRE);
        }
        rank = c->rank;
        if (cp_op_is_p2p(op)) {
            uint32_t k = (uint32_t)peer * 2 + (op == CP_OP_Recv);
            if (peer >= 0 && k < c->p2p_size)
                seq = next_seq(&c->p2p[k]);
        } else {
            seq = next_seq(&c->seq);
        }
    } else {
        flags |= CP_CALL_NO_COMM;
    }
    if (tls_group_depth > 0) {
        flags |= CP_CALL_IN_GROUP;
        tls_group_calls++;
    }
    if (!rec)
        rec = slot_or_off();
    if (!rec)
        return NULL;
    rec->call.op = (uint8_t)op;
    rec->call.dtype = dtype >= 0 && dtype < 0xff ? (uint8_t)dtype : CP_DTYPE_NONE;
    rec->call.redop = redop < 0              ? CP_REDOP_NONE
                      : redop < ncclNumOps ? (uint8_t)redop
                                           : CP_REDOP_CUSTOM;
    rec->call.result = 0;
    rec->call.timer = CP_TIMER_HOST;
    rec->call.flags = flags;
    rec->call.comm_id = c ? c->id : 0;
    rec->call.count = count;
    rec->call.seq = seq;
    rec->call.peer = peer;
    rec->call.rank = rank;
    rec->call.nranks = nranks;
    rec->call.group = tls_group_depth > 0 ? tls_group : 0;
    rec->call.stream = (uint32_t)((uintptr_t)stream ^ ((uint64_t)(uintptr_t)stream >> 32));
    rec->call.start_ns = t0;
    rec->call.end_ns = 0;
    cp_log_commit(rec, CP_REC_CALL);
    return rec;
}

/* Complete the entry record rec (NULL: nothing was recorded). */
static inline __attribute__((always_inline)) void
record_leave(union cp_rec *rec, uint16_t gpu_flags, ncclResult_t result,
             ncclComm_t comm, struct cp_comm *c, uint64_t t1)
{
    if (!rec)
        return;
    if (__builtin_expect(result == ncclInvalidArgument ||
                             result == ncclInvalidUsage,
                         0)) {
        /* A call NCCL refused did not happen on the wire: give its sequence
         * number back (NCCL forbids concurrent calls on one communicator,
         * so the counter is normally still one past it).  A call that
         * failed on the wire (remote, system, internal error) keeps it. */
        uint32_t seq = rec->call.seq;
        if (c && seq != CP_SEQ_NONE) {
            uint32_t *ctr = &c->seq;
            if (cp_op_is_p2p(rec->call.op)) {
                uint32_t k = (uint32_t)rec->call.peer * 2 +
                             (rec->call.op == CP_OP_Recv);
                ctr = k < c->p2p_size ? &c->p2p[k] : NULL;
            }
            if (ctr)
                __atomic_compare_exchange_n(ctr, &(uint32_t){seq + 1}, seq, 0,
                                            __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED);
        }
        rec->call.seq = CP_SEQ_NONE;
    } else if (__builtin_expect(c && !rec->call.nranks, 0)) {
        /* a non-blocking communicator that had not answered at entry */
        learn_size(c, comm);
        rec->call.nranks = __atomic_load_n(&c->nranks, __ATOMIC_ACQUIRE);
        rec->call.rank = c->rank;
    }
    rec->call.result = (int8_t)result;
    if (gpu_flags)
        rec->call.flags |= gpu_flags;
    __atomic_store_n(&rec->call.end_ns, t1, __ATOMIC_RELEASE);

    if (__builtin_expect(t1 - __atomic_load_n(&last_clock, __ATOMIC_RELAXED) >
                             CP_CLOCK_PERIOD_NS,
                         0))
        write_clock();
}

/* GPU timer: reserve the call's slot (its id for the device work) and start
 * timing.  NULL when the log cannot grow: the call is then recorded (or
 * dropped) the ordinary way. */
static union cp_rec *gpu_begin(struct cp_gpu_call *g, cudaStream_t stream,
                               ncclComm_t comm)
{
    uint64_t slot;
    union cp_rec *rec = cp_log_slot(&the_log, &slot);

    if (rec)
        cp_timer_call_begin(g, cp_timer_gpu_mode(), slot, stream, comm,
                            tls_group_depth > 0);
    return rec;
}

/* The body of a data-moving wrapper, one shape for both paths: GPU is the
 * constant 1 for the call under a GPU timer (its slot taken before the real
 * call, so that the device work carries its id) and 0 for the host timer
 * (the compiler drops the GPU steps).  COUNT may use cp_esize and cp_rank
 * (the table's per-collective count). */
#define CP_WRAP_BODY(fn, args, COUNT, DTYPE, REDOP, PEER, COMM, STREAM,        \
                     INPLACE, GPU)                                             \
    ncclResult_t cp_r;                                                         \
    uint64_t cp_t0, cp_t1;                                                     \
    int cp_errno;                                                              \
    struct cp_gpu_call cp_g;                                                   \
    union cp_rec *cp_rec = NULL;                                               \
    struct cp_comm *cp_c;                                                      \
    union cp_rec *cp_slot;                                                     \
    tls_depth++;                                                               \
    cp_g.flags = 0;                                                            \
    cp_c = cp_comm_find(COMM);                                                 \
    if (GPU)                                                                   \
        cp_rec = gpu_begin(&cp_g, STREAM, COMM);                               \
    cp_t0 = now_ns();                                                          \
    {                                                                          \
        size_t cp_esize = cp_dtype_size((unsigned)(DTYPE));                    \
        size_t cp_rank = cp_c ? cp_c->rank : 0;                                \
        (void)cp_esize;                                                        \
        (void)cp_rank;                                                         \
        cp_slot = record_enter(cp_rec, CP_OP_##fn, COMM, cp_c, COUNT,          \
                               (int)(DTYPE), (int)(REDOP), PEER, STREAM,       \
                               (INPLACE), cp_t0);                              \
    }                                                                          \
    cp_r = real_##fn args;                                                     \
    cp_errno = errno;                                                          \
    cp_t1 = now_ns();                                                          \
    if (GPU && cp_rec)                                                         \
        cp_timer_call_end(&cp_g, cp_r, cp_t0);                                 \
    record_leave(cp_slot, cp_g.flags, cp_r, COMM, cp_c, cp_t1);                \
    tls_depth--;                                                               \
    errno = cp_errno;                                                          \
    return cp_r;

/* The data-moving wrappers, one per DATA row of the table: the entry
 * (pass-through when off or nested), then the host body inline or the GPU
 * body out of line (gpu_<fn>: the host path stays small). */
#define CP_X_WRAP_DATA(fn, params, args, COUNT, DTYPE, REDOP, PEER, COMM,      \
                       STREAM, INPLACE)                                        \
    static __attribute__((noinline)) ncclResult_t gpu_##fn params              \
    {                                                                          \
        CP_WRAP_BODY(fn, args, COUNT, DTYPE, REDOP, PEER, COMM, STREAM,        \
                     INPLACE, 1)                                               \
    }                                                                          \
    static ncclResult_t cp_wrap_##fn params                                   \
    {                                                                          \
        ensure_init();                                                         \
        if (__builtin_expect(!real_##fn, 0))                                   \
            return missing(#fn);                                               \
        if (tls_depth || !__atomic_load_n(&active, __ATOMIC_RELAXED)) {        \
            count_unrecorded();                                                \
            return real_##fn args;                                             \
        }                                                                      \
        if (__builtin_expect(cp_timer_gpu_mode() != CP_GPU_OFF, 0))            \
            return gpu_##fn args;                                              \
        CP_WRAP_BODY(fn, args, COUNT, DTYPE, REDOP, PEER, COMM, STREAM,        \
                     INPLACE, 0)                                               \
    }
#define CP_X_NONE(fn, params, args)
CP_WRAP_TABLE(CP_X_WRAP_DATA, CP_X_NONE)
#undef CP_X_WRAP_DATA
#undef CP_WRAP_BODY

/* ---- groups ------------------------------------------------------------ */
static ncclResult_t cp_wrap_GroupStart(void)
{
    ensure_init();
    if (!real_GroupStart)
        return missing("GroupStart");
    if (!tls_depth && __atomic_load_n(&active, __ATOMIC_RELAXED) &&
        tls_group_depth++ == 0) {
        tls_group = __atomic_add_fetch(&group_count, 1, __ATOMIC_RELAXED);
        tls_group_calls = 0;
        tls_group_start = now_ns();
        if (cp_timer_gpu_mode() != CP_GPU_OFF) {
            tls_group_first =
                __atomic_load_n(&the_log.next_slot, __ATOMIC_RELAXED);
            cp_timer_group_start();
        }
    }
    return real_GroupStart();
}

static ncclResult_t cp_wrap_GroupEnd(void)
{
    ncclResult_t r;
    int saved, mode;
    uint64_t t1, gslot;
    union cp_rec *rec, *grec = NULL;
    struct cp_gpu_call g;

    ensure_init();
    if (!real_GroupEnd)
        return missing("GroupEnd");
    if (tls_depth || tls_group_depth == 0)
        return real_GroupEnd();
    /* The outermost GroupEnd launches the group's work: time it. */
    mode = cp_timer_gpu_mode();
    if (__builtin_expect(mode != CP_GPU_OFF, 0) && tls_group_depth == 1 &&
        __atomic_load_n(&active, __ATOMIC_RELAXED) &&
        (grec = cp_log_slot(&the_log, &gslot)) != NULL)
        cp_timer_group_begin(&g, mode, gslot, tls_group_first);
    r = real_GroupEnd();
    saved = errno;
    t1 = now_ns();
    if (grec)
        cp_timer_group_end(&g, r, tls_group_start);
    if (--tls_group_depth == 0 && __atomic_load_n(&active, __ATOMIC_RELAXED) &&
        (rec = grec ? grec : slot_or_off()) != NULL) {
        memset(rec, 0, sizeof *rec);
        rec->group.result = (int8_t)r;
        rec->group.group = tls_group;
        rec->group.ncalls = tls_group_calls;
        rec->group.start_ns = tls_group_start;
        rec->group.end_ns = t1;
        cp_log_commit(rec, CP_REC_GROUP);
    }
    errno = saved;
    return r;
}

/* ---- communicators ----------------------------------------------------- */
struct comm_event {
    unsigned how;
    ncclResult_t result;
    uint64_t id, parent;
    uint32_t nranks, rank;
    int32_t color, key;
    const ncclConfig_t *config;
};

static void config_name(char *dst, const ncclConfig_t *config)
{
    memset(dst, 0, CP_COMM_NAME_LEN);
    /* Only a struct that says it is big enough holds commName. */
    if (config && config->magic == NCCL_CONFIG_MAGIC &&
        config->size >= offsetof(ncclConfig_t, commName) + sizeof(char *) &&
        config->commName)
        memcpy(dst, config->commName,
               strnlen(config->commName, CP_COMM_NAME_LEN));
}

/* Write the event; on success add (or drop) the table entry for handle. */
static void comm_event(const struct comm_event *ev, ncclComm_t handle)
{
    union cp_rec *rec;
    int dev = -1;
    int created = (ev->result == ncclSuccess || ev->result == ncclInProgress) &&
                  handle && ev->how <= CP_COMM_SHRINK;

    if (created) {
        struct cp_comm *c = cp_comm_add(handle, ev->id, ev->nranks, ev->rank);
        if (!c)
            warn_once("more communicators than the shim's table holds",
                      "calls on the extra ones are logged without an id");
        if (ev->result == ncclSuccess && real_CommCuDevice &&
            real_CommCuDevice(handle, &dev) != ncclSuccess)
            dev = -1;
        cp_timer_comm_device(handle, dev);
    }
    if (!__atomic_load_n(&active, __ATOMIC_RELAXED) || !(rec = slot_or_off()))
        return;
    memset(rec, 0, sizeof *rec);
    rec->comm.how = (uint8_t)ev->how;
    rec->comm.result = (int8_t)ev->result;
    rec->comm.cuda_dev = dev;
    rec->comm.comm_id = ev->id;
    rec->comm.parent_id = ev->parent;
    rec->comm.nranks = ev->nranks;
    rec->comm.rank = ev->rank;
    rec->comm.color = ev->color;
    rec->comm.key = ev->key;
    rec->comm.time_ns = now_ns();
    config_name(rec->comm.name, ev->config);
    cp_log_commit(rec, CP_REC_COMM);
}

/* Size of a communicator NCCL made for us (split, shrink). */
static void ask_size(ncclComm_t comm, uint32_t *nranks, uint32_t *rank)
{
    int n = 0, r = 0;

    *nranks = 0;
    *rank = 0;
    if (comm && real_CommCount && real_CommUserRank &&
        real_CommCount(comm, &n) == ncclSuccess &&
        real_CommUserRank(comm, &r) == ncclSuccess && n > 0 && r >= 0) {
        *nranks = (uint32_t)n;
        *rank = (uint32_t)r;
    }
}

/* Whether this call is to be recorded (else it just passes through). */
static inline int recording(void)
{
    return !tls_depth && __atomic_load_n(&active, __ATOMIC_RELAXED);
}

static ncclResult_t init_rank(unsigned how, ncclComm_t *comm, int nranks,
                              ncclUniqueId *commId, int rank,
                              ncclConfig_t *config, ncclResult_t r)
{
    int saved = errno;
    struct comm_event ev = {how, r, 0, 0, (uint32_t)nranks, (uint32_t)rank,
                            0, 0, config};

    ev.id = cp_hash_bytes(commId, sizeof *commId, 0);
    comm_event(&ev, comm ? *comm : NULL);
    errno = saved;
    return r;
}

static ncclResult_t cp_wrap_CommInitRank(ncclComm_t *comm, int nranks,
                                        ncclUniqueId commId, int rank)
{
    ncclResult_t r;
    ensure_init();
    if (!real_CommInitRank)
        return missing("CommInitRank");
    if (!recording())
        return real_CommInitRank(comm, nranks,
                                                              commId, rank);
    tls_depth++;
    r = real_CommInitRank(comm, nranks, commId, rank);
    tls_depth--;
    return init_rank(CP_COMM_INIT_RANK, comm, nranks, &commId, rank, NULL, r);
}

static ncclResult_t cp_wrap_CommInitRankConfig(ncclComm_t *comm, int nranks,
                                              ncclUniqueId commId, int rank,
                                              ncclConfig_t *config)
{
    ncclResult_t r;
    ensure_init();
    if (!real_CommInitRankConfig)
        return missing("CommInitRankConfig");
    if (!recording())
        return real_CommInitRankConfig(comm, nranks, commId, rank, config);
    tls_depth++;
    r = real_CommInitRankConfig(comm, nranks, commId, rank, config);
    tls_depth--;
    return init_rank(CP_COMM_INIT_RANK_CONFIG, comm, nranks, &commId, rank,
                     config, r);
}

static ncclResult_t cp_wrap_CommInitRankScalable(ncclComm_t *newcomm,
                                                int nranks, int myrank,
                                                int nId, ncclUniqueId *commIds,
                                                ncclConfig_t *config)
{
    ncclResult_t r;
    ncclUniqueId none;
    ensure_init();
    if (!real_CommInitRankScalable)
        return missing("CommInitRankScalable");
    if (!recording())
        return real_CommInitRankScalable(newcomm, nranks, myrank, nId, commIds,
                                     config);
    tls_depth++;
    r = real_CommInitRankScalable(newcomm, nranks, myrank, nId, commIds,
                                  config);
    tls_depth--;
    memset(&none, 0, sizeof none);
    return init_rank(CP_COMM_INIT_SCALABLE, newcomm, nranks,
                     nId > 0 && commIds ? &commIds[0] : &none, myrank, config,
                     r);
}

static ncclResult_t cp_wrap_CommInitAll(ncclComm_t *comm, int ndev,
                                       const int *devlist)
{
    ncclResult_t r;
    int saved, i;
    uint64_t id;
    ensure_init();
    if (!real_CommInitAll)
        return missing("CommInitAll");
    if (!recording())
        return real_CommInitAll(comm, ndev, devlist);
    tls_depth++;
    r = real_CommInitAll(comm, ndev, devlist);
    tls_depth--;
    saved = errno;
    /* One process owns every member: the id only has to be unique. */
    id = cp_hash_mix(cp_hash_bytes(settings.hostname, strlen(settings.hostname),
                                   (uint64_t)getpid()),
                     __atomic_add_fetch(&init_all_count, 1, __ATOMIC_RELAXED));
    for (i = 0; comm && i < ndev; i++) {
        struct comm_event ev = {CP_COMM_INIT_ALL, r, id, 0, (uint32_t)ndev,
                                (uint32_t)i, 0, 0, NULL};
        comm_event(&ev, r == ncclSuccess ? comm[i] : NULL);
    }
    errno = saved;
    return r;
}

/* The parent's id and how many splits/shrinks it did before this one: the
 * same on every member, since splitting is collective. */
static uint64_t derive_base(ncclComm_t parent, uint64_t *parent_id)
{
    struct cp_comm *c = cp_comm_find(parent);
    uint32_t n = c ? __atomic_fetch_add(&c->derive_seq, 1, __ATOMIC_RELAXED) : 0;

    *parent_id = c ? c->id : 0;
    return cp_hash_mix(*parent_id, n);
}

static ncclResult_t cp_wrap_CommSplit(ncclComm_t comm, int color, int key,
                                     ncclComm_t *newcomm,
                                     ncclConfig_t *config)
{
    ncclResult_t r;
    struct comm_event ev = {CP_COMM_SPLIT, 0, 0, 0, 0, 0, color, key, config};
    uint64_t base;
    int saved;
    ensure_init();
    if (!real_CommSplit)
        return missing("CommSplit");
    if (!recording())
        return real_CommSplit(comm, color, key, newcomm, config);
    base = derive_base(comm, &ev.parent);
    tls_depth++;
    r = real_CommSplit(comm, color, key, newcomm, config);
    tls_depth--;
    saved = errno;
    ev.result = r;
    ev.id = cp_hash_mix(base, (uint64_t)(uint32_t)color + 1);
    if (r == ncclSuccess && newcomm)
        ask_size(*newcomm, &ev.nranks, &ev.rank);
    comm_event(&ev, newcomm && color != NCCL_SPLIT_NOCOLOR ? *newcomm : NULL);
    errno = saved;
    return r;
}

static ncclResult_t cp_wrap_CommShrink(ncclComm_t comm, int *excludeRanksList,
                                      int excludeRanksCount,
                                      ncclComm_t *newcomm,
                                      ncclConfig_t *config, int shrinkFlags)
{
    ncclResult_t r;
    struct comm_event ev = {CP_COMM_SHRINK, 0, 0, 0, 0, 0,
                            excludeRanksCount, 0, config};
    uint64_t base, excluded = 0;
    int saved;
    ensure_init();
    if (!real_CommShrink)
        return missing("CommShrink");
    if (!recording())
        return real_CommShrink(comm, excludeRanksList, excludeRanksCount, newcomm,
                           config, shrinkFlags);
    base = derive_base(comm, &ev.parent);
    if (excludeRanksList && excludeRanksCount > 0)
        excluded = cp_hash_bytes(excludeRanksList,
                                 (size_t)excludeRanksCount * sizeof(int), 0);
    tls_depth++;
    r = real_CommShrink(comm, excludeRanksList, excludeRanksCount, newcomm,
                        config, shrinkFlags);
    tls_depth--;
    saved = errno;
    ev.result = r;
    ev.id = cp_hash_mix(base, excluded);
    if (r == ncclSuccess && newcomm)
        ask_size(*newcomm, &ev.nranks, &ev.rank);
    comm_event(&ev, newcomm ? *newcomm : NULL);
    errno = saved;
    return r;
}

/* Destroy, abort, finalize: the entry goes before the real call, because the
 * handle's memory may be reused by another thread's new communicator as soon
 * as NCCL frees it. */
static ncclResult_t end_comm(unsigned how, const char *name, ncclComm_t comm,
                             ncclResult_t (*const *realp)(ncclComm_t))
{
    struct cp_comm *c;
    struct comm_event ev = {how, 0, 0, 0, 0, 0, 0, 0, NULL};
    ncclResult_t (*real)(ncclComm_t);
    ncclResult_t r;
    int saved;

    ensure_init(); /* before reading *realp: init resolves it */
    real = *realp;
    if (!real)
        return missing(name);
    if (!recording())
        return real(comm);
    c = cp_comm_find(comm);
    if (c) {
        ev.id = c->id;
        ev.nranks = c->nranks;
        ev.rank = c->rank;
    }
    if (how != CP_COMM_FINALIZE && comm)
        cp_comm_remove(comm);
    tls_depth++;
    r = real(comm);
    tls_depth--;
    saved = errno;
    ev.result = r;
    comm_event(&ev, NULL);
    errno = saved;
    return r;
}

static ncclResult_t cp_wrap_CommDestroy(ncclComm_t comm)
{
    return end_comm(CP_COMM_DESTROY, "CommDestroy", comm, &real_CommDestroy);
}

static ncclResult_t cp_wrap_CommAbort(ncclComm_t comm)
{
    return end_comm(CP_COMM_ABORT, "CommAbort", comm, &real_CommAbort);
}

static ncclResult_t cp_wrap_CommFinalize(ncclComm_t comm)
{
    return end_comm(CP_COMM_FINALIZE, "CommFinalize", comm, &real_CommFinalize);
}

/* ---- what the shim exports ---------------------------------------------- */

/* Each wrapped entry point is exported as an indirect function (IFUNC):
 * when the dynamic linker binds a reference to it, or dlsym looks it up,
 * pick() says what it is.  Where the NCCL behind the shim lacks the entry
 * point (ncclCommShrink against an older NCCL), the answer is NULL, as
 * without the shim: feature detection by dlsym sees the real library.
 * Otherwise it is the wrapper, called directly from then on (no cost on
 * the hot path).  pick() answers "the wrapper" whenever it cannot be sure:
 * before the shim itself is relocated (an object relocated earlier binding
 * to it), or when no NCCL is visible from here (NCCL in a local scope of a
 * dlopen: the wrapper finds it later, as before). */
static void *relocated = &relocated; /* its own address once relocated */

/* 0 when the NCCL behind the shim lacks name; 1 otherwise or when unsure */
static int pick(const char *name)
{
    void *self;

    /* the address of `relocated`, computed from the program counter, and
     * the stored one (a relative relocation) differ until the shim is
     * relocated: its calls into libc are not safe before */
    __asm__("" : "=r"(self) : "0"((void *)&relocated));
    if (relocated != self)
        return 1;
    return !dlsym(RTLD_NEXT, "ncclGetVersion") || dlsym(RTLD_NEXT, name);
}

#define CP_X_EXPORT(fn, params, ...)                                           \
    static ncclResult_t (*pick_##fn(void)) params                              \
    {                                                                          \
        return pick("nccl" #fn) ? cp_wrap_##fn : NULL;                         \
    }                                                                          \
    CP_EXPORT ncclResult_t nccl##fn params __attribute__((ifunc("pick_" #fn)));
CP_WRAP_TABLE(CP_X_EXPORT, CP_X_EXPORT)
#undef CP_X_EXPORT

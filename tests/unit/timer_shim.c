/* timer_shim.c - the shim's GPU timers over the stand-in CUDA (tests/fakecuda).
 *
 * Each scenario runs this program again as a child with the shim preloaded,
 * LD_LIBRARY_PATH at the stand-ins (so the shim's dlopen finds them) and the
 * scenario's settings; the child makes a known sequence of NCCL calls and
 * checks NCCL's own results; the parent then reads the child's log and
 * checks the CP_REC_GPU records, their flags and times, the header's timer
 * and reason, and the child's stderr.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collprof/cp_logfmt.h"
#include "collprof/cp_nccl.h"
#include "cp_logread.h"
#include "tap.h"

#define KERNEL_NS 300000u /* FAKENCCL_KERNEL_NS default */
/* The fake CUDA stamps an event with the host clock when it is recorded
 * (or when its stream's work ends, if later), so a loaded machine's
 * scheduling between the records enters an event timer's interval (5 ms
 * was exceeded once in a loaded `make check`): the bound only rules out
 * an interval that is not this call's, at either end. */
#define EVENT_MAX_NS (KERNEL_NS + 500000000u)
#define MAX_RECS 4096

/* ---- the child ------------------------------------------------------------ */
typedef int (*stream_create_fn)(void **);
typedef int (*stream_sync_fn)(void *);
typedef int (*capture_begin_fn)(void *, int);
typedef int (*capture_end_fn)(void *, void **);
typedef uint64_t (*counter_fn)(void);
typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t,
                                     ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                     cudaStream_t);
typedef ncclResult_t (*p2p_fn)(void *, size_t, ncclDataType_t, int, ncclComm_t,
                               cudaStream_t);
typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);
typedef ncclResult_t (*init_config_fn)(ncclComm_t *, int, ncclUniqueId, int,
                                       ncclConfig_t *);
typedef ncclResult_t (*void_fn)(void);
typedef ncclResult_t (*comm_fn)(ncclComm_t);
typedef ncclResult_t (*async_fn)(ncclComm_t, ncclResult_t *);

static struct {
    void *nccl;
    allreduce_fn allreduce;
    p2p_fn send, recv;
    init_fn init;
    init_config_fn init_config;
    void_fn group_start, group_end;
    comm_fn destroy;
    async_fn async_error;
    stream_create_fn stream_create;
    stream_sync_fn stream_sync;
    capture_begin_fn capture_begin;
    capture_end_fn capture_end;
    counter_fn captured_records;
} F;

static int child_failures;

static void child_check(int cond, const char *what)
{
    if (!cond) {
        printf("child: FAILED %s\n", what);
        child_failures++;
    }
}

static void *must(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        printf("child: no %s\n", name);
        exit(3);
    }
    return p;
}

static void load_fake(const char *lib)
{
    F.nccl = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!F.nccl) {
        printf("child: %s\n", dlerror());
        exit(3);
    }
    /* NCCL calls go through the shim (preloaded, first in the scope). */
    F.allreduce = (allreduce_fn)must(RTLD_DEFAULT, "ncclAllReduce");
    F.send = (p2p_fn)must(RTLD_DEFAULT, "ncclSend");
    F.recv = (p2p_fn)must(RTLD_DEFAULT, "ncclRecv");
    F.init = (init_fn)must(RTLD_DEFAULT, "ncclCommInitRank");
    F.init_config = (init_config_fn)must(RTLD_DEFAULT, "ncclCommInitRankConfig");
    F.group_start = (void_fn)must(RTLD_DEFAULT, "ncclGroupStart");
    F.group_end = (void_fn)must(RTLD_DEFAULT, "ncclGroupEnd");
    F.destroy = (comm_fn)must(RTLD_DEFAULT, "ncclCommDestroy");
    F.async_error = (async_fn)dlsym(F.nccl, "ncclCommGetAsyncError");
    F.stream_create = (stream_create_fn)dlsym(F.nccl, "cudaStreamCreate");
    F.stream_sync = (stream_sync_fn)dlsym(F.nccl, "cudaStreamSynchronize");
    F.capture_begin = (capture_begin_fn)dlsym(F.nccl, "cudaStreamBeginCapture");
    F.capture_end = (capture_end_fn)dlsym(F.nccl, "cudaStreamEndCapture");
    F.captured_records =
        (counter_fn)dlsym(F.nccl, "fakecuda_captured_event_records");
}

/* An all-reduce whose result the child checks: profiling changes nothing. */
static ncclResult_t checked_allreduce(ncclComm_t comm, void *stream, int n)
{
    float in[256], out[256];
    int i, good = 1;
    ncclResult_t r;

    if (n > 256)
        n = 256;
    for (i = 0; i < 256; i++) {
        in[i] = (float)i + 0.5f;
        out[i] = -1;
    }
    errno = 777;
    r = F.allreduce(in, out, (size_t)n, ncclFloat32, ncclSum, comm, stream);
    child_check(errno == 777, "errno unchanged through the shim");
    for (i = 0; i < n; i++)
        good &= out[i] == in[i] * 4.0f;
    if (F.captured_records) /* the stand-in NCCL computes; the null one not */
        child_check(good, "all-reduce result");
    return r;
}

static void wait_async(ncclComm_t comm)
{
    ncclResult_t e = ncclInProgress;
    int i;
    for (i = 0; i < 2000 && F.async_error && e == ncclInProgress; i++) {
        F.async_error(comm, &e);
        if (e == ncclInProgress)
            usleep(500);
    }
    child_check(e == ncclSuccess, "non-blocking work finished");
}

static void sleep_ms(int ms)
{
    usleep((useconds_t)ms * 1000u);
}

static ncclComm_t make_comm(void)
{
    ncclUniqueId id;
    ncclComm_t c = NULL;
    memset(&id, 9, sizeof id);
    child_check(F.init(&c, 4, id, 1) == ncclSuccess, "init");
    return c;
}

static ncclComm_t make_nonblocking(void)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclUniqueId id;
    ncclComm_t c = NULL;
    memset(&id, 3, sizeof id);
    config.blocking = 0;
    child_check(F.init_config(&c, 4, id, 1, &config) == ncclInProgress,
                "non-blocking init in progress");
    wait_async(c);
    return c;
}

/* The main sequence: see the parent's checks in scenario_cupti. */
static void run_main(void)
{
    ncclComm_t a = make_comm(), b, nb;
    void *s1 = NULL, *s2 = NULL, *graph;
    float buf[8] = {0};
    int i;

    F.stream_create(&s1);
    F.stream_create(&s2);
    for (i = 0; i < 4; i++) /* calls 0-3 */
        child_check(checked_allreduce(a, s1, 16 << i) == ncclSuccess,
                    "allreduce");
    F.group_start(); /* calls 4-6, one kernel */
    checked_allreduce(a, s1, 8);
    F.send(buf, 8, ncclFloat32, 2, a, s1);
    F.recv(buf, 8, ncclFloat32, 0, a, s1);
    child_check(F.group_end() == ncclSuccess, "group end");
    F.capture_begin(s2, 0); /* call 7, captured */
    checked_allreduce(a, s2, 8);
    F.capture_end(s2, &graph);
    b = make_comm(); /* call 8, its communicator destroyed at once */
    checked_allreduce(b, s1, 8);
    F.destroy(b);
    nb = make_nonblocking(); /* call 9, launched by NCCL's thread */
    child_check(checked_allreduce(nb, s2, 8) == ncclInProgress,
                "non-blocking all-reduce in progress");
    wait_async(nb);
    sleep_ms(400);
    checked_allreduce(a, s1, 8); /* call 10, out at the exit flush */
    F.stream_sync(s1);
    F.stream_sync(s2);
    if (F.captured_records)
        child_check(F.captured_records() == 0,
                    "no event recorded into a captured stream");
}

/* Five all-reduces, the fourth on a stream of its own (it may hang). */
static void run_faults(void)
{
    ncclComm_t a = make_comm();
    void *s1 = NULL, *s3 = NULL;
    int i;

    F.stream_create(&s1);
    F.stream_create(&s3);
    for (i = 0; i < 5; i++)
        checked_allreduce(a, i == 3 ? s3 : s1, 8);
    sleep_ms(500);
    F.stream_sync(s1);
}

static void run_short(int n)
{
    ncclComm_t a = make_comm();
    void *s1 = NULL;
    int i;

    if (F.stream_create) /* not with the null NCCL: no CUDA at all */
        F.stream_create(&s1);
    for (i = 0; i < n; i++)
        checked_allreduce(a, s1, 8);
    if (F.stream_sync)
        F.stream_sync(s1);
}

/* Event timer: plain calls, a group over two streams, a captured call, a
 * non-blocking call. */
static void run_event(void)
{
    ncclComm_t a = make_comm(), nb;
    void *s1 = NULL, *s2 = NULL, *graph;
    int i;

    F.stream_create(&s1);
    F.stream_create(&s2);
    for (i = 0; i < 3; i++) /* calls 0-2 */
        checked_allreduce(a, s1, 8);
    F.group_start(); /* calls 3-4 on two streams */
    checked_allreduce(a, s1, 8);
    checked_allreduce(a, s2, 8);
    F.group_end();
    F.capture_begin(s2, 0); /* call 5 */
    checked_allreduce(a, s2, 8);
    F.capture_end(s2, &graph);
    nb = make_nonblocking(); /* call 6 */
    checked_allreduce(nb, s1, 8);
    wait_async(nb);
    F.stream_sync(s1);
    F.stream_sync(s2);
    sleep_ms(100);
    if (F.captured_records)
        child_check(F.captured_records() == 0,
                    "no event recorded into a captured stream");
}

/* Wait (up to 10 s) until this process's log header names `timer`. */
static void wait_for_timer(unsigned timer)
{
    char **paths;
    struct cp_error err;
    int i;

    for (i = 0; i < 1000; i++) {
        unsigned got = 0;
        if (cp_logdir_list(getenv("COLLPROF_DIR"), &paths, &err) == 1) {
            FILE *f = fopen(paths[0], "rb");
            if (f) {
                if (fseek(f, 32, SEEK_SET) != 0 ||
                    fread(&got, sizeof got, 1, f) != 1)
                    got = 0;
                fclose(f);
            }
            cp_logdir_free(paths);
        }
        if (got == timer)
            return;
        sleep_ms(10);
    }
    child_check(0, "the header's timer changed in time");
}

/* Wait (up to 10 s) until this process's log holds n GPU records. */
static void wait_for_gpu_records(int n)
{
    char **paths;
    struct cp_error err;
    int i;

    for (i = 0; i < 1000; i++) {
        int got = 0;
        if (cp_logdir_list(getenv("COLLPROF_DIR"), &paths, &err) == 1) {
            struct cp_logfile *lf = cp_logfile_open(paths[0], &err);
            union cp_rec r;
            while (lf && cp_logfile_next(lf, &r, NULL) == 1)
                got += r.kind == CP_REC_GPU;
            cp_logfile_close(lf);
            cp_logdir_free(paths);
        }
        if (got >= n)
            return;
        sleep_ms(10);
    }
    child_check(0, "GPU records came in time");
}

/* CUPTI taken away after three launches. */
static void run_finalize(void)
{
    ncclComm_t a = make_comm();
    void *s1 = NULL;
    int i;

    F.stream_create(&s1);
    for (i = 0; i < 3; i++) /* calls 0-2: cupti */
        checked_allreduce(a, s1, 8);
    F.stream_sync(s1);
    wait_for_gpu_records(3);
    checked_allreduce(a, s1, 8); /* call 3: CUPTI gone under it */
    wait_for_timer(CP_TIMER_EVENT);
    for (i = 0; i < 3; i++) /* calls 4-6: events */
        checked_allreduce(a, s1, 8);
    F.stream_sync(s1);
    sleep_ms(100);
}

static int child(const char *scenario, const char *lib)
{
    load_fake(lib);
    if (strcmp(scenario, "main") == 0 || strcmp(scenario, "ce") == 0)
        run_main();
    else if (strcmp(scenario, "faults") == 0)
        run_faults();
    else if (strncmp(scenario, "multiple", 8) == 0)
        run_event();
    else if (strcmp(scenario, "finalize") == 0)
        run_finalize();
    else if (strncmp(scenario, "policy", 6) == 0)
        run_short(300);
    else
        run_short(3);
    return child_failures ? 1 : 0;
}

/* ---- the parent ----------------------------------------------------------- */
struct run {
    char dir[256];
    int status;
    char err[4096]; /* the child's stderr */
    struct cp_log_header hdr;
    union cp_rec recs[MAX_RECS];
    uint64_t slots[MAX_RECS];
    int n;
    uint32_t hdr_flags;
};

static struct run R;
static char tmpdir[] = "/tmp/cp-timer-XXXXXX";
static const char *builddir;

static void read_file(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f) {
        n = fread(out, 1, len - 1, f);
        fclose(f);
    }
    out[n] = '\0';
}

/* Run the child for scenario with extra "NAME=value" settings. */
static void run(const char *scenario, const char *lib, const char *const *env)
{
    char shim[1024], fakedir[1024], errpath[512], outpath[512], out[4096];
    pid_t pid;
    int st = 0;
    char **paths;
    struct cp_error err;

    memset(&R, 0, sizeof R);
    snprintf(R.dir, sizeof R.dir, "%s/%s", tmpdir, scenario);
    snprintf(shim, sizeof shim, "%s/preload/.libs/libcollprof.so", builddir);
    snprintf(fakedir, sizeof fakedir, "%s/tests/fakecuda", builddir);
    snprintf(errpath, sizeof errpath, "%s/%s.err", tmpdir, scenario);
    snprintf(outpath, sizeof outpath, "%s/%s.out", tmpdir, scenario);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        char self[] = "/proc/self/exe", *args[5];
        const char *const *e;
        char full[1024];
        unsetenv("COLLPROF_TIMER");
        unsetenv("COLLPROF_DISABLE");
        setenv("LD_PRELOAD", shim, 1);
        setenv("LD_LIBRARY_PATH", fakedir, 1);
        setenv("COLLPROF_DIR", R.dir, 1);
        setenv("COLLPROF_NODE", "gpunode", 1);
        for (e = env; e && *e; e++)
            putenv((char *)*e);
        if (!freopen(errpath, "w", stderr) || !freopen(outpath, "w", stdout))
            _exit(4);
        snprintf(full, sizeof full, "%s", lib);
        args[0] = self;
        args[1] = (char *)"--child";
        args[2] = (char *)scenario;
        args[3] = full;
        args[4] = NULL;
        execv(self, args);
        _exit(5);
    }
    waitpid(pid, &st, 0);
    R.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    read_file(errpath, R.err, sizeof R.err);
    read_file(outpath, out, sizeof out);
    if (out[0])
        diag("child says: %s", out);
    if (cp_logdir_list(R.dir, &paths, &err) == 1) {
        struct cp_logfile *lf = cp_logfile_open(paths[0], &err);
        if (lf) {
            R.hdr = *cp_logfile_header(lf);
            while (R.n < MAX_RECS &&
                   cp_logfile_next(lf, &R.recs[R.n], &R.slots[R.n]) == 1)
                R.n++;
            if (cp_logfile_problem(lf))
                diag("reading: %s", cp_logfile_problem(lf)->text);
            cp_logfile_close(lf);
        }
        cp_logdir_free(paths);
    }
}

/* The i-th call record and its slot. */
static const struct cp_rec_call *call(int i, uint64_t *slot)
{
    int k, n = 0;
    for (k = 0; k < R.n; k++)
        if (R.recs[k].kind == CP_REC_CALL && n++ == i) {
            if (slot)
                *slot = R.slots[k];
            return &R.recs[k].call;
        }
    return NULL;
}

static int count_kind(int kind)
{
    int k, n = 0;
    for (k = 0; k < R.n; k++)
        n += R.recs[k].kind == kind;
    return n;
}

/* GPU records for a slot: how many, the last one. */
static int gpu_for(uint64_t slot, struct cp_rec_gpu *out)
{
    int k, n = 0;
    for (k = 0; k < R.n; k++)
        if (R.recs[k].kind == CP_REC_GPU && R.recs[k].gpu.slot == slot) {
            n++;
            if (out)
                *out = R.recs[k].gpu;
        }
    return n;
}

/* GPU record of the i-th call: 1 if there is exactly one. */
static int gpu_of_call(int i, struct cp_rec_gpu *g, const struct cp_rec_call **c)
{
    uint64_t slot = 0;
    *c = call(i, &slot);
    memset(g, 0, sizeof *g);
    return *c && gpu_for(slot, g) == 1;
}

static int stderr_lines(void)
{
    int n = 0;
    const char *p;
    for (p = R.err; *p; p++)
        n += *p == '\n';
    return n;
}

static int collprof_lines(void)
{
    int n = 0;
    const char *p = R.err;
    while ((p = strstr(p, "collprof: ")) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* A complete interval of the expected length that began after the call. */
static int plausible(const struct cp_rec_gpu *g, const struct cp_rec_call *c,
                     unsigned timer, uint64_t min_ns, uint64_t max_ns)
{
    uint64_t d = g->end_ns - g->start_ns;
    /* the shim records its start event before it reads the call's start
     * time (cp_shim.c, CP_WRAP_BODY), so an event interval may begin
     * before the call by however long the thread was held between the two
     * (9 us once under ASan in a loaded make check); CUPTI's kernel starts
     * inside the call */
    uint64_t early = timer == CP_TIMER_EVENT ? EVENT_MAX_NS : 2000;
    return g->timer == timer && !(g->flags & CP_CALL_INCOMPLETE) &&
           g->end_ns > g->start_ns && d >= min_ns && d <= max_ns &&
           g->start_ns + early >= c->start_ns &&
           g->start_ns < c->start_ns + 2000000000u;
}

static void scenario_nocuda(void)
{
    char lib[1024];
    uint64_t slot;
    const struct cp_rec_call *c;

    snprintf(lib, sizeof lib, "%s/tests/bench/lib/libnccl.so.2", builddir);
    run("nocuda", lib, NULL);
    is_int(R.status, 0, "no CUDA: the job runs");
    is_int(R.hdr.timer, CP_TIMER_HOST, "no CUDA, auto: host timer");
    ok(strstr(R.hdr.timer_reason, "auto: host") &&
           strstr(R.hdr.timer_reason, "no CUDA"),
       "no CUDA: the reason says why: %s", R.hdr.timer_reason);
    is_int(collprof_lines(), 0, "no CUDA, auto: nothing on stderr");
    c = call(0, &slot);
    ok(c && c->timer == CP_TIMER_HOST && count_kind(CP_REC_CALL) == 3,
       "no CUDA: calls recorded with the host timer");
    is_int(count_kind(CP_REC_GPU), 0, "no CUDA: no GPU records");
}

static void scenario_main(void)
{
    char lib[1024];
    static const char *const env[] = {"FAKECUPTI_OFFSET_NS=3000000000", NULL};
    struct cp_rec_gpu g, g4;
    const struct cp_rec_call *c;
    uint64_t slot = 0, prev_end = 0, gslot = 0;
    int i, k, ok_all = 1, clocks = 0, fused = 0;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("main", lib, env);
    is_int(R.status, 0, "cupti: the child's NCCL results are unchanged");
    is_int(R.hdr.timer, CP_TIMER_CUPTI, "auto picks cupti");
    is_str(R.hdr.timer_reason, "auto: cupti", "header reason");
    is_int(collprof_lines(), 0, "cupti: nothing on stderr");
    for (i = 0; i < 4; i++) {
        int good = gpu_of_call(i, &g, &c) &&
                   plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS,
                             KERNEL_NS + 1000) &&
                   g.flags == 0 && g.start_ns >= prev_end;
        if (!good)
            diag("call %d: gpu %" PRIu64 "..%" PRIu64 " flags %u, call %" PRIu64,
                 i, g.start_ns, g.end_ns, g.flags, c ? c->start_ns : 0);
        ok_all &= good;
        prev_end = g.end_ns;
    }
    ok(ok_all, "four all-reduces: one kernel interval each, in stream order, "
               "on CLOCK_REALTIME despite CUPTI's clock offset");
    ok(gpu_of_call(0, &g, &c) && c->timer == CP_TIMER_HOST &&
           c->end_ns >= c->start_ns && !(c->flags & CP_CALL_INCOMPLETE),
       "the call record keeps the host enqueue interval");
    /* the group */
    for (k = 0; k < R.n; k++)
        if (R.recs[k].kind == CP_REC_GROUP)
            gslot = R.slots[k];
    ok(gslot && gpu_for(gslot, &g4) == 1 && (g4.flags & CP_CALL_FUSED) &&
           g4.end_ns - g4.start_ns >= KERNEL_NS,
       "group record: the group's kernel, fused");
    for (i = 4; i < 7; i++)
        fused += gpu_of_call(i, &g, &c) && (g.flags & CP_CALL_FUSED) &&
                 g.start_ns == g4.start_ns && g.end_ns == g4.end_ns &&
                 (c->flags & CP_CALL_IN_GROUP);
    is_int(fused, 3, "each call of the group: the group's interval, fused");
    c = call(7, &slot);
    ok(c && (c->flags & CP_CALL_CAPTURED) && gpu_for(slot, NULL) == 0,
       "captured call: marked captured, no interval (replays are not seen)");
    ok(gpu_of_call(8, &g, &c) &&
           plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000),
       "call whose communicator was destroyed before its records came: timed");
    ok(gpu_of_call(9, &g, &c) && c->result == ncclInProgress &&
           plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000),
       "non-blocking call launched by NCCL's thread: timed by stream and "
       "launch time");
    ok(gpu_of_call(10, &g, &c) &&
           plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000),
       "last call, delivered by the exit flush: timed");
    is_int(count_kind(CP_REC_CALL), 11, "11 calls recorded");
    is_int(count_kind(CP_REC_GPU), 11, "11 GPU records: 9 calls + 3 in the "
                                        "group - 1 captured");
    for (k = 0; k < R.n; k++)
        if (R.recs[k].kind == CP_REC_CLOCK && R.recs[k].clock.gpu_ns) {
            int64_t d = (int64_t)(R.recs[k].clock.gpu_ns -
                                  R.recs[k].clock.realtime_ns);
            clocks += d > 2999000000 && d < 3001000000;
        }
    ok(clocks >= 2, "calibration pairs (realtime, CUPTI) at start and end: %d",
       clocks);
    ok(R.hdr.flags & CP_HDR_CLOSED, "log closed at exit");
}

static void scenario_ce(void)
{
    char lib[1024];
    static const char *const env[] = {"FAKENCCL_CE=1", NULL};
    struct cp_rec_gpu g;
    const struct cp_rec_call *c;
    int i, n = 0;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("ce", lib, env);
    is_int(R.status, 0, "copy-engine collectives: results unchanged");
    for (i = 0; i < 4; i++)
        n += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000);
    is_int(n, 4, "copy-engine collectives: timed from memcpy records");
}

static void scenario_faults(void)
{
    char lib[1024];
    static const char *const env[] = {
        "COLLPROF_TIMER=cupti", "FAKECUPTI_MODE=reorder", "FAKECUPTI_MISSING=2",
        "FAKECUDA_HANG=4", NULL};
    struct cp_rec_gpu g;
    const struct cp_rec_call *c;
    int n = 0, i;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("faults", lib, env);
    is_int(R.status, 0, "faults: the job runs");
    for (i = 0; i < 5; i += 2)
        n += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000);
    is_int(n, 3, "correlation records a flush after their kernels: joined");
    ok(gpu_of_call(1, &g, &c) && g.flags == CP_CALL_INCOMPLETE &&
           g.start_ns == 0 && g.end_ns == 0,
       "kernel record never written: incomplete, no times invented");
    ok(gpu_of_call(3, &g, &c) && g.flags == CP_CALL_INCOMPLETE &&
           g.start_ns >= c->start_ns && g.end_ns == 0,
       "kernel never finished before exit: incomplete, its start kept");
    is_int(count_kind(CP_REC_GPU), 5, "one GPU record per call");
}

static void scenario_hold(void)
{
    char lib[1024];
    static const char *const env[] = {"COLLPROF_TIMER=cupti",
                                      "FAKECUPTI_MODE=hold", NULL};
    struct cp_rec_gpu g;
    const struct cp_rec_call *c;
    int i, n = 0;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("hold", lib, env);
    is_int(R.status, 0, "buffer completed at exit: the job runs");
    for (i = 0; i < 3; i++)
        n += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000);
    is_int(n, 3, "buffer completed only by the exit flush: every call timed");
}

static void scenario_late(void)
{
    char lib[1024];
    static const char *const env[] = {"COLLPROF_TIMER=cupti",
                                      "FAKECUPTI_MODE=hold,late", NULL};
    int k, bad = 0;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("late", lib, env);
    is_int(R.status, 0, "a buffer completed after the shim stopped: no crash");
    ok(R.hdr.flags & CP_HDR_CLOSED, "  and the log is closed cleanly");
    for (k = 0; k < R.n; k++)
        bad += R.recs[k].kind == CP_REC_GPU &&
               !(R.recs[k].gpu.flags & CP_CALL_INCOMPLETE) &&
               R.recs[k].gpu.end_ns <= R.recs[k].gpu.start_ns;
    is_int(bad, 0, "  no interval invented for the records that came late");
    is_int(count_kind(CP_REC_CALL), 3, "  every call recorded");
}

static void scenario_multiple(const char *timer)
{
    char lib[1024], name[32], var[64];
    const char *env[3] = {"FAKECUPTI_MODE=multiple", NULL, NULL};
    struct cp_rec_gpu g;
    const struct cp_rec_call *c;
    uint64_t slot;
    int i, n = 0, fused = 0;

    snprintf(var, sizeof var, "COLLPROF_TIMER=%s", timer);
    env[1] = var;
    snprintf(name, sizeof name, "multiple-%s", timer);
    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run(name, lib, env);
    is_int(R.status, 0, "%s, CUPTI has another subscriber: NCCL's results "
                        "unchanged", timer);
    is_int(R.hdr.timer, CP_TIMER_EVENT, "%s: falls back to the event timer",
           timer);
    ok(strstr(R.hdr.timer_reason, "event") &&
           strstr(R.hdr.timer_reason, "another tool"),
       "%s: the reason names the conflict: %s", timer, R.hdr.timer_reason);
    if (strcmp(timer, "auto") == 0) {
        is_int(collprof_lines(), 0, "auto: no warning (nothing was asked)");
    } else {
        is_int(collprof_lines(), 1, "cupti asked for: exactly one warning");
        ok(stderr_lines() == 1 && strncmp(R.err, "collprof: ", 10) == 0 &&
               strstr(R.err, "COLLPROF_TIMER=cupti") &&
               strstr(R.err, "CUDA events"),
           "  one line, starting 'collprof: ', saying what and what instead");
        diag("stderr: %s", R.err);
    }
    for (i = 0; i < 3; i++)
        n += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_EVENT, KERNEL_NS, EVENT_MAX_NS);
    is_int(n, 3, "%s: CUDA event intervals cover each call's kernel", timer);
    for (i = 3; i < 5; i++)
        fused += gpu_of_call(i, &g, &c) && (g.flags & CP_CALL_FUSED) &&
                 g.timer == CP_TIMER_EVENT && g.end_ns - g.start_ns >= KERNEL_NS;
    is_int(fused, 2, "%s: a group over two streams: one interval, fused",
           timer);
    c = call(5, &slot);
    ok(c && (c->flags & CP_CALL_CAPTURED) && gpu_for(slot, NULL) == 0,
       "%s: captured call: marked, not timed, no event put into the graph",
       timer);
    c = call(6, &slot);
    ok(c && c->result == ncclInProgress && (c->flags & CP_CALL_INCOMPLETE) &&
           gpu_for(slot, NULL) == 0,
       "%s: non-blocking call: marked incomplete (launched after our events)",
       timer);
}

/* The capture policy with a device timer (docs/capture-policy.md): the
 * kept calls keep their device intervals; a folded call's goes into its
 * aggregate, whose durations are the device's (the kernel's 300 us), not
 * the host's enqueue. */
static void scenario_policy(const char *timer)
{
    char lib[1024], name[32], var[64];
    const char *env[3] = {"COLLPROF_DETAIL=first=20,window=10,every=100,"
                          "interval=100ms",
                          NULL, NULL};
    uint64_t calls = 0, sum = 0, minq = UINT64_MAX;
    int k, kept = 0, timed = 0, bad = 0;

    snprintf(var, sizeof var, "COLLPROF_TIMER=%s", timer);
    env[1] = var;
    snprintf(name, sizeof name, "policy-%s", timer);
    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run(name, lib, env);
    is_int(R.status, 0, "policy, %s timer: NCCL's results unchanged", timer);
    ok(R.hdr.flags & CP_HDR_POLICY, "policy, %s: the header says so", timer);
    for (k = 0; k < R.n; k++) {
        const union cp_rec *r = &R.recs[k];
        if (r->kind == CP_REC_CALL && r->call.op == CP_OP_AllReduce) {
            kept++;
            bad += !cp_policy_keeps(20, 10, 100, r->call.seq);
            timed += gpu_for(R.slots[k], NULL) == 1;
        } else if (r->kind == CP_REC_AGG) {
            calls += r->agg.calls;
            sum += r->agg.sum_ns;
            if (cp_q16_decode(r->agg.dur_q[0]) < minq)
                minq = cp_q16_decode(r->agg.dur_q[0]);
        }
    }
    is_int(kept, 40, "policy, %s: the 40 calls of the windows kept", timer);
    is_int(bad, 0, "policy, %s: none the rule folds", timer);
    is_int(timed, 40, "policy, %s: each with its device interval", timer);
    is_int(count_kind(CP_REC_GPU), 40,
           "policy, %s: no device interval of a folded call", timer);
    is_int((long long)calls, 260, "policy, %s: the other 260 in aggregates",
           timer);
    ok(calls && sum / calls >= KERNEL_NS && minq >= KERNEL_NS - KERNEL_NS / 64,
       "policy, %s: their durations the device's (mean %llu ns, min %llu ns; "
       "the kernel takes %u)",
       timer, (unsigned long long)(calls ? sum / calls : 0),
       (unsigned long long)minq, KERNEL_NS);
}

static void scenario_finalize(void)
{
    char lib[1024];
    static const char *const env[] = {"COLLPROF_TIMER=cupti",
                                      "FAKECUPTI_FINALIZE_AFTER=3", NULL};
    struct cp_rec_gpu g;
    const struct cp_rec_call *c;
    uint64_t slot;
    int i, n = 0, m = 0;

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("finalize", lib, env);
    is_int(R.status, 0, "CUPTI finalized by another tool mid-run: results "
                        "unchanged");
    for (i = 0; i < 3; i++)
        n += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_CUPTI, KERNEL_NS, KERNEL_NS + 1000);
    is_int(n, 3, "  calls before: CUPTI intervals");
    c = call(3, &slot);
    ok(c && gpu_for(slot, &g) <= 1 &&
           (gpu_for(slot, NULL) == 0 || (g.flags & CP_CALL_INCOMPLETE)),
       "  the call CUPTI vanished under: no interval invented");
    for (i = 4; i < 7; i++)
        m += gpu_of_call(i, &g, &c) &&
             plausible(&g, c, CP_TIMER_EVENT, KERNEL_NS, EVENT_MAX_NS);
    is_int(m, 3, "  calls after: CUDA event intervals");
    is_int(R.hdr.timer, CP_TIMER_EVENT, "  header: now the event timer");
    ok(strstr(R.hdr.timer_reason, "lost") != NULL, "  header reason: %s",
       R.hdr.timer_reason);
    is_int(collprof_lines(), 1, "  exactly one warning line");
    ok(strstr(R.err, "CUPTI") && strstr(R.err, "CUDA events"),
       "  it says CUPTI went away and events took over");
    diag("stderr: %s", R.err);
}

static void scenario_nodevice(void)
{
    char lib[1024];
    static const char *const env[] = {"COLLPROF_TIMER=event",
                                      "FAKECUDA_DEVICES=0", NULL};

    snprintf(lib, sizeof lib, "%s/tests/fakecuda/nccl/libnccl.so.2", builddir);
    run("nodevice", lib, env);
    is_int(R.status, 0, "event asked, no device: the job runs");
    is_int(R.hdr.timer, CP_TIMER_HOST, "  host timer");
    ok(strstr(R.hdr.timer_reason, "event requested: host") != NULL,
       "  reason: %s", R.hdr.timer_reason);
    ok(collprof_lines() == 1 && stderr_lines() == 1 &&
           strstr(R.err, "COLLPROF_TIMER=event") &&
           strstr(R.err, "no CUDA device"),
       "  one warning line: %s", R.err);
    is_int(count_kind(CP_REC_CALL), 3, "  calls recorded");
    is_int(count_kind(CP_REC_GPU), 0, "  no GPU records");
}

static void cleanup(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}

int main(int argc, char **argv)
{
    char probe[1024];

    if (argc > 3 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3]);
    builddir = getenv("top_builddir");
    if (!builddir)
        builddir = ".";
    snprintf(probe, sizeof probe, "%s/tests/fakecuda/libcupti.so.13", builddir);
    if (access(probe, R_OK) != 0)
        skip_all("the stand-in CUDA (tests/fakecuda) is not built");
    snprintf(probe, sizeof probe, "%s/preload/.libs/libcollprof.so", builddir);
    if (access(probe, R_OK) != 0)
        skip_all("libcollprof.so not built");
    if (!mkdtemp(tmpdir))
        return 1;
    scenario_nocuda();
    scenario_main();
    scenario_ce();
    scenario_faults();
    scenario_hold();
    scenario_late();
    scenario_multiple("auto");
    scenario_multiple("cupti");
    scenario_finalize();
    scenario_nodevice();
    scenario_policy("event");
    scenario_policy("cupti");
    if (!tap_failed)
        cleanup(tmpdir);
    else
        diag("logs kept in %s", tmpdir);
    return done_testing();
}

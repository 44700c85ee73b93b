/* shim_bench.c - what the shim adds to one NCCL call, measured side by side.
 *
 * The real library is the null NCCL (calls return at once), so the bare call
 * is the baseline and the difference is the shim's own cost.  Rounds
 * alternate bare and wrapped batches; the figure printed is the median of
 * the per-round differences, so background noise hits both sides alike.
 * A second measurement spaces the calls by PACE_NS of work (default 1000),
 * the same on both sides.
 * Run through tests/bench/run.sh (make bench), which preloads the shim.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collprof/cp_nccl.h"

#define ROUNDS 21

typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t,
                                     ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                     cudaStream_t);
typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);

static double clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of the last batch, ns per call: the calling thread's, and the
 * other threads' (the shim's log thread). */
static double last_cpu, last_other;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Work between calls: the same on both sides, so it cancels out. */
static void spin(long iterations)
{
    volatile long k;
    for (k = 0; k < iterations; k++) {
    }
}

static double batch(allreduce_fn f, ncclComm_t comm, long n, long pace)
{
    float buf[4];
    double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    double p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    double t0 = now(), t1, c1, p1;
    long i;
    for (i = 0; i < n; i++) {
        f(buf, buf, 4, ncclFloat32, ncclSum, comm, NULL);
        if (pace)
            spin(pace);
    }
    t1 = now();
    c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    last_cpu = (c1 - c0) / (double)n;
    last_other = ((p1 - p0) - (c1 - c0)) / (double)n;
    return (t1 - t0) / (double)n;
}

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof v[0], cmp);
    return v[ROUNDS / 2];
}

/* How the shim's log is mapped now: kB of its mappings in /proc/self/smaps
 * (*.cplog) and of those mapped with 2 MiB entries (FilePmdMapped).  The
 * first access to each 4 KiB entry costs a trap under a hypervisor that
 * shadows page tables (docs/timers.md), so this says which cost applies. */
static void print_log_mapping(const char *label)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4608];
    long size = 0, pmd = 0, kb;
    int ours = 0;

    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (line[0] != ' ' && strchr(line, '-') &&
            strchr(line, '-') < strchr(line, ' '))
            ours = n > 6 && strcmp(line + n - 6, ".cplog") == 0;
        else if (ours && sscanf(line, "Rss: %ld kB", &kb) == 1)
            size += kb;
        else if (ours && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1)
            pmd += kb;
    }
    fclose(f);
    if (size == 0)
        return; /* no log (the shim is off) */
    printf("%s: log pages mapped now %ld kB, %ld kB of them with 2 MiB "
           "entries%s\n", label, size, pmd,
           size && !pmd ? " (none: 4 KiB pages, a trap per page under a "
                          "shadow-paging hypervisor)"
                        : "");
}

/* Alternate bare and wrapped batches; print the medians.  pace: spin
 * iterations after each call (0: back to back). */
static void measure(const char *label, allreduce_fn bare, allreduce_fn wrapped,
                    ncclComm_t comm, long n, long pace)
{
    double b[ROUNDS], w[ROUNDS], d[ROUNDS], dc[ROUNDS], o[ROUNDS];
    double bm, wm, bmin, wmin, other = 0, wall = 0;
    int r;

    for (r = 0; r < ROUNDS; r++) {
        double bare_cpu;
        b[r] = batch(bare, comm, n, pace);
        bare_cpu = last_cpu;
        w[r] = batch(wrapped, comm, n, pace);
        d[r] = w[r] - b[r];
        dc[r] = last_cpu - bare_cpu;
        o[r] = last_other;
        other += last_other;
        wall += w[r];
    }
    bm = median(b);
    wm = median(w);
    bmin = b[0]; /* sorted by median() */
    wmin = w[0];
    /* Wall time counts whatever else the machine runs (the fastest rounds
     * are the least disturbed); CPU time is the shim's own work (the
     * caller's, page faults included, and its log thread's) whatever the
     * load.  The log thread's share: its CPU over the wrapped batches'
     * wall time, all rounds together. */
    if (!pace)
        printf("%s, back to back: bare %.1f ns/call, with shim %.1f ns/call: "
               "added %.1f ns/call wall (fastest rounds: %.1f), ratio %.2f "
               "(medians of %d rounds of %ld calls each side; target <= 40)\n",
               label, bm, wm, median(d), wmin - bmin, wm / bm, ROUNDS, n);
    else
        printf("%s, calls %.0f ns apart: bare %.1f ns/call, with shim %.1f "
               "ns/call: added %.1f ns/call wall (fastest rounds: %.1f), "
               "ratio %.3f (medians of %d rounds of %ld calls each side)\n",
               label, bm, bm, wm, median(d), wmin - bmin, wm / bm, ROUNDS, n);
    /* The log thread's CPU over all rounds together, not a median: the
     * process's CPU clock takes another thread's running time in only when
     * that thread is descheduled or at a tick, so a round of a few ms
     * mostly sees none of it and the next one all of it. */
    (void)o;
    printf("%s, %s, CPU: added %.1f ns/call on the calling thread "
           "(median); log thread %.1f ns/call, %.0f%% of a core (all "
           "rounds)\n",
           label, pace ? "paced" : "back to back", median(dc),
           other / ROUNDS, wall > 0 ? 100.0 * other / wall : 0.0);
}

int main(int argc, char **argv)
{
    const char *lib = argc > 1 ? argv[1] : "libnccl.so.2";
    long n = argc > 2 ? atol(argv[2]) : 50000;
    double pace_ns = argc > 3 ? atof(argv[3]) : 1000.0;
    const char *label = getenv("CP_BENCH_LABEL") ? getenv("CP_BENCH_LABEL")
                                                 : "shim";
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    allreduce_fn bare, wrapped;
    init_fn init;
    ncclComm_t comm;
    ncclUniqueId id;
    long pace = 0;

    if (!h) {
        fprintf(stderr, "shim_bench: %s\n", dlerror());
        return 1;
    }
    if (n <= 0) {
        fprintf(stderr, "usage: shim_bench LIBNCCL [CALLS [PACE_NS]]\n");
        return 2;
    }
    bare = (allreduce_fn)dlsym(h, "ncclAllReduce");
    wrapped = (allreduce_fn)dlsym(RTLD_DEFAULT, "ncclAllReduce");
    init = (init_fn)dlsym(RTLD_DEFAULT, "ncclCommInitRank");
    memset(&id, 1, sizeof id);
    if (!bare || !wrapped || !init || init(&comm, 8, id, 3) != ncclSuccess) {
        fprintf(stderr, "shim_bench: cannot set up\n");
        return 1;
    }
    if (bare == wrapped)
        fprintf(stderr, "shim_bench: the shim is not preloaded; both sides "
                        "are the bare call\n");
    /* Warm up for 0.3 s of calls: a process's first calls are not its
     * steady state (pages, branch predictors; the shim's clock calibrates
     * 0.1 s after its first call, see docs/timers.md).  Meanwhile find how
     * many spin iterations take pace_ns (the fastest of several tries). */
    {
        double t_end = now() + 0.3e9, best = 0;
        while (now() < t_end) {
            double t0;
            batch(bare, comm, n / 10, 0);
            batch(wrapped, comm, n / 10, 0);
            t0 = now();
            spin(100000);
            t0 = now() - t0;
            if (best == 0 || t0 < best)
                best = t0;
        }
        if (pace_ns > 0 && best > 0)
            pace = (long)(pace_ns * 100000.0 / best) + 1;
    }
    measure(label, bare, wrapped, comm, n, 0);
    /* Calls with work between them, as in a job: the log thread, which
     * makes the file's pages ready ahead of the writer, keeps up unless
     * calls come faster than it can map pages. */
    if (pace)
        measure(label, bare, wrapped, comm, n / 10 > 0 ? n / 10 : 1, pace);
    if (bare != wrapped)
        print_log_mapping(label);
    return 0;
}

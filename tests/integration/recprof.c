/* recprof.c - a small profiler plugin for the tests: it exports
 * ncclProfiler_v5 only, asks for every event v5 has, and counts what it is
 * given: per event type the starts and stops, and the errors a profiler
 * behind another one could suffer (a stop or state of a handle not started
 * or already stopped, a parent that is not one of its own live handles).
 * At exit it writes RECPROF_DIR/rec.<pid> ("start TYPE N", "stop TYPE N",
 * "states N", "errors N", "open N": started, never stopped).  Used as
 * NCCL's plugin directly, and behind collprof's (COLLPROF_NEXT_PROFILER),
 * by tests/integration/nccl_profiler.sh. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collprof/cp_nccl_profiler.h"

#define EVENTS (1u << 20)
#define TYPES 16

static unsigned char state_of[EVENTS]; /* 0 free, 1 started, 2 stopped */
static unsigned type_of[EVENTS];
static unsigned next_ev;
static unsigned long starts[TYPES], stops[TYPES], states, errors;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ctx_token;

static int bit(uint64_t type)
{
    int b = 0;
    while (b < TYPES && type != (1ull << b))
        b++;
    return b < TYPES ? b : -1;
}

/* the index of a handle this plugin gave, or -1 */
static long index_of(const void *h)
{
    const char *p = h, *base = (const char *)state_of;
    if (!h || p < base || p >= base + EVENTS)
        return -1;
    return (long)(p - base);
}

static ncclResult_t init(void **context, uint64_t comm_id, int *mask,
                         const char *name, int nnodes, int nranks, int rank,
                         ncclDebugLogger_t logfn)
{
    (void)comm_id; (void)name; (void)nnodes; (void)nranks; (void)rank;
    (void)logfn;
    *context = &ctx_token;
    *mask = 0x0fff; /* every event type of v5 */
    return ncclSuccess;
}

static ncclResult_t start(void *context, void **handle,
                          ncclProfilerEventDescr_v5_t *d)
{
    int b = bit(d->type);
    long parent = index_of(d->parentObj);

    *handle = NULL;
    pthread_mutex_lock(&lock);
    if (context != &ctx_token || b < 0 ||
        (d->parentObj && (parent < 0 || state_of[parent] == 0)))
        errors++;
    if (b >= 0 && next_ev < EVENTS) {
        state_of[next_ev] = 1;
        type_of[next_ev] = (unsigned)b;
        *handle = &state_of[next_ev++];
        starts[b]++;
    }
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

static ncclResult_t stop(void *handle)
{
    long i = index_of(handle);

    pthread_mutex_lock(&lock);
    if (i < 0 || state_of[i] != 1) {
        errors++;
    } else {
        state_of[i] = 2;
        stops[type_of[i]]++;
    }
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

static ncclResult_t record(void *handle, ncclProfilerEventState_t s,
                           ncclProfilerEventStateArgs_v5_t *args)
{
    long i = index_of(handle);

    (void)s; (void)args;
    pthread_mutex_lock(&lock);
    if (i < 0 || state_of[i] != 1)
        errors++;
    else
        states++;
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

static ncclResult_t finalize(void *context)
{
    (void)context;
    return ncclSuccess;
}

__attribute__((visibility("default"))) const ncclProfiler_v5_t
    ncclProfiler_v5 = {"recprof", init, start, stop, record, finalize};

__attribute__((destructor)) static void write_out(void)
{
    const char *dir = getenv("RECPROF_DIR");
    char path[512];
    unsigned long open_ = 0;
    unsigned i;
    FILE *f;

    if (!dir || !next_ev)
        return;
    snprintf(path, sizeof path, "%s/rec.%d", dir, (int)getpid());
    f = fopen(path, "w");
    if (!f)
        return;
    for (i = 0; i < next_ev; i++)
        open_ += state_of[i] == 1;
    for (i = 0; i < TYPES; i++)
        if (starts[i] || stops[i])
            fprintf(f, "start %u %lu\nstop %u %lu\n", 1u << i, starts[i],
                    1u << i, stops[i]);
    fprintf(f, "states %lu\nerrors %lu\nopen %lu\n", states, errors, open_);
    fclose(f);
}
